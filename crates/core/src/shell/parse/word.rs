//! Reading one word the way a shell does: quotes, escapes, ANSI-C strings,
//! parameter expansions, arithmetic, and command or process substitutions,
//! which are parsed in place as nested command lists.

use super::{parse_at_depth, End, Parser, MAX_DEPTH};
use compact_str::CompactString;

use crate::shell::bytes::{
    fast_paths, is_meta, is_name_char, is_name_start, is_plain, memchr_byte, PLAIN_RUN,
};
use crate::shell::syntax::{Limit, Variables, Word};

/// A word being built.
pub(in crate::shell) struct WordBuf {
    bytes: Vec<u8>,
    literal: bool,
    /// An unquoted `*`, `?` or `[…]` was read.
    glob: bool,
    quoted: bool,
    substitution: bool,
    /// Plain variables were expanded inside / outside double quotes, or
    /// something else was ([`VARS_QUOTED`], [`VARS_UNQUOTED`],
    /// [`EXPANDS_OTHER`]).
    expands: u8,
    start: usize,
    brace_open: usize,
    brace_comma: bool,
}

thread_local! {
    /// Byte buffers of finished words, for the next ones: a word that is
    /// not one plain run (quotes, escapes, expansions) then allocates none.
    static SPARE_BYTES: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many buffers a thread keeps, and the largest it keeps.
const SPARE_BUFFERS: usize = 8;
const SPARE_BUFFER_BYTES: usize = 4096;

/// [`WordBuf::expands`]: a plain variable inside double quotes.
const VARS_QUOTED: u8 = 1;
/// A plain variable outside double quotes.
const VARS_UNQUOTED: u8 = 2;
/// Any other expansion.
const EXPANDS_OTHER: u8 = 4;

impl WordBuf {
    /// The shell changes the word by something other than a plain variable.
    fn expands_other(&mut self) {
        self.literal = false;
        self.expands |= EXPANDS_OTHER;
    }

    /// The shell expands the variable `name` in the word (`None`: a
    /// `${…}` that is not a plain name). Only one known to hold no secret
    /// counts as a plain variable; the name is the one the shell reads,
    /// whatever the word's text goes on with (`$PAT\H` expands `PAT`).
    fn expands_variable(&mut self, name: Option<&[u8]>, in_dquote: bool) {
        let no_secret = name
            .and_then(|n| std::str::from_utf8(n).ok())
            .is_some_and(crate::secrets::variables::holds_no_secret);
        if !no_secret {
            self.expands_other();
            return;
        }
        self.literal = false;
        self.expands |= if in_dquote {
            VARS_QUOTED
        } else {
            VARS_UNQUOTED
        };
    }

    pub(in crate::shell) fn new(start: usize) -> WordBuf {
        let bytes = SPARE_BYTES
            .with(|spare| spare.try_borrow_mut().ok().and_then(|mut s| s.pop()))
            .unwrap_or_else(|| Vec::with_capacity(32));
        WordBuf {
            bytes,
            literal: true,
            glob: false,
            quoted: false,
            substitution: false,
            expands: 0,
            start,
            brace_open: 0,
            brace_comma: false,
        }
    }

    pub(in crate::shell) fn finish(mut self, end: usize) -> Word {
        // A control character (a carriage return, an escape sequence) can
        // hide what a terminal shows; such a word is never taken at face
        // value.
        if self
            .bytes
            .iter()
            .any(|&b| b < 0x20 && b != b'\t' && b != b'\n')
        {
            self.expands_other();
        }
        let variables = if self.expands & EXPANDS_OTHER != 0 || self.glob {
            Variables::None
        } else if self.expands & VARS_UNQUOTED != 0 {
            Variables::Unquoted
        } else if self.expands & VARS_QUOTED != 0 {
            Variables::Quoted
        } else {
            Variables::None
        };
        let word = Word {
            text: CompactString::from_utf8_lossy(&self.bytes),
            literal: self.literal && !self.glob,
            glob: self.glob && self.literal,
            quoted: self.quoted,
            substitution: self.substitution,
            variables,
            span: self.start..end,
        };
        let mut bytes = self.bytes;
        if bytes.capacity() <= SPARE_BUFFER_BYTES {
            bytes.clear();
            SPARE_BYTES.with(|spare| {
                if let Ok(mut spare) = spare.try_borrow_mut() {
                    if spare.len() < SPARE_BUFFERS {
                        spare.push(bytes);
                    }
                }
            });
        }
        word
    }
}

impl Parser<'_> {
    /// Copies the (whole) character at the cursor into the word.
    fn copy_char(&mut self, w: &mut WordBuf) {
        let len = utf8_len(self.src, self.pos);
        w.bytes
            .extend_from_slice(&self.src[self.pos..self.pos + len]);
        self.pos += len;
    }

    /// Reads one word at the cursor; `None` when the cursor is at a
    /// metacharacter or the end.
    pub(in crate::shell) fn read_word(&mut self) -> Option<Word> {
        let start = self.pos;
        // Most words are one run of plain bytes ended by a blank, an
        // operator or the end: taken in one slice, without a buffer.
        // (A `(` after the run may make an array or a glob: read slowly.)
        let run = match self.plain {
            Some(plain) => plain.checked_shr(start as u32).unwrap_or(0).trailing_ones() as usize,
            None => self.src[start..]
                .iter()
                .take_while(|&&b| PLAIN_RUN[usize::from(b)])
                .count(),
        };
        if run > 0
            && fast_paths()
            && !self.failed()
            && self
                .src
                .get(start + run)
                .is_none_or(|&b| is_meta(b) && b != b'(')
        {
            if let Some(word) = Word::plain_run(self.text, start..start + run) {
                self.pos += run;
                return Some(word);
            }
        }
        let mut w = WordBuf::new(start);
        // Process substitution `<(…)`, `>(…)` and zsh's `=(…)` at word start.
        if matches!(self.peek(), Some(b'<' | b'>' | b'=')) && self.peek_at(1) == Some(b'(') {
            let op = self.peek().unwrap_or(b'<');
            self.pos += 2;
            w.bytes.extend_from_slice(&[op, b'(']);
            self.read_command_substitution(&mut w);
            w.bytes.push(b')');
        }
        loop {
            if self.failed() {
                break;
            }
            let Some(b) = self.peek() else { break };
            match b {
                b if is_meta(b) => {
                    // `name=(a b)` array assignment.
                    if b == b'(' && self.assignment_prefix(&w) {
                        w.expands_other();
                        self.read_balanced_parens(&mut w);
                        continue;
                    }
                    break;
                }
                b'\'' => {
                    w.quoted = true;
                    self.pos += 1;
                    match memchr_byte(b'\'', self.src, self.pos) {
                        Some(end) => {
                            w.bytes.extend_from_slice(&self.src[self.pos..end]);
                            self.pos = end + 1;
                        }
                        None => {
                            self.fail("unterminated single quote");
                            break;
                        }
                    }
                }
                b'"' => {
                    w.quoted = true;
                    self.pos += 1;
                    self.read_double_quoted(&mut w);
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'\n') => self.pos += 1,
                        Some(_) => {
                            w.quoted = true;
                            self.copy_char(&mut w);
                        }
                        None => w.bytes.push(b'\\'),
                    }
                }
                b'$' => {
                    if self.peek_at(1) == Some(b'\'') {
                        w.quoted = true;
                        self.pos += 2;
                        self.read_ansi_c(&mut w);
                    } else if self.peek_at(1) == Some(b'"') {
                        // `$"…"`: translated through the locale's message
                        // catalogue, which may put expansions in its place.
                        w.quoted = true;
                        w.expands_other();
                        self.pos += 2;
                        self.read_double_quoted(&mut w);
                    } else {
                        self.read_dollar(&mut w, false);
                    }
                }
                b'`' => self.read_backquote(&mut w, false),
                b'*' | b'?' | b'+' | b'@' | b'!' if self.peek_at(1) == Some(b'(') => {
                    // Extended glob `@(…)` and friends.
                    w.expands_other();
                    w.bytes.push(b);
                    self.pos += 1;
                    self.read_balanced_parens(&mut w);
                }
                b'*' | b'?' => {
                    w.glob = true;
                    w.bytes.push(b);
                    self.pos += 1;
                }
                b'[' => {
                    let rest = &self.src[self.pos + 1..];
                    let end = rest.iter().position(|&c| is_meta(c)).unwrap_or(rest.len());
                    if rest[..end].contains(&b']') {
                        w.glob = true;
                    }
                    w.bytes.push(b);
                    self.pos += 1;
                }
                b'{' => {
                    w.brace_open += 1;
                    w.bytes.push(b);
                    self.pos += 1;
                }
                b',' if w.brace_open > 0 => {
                    w.brace_comma = true;
                    w.bytes.push(b);
                    self.pos += 1;
                }
                b'.' if w.brace_open > 0 && self.peek_at(1) == Some(b'.') => {
                    w.brace_comma = true;
                    w.bytes.extend_from_slice(b"..");
                    self.pos += 2;
                }
                b'}' => {
                    if w.brace_open > 0 {
                        w.brace_open -= 1;
                        if w.brace_comma {
                            w.expands_other();
                        }
                    }
                    w.bytes.push(b);
                    self.pos += 1;
                }
                _ => {
                    // Runs of plain bytes, the bulk of most words, are copied
                    // in one go.
                    // This byte is ordinary here; so are the plain ones after
                    // it (and dots and commas outside braces).
                    let outside_braces = w.brace_open == 0;
                    let run = if b.is_ascii() {
                        1 + self.src[self.pos + 1..]
                            .iter()
                            .take_while(|&&c| {
                                is_plain(c) || (outside_braces && matches!(c, b'.' | b','))
                            })
                            .count()
                    } else {
                        0
                    };
                    if run > 1 {
                        w.bytes
                            .extend_from_slice(&self.src[self.pos..self.pos + run]);
                        self.pos += run;
                    } else {
                        self.copy_char(&mut w);
                    }
                }
            }
        }
        if self.pos == start {
            return None;
        }
        Some(w.finish(self.pos))
    }

    fn assignment_prefix(&self, w: &WordBuf) -> bool {
        let b = &w.bytes;
        !w.quoted
            && b.len() >= 2
            && b.last() == Some(&b'=')
            && is_name_start(b[0])
            && b[..b.len() - 1]
                .iter()
                .all(|&c| is_name_char(c) || c == b'+')
    }

    /// Reads balanced parentheses (array values, extended globs), keeping
    /// the text; quotes inside are honoured.
    fn read_balanced_parens(&mut self, w: &mut WordBuf) {
        let mut level = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' => level += 1,
                b')' => {
                    level = level.saturating_sub(1);
                    if level == 0 {
                        w.bytes.push(b);
                        self.pos += 1;
                        return;
                    }
                }
                b'\'' => {
                    if let Some(end) = memchr_byte(b'\'', self.src, self.pos + 1) {
                        w.bytes.extend_from_slice(&self.src[self.pos..=end]);
                        self.pos = end + 1;
                        continue;
                    }
                }
                b'"' => {
                    self.pos += 1;
                    self.read_double_quoted(w);
                    continue;
                }
                b'$' => {
                    self.read_dollar(w, false);
                    continue;
                }
                b'`' => {
                    self.read_backquote(w, false);
                    continue;
                }
                b'\\' => {
                    w.bytes.push(b);
                    self.pos += 1;
                    if self.peek().is_none() {
                        break;
                    }
                }
                _ => {}
            }
            self.copy_char(w);
        }
        self.fail("unterminated `(`");
    }

    /// After the opening `"`; consumes through the closing `"`.
    fn read_double_quoted(&mut self, w: &mut WordBuf) {
        loop {
            let Some(b) = self.peek() else {
                self.fail("unterminated double quote");
                return;
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                        w.bytes.push(c);
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        w.bytes.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'$' | b'`' => self.expansion_or_char(w, b),
                _ => {
                    // Text up to the next byte that means something here,
                    // copied in one go (it ends on an ASCII byte, so on a
                    // character boundary).
                    let rest = &self.src[self.pos..];
                    let run = rest
                        .iter()
                        .position(|&c| matches!(c, b'"' | b'\\' | b'$' | b'`'))
                        .unwrap_or(rest.len());
                    w.bytes.extend_from_slice(&rest[..run]);
                    self.pos += run;
                }
            }
            if self.failed() {
                return;
            }
        }
    }

    /// Inside double quotes and `${…}`: `$` and backquotes expand, anything
    /// else is copied.
    fn expansion_or_char(&mut self, w: &mut WordBuf, b: u8) {
        match b {
            b'$' => self.read_dollar(w, true),
            b'`' => self.read_backquote(w, true),
            _ => self.copy_char(w),
        }
    }

    /// After `$'`; ANSI-C quoting with its escapes.
    fn read_ansi_c(&mut self, w: &mut WordBuf) {
        loop {
            let Some(b) = self.peek() else {
                self.fail("unterminated $'…' string");
                return;
            };
            self.pos += 1;
            match b {
                b'\'' => return,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        self.fail("unterminated $'…' string");
                        return;
                    };
                    self.pos += 1;
                    match e {
                        b'n' => w.bytes.push(b'\n'),
                        b't' => w.bytes.push(b'\t'),
                        b'r' => w.bytes.push(b'\r'),
                        b'a' => w.bytes.push(7),
                        b'b' => w.bytes.push(8),
                        b'e' | b'E' => w.bytes.push(27),
                        b'f' => w.bytes.push(12),
                        b'v' => w.bytes.push(11),
                        b'\\' | b'\'' | b'"' | b'?' => w.bytes.push(e),
                        b'x' => {
                            let v = self.read_radix(16, 2);
                            push_code_unit(w, v.unwrap_or(u32::from(b'x')));
                        }
                        b'u' => {
                            let v = self.read_radix(16, 4);
                            push_char(w, v);
                        }
                        b'U' => {
                            let v = self.read_radix(16, 8);
                            push_char(w, v);
                        }
                        b'0'..=b'7' => {
                            self.pos -= 1;
                            let v = self.read_radix(8, 3).unwrap_or(0);
                            push_code_unit(w, v & 0xff);
                        }
                        b'c' => {
                            if let Some(c) = self.peek() {
                                self.pos += 1;
                                w.bytes.push(c & 0x1f);
                            }
                        }
                        other => {
                            w.bytes.push(b'\\');
                            w.bytes.push(other);
                        }
                    }
                }
                _ => w.bytes.push(b),
            }
        }
    }

    fn read_radix(&mut self, radix: u32, max: usize) -> Option<u32> {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = self.peek().and_then(|b| (b as char).to_digit(radix)) else {
                break;
            };
            value = value * radix + d;
            self.pos += 1;
            n += 1;
        }
        (n > 0).then_some(value)
    }

    /// At `$`: parameter expansion, command substitution or arithmetic.
    pub(in crate::shell) fn read_dollar(&mut self, w: &mut WordBuf, in_dquote: bool) {
        match self.peek_at(1) {
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                w.expands_other();
                w.bytes.extend_from_slice(b"$((");
                self.pos += 3;
                self.read_arith_body();
                w.bytes.extend_from_slice(b"))");
            }
            Some(b'(') => {
                w.expands_other();
                w.bytes.extend_from_slice(b"$(");
                self.pos += 2;
                self.read_command_substitution(w);
                w.bytes.push(b')');
            }
            Some(b'{') => {
                let start = self.pos;
                self.pos += 2;
                self.read_parameter_braces(w);
                // What stands between the braces counts as a variable only
                // when it is a whole name of the list (no operator, no
                // indirection), and the braces closed.
                let closed = self.src.get(self.pos.wrapping_sub(1)) == Some(&b'}');
                let inside = self.src.get(start + 2..self.pos.saturating_sub(1));
                w.expands_variable(inside.filter(|_| closed), in_dquote);
            }
            Some(c) if is_name_start(c) => {
                let start = self.pos;
                self.pos += 1;
                while self.peek().is_some_and(is_name_char) {
                    self.pos += 1;
                }
                w.expands_variable(self.src.get(start + 1..self.pos), in_dquote);
                w.bytes.extend_from_slice(&self.src[start..self.pos]);
            }
            // `$[…]`, bash's old arithmetic: it reads variables (and runs
            // the substitutions of their subscripts). Its text is read on
            // as the word's, so what it holds is still found.
            Some(b'[') => {
                w.expands_other();
                w.bytes.push(b'$');
                self.pos += 1;
            }
            Some(c)
                if c.is_ascii_digit()
                    || matches!(c, b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') =>
            {
                w.expands_other();
                w.bytes.extend_from_slice(&self.src[self.pos..self.pos + 2]);
                self.pos += 2;
            }
            _ => {
                w.bytes.push(b'$');
                self.pos += 1;
            }
        }
    }

    /// After `${`: through the matching `}`; substitutions inside run.
    fn read_parameter_braces(&mut self, w: &mut WordBuf) {
        if !self.descend() {
            return;
        }
        self.read_parameter_inner(w);
        self.depth -= 1;
    }

    fn read_parameter_inner(&mut self, w: &mut WordBuf) {
        w.bytes.extend_from_slice(b"${");
        let mut level = 1usize;
        loop {
            let Some(b) = self.peek() else {
                self.fail("unterminated ${…}");
                return;
            };
            match b {
                b'}' => {
                    level -= 1;
                    self.pos += 1;
                    w.bytes.push(b);
                    if level == 0 {
                        return;
                    }
                }
                b'{' => {
                    level += 1;
                    self.pos += 1;
                    w.bytes.push(b);
                }
                b'\\' => {
                    w.bytes.push(b);
                    self.pos += 1;
                    if let Some(c) = self.peek() {
                        w.bytes.push(c);
                        self.pos += 1;
                    }
                }
                b'\'' => match memchr_byte(b'\'', self.src, self.pos + 1) {
                    Some(end) => {
                        w.bytes.extend_from_slice(&self.src[self.pos + 1..end]);
                        self.pos = end + 1;
                    }
                    None => {
                        self.fail("unterminated single quote");
                        return;
                    }
                },
                b'"' => {
                    self.pos += 1;
                    self.read_double_quoted(w);
                }
                _ => self.expansion_or_char(w, b),
            }
            if self.failed() {
                return;
            }
        }
    }

    /// After `$(`, `<(`, `>(`: parses the commands in place through `)`.
    pub(in crate::shell) fn read_command_substitution(&mut self, w: &mut WordBuf) {
        w.expands_other();
        w.substitution = true;
        self.mark_structured();
        if self.depth + 1 >= MAX_DEPTH {
            self.limit = Some(Limit::Depth);
            self.skip_to_close_paren();
            return;
        }
        let saved = (self.pipeline, self.stage);
        self.depth += 1;
        self.subst_level += 1;
        let start = self.pos;
        self.parse_list(End::Paren);
        self.subst_level -= 1;
        self.depth -= 1;
        (self.pipeline, self.stage) = saved;
        if self.failed() {
            return;
        }
        w.bytes.extend_from_slice(&self.src[start..self.pos]);
        if self.peek() == Some(b')') {
            self.pos += 1;
        } else {
            self.fail("unterminated command substitution");
        }
    }

    /// After `((` or `$((`: arithmetic through `))`. Substitutions inside are
    /// parsed; the rest is skipped.
    pub(in crate::shell) fn read_arith_body(&mut self) {
        if !self.descend() {
            return;
        }
        self.read_arith_inner();
        self.depth -= 1;
    }

    fn read_arith_inner(&mut self) {
        let mut level = 0usize;
        loop {
            let Some(b) = self.peek() else {
                self.fail("unterminated arithmetic expression");
                return;
            };
            match b {
                b'(' => {
                    level += 1;
                    self.pos += 1;
                }
                b')' => {
                    if level == 0 {
                        if self.peek_at(1) == Some(b')') {
                            self.pos += 2;
                            return;
                        }
                        self.fail("expected `))`");
                        return;
                    }
                    level -= 1;
                    self.pos += 1;
                }
                b'$' | b'`' => {
                    self.mark_structured();
                    let mut scratch = WordBuf::new(self.pos);
                    if b == b'$' {
                        self.read_dollar(&mut scratch, false);
                    } else {
                        self.read_backquote(&mut scratch, false);
                    }
                }
                _ => self.pos += 1,
            }
            if self.failed() {
                return;
            }
        }
    }

    /// At a backquote: reads through the closing one, unescapes, and parses
    /// the text as a nested script.
    pub(in crate::shell) fn read_backquote(&mut self, w: &mut WordBuf, in_dquote: bool) {
        w.expands_other();
        w.substitution = true;
        self.mark_structured();
        self.pos += 1;
        // Where the backquoted text starts: the nested commands' place.
        let open = self.pos;
        let mut inner = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                self.fail("unterminated backquote");
                return;
            };
            self.pos += 1;
            match b {
                b'`' => break,
                b'\\' => match self.peek() {
                    Some(c @ (b'$' | b'`' | b'\\')) => {
                        inner.push(c);
                        self.pos += 1;
                    }
                    Some(b'"') if in_dquote => {
                        inner.push(b'"');
                        self.pos += 1;
                    }
                    _ => inner.push(b'\\'),
                },
                _ => inner.push(b),
            }
        }
        let text = String::from_utf8_lossy(&inner).into_owned();
        w.bytes.push(b'`');
        w.bytes.extend_from_slice(text.as_bytes());
        w.bytes.push(b'`');
        let nested = parse_at_depth(&text, self.depth + 1);
        if let Some(err) = nested.error.clone() {
            self.fail(&format!("in backquoted command: {}", err.message));
        }
        self.absorb(nested, open);
    }

    /// Past the depth limit: skips to the matching `)` without recursion.
    pub(in crate::shell) fn skip_to_close_paren(&mut self) {
        let mut level = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' => level += 1,
                b')' => {
                    if level == 0 {
                        self.pos += 1;
                        return;
                    }
                    level -= 1;
                }
                b'\\' => self.pos += 1,
                b'\'' => {
                    if let Some(end) = memchr_byte(b'\'', self.src, self.pos + 1) {
                        self.pos = end;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.pos = self.pos.min(self.src.len());
    }
}

fn utf8_len(src: &[u8], pos: usize) -> usize {
    let b = src[pos];
    let len = if b < 0x80 {
        1
    } else if b >= 0xf0 {
        4
    } else if b >= 0xe0 {
        3
    } else if b >= 0xc0 {
        2
    } else {
        1
    };
    len.min(src.len() - pos)
}

fn push_code_unit(w: &mut WordBuf, v: u32) {
    if v < 0x80 {
        w.bytes.push(v as u8);
    } else {
        push_char(w, Some(v));
    }
}

fn push_char(w: &mut WordBuf, v: Option<u32>) {
    let c = v.and_then(char::from_u32).unwrap_or('\u{fffd}');
    let mut buf = [0u8; 4];
    w.bytes
        .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}
