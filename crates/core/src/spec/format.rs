//! The command-spec file format (`taxonomy/specs/*.toml`) and its compiled
//! form.
//!
//! Standalone (std and serde only) because `build.rs` includes this file
//! too: it compiles the embedded specs once, at build time, into the same
//! [`Spec`] values the run-time loader builds from files on disk, and
//! stores them in postcard's binary form so that a hook process decodes
//! only the spec of the command it was asked about.
//!
//! A spec says everything the real tool accepts that toolgate knows about:
//!
//! ```toml
//! [[command]]
//! names = ["sort"]
//! category = "text-read"
//! reason = "sorts text to standard output"
//! operands = ["file..."]
//! options = '''
//! -r --reverse
//! -k --key =text
//! -o --output =file !writes
//! --compress-program =text !executes   # runs the named program
//! '''
//! examples = ["sort -u data.txt"]
//! near_misses = ["sort --outp=x data.txt"]
//! ```
//!
//! One option per line: its names (`--[no-]color` is `--color` and
//! `--no-color`), then `=ROLE` when it takes a value (`=?ROLE` when the
//! value is optional and must be attached, `==ROLE` for a name and then a
//! value), `!EFFECT` when it is not
//! harmless, `+pattern` when it supplies the search pattern (so the first
//! operand is a file), `+recursive` when it makes the command read whole
//! directory trees, `+lookup` when it makes a wrapper look its operands
//! up instead of running them, and `# note` for what explain says about it.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::le_words::{part_range, u32_of};
use crate::word_hash::word_hash;

#[path = "option_table.rs"]
mod option_table;

pub use option_table::OptionTable;

/// One `taxonomy/specs/*.toml` file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// The specs, one per command or subcommand path.
    #[serde(default)]
    pub command: Vec<RawSpec>,
}

/// One `[[command]]` table as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    /// The command names (`cat`), or subcommand paths (`git log`), this spec
    /// describes.
    pub names: Vec<String>,
    /// The label category of a safe verdict.
    #[serde(default)]
    pub category: String,
    /// The label reason of a safe verdict.
    #[serde(default)]
    pub reason: String,
    /// The option conventions: `gnu` (the default: options and operands in
    /// any order, unique-prefix abbreviations of long options, bundled short
    /// options), `posix` (the first operand ends the options), or
    /// `single-dash` (whole-word options such as `-name`, never bundled).
    #[serde(default)]
    pub syntax: Option<String>,
    /// Words that, alone, print help or a version and exit (`--help`).
    #[serde(default)]
    pub help: Vec<String>,
    /// Only the `help` forms are safe: the command itself is not.
    #[serde(default)]
    pub help_only: bool,
    /// Subcommands (of a command with `subcommands`) whose `help` forms
    /// are honoured even though they have no spec of their own.
    #[serde(default)]
    pub help_subcommands: Vec<String>,
    /// The help forms those subcommands honour (`-h` for git's).
    #[serde(default)]
    pub subcommand_help: Vec<String>,
    /// Words that are operators of an expression, harmless anywhere
    /// (`find`'s `(`, `)`, `!`, `,`).
    #[serde(default)]
    pub operators: Vec<String>,
    /// Words that, alone (after the command or one of its
    /// `help_subcommands`), show documentation through another program
    /// (`git push --help` runs man): never destructive, never safe.
    #[serde(default)]
    pub docs: Vec<String>,
    /// The options, one per line (see the module docs).
    #[serde(default)]
    pub options: String,
    /// The roles of the operands, in order: `file`, `file?`, `file...`.
    #[serde(default)]
    pub operands: Vec<String>,
    /// The roles of operands after `--`, when they differ (git's
    /// pathspecs).
    #[serde(default)]
    pub after_dashdash: Option<String>,
    /// The first operand names a subcommand, whose spec is `PATH WORD`.
    #[serde(default)]
    pub subcommands: bool,
    /// Without a subcommand the command does something else (`git stash`
    /// alone is `git stash push`): then it is not safe.
    #[serde(default)]
    pub requires_subcommand: bool,
    /// Options one of which must be given for the command to be safe
    /// (`journalctl` pages through `less`, which runs commands, unless
    /// `--no-pager`): given anywhere on the command line, before a
    /// subcommand too.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Options one of which must be given for any operand to be safe: the
    /// operands mean something else without it (`git tag NAME` creates a
    /// tag, `git tag --list PATTERN` lists the tags it matches).
    #[serde(default)]
    pub operands_require: Vec<String>,
    /// `-5` is a count (`head -5`).
    #[serde(default)]
    pub numeric_option: bool,
    /// `+5` is an operand that counts (`tail +5`).
    #[serde(default)]
    pub plus_number: bool,
    /// After its own operands, the rest is a command that this one runs
    /// (`nice`, `timeout`): checked against its own spec in turn.
    #[serde(default)]
    pub wraps: bool,
    /// Reads whole directory trees by default (`rg`): operands that name
    /// directories are checked as trees, and no operand means the working
    /// directory.
    #[serde(default)]
    pub recursive: bool,
    /// The service the command reads through, when reading one is its
    /// whole purpose (`the Docker daemon`, `the Kubernetes API server`):
    /// such a command is safe to run only as a read, and it does connect
    /// to that service (the sandbox oracle allows its connections and
    /// nothing else). Options that send its credentials elsewhere
    /// (`--server`, `--endpoint-url`) are `!network`.
    #[serde(default)]
    pub service: Option<String>,
    /// Options it does not list are parameters of a remote API call, each
    /// with one value (`aws ec2 describe-instances --instance-ids i-1`):
    /// data, unless the value reads a file or a URL (`file://`, `fileb://`,
    /// `http://`, `https://`).
    #[serde(default)]
    pub parameters: bool,
    /// Operands whose words name secret objects of the service
    /// (`kubectl get secrets`): an operand that is one of them, or a
    /// list or path of words separated by commas, slashes or dots that
    /// holds one (`pods,secrets`, `secret/db`, `net.ipv4` for sysctl), is
    /// refused.
    #[serde(default)]
    pub secret_operands: Vec<String>,
    /// Programs the command runs as part of itself, each safe in the way
    /// it is run (`egrep` is a script that runs `grep -E`, `zcat` one that
    /// runs `gzip -cd`): the sandbox oracle allows exactly these.
    #[serde(default)]
    pub helpers: Vec<String>,
    /// The command reads its whole command line before it acts and stops
    /// with an error at a word it cannot place (GNU find: "paths must
    /// precede expression", "unknown predicate"). Then a pattern option's
    /// value that the shell expands as a glob ending in a literal `.EXT`
    /// (`find . -name *.py`) is harmless: the first word it becomes is the
    /// pattern, and any further one, which also ends in `.EXT`, can be no
    /// option or operator of the command, only an error before anything
    /// runs.
    #[serde(default)]
    pub stray_words_fail: bool,
    /// Commands that must be labelled safe by this spec.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Commands that must not be labelled safe.
    #[serde(default)]
    pub near_misses: Vec<String>,
}

