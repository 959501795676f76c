//! Generating an entry's regex from its structured shape, and composing the
//! patterns of one group. Standalone (only `schema` and `pattern` beside
//! it) because `build.rs` includes it too: the automata it compiles at build
//! time must come from exactly the patterns the run-time matcher generates.

use std::collections::BTreeMap;

use serde::Serialize;

use super::pattern::{self, Shape};
use super::schema::RawRule;
pub use super::schema::RuleKind;

/// Checks a regex cannot express cheaply, applied after a pattern matched.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PostCheck {
    /// A regex over the canonical form that must *not* match (forbidden flags
    /// or arguments, or a dry-run form).
    pub forbid: Option<String>,
    /// At most this many positional arguments after the subcommand.
    pub max_args: Option<usize>,
    /// At least this many.
    pub min_args: Option<usize>,
    /// How many subcommand words precede the counted arguments.
    pub subcommand_len: usize,
}

/// A rule's regex source and the checks applied after it matched.
#[derive(Clone, Debug, Serialize)]
pub struct Compiled {
    /// The regex source.
    pub pattern: String,
    /// For structured entries: the pattern after its command word, so that a
    /// group for one word can compile `^\x1fWORD\x1f` + this.
    pub tail: Option<String>,
    /// Checks applied after the pattern matched.
    pub post: PostCheck,
}

/// The matcher kind of an entry as written: structured (`command` without
/// `regex`), `sql`, `code` or `regex`. Entries that give none or several are
/// refused by the loader; here they count as what they first name.
pub fn kind_of(raw: &RawRule) -> RuleKind {
    if !raw.command.is_empty() && raw.regex.is_none() {
        RuleKind::Command
    } else if raw.sql.is_some() {
        RuleKind::Sql
    } else if raw.code.is_some() {
        RuleKind::Code
    } else {
        RuleKind::Regex
    }
}

/// The regex of a non-structured entry (its `sql`, `code` or `regex`), if
/// it gives one.
pub fn raw_pattern(raw: &RawRule) -> Option<&str> {
    raw.sql
        .as_deref()
        .or(raw.code.as_deref())
        .or(raw.regex.as_deref())
}

/// An entry's pattern inside the group for one command word: structured
/// entries are anchored on that word alone, so the group's automaton does
/// not carry every spelling of every entry's command.
pub fn group_pattern(word: Option<&str>, compiled: &Compiled) -> String {
    match (word, &compiled.tail) {
        (Some(word), Some(tail)) => format!("^\\x1f{}\\x1f{tail}", pattern::regex_escape(word)),
        _ => compiled.pattern.clone(),
    }
}

/// Generates a structured entry's regex and post-checks. `commands` are the
/// entry's command words (the loader keeps them on the rule, not in `raw`).
pub fn structured<S: AsRef<str>>(
    commands: &[S],
    raw: &RawRule,
    shapes: &BTreeMap<String, String>,
) -> Result<Compiled, (&'static str, String)> {
    // Generating patterns is the cold path: a copy of the words is fine.
    let commands: Vec<String> = commands.iter().map(|c| c.as_ref().to_string()).collect();
    let commands = commands.as_slice();
    let shape = Shape {
        command: commands,
        subcommand: &raw.subcommand,
        flags: &raw.flags,
        args: &raw.args,
    };
    let pattern = pattern::destructive_regex(&shape, shapes)
        .map_err(|m| (if m.contains("shape") { "args" } else { "flags" }, m))?;
    let mut forbids = Vec::new();
    if !raw.forbid_flags.is_empty() {
        forbids.push(pattern::any_flag_regex(&raw.forbid_flags));
    }
    if !raw.forbid_args.is_empty() {
        forbids.push(
            pattern::any_arg_regex(&raw.forbid_args, shapes).map_err(|m| ("forbid_args", m))?,
        );
    }
    if !raw.dry_run.is_empty() {
        forbids.push(pattern::dry_run_regex(&raw.dry_run));
    }
    let forbid = (!forbids.is_empty()).then(|| forbids.join("|"));
    let tail = pattern
        .strip_prefix(&pattern::command_prefix(commands))
        .map(String::from);
    Ok(Compiled {
        pattern,
        tail,
        post: PostCheck {
            forbid,
            max_args: raw.max_args,
            min_args: raw.min_args,
            subcommand_len: raw.subcommand.len(),
        },
    })
}
