//! The on-disk shape of taxonomy files, as serde reads them.
//!
//! Every struct denies unknown keys: a misspelt key in a hand-edited file is
//! an error that names the file, not a rule that silently never matches.
//!
//! `build.rs` includes it too (with the two small modules it imports,
//! `le_words` and `word_hash`): it reads the embedded files into these
//! structs and writes them out as a [`Bundle`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::le_words::{le_u32, part_range, push_words, u32_of};
use crate::word_hash::word_hash;

/// One rule file (`taxonomy/rules/*.toml`): the destructive shapes of one
/// domain.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Shapes that destroy or change something that matters.
    #[serde(default)]
    pub destructive: Vec<RawRule>,
    /// A `[[safe]]` table, read only so that the loader can refuse it by
    /// name and point to `specs/`, where safe verdicts come from. It is
    /// never loaded.
    #[serde(default)]
    pub safe: Vec<RefusedEntry>,
}

/// An entry of a table the loader refuses (see [`RuleFile::safe`]). Only
/// its id is read, to name it in the error: an old safe entry, whatever
/// keys it has, gets that error and not one about a key.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct RefusedEntry {
    /// Its `id`.
    pub id: String,
}

/// What a rule looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `low`, `medium` or `high`: how much a match can destroy (required;
    /// optional here so that its absence is reported by the loader, with the
    /// entry).
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
    /// The tool's own simulate forms (`--dry-run`,
    /// `-n`, `--simulate`), each `a|b` alternatives, which make it print
    /// what it would do and change nothing. Present and switched on (not
    /// `--dry-run=false`, nor `--dry-run false`, which some parsers read
    /// as a value), they stop this entry from matching: the call is then
    /// unknown, not safe. Only forms that run nothing belong here (`make
    /// -n` still runs `$(shell …)` and `+` lines).
    #[serde(default)]
    pub dry_run: Vec<String>,
    /// Required argument shapes: each must match some argument after the
    /// subcommand.
    #[serde(default)]
    pub args: Vec<String>,
    /// Argument shapes whose presence stops this entry from matching.
    #[serde(default)]
    pub forbid_args: Vec<String>,
    /// At most this many positional arguments after the subcommand.
    pub max_args: Option<usize>,
    /// At least this many positional arguments after the subcommand.
    pub min_args: Option<usize>,
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
    /// The first operand is a search pattern, not a file (grep, rg): it is
    /// matched as the value of `-e`, so that a pattern such as `token` is
    /// not read as a file named so. When an option may already give the
    /// pattern (`-e`, `--regexp`, `-f`, `--file`, or a bundle holding `e`
    /// or `f`), every operand stays a file.
    #[serde(default)]
    pub pattern_operand: bool,
    /// Options dropped before matching because they cannot change what the
    /// command does (`git --no-pager`).
    #[serde(default)]
    pub ignore_flags: Vec<String>,
    /// Another spelling of a command path (`docker-compose` is
    /// `docker compose`): matched as that path.
    pub alias: Option<String>,
    /// Words that ask for help or a version wherever an option may stand
    /// on the command line, as this command's parser honours them (GNU
    /// getopt_long permutes `--help` to the front; git's parse-options
    /// answers `-h` anywhere; cobra, argparse and knack read `--help`
    /// anywhere): such a call prints text and exits, so no destructive
    /// entry applies to it. A subcommand path's list replaces its
    /// parent's (`git grep -h` lists no file names).
    #[serde(default)]
    pub help: Vec<String>,
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
/// already parsed and checked against this schema, without examples, as
/// Rust statics (`bundle.rs` in the build's output) that nothing decodes.
/// All its text sits in one string that records point into, and the lists
/// of words in one table read in place: a hook runs as a fresh process for
/// every tool call, and reads only the few records it needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bundle<'a> {
    /// How many `.toml` files `build.rs` found. It fails on a file it
    /// cannot read, parse or encode, so each is in `commands` or
    /// `rule_files`; the loader still refuses a bundle whose count differs.
    pub files_seen: usize,
    /// Every string of the bundle, end to end.
    pub text: &'a str,
    /// Lists of strings: each item a [`Span`] as two little-endian `u32`s,
    /// a list of [`ListTable::MIN`] to [`ListTable::MAX`] items after its
    /// table.
    pub lists: &'a [u8],
    /// `commands.toml`, if the taxonomy has one.
    pub commands: Option<CommandRecords<'a>>,
    /// Each rule file, in path order: its path and how many entries it
    /// holds.
    pub rule_files: &'a [(Span, u32)],
    /// Every entry of those files in order.
    pub rules: &'a [RuleRecord],
}

