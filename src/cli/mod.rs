//! Command-line front end. clap types stay here; the library never sees
//! them.
//!
//! Exit codes: 0 on success; 1 when `check` finds a failed expectation or
//! `scan --fail-on` is triggered; 2 on a usage or input error (with the
//! message on stderr). A closed stdout (a pipe into `head`) counts as
//! success.

mod action;
mod check;
mod classify;
mod explain;
mod hook;
mod install;
mod log;
mod placement;
mod profile;
mod rules;
mod scan;

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Labels the tool calls an AI agent wants to make as safe, destructive or
/// unknown.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub global: Global,

    #[command(subcommand)]
    pub command: Command,
}

/// The options every subcommand takes.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Load the taxonomy from this directory instead of the embedded one
    /// (a `commands.toml`, `rules/*.toml` and `specs/*.toml`, as in the
    /// repository; a directory without one of them is an error).
    #[arg(long, global = true, value_name = "DIR")]
    pub taxonomy: Option<PathBuf>,
}

/// `toolgate hook …` as a parser that knows the hook's options alone.
///
/// A hook is a fresh process for every tool call, and declaring every
/// subcommand to clap cost it more than reading its payload (in a hook
/// for `git status`, some 90,000 of 820,000 instructions). A command line
/// this parser reads is read as [`Args`] reads it: the same option types,
/// with the same attributes. One it cannot read (help, a mistake, options
/// before `hook`) goes to [`Args`], which gives the help or the error.
#[derive(Debug, Parser)]
#[command(name = "toolgate")]
struct HookLine {
    #[command(flatten)]
    global: Global,

    #[command(subcommand)]
    command: HookOnly,
}

#[derive(Debug, Subcommand)]
enum HookOnly {
    Hook(hook::HookArgs),
}

/// The hook's command line, when it starts with `hook` and reads well.
fn hook_line() -> Option<(Global, hook::HookArgs)> {
    if std::env::args_os().nth(1)? != "hook" {
        return None;
    }
    let HookLine {
        global,
        command: HookOnly::Hook(args),
    } = HookLine::try_parse().ok()?;
    Some((global, args))
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object.
    Json,
    /// A line for people.
    Text,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Label one shell command (its words are joined with spaces; `-`
    /// reads it from stdin). Options go before the command; put `--`
    /// before a command that starts with `-` or takes `--format`/`--cwd`.
    Classify {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        /// The working directory the command runs in (absolute): absolute
        /// paths below it are then inside, as relative ones are.
        #[arg(long, value_name = "DIR")]
        cwd: Option<String>,
        /// The command, as one argument or several.
        #[arg(required = true, allow_hyphen_values = true, trailing_var_arg = true)]
        command: Vec<String>,
    },
    /// Classify many commands: lines, JSONL, shell scripts, CI workflows,
    /// Dockerfiles, Makefiles, package.json, agent transcripts; JSONL,
    /// SARIF, annotations or a summary out.
    Scan(Deferred<scan::ScanArgs>),
    /// Check labelled expectations (JSONL) and report every failure.
    Check {
        /// Corpus files, one JSON object per line (`-` reads standard
        /// input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Answer one agent hook payload on stdin (Claude Code, Codex, Gemini
    /// CLI, docker-agent): always a well-formed answer, fail-closed on bad
    /// input.
    Hook(Deferred<hook::HookArgs>),
    /// Run a side-effecting command at most once under an action-guard
    /// policy; inspect, reconcile or resolve what happened.
    Action(Deferred<action::ActionArgs>),
    /// List, show, add and remove profiles (safety modes, automation and
    /// action-class profiles, custom `namespace/name` ones).
    Profile(Deferred<profile::ProfileArgs>),
    /// Merge toolgate's hook into an agent client's settings (or a
    /// project's), keeping everything else; `--dry-run` shows the diff.
    Install(Deferred<install::InstallArgs>),
    /// Remove toolgate's hook from a client's settings, and nothing else.
    Uninstall(Deferred<install::UninstallArgs>),
    /// Check every installed hook: is it there, does its binary run, does
    /// it answer a destructive and a safe canary as its mode says.
    Doctor(Deferred<install::DoctorArgs>),
    /// Show the decision log: what the hook answered, when and why
    /// (`--stats` for counts).
    Log(Deferred<log::LogArgs>),
    /// Propose allow rules for the unknown commands asked about most, from
    /// the decision log, each with its count and `toolgate allow` line.
    Suggest(Deferred<log::SuggestArgs>),
    /// Add an allow rule to your toolgate config (`shell:cmd=npm test`);
    /// a project cannot allow, only tighten.
    Allow(Deferred<rules::RuleArgs>),
    /// Add an ask rule to your config, or with --project to the project's.
    Ask(Deferred<rules::RuleArgs>),
    /// Add a deny rule to your config, or with --project to the project's.
    Deny(Deferred<rules::RuleArgs>),
    /// Show how a command was read and why it got its label.
    Explain {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The working directory the command runs in (absolute).
        #[arg(long, value_name = "DIR")]
        cwd: Option<String>,
        /// The command, as one argument or several.
        #[arg(required = true, allow_hyphen_values = true, trailing_var_arg = true)]
        command: Vec<String>,
    },
}

/// A subcommand's arguments, declared to clap only when that subcommand
/// runs (or its help is shown): a hook process then pays for building its
/// own options, not for every other subcommand's.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(declare::<T>)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(declare_for_update::<T>)
    }
}

