//! The classifier: shell front end, normaliser and matcher put together, and
//! the rules that turn their findings into one [`Label`](crate::Label).
//!
//! * A destructive match on any command found anywhere wins, with the worst
//!   blast radius (ties: the earliest entry in taxonomy order).
//! * Safe needs exactly one simple command, literal words, no writing
//!   redirection, no wrapper that changes who runs it, nothing nested, and a
//!   command spec that explains every word.
//! * Everything else is unknown, with a reason. Nothing here panics or does
//!   I/O; a taxonomy that fails to load degrades every label to unknown.
//!
//! The stages, one file each: [`Classifier`] and its entry points
//! (`classifier.rs`); the walk over the shell syntax (`walk.rs`);
//! destructive matching and where writes land (`destructive.rs`); the safe
//! judgement by spec and of compound parts (`safe.rs`); self-protection as
//! the shell reaches a path (`protect.rs`); what pipelines feed their
//! commands (`feeds.rs`); and what is reported (`analysis.rs`).

mod analysis;
mod classifier;
mod destructive;
mod feeds;
mod protect;
mod safe;
mod walk;

pub use crate::spec::Context;
pub use analysis::{Analysis, Assessment, Examined, Finding};
pub use classifier::{classify, classify_bytes, Classifier, Detail, Options};
pub use safe::{HELP_CATEGORY, VERSION_CATEGORY};
pub use walk::{MAX_INVOCATIONS, MAX_NESTING};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::{BlastRadius, Class};

    #[test]
    fn only_blank_commands_are_empty() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        for blank in ["", " ", "\t\n", "\u{a0}\u{3000}", " \u{2028}"] {
            let label = c.classify(blank);
            assert_eq!(
                (label.class, label.blast_radius, label.reason.as_ref()),
                (Class::Unknown, BlastRadius::Unknown, "empty command"),
                "{blank:?}"
            );
        }
        for written in [" ls", "\u{a0}ls", "ls", "\tls "] {
            assert_ne!(c.classify(written).reason, "empty command", "{written:?}");
        }
    }

    #[test]
    fn a_named_assessment_is_the_terse_label_and_the_first_command() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        let at = |detail| Options {
            context: Context::default(),
            detail,
            reach: false,
        };
        for (command, first) in [
            ("sudo find . -name '*.log' | wc -l", Some("find")),
            ("git status", Some("git")),
            ("rm -rf build && make", Some("rm")),
            ("FOO=1 env -i /usr/bin/ls -l", Some("ls")),
            // The substitution runs first.
            ("echo $(whoami)", Some("whoami")),
            ("frobnicate --all", Some("frobnicate")),
            ("   ", None),
        ] {
            let named = c.assess(command, &at(Detail::Named));
            let terse = c.assess(command, &at(Detail::Terse));
            let full = c.assess(command, &at(Detail::Explain));
            assert_eq!(named.label, terse.label, "{command}");
            assert_eq!(named.first_command.as_deref(), first, "{command}");
            // The name is the first command `explain` examined, and
            // only a terse assessment leaves it out.
            let examined = full.commands.first().map(|e| e.command.split(' ').next());
            assert_eq!(examined.flatten(), first, "{command}");
            assert_eq!(terse.first_command, None, "{command}");
            assert_eq!(
                (named.label.class, named.label.blast_radius),
                (full.label.class, full.label.blast_radius),
                "{command}"
            );
        }
    }

    #[test]
    fn a_relative_target_lands_where_cd_moved() {
        use BlastRadius::{High, Low, Medium};
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        for (command, radius) in [
            // Moved to a system directory, a home, a temporary one.
            ("cd /etc && rm hosts", High),
            ("cd /etc; cd nginx; rm nginx.conf", High),
            ("cd ~ && rm .bashrc", High),
            ("cd /tmp && rm x", Low),
            ("cd ~/proj && rm notes.txt", Medium),
            // A failed `cd` leaves the shell where it was: the worse counts.
            ("cd /tmp/a; rm -rf ../x", High),
            // Where it started, and back to a fixed place after a lost one.
            ("cd src && rm x.o", Low),
            ("cd \"$D\" && cd /tmp && rm x", Low),
            // Absolute targets do not care where the shell is.
            ("cd /etc && rm /tmp/x", Low),
        ] {
            let label = c.classify(command);
            assert_eq!(
                (label.class, label.blast_radius),
                (Class::Destructive, radius),
                "{command:?}: {label:?}"
            );
        }
    }
}