/// One entry of a [`Bundle`]: its texts and lists as places in the
/// bundle. Every entry is destructive: no field says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleRecord {
    /// The line of its `id`.
    pub line: u32,
    /// What it looks at.
    pub kind: RuleKind,
    /// As in [`RawRule`].
    pub id: Span,
    /// As in [`RawRule`].
    pub category: Span,
    /// As in [`RawRule`].
    pub blast_radius: Option<Span>,
    /// As in [`RawRule`].
    pub reason: Span,
    /// As in [`RawRule`].
    pub command: List,
    /// Its `sql`, `code` or `regex`, if it has one and no structured shape.
    pub pattern: Option<Span>,
    /// Its structured shape (all empty for an entry with a `pattern`),
    /// from which its pattern is generated on first use.
    pub shape: ShapeLists,
}

/// The fields of a structured entry's shape in a [`Bundle`], as in
/// [`RawRule`]: what its pattern and post-checks are generated from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeLists {
    pub subcommand: List,
    pub flags: List,
    pub forbid_flags: List,
    pub dry_run: List,
    pub args: List,
    pub forbid_args: List,
    pub max_args: Option<u32>,
    pub min_args: Option<u32>,
}

/// Where a string is in [`Bundle::text`]: offset and length.
pub type Span = (u32, u32);

/// Where a list is in [`Bundle::lists`]: first item and count.
pub type List = (u32, u32);

/// `commands.toml` in a [`Bundle`] (see [`CommandsView`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandRecords<'a> {
    /// Per command path, its conventions.
    pub command: &'a [CommandRecord],
    /// Per wrapper, how it is peeled.
    pub wrapper: &'a [WrapperRecord],
    /// The named shapes.
    pub shape: &'a [ShapeRecord],
}

/// [`RawCommandSpec`] and its path in a [`Bundle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandRecord {
    pub path: Span,
    pub value_flags: List,
    pub long_single_dash: bool,
    pub pattern_operand: bool,
    pub ignore_flags: List,
    pub alias: Option<Span>,
    pub help: List,
}

/// [`RawWrapper`] in a [`Bundle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WrapperRecord {
    pub names: List,
    pub value_flags: List,
    pub skip_positionals: u32,
    pub assignments: bool,
    pub keeps_safe: bool,
    pub joins: bool,
    pub lookup_flags: List,
    pub unsafe_flags: List,
    pub string_flag: Option<Span>,
    pub split_flag: Option<Span>,
}

/// A named shape (`[shape]` of `commands.toml`) in a [`Bundle`]: its
/// name and pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeRecord {
    pub name: Span,
    pub pattern: Span,
}

/// `commands.toml` as records, for a [`CommandRecords`] to borrow.
#[derive(Debug, Default)]
pub struct CommandRecordsBuf {
    /// See [`CommandRecords::command`].
    pub command: Vec<CommandRecord>,
    /// See [`CommandRecords::wrapper`].
    pub wrapper: Vec<WrapperRecord>,
    /// See [`CommandRecords::shape`].
    pub shape: Vec<ShapeRecord>,
}

impl CommandRecordsBuf {
    /// The form a [`Bundle`] holds.
    pub fn view(&self) -> CommandRecords<'_> {
        CommandRecords {
            command: &self.command,
            wrapper: &self.wrapper,
            shape: &self.shape,
        }
    }
}

/// Builds a [`Bundle`]: its text, lists, records and shapes, and the Rust
/// that makes them statics (in `build.rs`); the loader packs a
/// `commands.toml` read at run time with it too, to read it as it reads
/// the embedded one.
#[derive(Debug, Default)]
pub struct Packer {
    /// See [`Bundle::files_seen`].
    pub files_seen: usize,
    /// See [`Bundle::text`].
    pub text: String,
    /// See [`Bundle::lists`].
    pub lists: Vec<u8>,
    /// See [`Bundle::commands`].
    pub commands: Option<CommandRecordsBuf>,
    /// See [`Bundle::rule_files`].
    pub rule_files: Vec<(Span, u32)>,
    /// See [`Bundle::rules`].
    pub rules: Vec<RuleRecord>,
}

impl Packer {
    /// True while every place it handed out is exact: its text and lists
    /// are within what a `u32` offset reaches (4 GiB of text). Past that,
    /// [`Packer::span`] and [`Packer::list`] saturate, and a record could
    /// point at another's words.
    pub fn within_offsets(&self) -> bool {
        u32::try_from(self.text.len()).is_ok() && u32::try_from(self.lists.len() / 8).is_ok()
    }

    /// Stores a string.
    pub fn span(&mut self, s: &str) -> Span {
        let at = u32_of(self.text.len());
        self.text.push_str(s);
        (at, u32_of(s.len()))
    }