/// The option conventions of a command's parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Syntax {
    /// GNU getopt_long with permutation.
    #[default]
    Gnu,
    /// Options stop at the first operand.
    Posix,
    /// Whole-word options with one dash (`find`, `go`, `java`).
    SingleDash,
}

/// Whether an option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arity {
    /// A switch.
    None,
    /// Always a value: attached (`-ofile`, `--output=file`) or the next word.
    Required,
    /// A value only when attached (`--color=always`, `-c5`).
    Optional,
    /// Two words: a name, then a value (`jq --arg NAME VALUE`).
    Pair,
}

/// What an argument (an operand or an option's value) is to the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Data: printed, compared or parsed, never opened.
    Text,
    /// Data printed as it is, never read as a format or a name (`echo`'s
    /// words, `printf`'s arguments after the format): as [`Role::Text`],
    /// and here alone a variable known to hold no secret may stand
    /// (`echo "$PWD"`), since its value, unseen, is only printed.
    Printed,
    /// A number (data).
    Number,
    /// A search pattern: data, unless it hunts for credentials.
    Pattern,
    /// A file the command reads: inside the working directory, no device
    /// trick, not a secret.
    File,
    /// A directory the command lists or searches: as a file.
    Dir,
    /// A git revision, or `REV:path` (whose path is checked as a file).
    Rev,
    /// A git revision or a path (before `--`, git guesses which).
    RevOrPath,
    /// A command name that is looked up, not run (`which git`).
    CommandName,
    /// A `sed` script, safe only in its print-only forms.
    SedScript,
    /// A `jq` filter, safe unless it reads the environment or other files.
    JqFilter,
    /// A subcommand word (of a command with `subcommands`).
    Subcommand,
    /// A git pathspec: a file, with no glob or magic that could match a
    /// secret.
    Pathspec,
    /// An output format that starts with `+` (`date +%F`): any other word
    /// there means something else (`date MMDDhhmm` sets the clock).
    PlusFormat,
    /// A git `--format`/`--pretty` string: text, but no placeholder that
    /// verifies a signature (`%G?`, `%(signature)`), which runs gpg.
    GitFormat,
    /// A file, as [`Role::File`], that its tool cannot read as anything
    /// else: not standard input (`-`, `/dev/stdin`: `tac` copies a pipe
    /// to a temporary file), no leading `-` (an option to some parsers),
    /// no leading `@` (binutils read the words of an `@FILE`, wherever it
    /// stands), and no `:` (tar and rsh-style tools take `HOST:FILE` to be
    /// remote).
    LocalFile,
    /// The name of a setting or key the command reads: data, but never
    /// `NAME=VALUE`, which the same tools take as an order to set it
    /// (`sysctl kernel.x=1` writes), never option-like, and never with an
    /// empty part between dots or slashes (tools make paths of keys:
    /// `sysctl -n /../../etc/shadow` reads the file on older releases).
    Key,
    /// A file the command asks the file system about without opening it
    /// (whether it is there, its type, size, owner, times: `stat`): as
    /// [`Role::File`], but a secret may stand here, because none of its
    /// bytes is read. (A tool that opens the file to count or to sniff
    /// its type, `wc` or `file`, reads the secret's bytes: its operands
    /// stay `file`, and the sandbox oracle holds it to that.)
    Meta,
    /// The name of an environment variable that holds no secret by any
    /// convention: the locale, the time zone, the terminal, the places a
    /// session keeps (`PWD`, `HOME`, `PATH`, `TMPDIR`) and who it runs as
    /// (see [`crate::secrets::variables`]). Any other name may hold a
    /// token.
    EnvName,
    /// The directory the shell moves into (`cd DIR`), required: inside the
    /// working directory and through no hidden directory, because the
    /// relative paths of the commands after it start there, and the secret
    /// checks see only their own components (`cd .git && cat config`).
    Workdir,
}

/// What an option does beyond reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Effect {
    /// Nothing but read and print.
    Harmless,
    /// Writes or creates files.
    Writes,
    /// Runs another program.
    Executes,
    /// Reaches the network, or sends credentials elsewhere.
    Network,
    /// Prints the environment, credentials or other secrets.
    Secrets,
    /// Keeps running until stopped (`tail -f`).
    Waits,
    /// Changes the state of the system (not a file).
    Changes,
    /// Waits for a person at the terminal.
    Interactive,
}

