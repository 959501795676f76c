//! The on-disk shape of taxonomy files, as serde reads them.
//!
//! Every struct denies unknown keys: a misspelt key in a hand-edited file is
//! an error that names the file, not a rule that silently never matches.
//!
//! Standalone (no crate imports) because `build.rs` includes it too: it reads
//! the embedded files into these structs and stores them as a [`Bundle`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One rule file (`taxonomy/rules/*.toml`): destructive shapes and safe shapes
/// of one domain.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Shapes that destroy or change something that matters.
    #[serde(default)]
    pub destructive: Vec<RawRule>,
    /// Read-only shapes that may be auto-approved.
    #[serde(default)]
    pub safe: Vec<RawRule>,
}

/// What a rule looks at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// A structured shape over a normalised command's canonical form.
    Command,
    /// A regex over SQL text sent to a database client.
    Sql,
    /// A regex over interpreter code.
    Code,
    /// A raw regex over the normalised command line.
    Regex,
}

/// One taxonomy entry as written.
///
/// Exactly one matcher kind is used: a structured command shape
/// (`command` with optional `subcommand`, `flags`, `args`), `sql`, `code` or
/// the raw `regex` escape hatch.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// Unique id across the whole taxonomy, e.g. `rm-recursive`.
    pub id: String,
    /// Category tag, e.g. `fs-delete`.
    pub category: String,
    /// `low`, `medium` or `high`; required for destructive entries, forbidden
    /// for safe ones.
    pub blast_radius: Option<String>,
    /// Why this shape is what it is, for a person.
    pub reason: String,
    /// Command words this entry applies to (after normalisation: basename,
    /// lowercase). `@write`, `@append`, `@pipe-shell` … name synthetic
    /// commands the normaliser emits.
    #[serde(default)]
    pub command: Vec<String>,
    /// Words that must follow the command word, in order, each `a|b`
    /// alternatives; `*` matches any one word.
    #[serde(default)]
    pub subcommand: Vec<String>,
    /// Required flags, each `-r|-R|--recursive` alternatives; all must be
    /// present (in any order, bundled or not).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Flags whose presence stops this entry from matching.
    #[serde(default)]
    pub forbid_flags: Vec<String>,
    /// Safe entries only: when set, every flag must be one of these.
    pub allow_flags: Option<Vec<String>>,
    /// Destructive: required argument shapes (each must match some argument
    /// after the subcommand). Safe: every positional argument must match one
    /// of these shapes.
    #[serde(default)]
    pub args: Vec<String>,
    /// Argument shapes whose presence stops this entry from matching.
    #[serde(default)]
    pub forbid_args: Vec<String>,
    /// At most this many positional arguments after the subcommand.
    pub max_args: Option<usize>,
    /// At least this many positional arguments after the subcommand.
    pub min_args: Option<usize>,
    /// Safe entries: allow flags between the command word and the
    /// subcommand (e.g. `kubectl -n prod get pods`). Default false for safe
    /// entries, always allowed for destructive ones.
    #[serde(default)]
    pub global_flags: bool,
    /// Safe entries: every path argument (and option value) must stay inside
    /// the working directory: no absolute path, no `~`, no `..` segment.
    #[serde(default)]
    pub local_paths: bool,
    /// A regex over SQL text sent to a database client.
    pub sql: Option<String>,
    /// A regex over interpreter code (`python -c`, `node -e`, …).
    pub code: Option<String>,
    /// A raw regex over the normalised command line (words joined by single
    /// spaces, command word first).
    pub regex: Option<String>,
    /// Commands this entry must match.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Near misses this entry must not match.
    #[serde(default)]
    pub near_misses: Vec<String>,
}

/// `taxonomy/commands.toml`: how commands take their arguments.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommandsFile {
    /// Per command (or `command subcommand …` path): argument conventions.
    #[serde(default)]
    pub command: BTreeMap<String, RawCommandSpec>,
    /// Wrappers that run the rest of their arguments as a command.
    #[serde(default)]
    pub wrapper: Vec<RawWrapper>,
    /// Named argument shapes usable as `{name}` in rules.
    #[serde(default)]
    pub shape: BTreeMap<String, String>,
}

/// Argument conventions of one command or subcommand path.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommandSpec {
    /// Options that take a value as the next word (`-C dir`) or glued
    /// (`-Cdir`, `--git-dir=x`).
    #[serde(default)]
    pub value_flags: Vec<String>,
    /// Options are words like `-Recurse` or `-delete`, never bundles of
    /// single letters.
    #[serde(default)]
    pub long_single_dash: bool,
    /// Options dropped before matching because they cannot change what the
    /// command does (`git --no-pager`).
    #[serde(default)]
    pub ignore_flags: Vec<String>,
    /// Another spelling of a command path (`docker-compose` is
    /// `docker compose`): matched as that path.
    pub alias: Option<String>,
}