    /// Stores a list of strings, a long one after its [`ListTable`].
    pub fn list<S: AsRef<str>>(&mut self, items: &[S]) -> List {
        if ListTable::fits(items.len()) {
            let table = ListTable::of(items.iter().map(AsRef::as_ref));
            self.lists.extend_from_slice(&table.slots);
        }
        let first = u32_of(self.lists.len() / 8);
        for item in items {
            let (at, len) = self.span(item.as_ref());
            push_words(&mut self.lists, &[at, len]);
        }
        (first, u32_of(items.len()))
    }

    /// Stores the shape fields of an entry as written.
    pub fn shape(&mut self, raw: &RawRule) -> ShapeLists {
        ShapeLists {
            subcommand: self.list(&raw.subcommand),
            flags: self.list(&raw.flags),
            forbid_flags: self.list(&raw.forbid_flags),
            dry_run: self.list(&raw.dry_run),
            args: self.list(&raw.args),
            forbid_args: self.list(&raw.forbid_args),
            max_args: raw.max_args.map(u32_of),
            min_args: raw.min_args.map(u32_of),
        }
    }

    /// Stores an entry's record.
    pub fn rule(&mut self, record: RuleRecord) {
        self.rules.push(record);
    }

    /// Stores `commands.toml`.
    pub fn commands(&mut self, file: &CommandsFile) {
        let mut out = CommandRecordsBuf::default();
        for (path, spec) in &file.command {
            let path = self.span(path);
            let value_flags = self.list(&spec.value_flags);
            let ignore_flags = self.list(&spec.ignore_flags);
            let alias = spec.alias.as_deref().map(|a| self.span(a));
            let help = self.list(&spec.help);
            out.command.push(CommandRecord {
                path,
                value_flags,
                long_single_dash: spec.long_single_dash,
                pattern_operand: spec.pattern_operand,
                ignore_flags,
                alias,
                help,
            });
        }
        for w in &file.wrapper {
            let names = self.list(&w.names);
            let value_flags = self.list(&w.value_flags);
            let lookup_flags = self.list(&w.lookup_flags);
            let unsafe_flags = self.list(&w.unsafe_flags);
            let string_flag = w.string_flag.as_deref().map(|f| self.span(f));
            let split_flag = w.split_flag.as_deref().map(|f| self.span(f));
            out.wrapper.push(WrapperRecord {
                names,
                value_flags,
                skip_positionals: u32_of(w.skip_positionals),
                assignments: w.assignments,
                keeps_safe: w.keeps_safe,
                joins: w.joins,
                lookup_flags,
                unsafe_flags,
                string_flag,
                split_flag,
            });
        }
        for (k, v) in &file.shape {
            let (name, pattern) = (self.span(k), self.span(v));
            out.shape.push(ShapeRecord { name, pattern });
        }
        self.commands = Some(out);
    }