impl Effect {
    /// What explain says an option with this effect does.
    pub fn describe(self) -> &'static str {
        match self {
            Effect::Harmless => "is harmless",
            Effect::Writes => "writes a file",
            Effect::Executes => "runs another program",
            Effect::Network => "reaches the network",
            Effect::Secrets => "can print the environment or secrets",
            Effect::Waits => "keeps running until it is stopped",
            Effect::Changes => "changes the state of the system",
            Effect::Interactive => "waits for input at the terminal",
        }
    }
}

/// How many operands a role takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Repeat {
    /// Exactly one.
    One,
    /// Zero or one.
    Optional,
    /// Zero or more.
    Many,
}

/// One position of a spec's operand grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operand {
    /// What the operand is.
    pub role: Role,
    /// How many it takes.
    pub repeat: Repeat,
}

/// One option, with every name it answers to (packed in a spec's
/// [`OptionTable`], and built from it when asked for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt<'a> {
    /// `-o`, `--output`, or for single-dash syntax `-name`.
    pub names: WordList<'a>,
    /// Whether it takes a value.
    pub arity: Arity,
    /// What its value is.
    pub role: Role,
    /// What it does.
    pub effect: Effect,
    /// It supplies the search pattern.
    pub pattern: bool,
    /// It makes the command read directory trees.
    pub recursive: bool,
    /// It turns a wrapper into a lookup: the operands are command names,
    /// not a command to run (`command -v`).
    pub lookup: bool,
    /// What explain says about it, when the effect's words are not enough.
    pub note: Cow<'a, str>,
}

/// A list of words of a spec (an option's names, the help forms, the
/// subcommands whose help is honoured …), held as one string with a line
/// break after each word but the last (no word holds one: the compiler
/// refuses it). A process decodes the specs it reads: a list is then one
/// borrowed string, where a `Vec` of words was an allocation per list
/// and a decode per word (git's spec lists 110 subcommands; decoding
/// `git` and `git status` was most of what a hook process spent on
/// specs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WordList<'a>(#[serde(borrow)] Cow<'a, str>);

/// What separates the words of a [`WordList`].
const WORD_BREAK: char = '\n';

impl<'a> WordList<'a> {
    /// The list held in `joined`, its words each followed by a line break
    /// but the last.
    pub fn borrowed(joined: &'a str) -> WordList<'a> {
        WordList(Cow::Borrowed(joined))
    }

    /// The words joined, each followed by a line break but the last.
    pub fn joined(&self) -> &str {
        &self.0
    }

    /// A list of these words (none of which holds a line break).
    pub fn of<S: AsRef<str>>(words: &[S]) -> WordList<'static> {
        let mut list = WordList::default();
        for w in words {
            list.push(w.as_ref());
        }
        list
    }

    /// The words, in order.
    pub fn iter(&self) -> Words<'_> {
        Words { rest: &self.0 }
    }

    /// The first word.
    pub fn first(&self) -> Option<&str> {
        self.iter().next()
    }

    /// How many words there are.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// True when there is no word.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `word` is one of them. (A pass over the joined form that
    /// compares only at word starts whose first byte is the word's: asked
    /// of every argument, against lists of a hundred subcommands.)
    pub fn contains(&self, word: &str) -> bool {
        let (all, w) = (self.0.as_bytes(), word.as_bytes());
        let Some(&first) = w.first() else {
            // No word of a list is empty.
            return false;
        };
        let mut start = 0;
        while start < all.len() {
            if all[start] == first && is_word_at(&self.0, start, w) {
                return true;
            }
            match all[start..].iter().position(|&b| b == WORD_BREAK as u8) {
                Some(i) => start += i + 1,
                None => return false,
            }
        }
        false
    }

    /// Adds a word (which holds no line break).
    pub fn push(&mut self, word: &str) {
        let all = self.0.to_mut();
        if !all.is_empty() {
            all.push(WORD_BREAK);
        }
        all.push_str(word);
    }

    /// Each word with the byte where it starts in the joined form.
    fn with_starts(&self) -> impl Iterator<Item = (usize, &str)> {
        let base = self.0.as_ptr() as usize;
        self.iter().map(move |w| (w.as_ptr() as usize - base, w))
    }
}

/// Whether the word of the joined list `all` that starts at byte `at` is `w`.
fn is_word_at(all: &str, at: usize, w: &[u8]) -> bool {
    let all = all.as_bytes();
    all.get(at..at + w.len()) == Some(w)
        && all.get(at + w.len()).is_none_or(|&b| b == WORD_BREAK as u8)
}

impl<'o, 'a> IntoIterator for &'o WordList<'a> {
    type Item = &'o str;
    type IntoIter = Words<'o>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The words of a [`WordList`], in order. (A byte loop: most lists are
/// empty or short, and a `str::split` searcher cost more to set up than
/// the search; `find`'s operators are looked up for every word.)
#[derive(Clone, Debug)]
pub struct Words<'l> {
    rest: &'l str,
}

impl<'l> Words<'l> {
    /// The words of a list joined as a [`WordList`] joins them.
    pub fn of(joined: &'l str) -> Words<'l> {
        Words { rest: joined }
    }
}

impl<'l> Iterator for Words<'l> {
    type Item = &'l str;

    fn next(&mut self) -> Option<&'l str> {
        // No word is empty: an empty rest is the end.
        if self.rest.is_empty() {
            return None;
        }
        let (word, rest) = match self.rest.bytes().position(|b| b == WORD_BREAK as u8) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, ""),
        };
        self.rest = rest;
        Some(word)
    }
}