/// A wrapper command such as `sudo`, `nice` or `timeout`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawWrapper {
    /// The wrapper's names.
    pub names: Vec<String>,
    /// Its options that take a value.
    #[serde(default)]
    pub value_flags: Vec<String>,
    /// Positional words the wrapper consumes before the command (e.g. the
    /// duration of `timeout`).
    #[serde(default)]
    pub skip_positionals: usize,
    /// `NAME=value` words before the command are environment assignments.
    #[serde(default)]
    pub assignments: bool,
    /// The wrapped command may still be labelled safe (the wrapper only
    /// changes scheduling, timing or environment).
    #[serde(default)]
    pub keeps_safe: bool,
    /// The wrapper joins its arguments into one string and runs it with
    /// `sh -c` (as `watch` does).
    #[serde(default)]
    pub joins: bool,
    /// Options after which the wrapper runs no command at all (e.g.
    /// `command -v`): the whole call is a lookup.
    #[serde(default)]
    pub lookup_flags: Vec<String>,
    /// Options that make the wrapper itself write or act (`time -o FILE`):
    /// with one of them the wrapped command is no longer safe.
    #[serde(default)]
    pub unsafe_flags: Vec<String>,
    /// An option whose value is a shell string to run (`su -c`).
    pub string_flag: Option<String>,
    /// An option whose value is split into words and prepended (`env -S`).
    pub split_flag: Option<String>,
}

/// The embedded taxonomy as `build.rs` stores it in the binary: the files
/// already parsed and checked against this schema, without examples, in
/// postcard's compact binary form, read at run time without copying its
/// text. A hook runs as a fresh process for every tool call; decoding this
/// costs a small fraction of parsing TOML or JSON.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct Bundle<'a> {
    /// How many `.toml` files were found, converted or not: a file that did
    /// not parse at build time is missing from `rule_files`, and the loader
    /// refuses a bundle that lost one.
    pub files_seen: usize,
    /// `commands.toml`, if it parsed.
    #[serde(borrow)]
    pub commands: Option<CommandsView<'a>>,
    /// Each rule file that parsed, in path order.
    #[serde(borrow)]
    pub rule_files: Vec<BundledRules<'a>>,
}

/// One rule file in a [`Bundle`].
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct BundledRules<'a> {
    /// Its path relative to the taxonomy root.
    pub path: &'a str,
    /// Its entries: destructive first, then safe, each in file order.
    #[serde(borrow)]
    pub rules: Vec<BundledRule<'a>>,
}

/// One entry in a [`Bundle`]: what labelling needs at once, and the rest
/// of the entry still encoded, for when its pattern is first generated.
#[derive(Debug, Deserialize, Serialize)]
pub struct BundledRule<'a> {
    /// A safe entry (else destructive).
    pub safe: bool,
    /// The line of its `id`.
    pub line: usize,
    /// As in [`RawRule`].
    pub id: &'a str,
    /// As in [`RawRule`].
    pub category: &'a str,
    /// As in [`RawRule`].
    pub blast_radius: Option<&'a str>,
    /// As in [`RawRule`].
    pub reason: &'a str,
    /// As in [`RawRule`].
    #[serde(borrow)]
    pub command: Vec<&'a str>,
    /// What it looks at.
    pub kind: RuleKind,
    /// Its `sql`, `code` or `regex`, if it has one and no structured shape.
    pub pattern: Option<&'a str>,
    /// The whole [`RawRule`] (examples left out) in postcard form.
    pub raw: &'a [u8],
}

/// `commands.toml` with its text borrowed: what the binary embeds, and what
/// the loader reads for both the embedded taxonomy and a file on disk.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct CommandsView<'a> {
    /// As in [`CommandsFile::command`].
    #[serde(borrow)]
    pub command: Vec<(&'a str, SpecView<'a>)>,
    /// As in [`CommandsFile::wrapper`].
    #[serde(borrow)]
    pub wrapper: Vec<WrapperView<'a>>,
    /// As in [`CommandsFile::shape`].
    #[serde(borrow)]
    pub shape: Vec<(&'a str, &'a str)>,
}

/// [`RawCommandSpec`] with its text borrowed.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct SpecView<'a> {
    #[serde(borrow)]
    pub value_flags: Vec<&'a str>,
    pub long_single_dash: bool,
    #[serde(borrow)]
    pub ignore_flags: Vec<&'a str>,
    pub alias: Option<&'a str>,
}

/// [`RawWrapper`] with its text borrowed.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct WrapperView<'a> {
    #[serde(borrow)]
    pub names: Vec<&'a str>,
    #[serde(borrow)]
    pub value_flags: Vec<&'a str>,
    pub skip_positionals: usize,
    pub assignments: bool,
    pub keeps_safe: bool,
    pub joins: bool,
    #[serde(borrow)]
    pub lookup_flags: Vec<&'a str>,
    #[serde(borrow)]
    pub unsafe_flags: Vec<&'a str>,
    pub string_flag: Option<&'a str>,
    pub split_flag: Option<&'a str>,
}

impl CommandsFile {
    /// The file with its text borrowed.
    pub fn view(&self) -> CommandsView<'_> {
        fn strs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        CommandsView {
            command: self
                .command
                .iter()
                .map(|(path, spec)| {
                    let view = SpecView {
                        value_flags: strs(&spec.value_flags),
                        long_single_dash: spec.long_single_dash,
                        ignore_flags: strs(&spec.ignore_flags),
                        alias: spec.alias.as_deref(),
                    };
                    (path.as_str(), view)
                })
                .collect(),
            wrapper: self
                .wrapper
                .iter()
                .map(|w| WrapperView {
                    names: strs(&w.names),
                    value_flags: strs(&w.value_flags),
                    skip_positionals: w.skip_positionals,
                    assignments: w.assignments,
                    keeps_safe: w.keeps_safe,
                    joins: w.joins,
                    lookup_flags: strs(&w.lookup_flags),
                    unsafe_flags: strs(&w.unsafe_flags),
                    string_flag: w.string_flag.as_deref(),
                    split_flag: w.split_flag.as_deref(),
                })
                .collect(),
            shape: self
                .shape
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
        }
    }
}
