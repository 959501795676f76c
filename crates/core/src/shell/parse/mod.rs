//! A recursive-descent reader for POSIX shell with the bash extensions agents
//! actually write.
//!
//! It lexes and parses in one pass over the bytes, so the work is linear in the
//! input: command substitutions are parsed in place (no rescanning), and only
//! backquotes, whose text must be unescaped first, are read twice. Recursion is
//! bounded by [`MAX_DEPTH`]; past it, nested text is skipped by an iterative
//! scanner and the script is marked with [`Limit::Depth`], which is never safe.

mod word;

use super::bytes::{fast_paths, is_meta, is_name_char, is_name_start, memchr_newline};
use super::line_masks::LineMasks;
use super::plain_line::plain_line_into;
use super::syntax::{
    Limit, ParseError, Place, Redirect, RedirectKind, Script, SimpleCommand, StdinText, Word,
};
use word::WordBuf;

/// How deep substitutions, subshells and groups may nest before the reader
/// stops descending.
pub const MAX_DEPTH: usize = 48;
/// How many simple commands one script may hold.
pub const MAX_COMMANDS: usize = 20_000;
/// The largest script read, in bytes.
pub const MAX_INPUT: usize = 4 << 20;

/// Reads a script. Never panics; problems are reported in [`Script::error`]
/// and [`Script::limit`].
///
/// ```
/// let script = toolgate_core::shell::parse("cd /tmp && rm -rf \"build dir\"");
/// assert_eq!(script.commands.len(), 2);
/// assert_eq!(script.commands[1].words[2].text, "build dir");
/// assert!(script.compound);
/// ```
pub fn parse(src: &str) -> Script {
    parse_at_depth(src, 0)
}

/// Reads a script that is itself nested `depth` levels deep (a `sh -c`
/// string, a backquoted command), so that the overall depth stays bounded.
pub fn parse_at_depth(src: &str, depth: usize) -> Script {
    let mut script = Script::default();
    parse_into(src, depth, &mut script);
    script
}

/// [`parse_at_depth`] into a script the caller keeps from one line to the
/// next: a line of plain words, the commonest of all, then reuses its
/// buffers instead of allocating new ones.
pub(crate) fn parse_into(src: &str, depth: usize, script: &mut Script) {
    if src.len() > MAX_INPUT {
        *script = Script {
            limit: Some(Limit::Size),
            ..Script::default()
        };
        return;
    }
    let masks = LineMasks::of(src.as_bytes());
    if depth < MAX_DEPTH && fast_paths() && plain_line_into(src, masks, script) {
        return;
    }
    let mut p = Parser::new(src, depth);
    p.plain = masks.map(|m| m.plain);
    // The buffers of the script read before: its list of commands and
    // their lists of words, emptied.
    let mut commands = std::mem::take(&mut script.commands);
    for c in commands.iter_mut().take(SPARE_WORD_LISTS) {
        if c.words.capacity() > 0 {
            let mut words = std::mem::take(&mut c.words);
            words.clear();
            p.spare_words[p.spare_count] = words;
            p.spare_count += 1;
        }
    }
    commands.clear();
    p.out = commands;
    if depth >= MAX_DEPTH {
        p.limit = Some(Limit::Depth);
    } else {
        p.parse_program();
    }
    *script = p.finish();
}

/// The script with the fast paths for plain words and lines, then without:
/// the tests that hold the two together.
#[cfg(test)]
pub(super) fn parse_fast_and_slow(src: &str) -> (Script, Script) {
    let fast = parse(src);
    super::bytes::SLOW_PATHS.with(|s| s.set(true));
    let slow = parse(src);
    super::bytes::SLOW_PATHS.with(|s| s.set(false));
    (fast, slow)
}

/// Parses the expansions inside a here-document body whose delimiter was not
/// quoted: `$(…)` and backquotes there run when the document is read.
fn parse_heredoc_expansions(body: &str, depth: usize) -> Script {
    let mut p = Parser::new(body, depth);
    if depth >= MAX_DEPTH {
        p.limit = Some(Limit::Depth);
        return p.finish();
    }
    p.subst_level = 1;
    while p.pos < p.src.len() && !p.failed() {
        match p.peek() {
            Some(b'\\') => p.pos += 2,
            Some(b'$') => {
                let mut scratch = WordBuf::new(p.pos);
                p.read_dollar(&mut scratch, false);
            }
            Some(b'`') => {
                let mut scratch = WordBuf::new(p.pos);
                p.read_backquote(&mut scratch, false);
            }
            _ => p.pos += 1,
        }
    }
    p.finish()
}

/// Terminators a list can stop at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum End {
    /// End of input.
    Eof,
    /// `)` closing a subshell or a `$(`.
    Paren,
    /// A reserved word closing a compound command (`then`, `fi`, `}`, …) or
    /// `;;` in a case item; the caller checks which.
    Reserved,
}

const RESERVED_ENDS: &[&str] = &["then", "elif", "else", "fi", "do", "done", "esac", "}"];

struct PendingHeredoc {
    cmd: Option<usize>,
    delimiter: String,
    strip_tabs: bool,
    quoted: bool,
}