/// A spec, validated and compiled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec<'a> {
    /// The command or subcommand paths it describes.
    #[serde(borrow)]
    pub names: WordList<'a>,
    /// The file it came from, relative to the taxonomy root.
    #[serde(borrow)]
    pub file: Cow<'a, str>,
    /// Its line there.
    pub line: u32,
    /// The label category of a safe verdict.
    #[serde(borrow)]
    pub category: Cow<'a, str>,
    /// The label reason.
    #[serde(borrow)]
    pub reason: Cow<'a, str>,
    /// Option conventions.
    pub syntax: Syntax,
    /// Help and version forms.
    #[serde(borrow)]
    pub help: WordList<'a>,
    /// Only the help forms are safe.
    pub help_only: bool,
    /// Subcommands whose help forms are honoured without a spec.
    #[serde(borrow)]
    pub help_subcommands: WordList<'a>,
    /// The help forms those subcommands honour.
    #[serde(borrow)]
    pub subcommand_help: WordList<'a>,
    /// Expression operators.
    #[serde(borrow)]
    pub operators: WordList<'a>,
    /// Documentation forms that run another program.
    #[serde(borrow)]
    pub docs: WordList<'a>,
    /// The options, read in place.
    #[serde(borrow)]
    pub options: OptionTable<'a>,
    /// The operand grammar.
    pub operands: Vec<Operand>,
    /// The role of every operand after `--`, when it differs.
    pub after_dashdash: Option<Role>,
    /// The first operand is a subcommand.
    pub subcommands: bool,
    /// A subcommand must be named.
    pub requires_subcommand: bool,
    /// One of these options must be given.
    #[serde(borrow)]
    pub requires: WordList<'a>,
    /// One of these options must be given for any operand.
    #[serde(borrow)]
    pub operands_require: WordList<'a>,
    /// `-5` is a count.
    pub numeric_option: bool,
    /// `+5` is a counting operand.
    pub plus_number: bool,
    /// The rest, after its operands, is a command it runs.
    pub wraps: bool,
    /// Reads directory trees by default.
    pub recursive: bool,
    /// The service it reads through, if any.
    #[serde(borrow, deserialize_with = "optional_word")]
    pub service: Option<Cow<'a, str>>,
    /// Unlisted `--long` options are API parameters with one value.
    pub parameters: bool,
    /// Operand words that name secret objects.
    #[serde(borrow)]
    pub secret_operands: WordList<'a>,
    /// Programs it runs as part of itself.
    #[serde(borrow)]
    pub helpers: WordList<'a>,
    /// It fails on a word it cannot place before it acts.
    pub stray_words_fail: bool,
    /// Its option names in a hash table, for a lookup by exact name:
    /// built when the spec is compiled and packed with it (built on a
    /// process's first lookup, it cost a corpus scan 2.6 M instructions),
    /// and no part of what the spec says.
    #[serde(borrow)]
    option_index: OptionIndex<'a>,
}

/// Every option name of a spec in an open-addressing hash table of
/// (option, name) places, four bytes each (two little-endian `u16`s),
/// `EMPTY` where none is; a power of two of them, at least twice the names.
/// A name that several options have holds the place of the first in spec
/// order, which a search in spec order finds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
struct OptionIndex<'a>(#[serde(borrow, serialize_with = "as_bytes")] Cow<'a, [u8]>);

/// Bytes as bytes (serde writes a `[u8]` as a sequence, and reads bytes
/// borrowed only when they were written as bytes).
fn as_bytes<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(bytes)
}

/// No place: an empty slot of an [`OptionIndex`].
const EMPTY: (u16, u16) = (u16::MAX, u16::MAX);

/// The most options a spec may have, and names an option may have: each
/// is placed in a `u16` of the option index, less the `EMPTY` mark.
pub const MAX_OPTIONS: usize = u16::MAX as usize - 1;

impl<'a> Spec<'a> {
    /// The first option, in spec order, with the name `name` (given as
    /// bytes, so that a short option's `-c` needs no string), and that
    /// name as the spec holds it.
    pub fn option_named(&self, name: &[u8]) -> Option<(Opt<'_>, &str)> {
        let slots = &self.option_index.0;
        let count = slots.len() / 4;
        let mask = count.checked_sub(1)?;
        let mut at = word_hash(name) as usize & mask;
        // At least one slot is empty, so the probe ends; a damaged table
        // (never packed so) ends after every slot, finding nothing.
        for _ in 0..count {
            let slot = slots.get(at * 4..at * 4 + 4)?;
            let o = u16::from_le_bytes([slot[0], slot[1]]);
            let n = u16::from_le_bytes([slot[2], slot[3]]);
            if (o, n) == EMPTY {
                return None;
            }
            let names = self.options.names_joined(usize::from(o))?;
            let start = usize::from(n);
            if is_word_at(names, start, name) {
                // (Compared in place; the option is built only when found.)
                let found = names.get(start..start + name.len())?;
                return Some((self.options.get(usize::from(o))?, found));
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Whether the option index is read in place from packed bytes.
    #[cfg(test)]
    pub(crate) fn option_index_in_place(&self) -> bool {
        matches!(self.option_index.0, Cow::Borrowed(_))
    }

    /// The slots of the option index: each name at its hash or the first
    /// free slot after it. (`compile` has refused a spec with more options,
    /// or an option with more names, than a slot can number.)
    fn option_slots(&self) -> Vec<u8> {
        let count = self.options.names().count();
        let size = (count * 2).max(2).next_power_of_two();
        let mask = size - 1;
        let mut slots = vec![EMPTY; size];
        for o in 0..self.options.len() {
            let Some(names) = self.options.names_joined(o) else {
                continue;
            };
            for (n, name) in WordList::borrowed(names).with_starts() {
                let mut at = word_hash(name.as_bytes()) as usize & mask;
                loop {
                    let (so, sn) = slots[at];
                    if (so, sn) == EMPTY {
                        let place = |i: usize| u16::try_from(i).unwrap_or(u16::MAX);
                        slots[at] = (place(o), place(n));
                        break;
                    }
                    let held = self
                        .options
                        .names_joined(usize::from(so))
                        .and_then(|names| names.get(usize::from(sn)..))
                        .and_then(|rest| Words::of(rest).next());
                    if held == Some(name) {
                        // An earlier option has this name already.
                        break;
                    }
                    at = (at + 1) & mask;
                }
            }
        }
        slots
            .iter()
            .flat_map(|(o, n)| {
                let (o, n) = (o.to_le_bytes(), n.to_le_bytes());
                [o[0], o[1], n[0], n[1]]
            })
            .collect()
    }
}

/// A word of a spec as decoded: borrowed from the bytes that hold it when
/// they hold it as written. serde borrows a `Cow<str>` field, but builds
/// the `Cow`s inside a `Vec` or an `Option` as owned `String`s: one
/// allocation and copy per option name of every spec a process reads.
#[derive(Deserialize)]
#[serde(transparent)]
struct Word<'a>(#[serde(borrow)] Cow<'a, str>);

/// An optional [`Word`].
fn optional_word<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    let word: Option<Word<'a>> = Deserialize::deserialize(d)?;
    Ok(word.map(|w| w.0))
}

/// Why a spec could not be compiled: the field and what to fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The offending field.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.field, self.message)
    }
}