    /// The bundle, borrowing what was stored.
    pub fn bundle(&self) -> Bundle<'_> {
        Bundle {
            files_seen: self.files_seen,
            text: &self.text,
            lists: &self.lists,
            commands: self.commands.as_ref().map(CommandRecordsBuf::view),
            rule_files: &self.rule_files,
            rules: &self.rules,
        }
    }

    /// The bundle as a Rust expression of type `Bundle<'static>`, for the
    /// crate to include from the build's output directory, where `text`
    /// and `lists` name the files [`Packer::text`] and [`Packer::lists`]
    /// were written to.
    #[allow(dead_code)] // build.rs's: the crate includes what it wrote
    pub fn to_rust(&self, text: &str, lists: &str) -> String {
        use std::fmt::Write;
        let span = |(a, b): Span| format!("({a},{b})");
        let opt = |s: Option<Span>| {
            s.map_or_else(|| "None".to_string(), |s| format!("Some({})", span(s)))
        };
        let out_file =
            |kind: &str, name: &str| format!("{kind}!(concat!(env!(\"OUT_DIR\"), \"/{name}\"))");
        let mut out = String::from(
            "{\nuse crate::taxonomy::schema::{Bundle, CommandRecord as C, CommandRecords, RuleKind as K, RuleRecord as R, ShapeLists as L, ShapeRecord as S, WrapperRecord as W};\nBundle {\n",
        );
        let _ = writeln!(out, "files_seen: {},", self.files_seen);
        let _ = writeln!(out, "text: {},", out_file("include_str", text));
        let _ = writeln!(out, "lists: {},", out_file("include_bytes", lists));
        // One record as a struct literal of `name`, a field a line.
        let record = |out: &mut String, name: &str, fields: &[(&str, String)]| {
            out.push_str(name);
            out.push_str(" {");
            for (field, value) in fields {
                let _ = write!(out, " {field}: {value},");
            }
            out.push_str(" },\n");
        };
        match &self.commands {
            None => out.push_str("commands: None,\n"),
            Some(c) => {
                out.push_str("commands: Some(CommandRecords {\ncommand: &[\n");
                for r in &c.command {
                    record(
                        &mut out,
                        "C",
                        &[
                            ("path", span(r.path)),
                            ("value_flags", span(r.value_flags)),
                            ("long_single_dash", r.long_single_dash.to_string()),
                            ("pattern_operand", r.pattern_operand.to_string()),
                            ("ignore_flags", span(r.ignore_flags)),
                            ("alias", opt(r.alias)),
                            ("help", span(r.help)),
                        ],
                    );
                }
                out.push_str("],\nwrapper: &[\n");
                for w in &c.wrapper {
                    record(
                        &mut out,
                        "W",
                        &[
                            ("names", span(w.names)),
                            ("value_flags", span(w.value_flags)),
                            ("skip_positionals", w.skip_positionals.to_string()),
                            ("assignments", w.assignments.to_string()),
                            ("keeps_safe", w.keeps_safe.to_string()),
                            ("joins", w.joins.to_string()),
                            ("lookup_flags", span(w.lookup_flags)),
                            ("unsafe_flags", span(w.unsafe_flags)),
                            ("string_flag", opt(w.string_flag)),
                            ("split_flag", opt(w.split_flag)),
                        ],
                    );
                }
                out.push_str("],\nshape: &[\n");
                for r in &c.shape {
                    record(
                        &mut out,
                        "S",
                        &[("name", span(r.name)), ("pattern", span(r.pattern))],
                    );
                }
                out.push_str("],\n}),\n");
            }
        }
        out.push_str("rule_files: &[");
        for &(path, count) in &self.rule_files {
            let _ = write!(out, "({},{count}),", span(path));
        }
        out.push_str("],\nrules: &[\n");
        let number =
            |n: Option<u32>| n.map_or_else(|| "None".to_string(), |n| format!("Some({n})"));
        for r in &self.rules {
            let mut shape = String::new();
            record(
                &mut shape,
                "L",
                &[
                    ("subcommand", span(r.shape.subcommand)),
                    ("flags", span(r.shape.flags)),
                    ("forbid_flags", span(r.shape.forbid_flags)),
                    ("dry_run", span(r.shape.dry_run)),
                    ("args", span(r.shape.args)),
                    ("forbid_args", span(r.shape.forbid_args)),
                    ("max_args", number(r.shape.max_args)),
                    ("min_args", number(r.shape.min_args)),
                ],
            );
            record(
                &mut out,
                "R",
                &[
                    ("line", r.line.to_string()),
                    ("kind", format!("K::{:?}", r.kind)),
                    ("id", span(r.id)),
                    ("category", span(r.category)),
                    ("blast_radius", opt(r.blast_radius)),
                    ("reason", span(r.reason)),
                    ("command", span(r.command)),
                    ("pattern", opt(r.pattern)),
                    ("shape", shape.trim_end_matches(",\n").to_string()),
                ],
            );
        }
        out.push_str("],\n}\n}\n");
        out
    }
}