/// The reader's state. Grammar rules live in this file; reading words
/// (quotes, escapes, expansions, substitutions) lives in `word.rs`.
pub(super) struct Parser<'a> {
    pub(super) src: &'a [u8],
    pub(super) text: &'a str,
    pub(super) pos: usize,
    pub(super) depth: usize,
    pub(super) subst_level: usize,
    out: Vec<SimpleCommand>,
    pub(super) compound: bool,
    /// Compound through more than lists and pipelines.
    structured: bool,
    error: Option<ParseError>,
    pub(super) limit: Option<Limit>,
    heredocs: Vec<PendingHeredoc>,
    /// The current pipeline's id and the current stage within it.
    pub(super) pipeline: usize,
    pub(super) stage: usize,
    /// How many pipelines have been started (ids are never reused).
    pipelines: usize,
    /// Set while parsing a compound command that is a later pipeline stage
    /// (`curl … | (cd x; sh)`): the outer pipeline and stage feeding it.
    upstream: Option<(usize, usize)>,
    /// Emptied word lists of the script read before, for new commands
    /// (the first `spare_count`; a fixed array, itself no allocation).
    spare_words: [Vec<Word>; SPARE_WORD_LISTS],
    spare_count: usize,
    /// Which bytes of a short outermost script are plain (see
    /// [`LineMasks`]): a plain run is then measured without reading it.
    pub(super) plain: Option<u64>,
    /// How many function bodies and loops enclose the cursor (for
    /// [`Place`]).
    functions: u32,
    loops: u32,
}

/// How many word lists of the script before a reader keeps for reuse.
const SPARE_WORD_LISTS: usize = 8;

impl<'a> Parser<'a> {
    fn new(text: &'a str, depth: usize) -> Parser<'a> {
        Parser {
            src: text.as_bytes(),
            text,
            pos: 0,
            depth,
            subst_level: 0,
            out: Vec::new(),
            compound: false,
            structured: false,
            error: None,
            limit: None,
            heredocs: Vec::new(),
            pipeline: 0,
            stage: 0,
            pipelines: 0,
            upstream: None,
            spare_words: Default::default(),
            spare_count: 0,
            plain: None,
            functions: 0,
            loops: 0,
        }
    }

    /// The place of a command read at the cursor now, as far as the
    /// reader knows it when the command starts.
    fn place(&self) -> Place {
        Place {
            in_function: self.functions > 0,
            in_loop: self.loops > 0,
            ..Place::default()
        }
    }

    /// Notes a construct beyond lists and pipelines (a background job,
    /// subshell, group, control structure, function, substitution, `[[ ]]`
    /// or arithmetic): the script is then compound and structured.
    pub(super) fn mark_structured(&mut self) {
        self.compound = true;
        self.structured = true;
    }

    fn finish(self) -> Script {
        Script {
            commands: self.out,
            compound: self.compound,
            structured: self.structured,
            error: self.error,
            limit: self.limit,
        }
    }

    #[inline]
    pub(super) fn failed(&self) -> bool {
        self.error.is_some() || self.limit.is_some()
    }

    pub(super) fn fail(&mut self, message: &str) {
        if self.error.is_none() {
            self.error = Some(ParseError {
                message: message.to_string(),
                offset: self.pos,
            });
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    #[inline]
    pub(super) fn peek_at(&self, off: usize) -> Option<u8> {
        self.src.get(self.pos + off).copied()
    }

    pub(super) fn starts_with(&self, s: &[u8]) -> bool {
        self.src[self.pos.min(self.src.len())..].starts_with(s)
    }

    /// Skips spaces, tabs and line continuations (not newlines).
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
        if self.peek() == Some(b'#') {
            while let Some(b) = self.peek() {
                if b == b'\n' {
                    break;
                }
                self.pos += 1;
            }
        }
    }

    /// Consumes one newline and then reads any pending here-document bodies.
    fn consume_newline(&mut self) {
        self.pos += 1;
        if !self.heredocs.is_empty() {
            self.read_heredoc_bodies();
        }
    }

    /// Skips blanks, comments and newlines.
    fn skip_linebreaks(&mut self) {
        loop {
            self.skip_blanks();
            self.skip_comment();
            if self.peek() == Some(b'\n') {
                self.consume_newline();
            } else {
                return;
            }
        }
    }

    fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs);
        for doc in pending {
            let body_start = self.pos;
            let mut body = String::new();
            let mut found = false;
            while self.pos < self.src.len() {
                let line_end = memchr_newline(self.src, self.pos);
                let line = &self.text[self.pos..line_end];
                let next = (line_end + 1).min(self.src.len());
                let cmp = if doc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                self.pos = next;
                if cmp == doc.delimiter {
                    found = true;
                    break;
                }
                body.push_str(if doc.strip_tabs { cmp } else { line });
                body.push('\n');
                if line_end >= self.src.len() {
                    break;
                }
            }
            let _ = found; // bash accepts a missing delimiter at end of input
            if !doc.quoted {
                let nested = parse_heredoc_expansions(&body, self.depth + 1);
                self.absorb(nested, body_start);
            }
            if let Some(i) = doc.cmd {
                if let Some(cmd) = self.out.get_mut(i) {
                    // From the first body's start to this one's end.
                    let docs = &mut cmd.place.heredocs;
                    let start = match docs.start < docs.end {
                        true => docs.start,
                        false => body_start,
                    };
                    *docs = start..self.pos;
                    cmd.stdin = Some(StdinText {
                        text: body,
                        literal: doc.quoted,
                    });
                }
            }
        }
    }