fn err(field: &'static str, message: impl Into<String>) -> SpecError {
    SpecError {
        field,
        message: message.into(),
    }
}

/// Reads a role's name.
pub fn role_of(name: &str) -> Option<Role> {
    Some(match name {
        "text" => Role::Text,
        "printed" => Role::Printed,
        "number" => Role::Number,
        "pattern" => Role::Pattern,
        "file" => Role::File,
        "local-file" => Role::LocalFile,
        "key" => Role::Key,
        "dir" => Role::Dir,
        "rev" => Role::Rev,
        "rev-or-path" => Role::RevOrPath,
        "command-name" => Role::CommandName,
        "sed-script" => Role::SedScript,
        "jq-filter" => Role::JqFilter,
        "subcommand" => Role::Subcommand,
        "pathspec" => Role::Pathspec,
        "plus-format" => Role::PlusFormat,
        "git-format" => Role::GitFormat,
        "workdir" => Role::Workdir,
        "file-meta" => Role::Meta,
        "env-name" => Role::EnvName,
        _ => return None,
    })
}

/// The roles a spec may name, for error messages.
pub const ROLES: &str = "text, key, env-name, number, pattern, file, file-meta, local-file, dir, workdir, rev, rev-or-path, pathspec, plus-format, git-format, command-name, sed-script, jq-filter, subcommand";

fn effect_of(name: &str) -> Option<Effect> {
    Some(match name {
        "writes" => Effect::Writes,
        "executes" => Effect::Executes,
        "network" => Effect::Network,
        "secrets" => Effect::Secrets,
        "waits" => Effect::Waits,
        "changes" => Effect::Changes,
        "interactive" => Effect::Interactive,
        _ => return None,
    })
}

/// Reads one operand position: `file`, `file?`, `file...`.
pub fn operand_of(text: &str) -> Result<Operand, SpecError> {
    let (name, repeat) = if let Some(n) = text.strip_suffix("...") {
        (n, Repeat::Many)
    } else if let Some(n) = text.strip_suffix('?') {
        (n, Repeat::Optional)
    } else {
        (text, Repeat::One)
    };
    let role = role_of(name).ok_or_else(|| {
        err(
            "operands",
            format!(
                "unknown role `{name}` (roles: {ROLES}; `ROLE?` optional, `ROLE...` any number)"
            ),
        )
    })?;
    Ok(Operand { role, repeat })
}

/// Reads the option lines of a spec.
pub fn options_of(text: &str, syntax: Syntax) -> Result<Vec<Opt<'static>>, SpecError> {
    let mut out: Vec<Opt<'static>> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let (body, note) = match raw.find(" #") {
            Some(i) => (&raw[..i], raw[i + 2..].trim()),
            None if raw.trim_start().starts_with('#') => ("", ""),
            None => (raw, ""),
        };
        if body.trim().is_empty() {
            continue;
        }
        let at = |m: String| err("options", format!("option line {}: {m}", n + 1));
        let mut opt = Opt {
            names: WordList::default(),
            arity: Arity::None,
            role: Role::Text,
            effect: Effect::Harmless,
            pattern: false,
            recursive: false,
            lookup: false,
            note: Cow::Owned(note.to_string()),
        };
        for token in body.split_whitespace() {
            if let Some(role) = token.strip_prefix("==") {
                opt.arity = Arity::Pair;
                opt.role = role_of(role)
                    .ok_or_else(|| at(format!("unknown role `{role}` (roles: {ROLES})")))?;
            } else if let Some(role) = token.strip_prefix('=') {
                let (optional, role) = match role.strip_prefix('?') {
                    Some(r) => (true, r),
                    None => (false, role),
                };
                opt.arity = if optional {
                    Arity::Optional
                } else {
                    Arity::Required
                };
                opt.role = role_of(role)
                    .ok_or_else(|| at(format!("unknown role `{role}` (roles: {ROLES})")))?;
            } else if let Some(effect) = token.strip_prefix('!') {
                opt.effect = effect_of(effect).ok_or_else(|| {
                    at(format!(
                        "unknown effect `{effect}` (effects: writes, executes, network, secrets, waits, changes, interactive)"
                    ))
                })?;
            } else if token == "+pattern" {
                opt.pattern = true;
            } else if token == "+recursive" {
                opt.recursive = true;
            } else if token == "+lookup" {
                opt.lookup = true;
            } else if token.starts_with('-') || token.starts_with('+') {
                for name in expand_negation(token) {
                    check_name(&name, syntax).map_err(at)?;
                    if out.iter().any(|o| o.names.contains(&name)) || opt.names.contains(&name) {
                        return Err(at(format!("option `{name}` is listed twice")));
                    }
                    opt.names.push(&name);
                }
            } else {
                return Err(at(format!(
                    "`{token}` is neither an option name (`-x`, `--long`), `=ROLE`, `!EFFECT`, `+pattern` nor `+recursive`"
                )));
            }
        }
        if opt.names.is_empty() {
            return Err(at("no option name".into()));
        }
        out.push(opt);
    }
    Ok(out)
}