impl<'a> Bundle<'a> {
    /// A string; `None` if the span is not inside the text.
    pub fn str(&self, span: Span) -> Option<&'a str> {
        text_at(self.text, span)
    }

    /// How many entry records it holds.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// Entry record `i`'s blast radius text, read without the rest of the
    /// record.
    pub fn rule_radius(&self, i: usize) -> Option<Option<&'a str>> {
        self.opt(self.rules.get(i)?.blast_radius)
    }

    /// Entry record `i`'s category, read without the rest of the record
    /// (asked of every finding: is it a guard-tamper one?).
    pub fn rule_category(&self, i: usize) -> Option<&'a str> {
        self.str(self.rules.get(i)?.category)
    }

    /// Entry record `i`.
    pub fn rule(&self, i: usize) -> Option<&'a RuleRecord> {
        self.rules.get(i)
    }

    /// A structured entry's shape as written, its lists' words copied (for
    /// when its pattern is first generated); `None` if a word lies outside
    /// the bundle.
    pub fn raw_shape(&self, shape: &ShapeLists) -> Option<RawRule> {
        let words = |list: List| -> Option<Vec<String>> {
            self.words(list).map(|w| w.map(String::from)).collect()
        };
        Some(RawRule {
            subcommand: words(shape.subcommand)?,
            flags: words(shape.flags)?,
            forbid_flags: words(shape.forbid_flags)?,
            dry_run: words(shape.dry_run)?,
            args: words(shape.args)?,
            forbid_args: words(shape.forbid_args)?,
            max_args: shape.max_args.map(|n| n as usize),
            min_args: shape.min_args.map(|n| n as usize),
            ..RawRule::default()
        })
    }

    /// An optional string: `Some(None)` when absent, `None` if the span is
    /// not inside the text.
    fn opt(&self, span: Option<Span>) -> Option<Option<&'a str>> {
        match span {
            Some(span) => self.str(span).map(Some),
            None => Some(None),
        }
    }

    /// A list's strings one by one; `None` for one that lies outside the
    /// bundle.
    pub fn words(&self, (first, count): List) -> impl Iterator<Item = Option<&'a str>> {
        let (text, lists) = (self.text, self.lists);
        (first as usize..first as usize + count as usize)
            .map(move |i| text_at(text, span_at(lists, i)?))
    }

    /// A list as [`Words`], once it is known to lie inside the lists.
    /// (Each word's span is checked as it is read: a word outside the
    /// text, which only a damaged binary could hold, is skipped. Checking
    /// every word up front cost a hook process 6% of its instructions.)
    fn checked(&self, list: List) -> Option<Words<'a>> {
        let end = (list.0 as usize).checked_add(list.1 as usize)?;
        (end <= self.lists.len() / 8).then_some(Words {
            text: self.text,
            lists: self.lists,
            list,
        })
    }

    /// `commands.toml` as the loader reads it; `None` if a text or list
    /// of it lies outside the bundle.
    pub fn commands_view(&self, records: &CommandRecords<'a>) -> Option<CommandsView<'a>> {
        // Every item, or `None` if one is: in a vector sized once (collecting
        // `Option`s would grow it step by step, copying as it goes).
        fn all<T>(items: impl ExactSizeIterator<Item = Option<T>>) -> Option<Vec<T>> {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(item?);
            }
            Some(out)
        }
        Some(CommandsView {
            command: all(records.command.iter().map(|r| {
                let spec = SpecView {
                    value_flags: self.checked(r.value_flags)?,
                    long_single_dash: r.long_single_dash,
                    pattern_operand: r.pattern_operand,
                    ignore_flags: self.checked(r.ignore_flags)?,
                    alias: self.opt(r.alias)?,
                    help: self.checked(r.help)?,
                };
                Some((self.str(r.path)?, spec))
            }))?,
            wrapper: all(records.wrapper.iter().map(|w| {
                Some(WrapperView {
                    names: self.checked(w.names)?,
                    value_flags: self.checked(w.value_flags)?,
                    skip_positionals: w.skip_positionals as usize,
                    assignments: w.assignments,
                    keeps_safe: w.keeps_safe,
                    joins: w.joins,
                    lookup_flags: self.checked(w.lookup_flags)?,
                    unsafe_flags: self.checked(w.unsafe_flags)?,
                    string_flag: self.opt(w.string_flag)?,
                    split_flag: self.opt(w.split_flag)?,
                })
            }))?,
            shape: all(records
                .shape
                .iter()
                .map(|r| Some((self.str(r.name)?, self.str(r.pattern)?))))?,
        })
    }
}

/// A string of a bundle's text; `None` if the span is not inside it.
fn text_at(text: &str, span: Span) -> Option<&str> {
    text.get(part_range(span)?)
}

/// The hash table a packed list of [`ListTable::MIN`] to [`ListTable::MAX`]
/// words carries just before its first item, so that asking whether a word
/// is in it costs a hash and a comparison or two, not a pass over the list:
/// canonical forms ask it of every option, against lists of up to forty
/// (`find`, `rg`, `curl`), and most answers are no.
#[derive(Debug, PartialEq, Eq)]
pub struct ListTable {
    /// Per slot, the index of the word filed there plus one, or 0 for an
    /// empty slot. A word sits in the slot of its hash or the first empty
    /// one after it (wrapping around).
    slots: [u8; ListTable::SLOTS],
}

impl ListTable {
    /// Slots per table: the size of eight list items, so that the table
    /// fills whole items and the list after it stays aligned.
    const SLOTS: usize = 64;
    /// Items of the lists a table takes the place of.
    const ITEMS: usize = Self::SLOTS / 8;
    /// Shorter lists are searched in order, as quickly.
    pub const MIN: usize = 4;
    /// Longer lists are searched in order too: the table stays at most
    /// three quarters full, and probes stay short.
    pub const MAX: usize = 48;

    /// True when a list of `count` words carries a table.
    pub fn fits(count: usize) -> bool {
        (Self::MIN..=Self::MAX).contains(&count)
    }

    /// A word's first slot (the top bits of its [`word_hash`]).
    fn slot_of(word: &str) -> usize {
        (word_hash(word.as_bytes()) >> 58) as usize
    }

