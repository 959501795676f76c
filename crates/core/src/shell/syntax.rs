//! What the shell front end hands the classifier: the simple commands of a
//! script, nested ones included, with just enough structure to judge them.
//!
//! toolgate does not need a full syntax tree. It needs every simple command that
//! could run (in pipelines, lists, control structures, substitutions, function
//! bodies), each word after quote removal with a flag that says whether the
//! shell could still change it, the redirections, any here-document text, and
//! whether the script was compound at all.

use std::ops::Range;

use compact_str::CompactString;
use serde::Serialize;

/// One shell word after quote removal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Word {
    /// The word's text with quotes and escapes removed. Expansions the shell
    /// would perform (`$x`, `$(…)`, globs) are kept as written.
    /// (Short words, most of them, are stored inline: no allocation each.)
    pub text: CompactString,
    /// True when the shell cannot change the word: no parameter expansion,
    /// command or process substitution, arithmetic, glob or brace expansion.
    pub literal: bool,
    /// True when the shell's only change to the word is pathname expansion
    /// of unquoted `*`, `?` or `[…]` (the word is then not `literal`): no
    /// parameter, command, brace or extended-glob expansion. Every one of
    /// those characters in `text` is read as a wildcard, quoted or not.
    pub glob: bool,
    /// True when some part of the word was quoted or escaped.
    pub quoted: bool,
    /// True when the word contains a command or process substitution.
    pub substitution: bool,
    /// Whether the word's only expansions are of plain variables (`$NAME`,
    /// `${NAME}`) known to hold no secret
    /// ([`crate::secrets::variables`]), and how they stand: such a word
    /// prints a value the classifier cannot see, but runs nothing.
    #[serde(skip)]
    pub variables: Variables,
    /// Byte range in the script this word was read from.
    pub span: Range<usize>,
}

impl Word {
    /// A literal, unquoted word with no span: a synthetic one of the
    /// normaliser's.
    pub fn literal(text: impl Into<CompactString>) -> Word {
        Word {
            text: text.into(),
            literal: true,
            glob: false,
            quoted: false,
            substitution: false,
            variables: Variables::None,
            span: 0..0,
        }
    }

    /// The literal, unquoted word a reader takes whole from bytes `span` of
    /// `source`, all of them plain; `None` when the span does not fall on
    /// character boundaries (a run of plain bytes, all ASCII, always does).
    #[inline(always)]
    pub(crate) fn plain_run(source: &str, span: Range<usize>) -> Option<Word> {
        Some(Word {
            span: span.clone(),
            ..Word::literal(source.get(span)?)
        })
    }
}

/// How a word expands variables, when plain variables are all it expands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variables {
    /// It expands none, or expands something else too (a substitution, a
    /// `${…}` with an operator, a special parameter, a glob).
    #[default]
    None,
    /// Each inside double quotes: the value stays one word, unglobbed.
    Quoted,
    /// Some outside double quotes: the shell splits the value into words
    /// and expands globs in them (or drops an empty one).
    Unquoted,
}

/// The kind of a redirection operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectKind {
    /// `<`
    Read,
    /// `>` (and `>|`): truncates the target.
    Write,
    /// `>>`
    Append,
    /// `&>` / `>&file`: stdout and stderr, truncating.
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<>`: opens for reading and writing (creates the file).
    ReadWrite,
    /// `>&N`, `<&N`, `>&-`: duplicates or closes a descriptor.
    Duplicate,
    /// `<<` / `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirectKind {
    /// True when the redirection can create, truncate or change a file.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RedirectKind::Write
                | RedirectKind::Append
                | RedirectKind::WriteBoth
                | RedirectKind::AppendBoth
                | RedirectKind::ReadWrite
        )
    }

    /// True when the redirection truncates its target.
    pub fn truncates(self) -> bool {
        matches!(self, RedirectKind::Write | RedirectKind::WriteBoth)
    }
}

/// One redirection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// The explicit descriptor number, if one was written (`2>`).
    pub fd: Option<u32>,
    /// The operator.
    pub kind: RedirectKind,
    /// The target word (for here-documents: the delimiter).
    pub target: Word,
}