/// `--[no-]color` → `--color`, `--no-color`.
fn expand_negation(token: &str) -> Vec<String> {
    match token.find("[no-]") {
        Some(i) => vec![
            format!("{}{}", &token[..i], &token[i + 5..]),
            format!("{}no-{}", &token[..i], &token[i + 5..]),
        ],
        None => vec![token.to_string()],
    }
}

fn check_name(name: &str, syntax: Syntax) -> Result<(), String> {
    let b = name.as_bytes();
    let ok = match syntax {
        Syntax::SingleDash => b.len() >= 2 && (b[0] == b'-' || b[0] == b'+') && b[1] != b'-',
        _ => {
            (b.len() == 2 && (b[0] == b'-' || b[0] == b'+') && b[1] != b'-')
                || (b.len() > 2 && b.starts_with(b"--") && b[2] != b'-')
        }
    };
    let plain = name[1..]
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'?' | b'@' | b'#'));
    if ok && plain {
        Ok(())
    } else if syntax == Syntax::SingleDash {
        Err(format!(
            "`{name}` is not a single-dash option name (`-name`)"
        ))
    } else {
        Err(format!(
            "`{name}` is not an option name: a dash and one character (`-x`) or two dashes and a word (`--long`)"
        ))
    }
}

/// Compiles a spec as written.
pub fn compile(raw: &RawSpec, file: &str, line: u32) -> Result<Spec<'static>, SpecError> {
    if raw.names.is_empty() {
        return Err(err("names", "a spec needs at least one command name"));
    }
    for n in &raw.names {
        if n.is_empty() || n.split(' ').any(str::is_empty) {
            return Err(err("names", format!("`{n}` is not a command name or path")));
        }
    }
    let names = expand_names(&raw.names)?;
    let syntax = match raw.syntax.as_deref() {
        None | Some("gnu") => Syntax::Gnu,
        Some("posix") => Syntax::Posix,
        Some("single-dash") => Syntax::SingleDash,
        Some(other) => {
            return Err(err(
                "syntax",
                format!("unknown syntax `{other}` (gnu, posix, single-dash)"),
            ))
        }
    };
    let options = options_of(&raw.options, syntax)?;
    let operands = raw
        .operands
        .iter()
        .map(|o| operand_of(o))
        .collect::<Result<Vec<_>, _>>()?;
    let after_dashdash = match &raw.after_dashdash {
        None => None,
        Some(r) => Some(role_of(r).ok_or_else(|| {
            err(
                "after_dashdash",
                format!("unknown role `{r}` (roles: {ROLES})"),
            )
        })?),
    };
    if !raw.help_only && raw.reason.is_empty() {
        return Err(err(
            "reason",
            "a spec that can label a command safe needs a reason",
        ));
    }
    if raw.category.is_empty() {
        return Err(err(
            "category",
            "a spec needs a category (such as `fs-read`)",
        ));
    }
    for h in &raw.help {
        if !h.starts_with('-') && h != "help" && h != "version" {
            return Err(err("help", format!("`{h}` is not a help or version word")));
        }
    }
    if raw.help_only && raw.help.is_empty() {
        return Err(err(
            "help",
            "`help_only` needs the help forms the command honours",
        ));
    }
    if raw.requires_subcommand && !raw.subcommands {
        return Err(err(
            "requires_subcommand",
            "only a spec with `subcommands = true` has subcommands",
        ));
    }
    if !raw.help_subcommands.is_empty() && !raw.subcommands {
        return Err(err(
            "help_subcommands",
            "only a spec with `subcommands = true` has subcommands",
        ));
    }
    let lists: [(&'static str, &[String]); 10] = [
        ("names", &raw.names),
        ("help", &raw.help),
        ("help_subcommands", &raw.help_subcommands),
        ("subcommand_help", &raw.subcommand_help),
        ("operators", &raw.operators),
        ("docs", &raw.docs),
        ("requires", &raw.requires),
        ("operands_require", &raw.operands_require),
        ("helpers", &raw.helpers),
        ("secret_operands", &raw.secret_operands),
    ];
    for (field, words) in lists {
        if let Some(w) = words
            .iter()
            .find(|w| w.is_empty() || w.contains(WORD_BREAK))
        {
            return Err(err(
                field,
                format!("`{}` is empty or holds a line break", w.escape_debug()),
            ));
        }
    }
    if options.len() > MAX_OPTIONS || options.iter().any(|o| o.names.len() > MAX_OPTIONS) {
        return Err(err(
            "options",
            format!("more than {MAX_OPTIONS} options, or names of one option: split the spec"),
        ));
    }
    let options = OptionTable::pack(&options).map_err(|why| err("options", why))?;
    let mut spec = Spec {
        names: owned(&names),
        file: Cow::Owned(file.to_string()),
        line,
        category: Cow::Owned(raw.category.clone()),
        reason: Cow::Owned(raw.reason.clone()),
        syntax,
        help: owned(&raw.help),
        help_only: raw.help_only,
        help_subcommands: owned(&raw.help_subcommands),
        subcommand_help: owned(&raw.subcommand_help),
        operators: owned(&raw.operators),
        docs: owned(&raw.docs),
        options,
        operands,
        after_dashdash,
        subcommands: raw.subcommands,
        requires_subcommand: raw.requires_subcommand,
        requires: owned(&raw.requires),
        operands_require: owned(&raw.operands_require),
        numeric_option: raw.numeric_option,
        plus_number: raw.plus_number,
        wraps: raw.wraps,
        recursive: raw.recursive,
        service: raw.service.as_ref().map(|s| Cow::Owned(s.clone())),
        parameters: raw.parameters,
        helpers: owned(&raw.helpers),
        stray_words_fail: raw.stray_words_fail,
        secret_operands: WordList::of(
            &raw.secret_operands
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect::<Vec<_>>(),
        ),
        option_index: OptionIndex::default(),
    };
    spec.option_index = OptionIndex(Cow::Owned(spec.option_slots()));
    Ok(spec)
}

