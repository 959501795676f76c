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
    use crate::label::{BlastRadius, Class, Label};

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

    /// A batch remembers what the taxonomy says of each command word it
    /// met: the same word written another way (a path, upper case, behind
    /// a wrapper, nested, as an alias, asking for help) must still get the
    /// label it gets alone, whichever way came first.
    #[test]
    fn a_batch_labels_a_word_met_again_as_it_would_alone() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        let guises = [
            "head notes.txt",
            "HEAD notes.txt",
            "/usr/bin/head notes.txt",
            "./head notes.txt",
            "sudo head notes.txt",
            "sh -c 'head notes.txt'",
            "head notes.txt | rm -rf /",
            "rm -rf /",
            "rm --help",
            "rm -rf -- --help",
            "/bin/rm notes.txt",
            "sudo rm -rf /",
            "env RM=1 rm -rf build",
            "git status",
            "git push --force",
            "git rebase --onto main -h",
            "\\rm -rf /tmp/x",
            "cat .env",
            "cat notes.txt",
            // Behind wrappers, whose own word is the one read.
            "command cat notes.txt",
            "env cat notes.txt",
            "nice cat notes.txt",
            "time cat notes.txt",
            "timeout 5 cat notes.txt",
            "nohup cat notes.txt",
            "exec cat notes.txt",
            "command -v rm",
            "rm -v notes.txt",
            "nice -n 5 git push",
            "nice --adjustment=5 cat notes.txt",
            "time -p cat notes.txt",
            "timeout --signal=KILL 5 cat notes.txt",
            // Other words with the same first letters.
            "chmod -R 000 /",
            "cal",
            "rmdir build",
            "hexdump -C notes.txt",
            "gzip notes.txt",
        ];
        let here = Context::default();
        let alone: Vec<Label> = guises
            .iter()
            .map(|g| c.classify_terse_in(g, &here))
            .collect();
        // Each order: as listed, reversed, and each command twice in a row.
        let orders: [Vec<&str>; 3] = [
            guises.to_vec(),
            guises.iter().rev().copied().collect(),
            guises.iter().flat_map(|g| [*g, *g]).collect(),
        ];
        for order in orders {
            let calls: Vec<(&str, Context)> = order.iter().map(|g| (*g, here)).collect();
            let labels = c.classify_terse_all(&calls);
            for (command, label) in order.iter().zip(&labels) {
                let i = guises.iter().position(|g| g == command).unwrap_or_default();
                assert_eq!(*label, alone[i], "{command}");
            }
        }
        let class = |i: usize| alone[i].class;
        assert_eq!(
            [
                class(0),
                class(1),
                class(3),
                class(4),
                class(7),
                class(8),
                class(18)
            ],
            [
                Class::Safe,
                Class::Unknown,
                Class::Unknown,
                Class::Unknown,
                Class::Destructive,
                Class::Safe,
                Class::Safe
            ]
        );
    }

    /// The memo keeps at most so many words; a batch of more distinct
    /// words than that still labels every one, the later ones looked up.
    #[test]
    fn a_batch_of_more_words_than_the_memo_keeps_is_labelled_in_full() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        let here = Context::default();
        let mut commands: Vec<String> = (0..5000).map(|i| format!("tool{i} --all")).collect();
        commands.extend(["rm -rf /", "cat notes.txt", "tool4999 --all"].map(String::from));
        let calls: Vec<(&str, Context)> = commands.iter().map(|c| (c.as_str(), here)).collect();
        let labels = c.classify_terse_all(&calls);
        let classes: Vec<Class> = labels[4999..].iter().map(|l| l.class).collect();
        assert_eq!(
            classes,
            [
                Class::Unknown,
                Class::Destructive,
                Class::Safe,
                Class::Unknown
            ]
        );
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