/// Declares `T`'s arguments, keeping the subcommand's own description (the
/// arguments' type has one too, which would otherwise replace it).
fn declare<T: clap::Args>(cmd: clap::Command) -> clap::Command {
    let about = (cmd.get_about().cloned(), cmd.get_long_about().cloned());
    restore_about(T::augment_args(cmd), about)
}

/// [`declare`] for updates.
fn declare_for_update<T: clap::Args>(cmd: clap::Command) -> clap::Command {
    let about = (cmd.get_about().cloned(), cmd.get_long_about().cloned());
    restore_about(T::augment_args_for_update(cmd), about)
}

fn restore_about(
    cmd: clap::Command,
    (about, long): (
        Option<clap::builder::StyledStr>,
        Option<clap::builder::StyledStr>,
    ),
) -> clap::Command {
    let cmd = match about {
        Some(about) => cmd.about(about),
        None => cmd,
    };
    match long {
        Some(long) => cmd.long_about(long),
        None => cmd,
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
}

/// The hook answers on every path, in its client's protocol: it does not
/// go through the generic error handling of [`main`].
fn run_hook(global: Global, args: hook::HookArgs) -> u8 {
    let taxonomy = global.taxonomy;
    let load = move || classify::load(taxonomy.as_deref()).map_err(|e| format!("{e:#}"));
    hook::run(load, args)
}

/// Runs the command line; returns the exit status.
pub fn main() -> u8 {
    if let Some((global, hook_args)) = hook_line() {
        return run_hook(global, hook_args);
    }
    let args = Args::parse();
    if let Command::Hook(Deferred(hook_args)) = args.command {
        return run_hook(args.global, hook_args);
    }
    // Smaller than what one scan task writes (about 50 KB), so that a task's
    // output goes to stdout as it is instead of being copied through the
    // buffer first; still large enough to gather the small writes of every
    // other command.
    let mut out = io::BufWriter::with_capacity(8 << 10, io::stdout());
    if let Command::Action(Deferred(action_args)) = args.command {
        // Its own exit statuses (see `cli::action`).
        return match action::run(action_args, &mut out) {
            Ok(code) => match out.flush() {
                Ok(()) => code,
                Err(e) => finish(Err(e.into()), &mut out),
            },
            Err(e) => finish(Err(e), &mut out),
        };
    }
    if let Command::Profile(Deferred(profile_args)) = args.command {
        // Profiles need no classifier.
        return finish(profile::run(profile_args, &mut out), &mut out);
    }
    if let Command::Log(Deferred(log_args)) = args.command {
        // Nor does the log.
        return finish(log::run(log_args, &mut out), &mut out);
    }
    if let Command::Suggest(Deferred(a)) = args.command {
        return finish(log::run_suggest(a, &mut out), &mut out);
    }
    // Nor do the rule writers.
    let rule = match args.command {
        Command::Allow(Deferred(a)) => (rules::List::Allow, a),
        Command::Ask(Deferred(a)) => (rules::List::Ask, a),
        Command::Deny(Deferred(a)) => (rules::List::Deny, a),
        command => {
            let args = Args {
                global: args.global,
                command,
            };
            // Whether `--` was written: after it, every word is the command's.
            let dashdash = std::env::args_os().skip(1).any(|a| a == "--");
            let result = run(args, dashdash, &mut out);
            return finish(result, &mut out);
        }
    };
    finish(rules::run(rule.0, rule.1, &mut out), &mut out)
}

/// Options `classify` and `explain` take, which clap's trailing command
/// words would otherwise swallow.
const WORD_OPTIONS: &[&str] = &["--format", "--cwd", "--taxonomy"];

/// Checks the command words of `classify` and `explain`. clap reads every
/// word from the first command word on as part of the command, so a
/// mistyped option (`--fromat text ls`) would be labelled as a command and
/// an option after the command (`'rm -rf /' --format text`) silently
/// ignored. Without `--`, both are errors: an option-looking first word is
/// not a command, and toolgate's own option among the words is refused
/// rather than guessed at, since the command may take an option of the same
/// name (`git log --format=%H`). After `--`, every word is the command's.
fn check_words(words: &[String], dashdash: bool) -> anyhow::Result<()> {
    if dashdash {
        return Ok(());
    }
    if let Some(first) = words.first().filter(|w| w.starts_with('-') && *w != "-") {
        anyhow::bail!(
            "unknown option `{first}` (to label a command that starts with `-`, put `--` before it)"
        );
    }
    let option = |w: &String| {
        WORD_OPTIONS
            .iter()
            .find(|o| w == *o || w.strip_prefix(**o).is_some_and(|r| r.starts_with('=')))
    };
    if let Some(o) = words.iter().skip(1).find_map(option) {
        anyhow::bail!(
            "`{o}` after the command words: put toolgate's options before the command, \
             or `--` before a command that takes `{o}` itself"
        );
    }
    Ok(())
}

/// Flushes and maps a result to the exit code.
fn finish(result: anyhow::Result<bool>, out: &mut dyn Write) -> u8 {
    match result.and_then(|ok| out.flush().map(|()| ok).map_err(anyhow::Error::from)) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            eprintln!("toolgate: {e:#}");
            2
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `hook`, `action`, `profile`, `log` and the rule writers are dispatched
/// in [`main`] before this point.
fn unreachable_hook() -> anyhow::Result<bool> {
    anyhow::bail!("internal: hook is handled before run")
}

/// Runs one subcommand; `Ok(false)` means "ran, but the answer is a
/// failure" (exit status 1).
fn run(args: Args, dashdash: bool, out: &mut (dyn Write + Send)) -> anyhow::Result<bool> {
    let classifier = classify::load(args.global.taxonomy.as_deref())?;
    match args.command {
        Command::Classify {
            format,
            cwd,
            command,
        } => {
            check_words(&command, dashdash)?;
            let ctx = context(cwd.as_deref())?;
            classify::run(classifier, format, &command, &ctx, out).map(|()| true)
        }
        Command::Scan(Deferred(scan_args)) => {
            scan::run(classifier, scan_args, out).map(|failed| !failed)
        }
        Command::Check { files } => check::run(classifier, &files, out),
        Command::Explain {
            format,
            cwd,
            command,
        } => {
            check_words(&command, dashdash)?;
            let ctx = context(cwd.as_deref())?;
            explain::run(classifier, format, &command.join(" "), &ctx, out).map(|()| true)
        }
        Command::Install(Deferred(a)) => install::run_install(classifier, a, out),
        Command::Uninstall(Deferred(a)) => install::run_uninstall(a, out),
        Command::Doctor(Deferred(a)) => install::run_doctor(classifier, a, out),
        Command::Hook(_)
        | Command::Profile(_)
        | Command::Action(_)
        | Command::Log(_)
        | Command::Suggest(_)
        | Command::Allow(_)
        | Command::Ask(_)
        | Command::Deny(_) => unreachable_hook(),
    }
}

/// The classification context a `--cwd` flag gives.
pub(super) fn context(cwd: Option<&str>) -> anyhow::Result<toolgate::Context<'_>> {
    match cwd {
        Some(dir) if !dir.starts_with('/') => anyhow::bail!(
            "--cwd `{dir}`: give the working directory as an absolute path (for example `--cwd \"$PWD\"`)"
        ),
        cwd => Ok(toolgate::Context { cwd }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each parser makes of a command line, or that it refuses it.
    fn both(line: &[&str]) -> (Option<String>, Option<String>) {
        let full = Args::try_parse_from(line).ok().map(|a| match a.command {
            Command::Hook(Deferred(hook)) => format!("{:?}", (a.global, hook)),
            other => format!("not the hook: {other:?}"),
        });
        let fast = HookLine::try_parse_from(line).ok().map(|h| {
            let HookOnly::Hook(hook) = h.command;
            format!("{:?}", (h.global, hook))
        });
        (full, fast)
    }

    #[test]
    fn the_hook_parser_reads_a_hook_line_as_the_full_parser_does() {
        for line in [
            &["toolgate", "hook"][..],
            &["toolgate", "hook", "--mode", "balanced", "--headless"],
            &[
                "toolgate",
                "hook",
                "--taxonomy",
                "t",
                "--protocol=codex",
                "--profile",
                "ci",
                "--config",
                "c.toml",
                "--compound",
                "every-part-safe",
                "--label-only",
            ],
            &["toolgate", "--taxonomy", "t", "hook", "--mode="],
        ] {
            let (full, fast) = both(line);
            assert!(full.is_some(), "{line:?}");
            assert_eq!(full, fast, "{line:?}");
        }
    }

    #[test]
    fn what_the_hook_parser_cannot_read_the_full_parser_refuses() {
        for line in [
            &["toolgate", "hook", "--bogus"][..],
            &["toolgate", "hook", "--mode"],
            &["toolgate", "hook", "--help"],
            &["toolgate", "hook", "stray"],
            &["toolgate", "hook", "--headless", "--headless"],
            &["toolgate", "hook", "--mode", "", "--mode", "strict"],
        ] {
            assert_eq!(both(line), (None, None), "{line:?}");
        }
    }
}