/// The names a spec answers to, with each word written `HEAD[REST]`
/// spelled out as every prefix of `HEADREST` that starts with `HEAD`:
/// `ip a[ddress] s[how]` is `ip a s`, `ip ad s`, … `ip address show`.
///
/// Some tools take any prefix of a subcommand that no earlier entry of
/// their own table claims (iproute2 checks `ip a` against `address` before
/// `addrlabel`); the spec writes the shortest prefix its tool resolves to
/// that subcommand, and the index then holds each spelling as a name of
/// its own, so a lookup stays one probe. A word with no brackets, or a
/// bracket that is not of this form (the `[` command), is kept as it is.
pub fn expand_names(names: &[String]) -> Result<Vec<String>, SpecError> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for name in names {
        let mut spellings = vec![String::new()];
        for word in name.split(' ') {
            let forms =
                word_prefixes(word).map_err(|why| err("names", format!("`{name}`: {why}")))?;
            // (Words of many abbreviations multiply: stop before their
            // spellings outgrow what an index can number.)
            let count = spellings.len().saturating_mul(forms.len());
            if count > MAX_NAMES {
                return Err(err(
                    "names",
                    format!(
                        "`{name}` spells more than {MAX_NAMES} names with its abbreviations: \
                         give fewer words a `[...]`"
                    ),
                ));
            }
            let mut next = Vec::with_capacity(count);
            for s in &spellings {
                for f in &forms {
                    let mut joined = s.clone();
                    if !joined.is_empty() {
                        joined.push(' ');
                    }
                    joined.push_str(f);
                    next.push(joined);
                }
            }
            spellings = next;
        }
        for s in spellings {
            if !seen.insert(s.clone()) {
                return Err(err("names", format!("`{s}` is named twice")));
            }
            out.push(s);
        }
    }
    Ok(out)
}

/// The spellings of one word of a name (see [`expand_names`]).
fn word_prefixes(word: &str) -> Result<Vec<String>, String> {
    let Some(open) = word.find('[') else {
        return Ok(vec![word.to_string()]);
    };
    let (head, tail) = (&word[..open], &word[open + 1..]);
    let Some(rest) = tail.strip_suffix(']') else {
        return Ok(vec![word.to_string()]);
    };
    if head.is_empty() {
        // `[`, `[[`: command names of their own.
        return Ok(vec![word.to_string()]);
    }
    if rest.is_empty() || rest.contains(['[', ']']) {
        return Err(format!(
            "`{word}`: write the optional rest of a word as `HEAD[REST]`, with no other bracket"
        ));
    }
    let mut forms = vec![head.to_string()];
    for (i, c) in rest.char_indices() {
        forms.push(format!("{head}{}", &rest[..i + c.len_utf8()]));
    }
    Ok(forms)
}

/// Words as written, owned by a compiled spec.
fn owned(words: &[String]) -> WordList<'static> {
    WordList::of(words)
}

/// The line of each `[[name]]` table of a file, in order (a spec file's
/// `[[command]]`s, `commands.toml`'s `[[wrapper]]`s).
pub fn table_lines(text: &str, name: &str) -> Vec<u32> {
    let header = format!("[[{name}]]");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .map(|(i, _)| u32::try_from(i + 1).unwrap_or(u32::MAX))
        .collect()
}

/// The embedded specs' index, as `build.rs` writes it: Rust statics,
/// numbers and one text (so that loading the binary relocates a few
/// pointers, not one a name), read in place. A process looks a command word
/// up with one hash and a probe or two, and decodes (postcard) only the
/// specs it uses. Decoding a sorted index of every name instead cost each
/// process about 100 k instructions, a tenth of a `toolgate classify` run.
///
/// A name hashes (`crate::word_hash`) to its first slot; collisions take the
/// next slot (wrapping). Any number that points outside reads as "no such
/// spec", so a damaged index makes nothing safe.
#[derive(Clone, Copy, Debug)]
pub struct SpecIndex<'a> {
    /// A power of two of them, at most half used: 0 for none, else the high
    /// 16 bits of a name's hash above 1 + the name's place in `names`
    /// (below 2^16), so that a probe of another name's slot is settled
    /// without reading a name.
    pub(crate) slots: &'a [u32],
    /// Each name's (offset, length) in `text` and its spec's number,
    /// sorted by name.
    pub(crate) names: &'a [[u32; 3]],
    /// The names, one after another.
    pub(crate) text: &'a str,
    /// One more than there are specs: spec `i` is the bytes of `bodies`
    /// from offset `i` to offset `i + 1`.
    pub(crate) offsets: &'a [u32],
    /// Each spec in postcard form.
    pub(crate) bodies: &'a [u8],
    /// A bit per [`filter_bit`] of every name: a clear bit settles that a
    /// word has no spec (most of the command words of a scan that have
    /// none), before the table is probed.
    pub(crate) filter: &'a [u32],
}

/// Bits of a [`SpecIndex`]'s filter: with the specs' names and subcommand
/// paths, about two in five of them are set.
const FILTER_BITS: usize = 4096;