    /// Merges a nested script's findings (commands run by substitution),
    /// read from text derived from this one's that starts at byte `origin`
    /// (see [`Place::origin`]).
    pub(super) fn absorb(&mut self, nested: Script, origin: usize) {
        if self.limit.is_none() {
            self.limit = nested.limit;
        }
        if !nested.commands.is_empty() {
            self.mark_structured();
        }
        for mut cmd in nested.commands {
            cmd.in_substitution = true;
            cmd.pipeline = usize::MAX;
            cmd.place.origin = Some(origin);
            cmd.place.in_function |= self.functions > 0;
            cmd.place.in_loop |= self.loops > 0;
            self.push_command(cmd);
        }
    }

    fn push_command(&mut self, cmd: SimpleCommand) -> Option<usize> {
        if self.out.len() >= MAX_COMMANDS {
            self.limit = Some(Limit::Commands);
            return None;
        }
        self.out.push(cmd);
        Some(self.out.len() - 1)
    }

    // ---- grammar -------------------------------------------------------

    fn parse_program(&mut self) {
        let items = self.parse_list(End::Eof);
        if items > 1 {
            self.compound = true;
        }
        if !self.failed() && self.pos < self.src.len() {
            self.fail("unexpected token");
        }
    }

    /// Is the unquoted reserved word `w` at the cursor (followed by a
    /// delimiter)?
    pub(super) fn at_reserved(&self, w: &str) -> bool {
        let wb = w.as_bytes();
        if !self.starts_with(wb) {
            return false;
        }
        match self.src.get(self.pos + wb.len()) {
            None => true,
            Some(&b) => is_meta(b) || (w == "{" || w == "}" || w == "!") && b == b'\n',
        }
    }

    fn at_list_end(&self, end: End) -> bool {
        match self.peek() {
            None => true,
            Some(b')') => true,
            Some(b';') if self.peek_at(1) == Some(b';') => true,
            Some(b';') if self.peek_at(1) == Some(b'&') => true,
            _ => end == End::Reserved && RESERVED_ENDS.iter().any(|w| self.at_reserved(w)),
        }
    }

    /// Parses and-or lists separated by `;`, `&` or newlines. Returns how many
    /// it read.
    pub(super) fn parse_list(&mut self, end: End) -> usize {
        let mut items = 0;
        loop {
            self.skip_linebreaks();
            if self.failed() || self.at_list_end(end) {
                break;
            }
            let before = self.pos;
            self.parse_and_or();
            items += 1;
            if self.failed() {
                break;
            }
            self.skip_blanks();
            self.skip_comment();
            match self.peek() {
                Some(b';') if self.peek_at(1) != Some(b';') && self.peek_at(1) != Some(b'&') => {
                    self.pos += 1
                }
                Some(b'&') if self.peek_at(1) != Some(b'&') && self.peek_at(1) != Some(b'>') => {
                    self.pos += 1;
                    self.mark_structured(); // a background job
                }
                Some(b'\n') => self.consume_newline(),
                _ => {
                    if !self.at_list_end(end) {
                        self.fail("unexpected token");
                    }
                    break;
                }
            }
            if self.pos == before {
                self.fail("unexpected token");
                break;
            }
        }
        if end == End::Eof && self.peek() == Some(b')') && !self.failed() {
            self.fail("unexpected `)`");
        }
        items
    }

    fn parse_and_or(&mut self) {
        self.parse_pipeline();
        loop {
            self.skip_blanks();
            if self.starts_with(b"&&") || self.starts_with(b"||") {
                self.pos += 2;
                self.compound = true;
                self.skip_linebreaks();
                if self.failed() || self.at_list_end(End::Reserved) {
                    self.fail("expected a command after `&&` or `||`");
                    return;
                }
                self.parse_pipeline();
            } else {
                return;
            }
            if self.failed() {
                return;
            }
        }
    }

    fn parse_pipeline(&mut self) {
        self.pipelines += 1;
        let id = self.pipelines;
        self.pipeline = id;
        self.stage = 0;
        self.skip_blanks();
        let (start, first) = (self.pos, self.out.len());
        self.parse_stages(id);
        if self.stage > 0 && self.pipeline == id {
            // Inner pipelines finished first: the outermost one has the
            // last word.
            let mut end = self.pos.min(self.src.len());
            while end > start && matches!(self.src[end - 1], b' ' | b'\t' | b'\n') {
                end -= 1;
            }
            for cmd in self.out.iter_mut().skip(first) {
                cmd.place.pipeline = start..end;
            }
        }
    }