    /// The table of a list of words (at most [`ListTable::MAX`]; a word
    /// filed twice keeps its first index).
    fn of<'w>(words: impl Iterator<Item = &'w str>) -> ListTable {
        let mut slots = [0u8; Self::SLOTS];
        let mut filed: Vec<&str> = Vec::new();
        for (i, word) in words.enumerate().take(Self::MAX) {
            if filed.contains(&word) {
                continue;
            }
            filed.push(word);
            let mut slot = Self::slot_of(word);
            while slots[slot] != 0 {
                slot = (slot + 1) % Self::SLOTS;
            }
            slots[slot] = (i + 1) as u8;
        }
        ListTable { slots }
    }

    /// Whether `word` is in the packed list `list`, through the table
    /// before it; `None` when the list has none (too short or too long),
    /// or it lies outside the lists.
    fn contains(text: &str, lists: &[u8], list: List, word: &str) -> Option<bool> {
        let (first, count) = (list.0 as usize, list.1 as usize);
        if !Self::fits(count) {
            return None;
        }
        let at = first.checked_sub(Self::ITEMS)? * 8;
        let slots = lists.get(at..at + Self::SLOTS)?;
        let mut slot = Self::slot_of(word);
        for _ in 0..Self::SLOTS {
            let Some(i) = usize::from(slots[slot]).checked_sub(1) else {
                return Some(false);
            };
            // A damaged table pointing past the list finds nothing there.
            if i < count && item_is(text, lists, first + i, word) {
                return Some(true);
            }
            slot = (slot + 1) % Self::SLOTS;
        }
        Some(false)
    }
}

/// Whether item `i` of a bundle's lists is `word` (an item whose span lies
/// outside the text is not), its length compared before its text is
/// looked at.
fn item_is(text: &str, lists: &[u8], i: usize, word: &str) -> bool {
    span_at(lists, i).is_some_and(|(at, len)| {
        // Equal bytes of a valid `str` lie on character boundaries of the
        // text too.
        let at = at as usize;
        len as usize == word.len()
            && at
                .checked_add(word.len())
                .and_then(|end| text.as_bytes().get(at..end))
                == Some(word.as_bytes())
    })
}

/// Item `i` of a bundle's lists.
fn span_at(lists: &[u8], i: usize) -> Option<Span> {
    Some((le_u32(lists, i * 8)?, le_u32(lists, i * 8 + 4)?))
}

/// `commands.toml` with its text borrowed: what the loader reads, for the
/// embedded taxonomy and for a file on disk alike.
#[derive(Debug, Default)]
pub struct CommandsView<'a> {
    /// As in [`CommandsFile::command`].
    pub command: Vec<(&'a str, SpecView<'a>)>,
    /// As in [`CommandsFile::wrapper`].
    pub wrapper: Vec<WrapperView<'a>>,
    /// As in [`CommandsFile::shape`].
    pub shape: Vec<(&'a str, &'a str)>,
}

/// [`RawCommandSpec`] with its text borrowed.
#[derive(Debug, Default)]
pub struct SpecView<'a> {
    pub value_flags: Words<'a>,
    pub long_single_dash: bool,
    pub pattern_operand: bool,
    pub ignore_flags: Words<'a>,
    pub alias: Option<&'a str>,
    pub help: Words<'a>,
}

/// [`RawWrapper`] with its text borrowed.
#[derive(Debug, Default)]
pub struct WrapperView<'a> {
    pub names: Words<'a>,
    pub value_flags: Words<'a>,
    pub skip_positionals: usize,
    pub assignments: bool,
    pub keeps_safe: bool,
    pub joins: bool,
    pub lookup_flags: Words<'a>,
    pub unsafe_flags: Words<'a>,
    pub string_flag: Option<&'a str>,
    pub split_flag: Option<&'a str>,
}

/// A packed list of words, read where it is: in a [`Bundle`] (whose
/// bounds [`Bundle::commands_view`] has checked), or in the text and lists
/// a [`Packer`] filled from a file loaded at run time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Words<'a> {
    /// The text the words lie in.
    pub text: &'a str,
    /// The lists the list is one of.
    pub lists: &'a [u8],
    /// Which list.
    pub list: List,
}