/// A name's bit in a [`SpecIndex`]'s filter: the top bits of its hash
/// (the table's slot and tag take the low 32).
fn filter_bit(hash: u64) -> usize {
    (hash >> 52) as usize % FILTER_BITS
}

/// The most names a [`SpecIndex`] holds: a slot numbers a name in 16
/// bits, 0 being none.
pub const MAX_NAMES: usize = 0xfffe;

/// A used slot of a [`SpecIndex`]: the name's hash tag and its place.
fn slot_entry(hash: u32, i: usize) -> u32 {
    (hash & 0xffff_0000) | (u32::try_from(i + 1).unwrap_or(0) & 0xffff)
}

/// A [`SpecIndex`] laid out and owned: what `build.rs` writes out as Rust
/// statics, and what specs loaded from files are found through.
#[derive(Clone, Debug, Default)]
pub struct SpecIndexParts {
    slots: Vec<u32>,
    names: Vec<[u32; 3]>,
    text: String,
    offsets: Vec<u32>,
    bodies: Vec<u8>,
    filter: Vec<u32>,
}

impl SpecIndexParts {
    /// Lays out the index of `names`, `(name, spec number)` pairs, unique,
    /// in any order, over `specs`, each spec in postcard form.
    pub fn lay_out(names: &[(String, u32)], specs: &[Vec<u8>]) -> SpecIndexParts {
        let mut names: Vec<&(String, u32)> = names.iter().collect();
        names.sort();
        // (`Specs::load` refuses more names with an error naming the
        // entry; build.rs, the other caller, fails here with the count.)
        assert!(
            names.len() <= MAX_NAMES,
            "{} names: a slot cannot number them",
            names.len()
        );
        // At most half full, so that a probe meets an empty slot soon.
        let size = (names.len() * 2).max(1).next_power_of_two();
        let mut parts = SpecIndexParts {
            slots: vec![0u32; size],
            filter: vec![0u32; FILTER_BITS / 32],
            ..SpecIndexParts::default()
        };
        for (i, (name, spec)) in names.iter().enumerate() {
            let full = word_hash(name.as_bytes());
            let bit = filter_bit(full);
            parts.filter[bit / 32] |= 1 << (bit % 32);
            // The low 32 bits: the slot and its tag.
            let hash = full as u32;
            let mut slot = hash as usize & (size - 1);
            while parts.slots[slot] != 0 {
                slot = (slot + 1) & (size - 1);
            }
            parts.slots[slot] = slot_entry(hash, i);
            parts
                .names
                .push([u32_of(parts.text.len()), u32_of(name.len()), *spec]);
            parts.text.push_str(name);
        }
        for spec in specs {
            parts.offsets.push(u32_of(parts.bodies.len()));
            parts.bodies.extend_from_slice(spec);
        }
        parts.offsets.push(u32_of(parts.bodies.len()));
        parts
    }

    /// The index, read from these parts.
    pub fn index(&self) -> SpecIndex<'_> {
        SpecIndex {
            slots: &self.slots,
            names: &self.names,
            text: &self.text,
            offsets: &self.offsets,
            bodies: &self.bodies,
            filter: &self.filter,
        }
    }

    /// The specs in postcard form, one after another.
    pub fn bodies(&self) -> &[u8] {
        &self.bodies
    }

    /// The index as a Rust expression of type `SpecIndex<'static>`, its
    /// specs' bytes included from `bodies_file` in the build's `OUT_DIR`.
    pub fn to_rust(&self, bodies_file: &str) -> String {
        let list = |words: &mut dyn Iterator<Item = String>| words.collect::<Vec<_>>().join(",");
        format!(
            "crate::spec::format::SpecIndex {{\n    slots: &[{}],\n    names: &[{}],\n    text: {:?},\n    offsets: &[{}],\n    bodies: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{bodies_file}\")),\n    filter: &[{}],\n}}\n",
            list(&mut self.slots.iter().map(u32::to_string)),
            list(&mut self.names.iter().map(|[a, b, c]| format!("[{a},{b},{c}]"))),
            self.text,
            list(&mut self.offsets.iter().map(u32::to_string)),
            list(&mut self.filter.iter().map(u32::to_string)),
        )
    }
}

impl<'a> SpecIndex<'a> {
    /// How many names it holds.
    pub fn name_count(&self) -> usize {
        self.names.len()
    }

    /// How many specs it holds.
    pub fn spec_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Name `i`: its text and its spec's number.
    pub fn name(&self, i: usize) -> Option<(&'a [u8], usize)> {
        let [from, len, spec] = *self.names.get(i)?;
        let text = self.text.as_bytes().get(part_range((from, len))?)?;
        Some((text, spec as usize))
    }

    /// The number of the spec of `name`.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        let full = word_hash(name);
        let bit = filter_bit(full);
        if *self.filter.get(bit / 32)? & (1 << (bit % 32)) == 0 {
            return None;
        }
        let mask = self.slots.len().checked_sub(1)?;
        let hash = full as u32;
        let tag = hash >> 16;
        let mut slot = hash as usize & mask;
        // Every slot at most once: an index with no empty slot still ends.
        for _ in 0..self.slots.len() {
            let entry = *self.slots.get(slot)?;
            let i = (entry & 0xffff).checked_sub(1)? as usize;
            if entry >> 16 == tag {
                let (text, spec) = self.name(i)?;
                if text == name {
                    return Some(spec);
                }
            }
            slot = (slot + 1) & mask;
        }
        None
    }

    /// Spec `i` in postcard form.
    pub fn spec(&self, i: usize) -> Option<&'a [u8]> {
        let from = *self.offsets.get(i)? as usize;
        let to = *self.offsets.get(i.checked_add(1)?)? as usize;
        self.bodies.get(from..to)
    }
}