    /// The stages of pipeline `id`, from the cursor.
    fn parse_stages(&mut self, id: usize) {
        // `!` and `time [-p]` prefix a whole pipeline.
        loop {
            if self.at_reserved("!") {
                self.pos += 1;
            } else if self.at_reserved("time") {
                self.pos += 4;
                self.skip_blanks();
                if self.at_reserved("-p") {
                    self.pos += 2;
                }
            } else {
                break;
            }
            self.skip_blanks();
        }
        if self.at_reserved("coproc") {
            // `coproc [NAME] command`: the command runs in the background.
            self.mark_structured();
            self.pos += 6;
            self.skip_blanks();
            let save = self.pos;
            if let Some(name) = self.read_word() {
                self.skip_blanks();
                let compound_next = self.peek() == Some(b'(') || self.at_reserved("{");
                if !(name.literal && compound_next) {
                    self.pos = save;
                }
            }
            self.skip_blanks();
        }
        self.parse_command();
        loop {
            if self.failed() {
                return;
            }
            self.skip_blanks();
            if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
                self.pos += if self.peek_at(1) == Some(b'&') { 2 } else { 1 };
                self.compound = true;
                let next = self.stage + 1;
                self.pipeline = id;
                self.stage = next;
                self.skip_linebreaks();
                if self.at_list_end(End::Reserved) {
                    self.fail("expected a command after `|`");
                    return;
                }
                self.parse_command();
            } else {
                return;
            }
        }
    }

    pub(super) fn descend(&mut self) -> bool {
        if self.depth + 1 >= MAX_DEPTH {
            self.limit = Some(Limit::Depth);
            false
        } else {
            self.depth += 1;
            true
        }
    }

    fn expect_reserved(&mut self, w: &str) -> bool {
        self.skip_linebreaks();
        if self.at_reserved(w) {
            self.pos += w.len();
            true
        } else {
            if !self.failed() {
                self.fail(match w {
                    "then" => "expected `then`",
                    "fi" => "expected `fi`",
                    "do" => "expected `do`",
                    "done" => "expected `done`",
                    "esac" => "expected `esac`",
                    "in" => "expected `in`",
                    "}" => "expected `}`",
                    _ => "expected a reserved word",
                });
            }
            false
        }
    }

    fn parse_command(&mut self) {
        self.skip_blanks();
        if self.failed() {
            return;
        }
        // A compound command as a later pipeline stage reads that pipe: its
        // first-stage commands record where their input comes from.
        let (pipeline, stage, inherited) = (self.pipeline, self.stage, self.upstream);
        if stage > 0 {
            self.upstream = Some((pipeline, stage));
        }
        let compound = self.parse_compound();
        (self.pipeline, self.stage, self.upstream) = (pipeline, stage, inherited);
        if compound {
            if !self.failed() {
                self.parse_trailing_redirects();
            }
            return;
        }
        self.parse_simple_command();
    }

    /// Parses a compound command at the cursor, if there is one.
    fn parse_compound(&mut self) -> bool {
        // Every opener below starts with one of these bytes: most commands
        // are ruled out by one comparison.
        if !matches!(
            self.peek(),
            Some(b'(' | b'{' | b'[' | b'c' | b'f' | b'i' | b's' | b'u' | b'w')
        ) {
            return false;
        }
        if self.starts_with(b"((") {
            self.mark_structured();
            self.pos += 2;
            self.read_arith_body();
            true
        } else if self.peek() == Some(b'(') {
            self.mark_structured();
            self.pos += 1;
            if !self.descend() {
                return true;
            }
            self.parse_list(End::Paren);
            self.depth -= 1;
            if self.peek() == Some(b')') {
                self.pos += 1;
            } else {
                self.fail("expected `)` to close a subshell");
            }
            true
        } else if self.at_reserved("{") {
            self.mark_structured();
            self.pos += 1;
            if !self.descend() {
                return true;
            }
            self.parse_list(End::Reserved);
            self.depth -= 1;
            self.expect_reserved("}");
            true
        } else if self.at_reserved("if") {
            self.parse_if();
            true
        } else if self.at_reserved("while") || self.at_reserved("until") {
            self.mark_structured();
            self.pos += 5;
            self.loops += 1;
            self.parse_body_list();
            if self.expect_reserved("do") {
                self.parse_body_list();
                self.expect_reserved("done");
            }
            self.loops -= 1;
            true
        } else if self.at_reserved("for") || self.at_reserved("select") {
            self.loops += 1;
            self.parse_for();
            self.loops -= 1;
            true
        } else if self.at_reserved("case") {
            self.parse_case();
            true
        } else if self.at_reserved("function") {
            self.mark_structured();
            self.pos += 8;
            self.skip_blanks();
            let _name = self.read_word();
            self.skip_blanks();
            if self.starts_with(b"()") {
                self.pos += 2;
            }
            self.skip_linebreaks();
            self.functions += 1;
            self.parse_command();
            self.functions -= 1;
            true
        } else if self.starts_with(b"[[") && self.peek_at(2).is_none_or(is_meta) {
            self.parse_conditional();
            true
        } else {
            false
        }
    }

    fn parse_body_list(&mut self) {
        if !self.descend() {
            return;
        }
        self.parse_list(End::Reserved);
        self.depth -= 1;
    }

    fn parse_if(&mut self) {
        self.mark_structured();
        self.pos += 2;
        self.parse_body_list();
        if !self.expect_reserved("then") {
            return;
        }
        self.parse_body_list();
        loop {
            self.skip_linebreaks();
            if self.failed() {
                return;
            }
            if self.at_reserved("elif") {
                self.pos += 4;
                self.parse_body_list();
                if !self.expect_reserved("then") {
                    return;
                }
                self.parse_body_list();
            } else if self.at_reserved("else") {
                self.pos += 4;
                self.parse_body_list();
            } else {
                self.expect_reserved("fi");
                return;
            }
        }
    }

    fn parse_for(&mut self) {
        self.mark_structured();
        self.pos += if self.at_reserved("for") { 3 } else { 6 };
        self.skip_blanks();
        if self.starts_with(b"((") {
            self.pos += 2;
            self.read_arith_body();
        } else {
            let _name = self.read_word();
            self.skip_linebreaks();
            if self.at_reserved("in") {
                self.pos += 2;
                // The words after `in`: read them for their substitutions.
                loop {
                    self.skip_blanks();
                    match self.peek() {
                        None | Some(b';' | b'\n') => break,
                        Some(b) if is_meta(b) => {
                            self.fail("unexpected token in `for` word list");
                            return;
                        }
                        _ => {
                            if self.read_word().is_none() {
                                break;
                            }
                        }
                    }
                    if self.failed() {
                        return;
                    }
                }
            }
        }
        self.skip_blanks();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        if self.expect_reserved("do") {
            self.parse_body_list();
            self.expect_reserved("done");
        } else if self.at_reserved("{") {
            self.parse_command();
        }
    }

    fn parse_case(&mut self) {
        self.mark_structured();
        self.pos += 4;
        self.skip_blanks();
        let _subject = self.read_word();
        if !self.expect_reserved("in") {
            return;
        }
        loop {
            self.skip_linebreaks();
            if self.failed() {
                return;
            }
            if self.at_reserved("esac") {
                self.pos += 4;
                break;
            }
            if self.peek().is_none() {
                self.fail("expected `esac`");
                return;
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            // Patterns separated by `|`, closed by `)`.
            loop {
                self.skip_blanks();
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'|') => self.pos += 1,
                    Some(b) if is_meta(b) => {
                        self.fail("unexpected token in `case` pattern");
                        return;
                    }
                    None => {
                        self.fail("expected `)` after a `case` pattern");
                        return;
                    }
                    _ => {
                        if self.read_word().is_none() {
                            self.fail("expected a `case` pattern");
                            return;
                        }
                    }
                }
                if self.failed() {
                    return;
                }
            }
            if !self.descend() {
                return;
            }
            self.parse_list(End::Reserved);
            self.depth -= 1;
            self.skip_linebreaks();
            if self.starts_with(b";;&") {
                self.pos += 3;
            } else if self.starts_with(b";;") || self.starts_with(b";&") {
                self.pos += 2;
            } else if !self.at_reserved("esac") {
                self.fail("expected `;;` or `esac`");
                return;
            }
        }
    }

    /// `[[ … ]]`: words up to `]]`, where `<`, `>`, `&&`, `||`, `(` and `)`
    /// are operators of the test, not of the shell.
    fn parse_conditional(&mut self) {
        self.mark_structured();
        let start = self.pos;
        self.pos += 2;
        let mut cmd = SimpleCommand {
            words: vec![Word {
                span: start..self.pos,
                ..Word::literal("[[")
            }],
            pipeline: self.pipeline,
            stage: self.stage,
            in_substitution: self.subst_level > 0,
            upstream: if self.stage == 0 { self.upstream } else { None },
            place: self.place(),
            ..SimpleCommand::default()
        };
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.consume_newline();
                continue;
            }
            if self.starts_with(b"]]") && self.peek_at(2).is_none_or(is_meta) {
                self.pos += 2;
                break;
            }
            match self.peek() {
                None => {
                    self.fail("expected `]]`");
                    return;
                }
                Some(b) if is_meta(b) => {
                    let op_start = self.pos;
                    let len = if self.starts_with(b"&&") || self.starts_with(b"||") {
                        2
                    } else {
                        1
                    };
                    self.pos += len;
                    cmd.words.push(Word {
                        span: op_start..self.pos,
                        ..Word::literal(&self.text[op_start..self.pos])
                    });
                }
                _ => match self.read_word() {
                    Some(w) => cmd.words.push(w),
                    None => {
                        self.fail("expected `]]`");
                        return;
                    }
                },
            }
            if self.failed() {
                return;
            }
        }
        cmd.span = start..self.pos;
        self.push_command(cmd);
    }

    fn parse_trailing_redirects(&mut self) {
        let mut cmd = SimpleCommand {
            pipeline: self.pipeline,
            stage: self.stage,
            in_substitution: self.subst_level > 0,
            upstream: if self.stage == 0 { self.upstream } else { None },
            place: self.place(),
            ..SimpleCommand::default()
        };
        let start = self.pos;
        loop {
            self.skip_blanks();
            if !self.try_redirect(&mut cmd, None) {
                break;
            }
            if self.failed() {
                return;
            }
        }
        if !cmd.redirects.is_empty() {
            cmd.span = start..self.pos;
            self.push_command(cmd);
        }
    }

    fn parse_simple_command(&mut self) {
        let start = self.pos;
        let words = match self.spare_count.checked_sub(1) {
            Some(last) => {
                self.spare_count = last;
                std::mem::take(&mut self.spare_words[last])
            }
            None => Vec::with_capacity(8),
        };
        let mut cmd = SimpleCommand {
            words,
            pipeline: self.pipeline,
            stage: self.stage,
            in_substitution: self.subst_level > 0,
            upstream: if self.stage == 0 { self.upstream } else { None },
            place: self.place(),
            ..SimpleCommand::default()
        };
        let mut heredoc_marks: Vec<usize> = Vec::new();
        loop {
            self.skip_blanks();
            if self.failed() {
                return;
            }
            let Some(b) = self.peek() else { break };
            if b == b'#' {
                self.skip_comment();
                break;
            }
            if matches!(b, b'\n' | b';' | b'|' | b')') {
                break;
            }
            if b == b'&' && !self.starts_with(b"&>") {
                break;
            }
            if self.try_redirect(&mut cmd, Some(&mut heredoc_marks)) {
                continue;
            }
            if b == b'(' {
                // `name ( )`: a function definition.
                if cmd.words.len() == 1 && cmd.assignments.is_empty() {
                    let save = self.pos;
                    self.pos += 1;
                    self.skip_blanks();
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        self.mark_structured();
                        self.skip_linebreaks();
                        self.functions += 1;
                        self.parse_command();
                        self.functions -= 1;
                        return;
                    }
                    self.pos = save;
                }
                self.fail("unexpected `(`");
                return;
            }
            let Some(word) = self.read_word() else {
                self.fail("unexpected token");
                return;
            };
            if cmd.words.is_empty() && is_assignment(&word, self.src) {
                cmd.assignments.push(word);
            } else {
                cmd.words.push(word);
            }
        }
        if cmd.words.is_empty() && cmd.assignments.is_empty() && cmd.redirects.is_empty() {
            if !self.failed() {
                self.fail("expected a command");
            }
            return;
        }
        let mut end = self.pos;
        while end > start && matches!(self.src[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        cmd.span = start..end;
        let idx = self.push_command(cmd);
        for mark in heredoc_marks {
            if let Some(doc) = self.heredocs.get_mut(mark) {
                doc.cmd = idx;
            }
        }
    }

    /// Tries to read one redirection at the cursor.
    fn try_redirect(
        &mut self,
        cmd: &mut SimpleCommand,
        heredoc_marks: Option<&mut Vec<usize>>,
    ) -> bool {
        if !matches!(self.peek(), Some(b'0'..=b'9' | b'<' | b'>' | b'&')) {
            return false;
        }
        let save = self.pos;
        let mut fd = None;
        let mut i = self.pos;
        while i < self.src.len() && self.src[i].is_ascii_digit() {
            i += 1;
        }
        if i > self.pos && i < self.src.len() && matches!(self.src[i], b'<' | b'>') {
            fd = self.text[self.pos..i].parse::<u32>().ok();
            self.pos = i;
        }
        let rest = &self.src[self.pos..];
        let (kind, len) = if rest.starts_with(b"<(") || rest.starts_with(b">(") {
            self.pos = save;
            return false;
        } else if rest.starts_with(b"<<<") {
            (RedirectKind::HereString, 3)
        } else if rest.starts_with(b"<<-") {
            (RedirectKind::HereDoc, 3)
        } else if rest.starts_with(b"<<") {
            (RedirectKind::HereDoc, 2)
        } else if rest.starts_with(b"<>") {
            (RedirectKind::ReadWrite, 2)
        } else if rest.starts_with(b"<&") {
            (RedirectKind::Duplicate, 2)
        } else if rest.starts_with(b"<") {
            (RedirectKind::Read, 1)
        } else if rest.starts_with(b">>") {
            (RedirectKind::Append, 2)
        } else if rest.starts_with(b">|") {
            (RedirectKind::Write, 2)
        } else if rest.starts_with(b">&") {
            (RedirectKind::Duplicate, 2)
        } else if rest.starts_with(b">") {
            (RedirectKind::Write, 1)
        } else if fd.is_none() && rest.starts_with(b"&>>") {
            (RedirectKind::AppendBoth, 3)
        } else if fd.is_none() && rest.starts_with(b"&>") {
            (RedirectKind::WriteBoth, 2)
        } else {
            self.pos = save;
            return false;
        };
        let strip_tabs = len == 3 && kind == RedirectKind::HereDoc;
        self.pos += len;
        self.skip_blanks();
        let Some(target) = self.read_word() else {
            self.fail("expected a word after a redirection");
            return true;
        };
        let mut kind = kind;
        if kind == RedirectKind::Duplicate
            && !(target.text == "-" || target.text.bytes().all(|b| b.is_ascii_digit()))
        {
            // `>&file` is bash for `&>file`.
            kind = if self.src[save..].contains(&b'<') {
                RedirectKind::Read
            } else {
                RedirectKind::WriteBoth
            };
        }
        match kind {
            RedirectKind::HereDoc => {
                let quoted = target.quoted;
                self.heredocs.push(PendingHeredoc {
                    cmd: None,
                    delimiter: target.text.to_string(),
                    strip_tabs,
                    quoted,
                });
                if let Some(marks) = heredoc_marks {
                    marks.push(self.heredocs.len() - 1);
                }
            }
            RedirectKind::HereString => {
                cmd.stdin = Some(StdinText {
                    text: format!("{}\n", target.text),
                    literal: target.literal,
                });
            }
            _ => {}
        }
        cmd.redirects.push(Redirect { fd, kind, target });
        true
    }
}