impl<'a> Words<'a> {
    /// The words in order (a word whose span lies outside the text is
    /// skipped).
    pub fn iter(self) -> impl Iterator<Item = &'a str> {
        (0..self.list.1 as usize).filter_map(move |i| self.get(i))
    }

    /// True when `word` is one of them: through the list's [`ListTable`]
    /// when it has one, else word by word.
    pub fn contains(self, word: &str) -> bool {
        let Words { text, lists, list } = self;
        if let Some(found) = ListTable::contains(text, lists, list, word) {
            return found;
        }
        (0..list.1 as usize).any(|i| item_is(text, lists, list.0 as usize + i, word))
    }

    /// The first word.
    pub fn first(self) -> Option<&'a str> {
        self.get(0)
    }

    fn get(self, i: usize) -> Option<&'a str> {
        if i >= self.list.1 as usize {
            return None;
        }
        text_at(self.text, span_at(self.lists, self.list.0 as usize + i)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_text_and_lists_read_back() {
        let mut p = Packer::default();
        let id = p.span("rm-recursive");
        let words = p.list(&["rm", "unlink", "é"]);
        let empty = p.list::<&str>(&[]);
        let bundle = Bundle {
            text: &p.text,
            lists: &p.lists,
            ..Bundle::default()
        };
        let list = |l| bundle.words(l).collect::<Option<Vec<_>>>();
        assert_eq!(bundle.str(id), Some("rm-recursive"));
        assert_eq!(list(words), Some(vec!["rm", "unlink", "é"]));
        assert_eq!(list(empty), Some(vec![]));
        let packed = Words {
            text: &p.text,
            lists: &p.lists,
            list: words,
        };
        assert_eq!(packed.iter().collect::<Vec<_>>(), vec!["rm", "unlink", "é"]);
        assert_eq!(packed.first(), Some("rm"));
        for (word, found) in [("rm", true), ("é", true), ("unlink", true), ("r", false)] {
            assert_eq!(packed.contains(word), found, "{word}");
        }
        assert!(!packed.contains("rm-recursive") && !packed.contains(""));
        // A list or a span that lies outside the bundle finds nothing.
        let outside = |list| Words {
            text: &p.text,
            lists: &p.lists,
            list,
        };
        assert!(!outside((0, 99)).contains("rm-recursive"));
        let mut bad_span = p.lists.clone();
        bad_span[8..12].copy_from_slice(&1000u32.to_le_bytes());
        let damaged = Words {
            text: &p.text,
            lists: &bad_span,
            list: words,
        };
        assert!(!damaged.contains("unlink") && damaged.contains("é"));
        // Spans outside the text, or splitting a character, are refused.
        assert_eq!(bundle.str((0, 1000)), None);
        let e = list(words).unwrap_or_default().concat().len();
        assert_eq!(bundle.str((u32::try_from(e).unwrap_or(0) + 11, 1)), None);
        assert_eq!(list((0, 99)), None);
    }

    #[test]
    fn long_lists_are_searched_through_their_tables() {
        let mut p = Packer::default();
        let before = p.list(&["-a"]);
        // Lists of every size around the table's bounds, each word of one
        // found in it and nowhere else.
        let sizes = [3, 4, 5, 17, 47, 48, 49, 60];
        let lists: Vec<(List, Vec<String>)> = sizes
            .iter()
            .map(|&n| {
                let words: Vec<String> = (0..n).map(|i| format!("--opt{n}-{i}")).collect();
                (p.list(&words), words)
            })
            .collect();
        let twice = p.list(&["-x", "-y", "-x", "-z", "-w"]);
        let words = |list| Words {
            text: &p.text,
            lists: &p.lists,
            list,
        };
        assert!(words(before).contains("-a") && !words(before).contains("-b"));
        for (list, items) in &lists {
            let w = words(*list);
            assert_eq!(w.iter().collect::<Vec<_>>(), *items);
            for item in items {
                assert!(w.contains(item), "{item} in a list of {}", items.len());
            }
            for other in ["", "-", "--opt", "--opt3-0-", "-a", "--opt61-0"] {
                assert!(!w.contains(other), "{other} in a list of {}", items.len());
            }
            let table = ListTable::contains(&p.text, &p.lists, *list, &items[0]);
            assert_eq!(table, ListTable::fits(items.len()).then_some(true));
        }
        // A word filed twice is found; a table whose slots point past its
        // list finds nothing, and never reads outside the lists.
        assert!(words(twice).contains("-x") && words(twice).contains("-w"));
        let mut damaged = p.lists.clone();
        let at = (twice.0 as usize - ListTable::ITEMS) * 8;
        damaged[at..at + ListTable::SLOTS].fill(200);
        let damaged = Words {
            text: &p.text,
            lists: &damaged,
            list: twice,
        };
        assert!(!damaged.contains("-x") && !damaged.contains("-q"));
    }

    /// `commands.toml` stored as records reads back as the file itself
    /// does, every field of every record; a record whose list or text lies
    /// outside the bundle makes the whole view fail.
    #[test]
    fn command_records_read_back_as_the_file() {
        let file: CommandsFile = toml::from_str(
            r#"
            [command.git]
            value_flags = ["-C", "-c", "--git-dir", "--work-tree"]
            help = ["-h", "--help"]
            [command.find]
            long_single_dash = true
            pattern_operand = true
            ignore_flags = ["-L"]
            [command.gti]
            alias = "git"
            [[wrapper]]
            names = ["sudo"]
            value_flags = ["-u"]
            skip_positionals = 1
            assignments = true
            joins = true
            lookup_flags = ["-l"]
            unsafe_flags = ["-e"]
            string_flag = "-c"
            split_flag = "-S"
            [[wrapper]]
            names = ["nice", "ionice"]
            keeps_safe = true
            [shape]
            path = "[^ ]+"
            "#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut p = Packer::default();
        p.span("before");
        p.commands(&file);
        let bundle = p.bundle();
        let records = bundle.commands.unwrap_or_else(|| panic!("no commands"));
        let view = bundle
            .commands_view(&records)
            .unwrap_or_else(|| panic!("does not read back"));
        fn words<'w>(w: &Words<'w>) -> Vec<&'w str> {
            w.iter().collect()
        }
        assert_eq!(view.command.len(), file.command.len());
        for ((name, got), (want_name, want)) in view.command.iter().zip(&file.command) {
            assert_eq!(*name, want_name.as_str());
            assert_eq!(words(&got.value_flags), want.value_flags, "{name}");
            assert_eq!(words(&got.ignore_flags), want.ignore_flags, "{name}");
            assert_eq!(words(&got.help), want.help, "{name}");
            assert_eq!(
                (got.long_single_dash, got.pattern_operand, got.alias),
                (
                    want.long_single_dash,
                    want.pattern_operand,
                    want.alias.as_deref()
                ),
                "{name}"
            );
        }
        assert_eq!(view.wrapper.len(), 2);
        for (got, want) in view.wrapper.iter().zip(&file.wrapper) {
            for (g, w) in [
                (&got.names, &want.names),
                (&got.value_flags, &want.value_flags),
                (&got.lookup_flags, &want.lookup_flags),
                (&got.unsafe_flags, &want.unsafe_flags),
            ] {
                assert_eq!(words(g), *w);
            }
            assert_eq!(
                (
                    got.skip_positionals,
                    got.assignments,
                    got.keeps_safe,
                    got.joins,
                    got.string_flag,
                    got.split_flag
                ),
                (
                    want.skip_positionals,
                    want.assignments,
                    want.keeps_safe,
                    want.joins,
                    want.string_flag.as_deref(),
                    want.split_flag.as_deref()
                )
            );
        }
        assert_eq!(view.shape, vec![("path", "[^ ]+")]);
        // The lists cut short, or the text: the view fails, whole.
        let short_lists = Bundle {
            lists: &p.lists[..8],
            ..bundle
        };
        assert!(short_lists.commands_view(&records).is_none());
        let short_text = Bundle {
            text: &p.text[..10],
            ..bundle
        };
        assert!(short_text.commands_view(&records).is_none());
    }

    #[test]
    fn entry_records_read_back() {
        let mut p = Packer::default();
        let id = p.span("sql-drop");
        let command = p.list(&["psql"]);
        p.rule(RuleRecord {
            line: 7,
            id,
            category: id,
            blast_radius: None,
            reason: id,
            command,
            kind: RuleKind::Sql,
            pattern: Some(id),
            shape: ShapeLists::default(),
        });
        let written = RawRule {
            subcommand: vec!["branch".into()],
            flags: vec!["-d|--delete".into(), "-f".into()],
            forbid_flags: vec!["--list".into()],
            dry_run: vec!["-n|--dry-run".into()],
            args: vec!["<path>".into()],
            forbid_args: vec!["main".into(), "master".into(), "dev".into(), "x".into()],
            max_args: Some(3),
            min_args: None,
            ..RawRule::default()
        };
        let shape = p.shape(&written);
        let structured = RuleRecord {
            kind: RuleKind::Command,
            pattern: None,
            shape,
            ..p.rules[0]
        };
        p.rule(structured);
        let bundle = p.bundle();
        assert_eq!(bundle.rule_count(), 2);
        let r = bundle.rule(0).unwrap_or_else(|| panic!("no record"));
        assert_eq!(
            (r.line, r.kind, r.id, r.blast_radius),
            (7, RuleKind::Sql, id, None)
        );
        assert_eq!((r.command, r.pattern), (command, Some(id)));
        // A shape reads back as written, every field of it.
        let r = bundle.rule(1).unwrap_or_else(|| panic!("no record"));
        let read = bundle
            .raw_shape(&r.shape)
            .unwrap_or_else(|| panic!("no shape"));
        assert_eq!(format!("{read:?}"), format!("{written:?}"));
        assert_eq!(
            bundle
                .raw_shape(&ShapeLists::default())
                .map(|r| format!("{r:?}")),
            Some(format!("{:?}", RawRule::default()))
        );
        assert!(bundle.rule(2).is_none());
        // A shape or a text that lies outside the bundle is not read.
        let cut = Bundle {
            lists: &p.lists[..p.lists.len() - 8],
            ..bundle
        };
        assert!(cut.raw_shape(&r.shape).is_none());
        let cut = Bundle {
            text: &p.text[..3],
            ..bundle
        };
        assert_eq!(cut.rule_category(0), None);
        assert_eq!(bundle.rule_category(0), Some("sql-drop"));
        assert_eq!(bundle.rule_radius(0), Some(None));
    }
}