impl Redirect {
    /// True when the target is a harmless sink such as `/dev/null`.
    pub fn target_is_sink(&self) -> bool {
        matches!(
            self.target.text.as_str(),
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/fd/1" | "/dev/fd/2"
        )
    }
}

/// Text fed to a command's standard input by the script itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StdinText {
    /// The text.
    pub text: String,
    /// False when the shell expands it (an unquoted here-document delimiter).
    pub literal: bool,
}

/// One simple command as written: assignments, words and redirections.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SimpleCommand {
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<Word>,
    /// The command word and its arguments.
    pub words: Vec<Word>,
    /// Redirections, in order.
    pub redirects: Vec<Redirect>,
    /// The here-document or here-string body fed to the command, if any.
    pub stdin: Option<StdinText>,
    /// Which pipeline of the script this command belongs to.
    pub pipeline: usize,
    /// The command's position in its pipeline (0 = first).
    pub stage: usize,
    /// True when the command runs inside a command or process substitution.
    pub in_substitution: bool,
    /// For a command inside a compound command that is itself a later
    /// pipeline stage (`curl … | (cd x; sh)`): that outer pipeline and stage.
    pub upstream: Option<(usize, usize)>,
    /// Byte range in the script.
    pub span: Range<usize>,
    /// Where the command sits in the script's structure, for tools that
    /// report commands by their place in a file (`toolgate scan`). Not
    /// serialised: it says nothing about what the command does.
    #[serde(skip)]
    pub place: Place,
}

/// Where a simple command sits in the script it was read from: what a
/// report of "this command, at this line" needs beyond the command's own
/// [`span`](SimpleCommand::span). The classifier does not read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The byte range of the outermost pipeline of two or more stages
    /// that holds the command (`curl … | sh`, `cat <<EOF | bash`), or
    /// `0..0` when it is in none: a pipe into a shell changes what the
    /// stage before it means, so such a pipeline is judged as one.
    pub pipeline: Range<usize>,
    /// The bytes of the here-document bodies the command reads, delimiter
    /// lines included (from the first body's start to the last one's
    /// end), or `0..0` when it reads none.
    pub heredocs: Range<usize>,
    /// `None` when [`span`](SimpleCommand::span) is a range of the text
    /// given to the reader. `Some(offset)` when the command was read from
    /// text derived from it (a backquoted command after unescaping, an
    /// unquoted here-document body): its span is then a range of that
    /// text, which starts at `offset` of the given text.
    pub origin: Option<usize>,
    /// True when the command is in a function body.
    pub in_function: bool,
    /// True when the command is in a loop (`while`, `until`, `for`,
    /// `select`), its condition included.
    pub in_loop: bool,
}

/// Why parsing stopped early.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParseError {
    /// What went wrong, lowercase, e.g. "unterminated single quote".
    pub message: String,
    /// Byte offset where the problem was found.
    pub offset: usize,
}

/// A bound that stopped the front end from reading further.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Substitutions, subshells or nested `sh -c` went deeper than allowed.
    Depth,
    /// More simple commands than allowed.
    Commands,
    /// The input is larger than allowed.
    Size,
}

impl Limit {
    /// A short description for reasons.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Depth => "nesting depth limit reached",
            Limit::Commands => "command count limit reached",
            Limit::Size => "input size limit reached",
        }
    }
}

/// The result of reading one script.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Script {
    /// Every simple command found, nested ones included, in source order of
    /// their completion (a substitution's commands come before the command
    /// that contains them).
    pub commands: Vec<SimpleCommand>,
    /// True when the script uses any operator, list, control structure,
    /// subshell, group, function, background job or substitution.
    pub compound: bool,
    /// True when it is compound through anything beyond lists and
    /// pipelines (`;`, `&&`, `||`, `|`, `|&`, newlines): a background job,
    /// subshell, group, control structure, function, substitution, `[[ ]]`
    /// or arithmetic. A script of lists and pipelines alone is a sequence
    /// of simple commands that each can be judged on its own.
    pub structured: bool,
    /// The first syntax error, if parsing stopped on one.
    pub error: Option<ParseError>,
    /// A limit that stopped parsing, if any.
    pub limit: Option<Limit>,
}