fn is_assignment(word: &Word, src: &[u8]) -> bool {
    let _ = src;
    let t = word.text.as_bytes();
    let Some(eq) = t.iter().position(|&b| b == b'=') else {
        return false;
    };
    if eq == 0 || !is_name_start(t[0]) {
        return false;
    }
    let name = &t[..eq];
    let name = name.strip_suffix(b"+").unwrap_or(name);
    // `a[i]=x` is an assignment too.
    let name = match name.iter().position(|&b| b == b'[') {
        Some(i) if name.last() == Some(&b']') => &name[..i],
        _ => name,
    };
    !name.is_empty() && name.iter().all(|&b| is_name_char(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn plain_words_read_fast_as_the_general_reader_reads_them(
            src in "[a-z0-9=.,/(){}\\[\\]*?@+!$'\" ;|&<>#~:_-]{0,24}"
        ) {
            let (fast, slow) = parse_fast_and_slow(&src);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    fn words(src: &str) -> Vec<Vec<String>> {
        let s = parse(src);
        assert!(s.error.is_none(), "{src:?}: {:?}", s.error);
        s.commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.to_string()).collect())
            .collect()
    }

    #[test]
    fn plain_variable_expansions_are_told_from_the_others() {
        use crate::shell::Variables::{None as Other, Quoted, Unquoted};
        let src = r#"echo "$PWD" $HOME "${HOME}" "a $USER b" "${HOME:-x}" "${!X}" "$(pwd)" '$X' "$1" "$@" $HOME* "$PWD"$HOME x`pwd` "${HOME}y${PWD}" ${X#a} $PAT\H "$TMP"DIR "$[X]" $"hi" "$GITHUB_TOKEN""#;
        let s = parse(src);
        assert!(s.error.is_none(), "{:?}", s.error);
        let echo = s.commands.iter().find(|c| c.words.len() > 1);
        let words = echo.map_or(&[][..], |c| &c.words[1..]);
        let got: Vec<_> = words.iter().map(|w| w.variables).collect();
        assert_eq!(
            got,
            [
                Quoted, Unquoted, Quoted, Quoted, Other, Other, Other, Other, Other, Other, Other,
                Unquoted, Other, Quoted, Other, Other, Other, Other, Other, Other
            ]
        );
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        for (src, want) in [
            ("rm -rf /tmp/x", vec!["rm", "-rf", "/tmp/x"]),
            ("\\rm -rf x", vec!["rm", "-rf", "x"]),
            ("\"rm\" -rf x", vec!["rm", "-rf", "x"]),
            ("r''m -rf x", vec!["rm", "-rf", "x"]),
            ("r\"\"m -r''f x", vec!["rm", "-rf", "x"]),
            ("$'\\x72m' -rf x", vec!["rm", "-rf", "x"]),
            ("$'r\\155' x", vec!["rm", "x"]),
            (
                "echo 'a b' \"c d\" e\\ f",
                vec!["echo", "a b", "c d", "e f"],
            ),
            ("echo \"a\\\"b\" 'it'\\''s'", vec!["echo", "a\"b", "it's"]),
            ("ec\\\nho hi", vec!["echo", "hi"]),
            ("grep 'DROP TABLE' f", vec!["grep", "DROP TABLE", "f"]),
        ] {
            assert_eq!(words(src), vec![want.clone()], "{src:?}");
        }
    }

    #[test]
    fn finds_every_simple_command() {
        for (src, want) in [
            ("a && b || c; d & e", vec!["a", "b", "c", "d", "e"]),
            ("a | b |& c", vec!["a", "b", "c"]),
            ("echo $(rm -rf x)", vec!["rm", "echo"]),
            ("echo `rm -rf x`", vec!["rm", "echo"]),
            ("diff <(ls a) >(tee b)", vec!["ls", "tee", "diff"]),
            ("(cd x && rm y)", vec!["cd", "rm"]),
            ("{ a; b; }", vec!["a", "b"]),
            (
                "if a; then b; elif c; then d; else e; fi",
                vec!["a", "b", "c", "d", "e"],
            ),
            ("for f in $(ls); do rm $f; done", vec!["ls", "rm"]),
            (
                "while read l; do echo $l; done < f",
                vec!["read", "echo", ""],
            ),
            ("case $x in a|b) rm a;; *) ls;; esac", vec!["rm", "ls"]),
            ("f() { rm -rf /; }; f", vec!["rm", "f"]),
            ("function g { ls; }", vec!["ls"]),
            ("x=$(rm y)", vec!["rm", ""]),
            ("echo \"$(rm -rf a)\"", vec!["rm", "echo"]),
            ("echo ${x:-$(rm b)}", vec!["rm", "echo"]),
            ("[[ -f x && $(rm y) ]]", vec!["rm", "[["]),
            ("(( x = $(rm z) ))", vec!["rm"]),
            ("a # b; c\nd", vec!["a", "d"]),
        ] {
            let s = parse(src);
            assert!(s.error.is_none(), "{src:?}: {:?}", s.error);
            let got: Vec<String> = s
                .commands
                .iter()
                .map(|c| {
                    c.words
                        .first()
                        .map(|w| w.text.to_string())
                        .unwrap_or_default()
                })
                .collect();
            assert_eq!(got, want, "{src:?}");
        }
    }

    #[test]
    fn heredoc_bodies_attach_to_their_command() {
        let s = parse("bash <<EOF\nrm -rf /\nEOF\necho done");
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.commands.len(), 2);
        let stdin = s.commands[0].stdin.as_ref().map(|t| t.text.as_str());
        assert_eq!(stdin, Some("rm -rf /\n"));
        assert_eq!(s.commands[1].words[0].text, "echo");

        let s = parse("cat <<-'X' | sh\n\tls\n\tX\n");
        assert_eq!(s.commands[0].stdin.as_ref().map(|t| t.literal), Some(true));
        assert_eq!(
            s.commands[0].stdin.as_ref().map(|t| t.text.as_str()),
            Some("ls\n")
        );
        assert_eq!(s.commands[1].stage, 1);

        let s = parse("cat <<EOF\n$(rm -rf /x)\nEOF\n");
        assert!(s.commands.iter().any(|c| c.words[0].text == "rm"));

        let s = parse("sh <<<'rm -rf /'");
        assert_eq!(
            s.commands[0].stdin.as_ref().map(|t| t.text.as_str()),
            Some("rm -rf /\n")
        );
    }

    #[test]
    fn literal_flags() {
        let s = parse("ls $x \"$y\" * a?b [ab] {a,b} ~/x 'lit' \"q\" x{}y");
        let lits: Vec<bool> = s.commands[0].words.iter().map(|w| w.literal).collect();
        assert_eq!(
            lits,
            [true, false, false, false, false, false, false, true, true, true, true]
        );
    }

    #[test]
    fn redirections() {
        let s = parse("cmd 2>/dev/null >out.txt >>log 2>&1 <in &>both 3<>rw");
        let kinds: Vec<RedirectKind> = s.commands[0].redirects.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                RedirectKind::Write,
                RedirectKind::Write,
                RedirectKind::Append,
                RedirectKind::Duplicate,
                RedirectKind::Read,
                RedirectKind::WriteBoth,
                RedirectKind::ReadWrite
            ]
        );
        assert_eq!(s.commands[0].words.len(), 1);
        assert_eq!(s.commands[0].redirects[0].fd, Some(2));
        let s = parse("> file");
        assert_eq!(s.commands.len(), 1);
        assert!(s.commands[0].words.is_empty());
        let s = parse("git commit -m \"feat: 1>0\"");
        assert!(s.commands[0].redirects.is_empty());
    }

    #[test]
    fn compound_detection() {
        for (src, compound) in [
            ("ls -la", false),
            ("ls;", false),
            ("ls\n", false),
            ("ls && pwd", true),
            ("ls | wc", true),
            ("ls &", true),
            ("(ls)", true),
            ("echo $(ls)", true),
            ("ls; pwd", true),
        ] {
            assert_eq!(parse(src).compound, compound, "{src:?}");
        }
    }

    #[test]
    fn structured_is_everything_beyond_lists_and_pipelines() {
        for (src, structured) in [
            ("ls && pwd || true", false),
            ("ls | wc |& cat", false),
            ("ls; pwd\nwc x", false),
            ("! grep x f", false),
            ("ls 2>&1 | head", false),
            ("ls &", true),
            ("ls & pwd", true),
            ("(ls)", true),
            ("{ ls; }", true),
            ("echo $(ls)", true),
            ("echo `ls`", true),
            ("cat <(ls)", true),
            ("echo \"$(id)\" | cat", true),
            ("if true; then ls; fi", true),
            ("while true; do ls; done", true),
            ("for f in a; do ls; done", true),
            ("case x in x) ls;; esac", true),
            ("f() { ls; }; f", true),
            ("[[ -f x ]] && ls", true),
            ("(( 1 )) && ls", true),
            ("coproc ls", true),
            // An arithmetic expansion is no command: its word is not
            // literal, which rules the part out on its own.
            ("echo $((1+1))", false),
        ] {
            assert_eq!(parse(src).structured, structured, "{src:?}");
        }
    }

    #[test]
    fn errors_and_limits() {
        for src in [
            "echo 'x",
            "echo \"x",
            "echo $(ls",
            "if then rm -rf /tmp/x",
            "cat (touch x)",
            "ls )",
            "a &&",
        ] {
            assert!(parse(src).error.is_some(), "{src:?}");
        }
        let deep = format!("{}x{}", "$(".repeat(500), ")".repeat(500));
        assert_eq!(parse(&deep).limit, Some(Limit::Depth));
        let deep = format!("{}x{}", "( ".repeat(5000), " )".repeat(5000));
        assert_eq!(parse(&deep).limit, Some(Limit::Depth));
    }
}
