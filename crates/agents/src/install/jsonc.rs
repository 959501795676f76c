//! Editing a JSON settings file that may hold comments and trailing commas
//! (JSONC: Gemini CLI and Qwen Code strip comments before they parse their
//! `settings.json`, and VS Code–style editors write them) as *text*: each
//! edit is a splice of a few bytes at places the parser located, so every
//! byte the edit does not touch (comments, blank lines, key order,
//! indentation, trailing commas, line endings) stays as it was.
//!
//! The parser is jsonc-parser's: it gives every value's byte range and every
//! comment's, and a line and column for what it cannot read. Only comments
//! and trailing commas are accepted, the two extensions the clients read;
//! JSON5's single quotes, bare keys, hexadecimal numbers and missing commas
//! are refused, since a client would not read the file toolgate wrote.
//!
//! Why splices, not the crate's own editable tree (its `cst` feature)?
//! Removing from that tree is exact, but inserting first trims the blank
//! lines at the inside start and end of the object or array it inserts into
//! (a blank line above a closing `}` goes), and uninstalling could then not
//! give the file back. Splicing needs nothing the parser does not give.
//!
//! The layout of an added member follows its container:
//! - when the last member starts a line of its own, the new one goes on
//!   lines of its own after it (and after a comment on its line), indented
//!   like it and pretty-printed with the file's indentation unit and line
//!   ending; it ends with a comma when the last member did, and a last
//!   member without one gets the comma it now needs right after it;
//! - otherwise (a container on one line) it joins the last member's line;
//! - an empty container is opened onto lines.
//!
//! A removed member takes its comma along and, when it stood on lines of
//! its own, those lines; the member before it gives up a comma it no
//! longer needs. So removing what [`Doc::append`] added gives back the
//! bytes there were before. Comments outside the member stay.

use std::fmt;

use jsonc_parser::ast::{ObjectProp, ObjectPropName, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::errors::{ParseError, ParseErrorKind};
use jsonc_parser::tokens::Token;
use jsonc_parser::{parse_to_ast, CollectOptions, CommentCollectionStrategy, ParseOptions};

use super::json::Json;

/// Why a text is not JSONC toolgate reads, and where (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct SyntaxError {
    /// The line.
    pub line: usize,
    /// The column, in characters.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

impl SyntaxError {
    fn from_parser(e: &ParseError) -> SyntaxError {
        let kind = match e.kind() {
            // The parser points at where the unclosed thing starts.
            ParseErrorKind::UnterminatedObject => "this `{` is never closed".to_string(),
            ParseErrorKind::UnterminatedArray => "this `[` is never closed".to_string(),
            ParseErrorKind::UnterminatedCommentBlock => "this `/*` is never closed".to_string(),
            kind => kind.to_string(),
        };
        // The parser capitalises its messages; ours are lower case.
        let mut chars = kind.chars();
        let message = match chars.next() {
            Some(c) => c.to_lowercase().chain(chars).collect(),
            None => kind,
        };
        SyntaxError {
            line: e.line_display(),
            column: e.column_display(),
            message,
        }
    }
}

/// An edit that does not fit the document: a path that leads nowhere, or
/// to something that is not an object or array. The callers check the
/// shape before they edit, so this is a bug's error, not a user's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot edit `{path}`: {what}")]
pub struct EditError {
    /// The path, dotted.
    path: String,
    /// What is not there.
    what: &'static str,
}

/// One step from a value into one of its members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'k> {
    /// An object's member of this name (the first, if it is repeated).
    Key(&'k str),
    /// An array's element.
    Index(usize),
}

impl fmt::Display for Step<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Key(k) => f.write_str(k),
            Step::Index(i) => write!(f, "{i}"),
        }
    }
}

fn dotted(path: &[Step]) -> String {
    let parts: Vec<String> = path.iter().map(Step::to_string).collect();
    parts.join(".")
}

/// What kind of value is somewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An object.
    Object,
    /// An array.
    Array,
    /// A string, number, boolean or null.
    Scalar,
}

/// What JSONC toolgate accepts: JSON with comments and trailing commas.
/// Every field is named, so that a release with a new leniency (on by
/// default) does not compile until someone decides on it.
fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// A parsed settings file: its text, its value with byte ranges, and where
/// its comments are.
pub struct Doc<'t> {
    text: &'t str,
    root: Option<Value<'t>>,
    /// Byte ranges of the comments, in file order.
    comments: Vec<Span>,
}

/// Replace `start..end` with `text`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

fn insert(at: usize, text: String) -> Splice {
    Splice {
        start: at,
        end: at,
        text,
    }
}

fn delete(start: usize, end: usize) -> Splice {
    Splice {
        start,
        end,
        text: String::new(),
    }
}

fn prop_name<'a>(p: &'a ObjectProp<'_>) -> &'a str {
    match &p.name {
        ObjectPropName::String(lit) => &lit.value,
        ObjectPropName::Word(lit) => lit.value,
    }
}

/// A byte range: start, end.
type Span = (usize, usize);

/// The byte ranges of a container's members (an object's `"key": value`
/// pairs, an array's elements); `None` for a scalar.
fn members(v: &Value) -> Option<Vec<Span>> {
    match v {
        Value::Object(o) => Some(
            o.properties
                .iter()
                .map(|p| (p.range.start, p.range.end))
                .collect(),
        ),
        Value::Array(a) => Some(a.elements.iter().map(|e| (e.start(), e.end())).collect()),
        _ => None,
    }
}

fn to_json(v: &Value) -> Option<Json> {
    Some(match v {
        Value::NullKeyword(_) => Json::Null,
        Value::BooleanLit(b) => Json::Bool(b.value),
        // A number JSON allows but f64 cannot hold (1e999) is not one
        // toolgate compares or writes: `None`, as for any unreadable part.
        Value::NumberLit(n) => Json::Number(n.value.parse().ok()?),
        Value::StringLit(s) => Json::String(s.value.to_string()),
        Value::Array(a) => Json::Array(a.elements.iter().map(to_json).collect::<Option<_>>()?),
        Value::Object(o) => Json::Object(
            o.properties
                .iter()
                .map(|p| Some((prop_name(p).to_string(), to_json(&p.value)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

fn member_text(key: Option<&str>, value: String) -> String {
    match key {
        Some(k) => format!("{}: {value}", Json::String(k.into()).render_inline()),
        None => value,
    }
}

impl<'t> Doc<'t> {
    /// Parses `text`; an empty text, or one of only comments, has no root.
    pub fn parse(text: &'t str) -> Result<Doc<'t>, SyntaxError> {
        let collect = CollectOptions {
            comments: CommentCollectionStrategy::AsTokens,
            tokens: true,
        };
        let parsed =
            parse_to_ast(text, &collect, &options()).map_err(|e| SyntaxError::from_parser(&e))?;
        let comments = parsed
            .tokens
            .unwrap_or_default()
            .iter()
            .filter(|t| matches!(t.token, Token::CommentLine(_) | Token::CommentBlock(_)))
            .map(|t| (t.range.start, t.range.end))
            .collect();
        Ok(Doc {
            text,
            root: parsed.value,
            comments,
        })
    }

    /// The top-level value, if the text has one.
    #[cfg(test)]
    pub fn root(&self) -> Option<&Value<'t>> {
        self.root.as_ref()
    }

    /// Does the text hold a comment anywhere?
    pub fn has_comments(&self) -> bool {
        !self.comments.is_empty()
    }

    /// The value at `path`.
    pub fn get(&self, path: &[Step]) -> Option<&Value<'t>> {
        let mut v = self.root.as_ref()?;
        for step in path {
            v = match (step, v) {
                (Step::Key(k), Value::Object(o)) => {
                    &o.properties.iter().find(|p| prop_name(p) == *k)?.value
                }
                (Step::Index(i), Value::Array(a)) => a.elements.get(*i)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// What kind of value is at `path`, if any.
    pub fn kind(&self, path: &[Step]) -> Option<Kind> {
        Some(match self.get(path)? {
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            _ => Kind::Scalar,
        })
    }

    /// The keys of the object at `path`, in file order.
    pub fn keys(&self, path: &[Step]) -> Option<Vec<&str>> {
        match self.get(path)? {
            Value::Object(o) => Some(o.properties.iter().map(prop_name).collect()),
            _ => None,
        }
    }

    /// Is there a comment inside the value at `path`, other than inside
    /// the values at `except`? Such a container is someone's, not only
    /// toolgate's, even when toolgate's entry was all it held.
    pub fn has_comment_in(&self, path: &[Step], except: &[Vec<Step>]) -> bool {
        let Some(v) = self.get(path) else {
            return false;
        };
        let skip: Vec<Span> = except
            .iter()
            .filter_map(|p| self.get(p))
            .map(|v| (v.start(), v.end()))
            .collect();
        self.comments.iter().any(|&(cs, ce)| {
            cs >= v.start() && ce <= v.end() && !skip.iter().any(|&(s, e)| cs >= s && ce <= e)
        })
    }

    /// The value at `path` as a [`Json`] (`None` also when a number in it
    /// does not fit an f64).
    pub fn json(&self, path: &[Step]) -> Option<Json> {
        to_json(self.get(path)?)
    }

    /// The text with `root` as its value, for a text that has none: an
    /// empty file gets the rendered object, a file of only comments keeps
    /// them above it.
    pub fn with_root(&self, root: &Json) -> String {
        let rendered = root.render("  ", true);
        if self.text.trim().is_empty() {
            return rendered;
        }
        let nl = self.newline();
        let rendered = rendered.replace('\n', nl);
        let sep = if self.text.ends_with('\n') { "" } else { nl };
        format!("{}{sep}{rendered}", self.text)
    }

    /// The text with `value` added as the last member of the object or
    /// array at `container` (under `key` for an object).
    pub fn append(
        &self,
        container: &[Step],
        key: Option<&str>,
        value: &Json,
    ) -> Result<String, EditError> {
        let (c, members) = self.container(container)?;
        let (open, close) = (c.start(), c.end().saturating_sub(1));
        let nl = self.newline();
        let unit = self.unit();
        let Some(&(last_start, last_end)) = members.last() else {
            // Empty: open it onto lines, after any comment inside.
            let outer = self.line_indent(open);
            let indent = format!("{outer}{unit}");
            let member = member_text(key, self.render(value, &indent, &unit));
            let inner = self
                .comments
                .iter()
                .filter(|&&(s, e)| s > open && e <= close)
                .map(|&(_, e)| e)
                .max()
                .unwrap_or(open + 1);
            let rest = &self.text[inner..close];
            let splice = if rest.contains('\n') {
                insert(inner, format!("{nl}{indent}{member}"))
            } else {
                // Only spaces (or nothing) before the bracket: they become
                // the line break before it.
                Splice {
                    start: inner,
                    end: close,
                    text: format!("{nl}{indent}{member}{nl}{outer}"),
                }
            };
            return Ok(self.splice(vec![splice]));
        };
        let comma = self.comma_after(last_end, close);
        let after = comma.map_or(last_end, |c| c + 1);
        let mut splices = Vec::new();
        if comma.is_none() {
            splices.push(insert(last_end, ",".into()));
        }
        if let Some(indent) = self.own_line(last_start) {
            let member = member_text(key, self.render(value, indent, &unit));
            let trailing = if comma.is_some() { "," } else { "" };
            // After a comment on the last member's line, unless the closing
            // bracket shares that line.
            let tail = self.skip_same_line(after);
            let at = if self.newline_len(tail).is_some() {
                tail
            } else {
                after
            };
            splices.push(insert(at, format!("{nl}{indent}{member}{trailing}")));
        } else {
            let member = member_text(key, value.render_inline());
            splices.push(match comma {
                Some(c) => insert(c + 1, format!(" {member},")),
                None => insert(last_end, format!(" {member}")),
            });
        }
        Ok(self.splice(splices))
    }

    /// The text without the member at `path` (an object's key, an array's
    /// index).
    pub fn remove(&self, path: &[Step]) -> Result<String, EditError> {
        let Some((last, parent)) = path.split_last() else {
            return Err(EditError {
                path: String::new(),
                what: "the whole document is not a member",
            });
        };
        let (c, members) = self.container(parent)?;
        let index = match (last, c) {
            (Step::Key(k), Value::Object(o)) => {
                o.properties.iter().position(|p| prop_name(p) == *k)
            }
            (Step::Index(i), Value::Array(a)) => (*i < a.elements.len()).then_some(*i),
            _ => None,
        };
        let Some(index) = index else {
            return Err(EditError {
                path: dotted(path),
                what: "no such member",
            });
        };
        let (open, close) = (c.start(), c.end().saturating_sub(1));
        let (start, end) = members[index];
        let comma = self.comma_after(end, close);
        let after = comma.map_or(end, |c| c + 1);
        // The only member, with one line break and indentation on each side
        // and nothing else (past a block comment after the opening
        // bracket): the container is as `append` opens an empty one, and is
        // closed up again. (`[\n]` gives that too, but `[]` is how everyone
        // writes an empty container.) A blank line there is someone's and
        // stays, and so does the line break after a line comment.
        let inner = self
            .comments
            .iter()
            .filter(|&&(s, e)| s > open && e <= start)
            .map(|&(s, e)| (e, self.text[s..].starts_with("//")))
            .max()
            .unwrap_or((open + 1, false));
        let bare = |t: &str| t.trim().is_empty() && t.matches('\n').count() == 1;
        if members.len() == 1
            && !inner.1
            && bare(&self.text[inner.0..start])
            && bare(&self.text[after..close])
        {
            return Ok(self.splice(vec![delete(inner.0, close)]));
        }
        let tail = self.skip_blanks(after);
        let is_last = index + 1 == members.len();
        let mut splices = Vec::new();
        splices.push(match (self.own_line(start), self.newline_len(tail)) {
            // On lines of its own: they go.
            (Some(_), Some(n)) => delete(self.line_start(start), tail + n),
            // A comment goes on after it: that stays where it was.
            _ if self.comment_at(tail).is_some() => delete(start, tail),
            // Another member follows: the space before that goes too.
            _ if !is_last => delete(start, tail),
            // The closing bracket follows: the space before the member
            // goes, line breaks included.
            _ => delete(self.text[..start].trim_end().len(), after),
        });
        if comma.is_none() && index > 0 {
            let (_, prev_end) = members[index - 1];
            if let Some(pc) = self.comma_after(prev_end, close) {
                splices.push(delete(pc, pc + 1));
            }
        }
        Ok(self.splice(splices))
    }

    /// The text with the value at `path` replaced by `value`, laid out as
    /// the old one was (on lines, or inline).
    pub fn replace(&self, path: &[Step], value: &Json) -> Result<String, EditError> {
        let Some(old) = self.get(path) else {
            return Err(EditError {
                path: dotted(path),
                what: "no such value",
            });
        };
        let (start, end) = (old.start(), old.end());
        let text = if self.text[start..end].contains('\n') {
            self.render(value, self.line_indent(start), &self.unit())
        } else {
            value.render_inline()
        };
        Ok(self.splice(vec![Splice { start, end, text }]))
    }

    fn container(&self, path: &[Step]) -> Result<(&Value<'t>, Vec<Span>), EditError> {
        let err = |what| EditError {
            path: dotted(path),
            what,
        };
        let c = self.get(path).ok_or_else(|| err("no such value"))?;
        let m = members(c).ok_or_else(|| err("not an object or array"))?;
        Ok((c, m))
    }

    /// Applies `splices` (which do not overlap), from the end so that the
    /// offsets hold; two at one place end up in the order given.
    fn splice(&self, mut splices: Vec<Splice>) -> String {
        splices.reverse();
        splices.sort_by_key(|s| std::cmp::Reverse(s.start));
        let mut text = self.text.to_string();
        for s in splices {
            text.replace_range(s.start..s.end, &s.text);
        }
        text
    }

    /// `value` pretty-printed for a place on a line indented by `indent`.
    fn render(&self, value: &Json, indent: &str, unit: &str) -> String {
        let nl = self.newline();
        value
            .render(unit, false)
            .replace('\n', &format!("{nl}{indent}"))
    }

    /// The file's line ending: CRLF when its first line ends so.
    fn newline(&self) -> &'static str {
        match self.text.find('\n') {
            Some(i) if self.text[..i].ends_with('\r') => "\r\n",
            _ => "\n",
        }
    }

    /// The file's indentation unit: what the first member of a container
    /// that spans lines is indented by beyond its container's line; else
    /// two spaces (what the clients write).
    fn unit(&self) -> String {
        let mut todo: Vec<&Value> = self.root.iter().collect();
        while let Some(v) = todo.pop() {
            let (first, children): (Option<usize>, Vec<&Value>) = match v {
                Value::Object(o) => (
                    o.properties.first().map(|p| p.range.start),
                    o.properties.iter().map(|p| &p.value).collect(),
                ),
                Value::Array(a) => (
                    a.elements.first().map(Ranged::start),
                    a.elements.iter().collect(),
                ),
                _ => continue,
            };
            if let Some(inner) = first.and_then(|f| self.own_line(f)) {
                if let Some(unit) = inner.strip_prefix(self.line_indent(v.start())) {
                    if !unit.is_empty() {
                        return unit.to_string();
                    }
                }
            }
            todo.extend(children.into_iter().rev());
        }
        "  ".into()
    }

    fn line_start(&self, pos: usize) -> usize {
        self.text[..pos].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The leading spaces and tabs of the line `pos` is on.
    fn line_indent(&self, pos: usize) -> &'t str {
        let line = &self.text[self.line_start(pos)..];
        &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
    }

    /// What comes before `pos` on its line, if only spaces and tabs do.
    fn own_line(&self, pos: usize) -> Option<&'t str> {
        let before = &self.text[self.line_start(pos)..pos];
        before
            .bytes()
            .all(|b| b == b' ' || b == b'\t')
            .then_some(before)
    }

    /// The length of the line break at `pos`, if one is there.
    fn newline_len(&self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos..];
        if rest.starts_with("\r\n") {
            Some(2)
        } else if rest.starts_with('\n') {
            Some(1)
        } else {
            None
        }
    }

    fn comment_at(&self, pos: usize) -> Option<usize> {
        self.comments
            .binary_search_by_key(&pos, |&(s, _)| s)
            .ok()
            .map(|i| self.comments[i].1)
    }

    /// Past spaces and tabs from `pos`.
    fn skip_blanks(&self, pos: usize) -> usize {
        pos + self.text[pos..].len() - self.text[pos..].trim_start_matches([' ', '\t']).len()
    }

    /// Past spaces, tabs and comments from `pos`, on its line (a block
    /// comment that starts there is skipped whole).
    fn skip_same_line(&self, mut pos: usize) -> usize {
        loop {
            let next = self.skip_blanks(pos);
            match self.comment_at(next) {
                Some(end) => pos = end,
                None => return next,
            }
        }
    }

    /// The comma after the member ending at `end`, before `close`.
    fn comma_after(&self, end: usize, close: usize) -> Option<usize> {
        let mut pos = end;
        loop {
            let rest = &self.text[pos..];
            let next = pos + rest.len() - rest.trim_start().len();
            match self.comment_at(next) {
                Some(e) => pos = e,
                None => {
                    return (next < close && self.text[next..].starts_with(',')).then_some(next)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::json::indent_of;

    /// Parses a settings file's text: JSON, with comments and trailing
    /// commas allowed (JSONC), which are dropped. An empty text, or one of
    /// only comments, is `null`; a number an f64 cannot hold is refused.
    pub fn parse_json(text: &str) -> Result<Json, SyntaxError> {
        let doc = Doc::parse(text)?;
        if doc.root().is_none() {
            return Ok(Json::Null);
        }
        doc.json(&[]).ok_or_else(|| SyntaxError {
            line: 1,
            column: 1,
            message: "a number too large for toolgate to read".into(),
        })
    }

    #[test]
    fn key_order_and_numbers_survive_a_round_trip() {
        for text in [
            "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    2.5\n  ],\n  \"m\": {}\n}\n",
            "{\n    \"b\": \"x\",\n    \"a\": -3\n}",
        ] {
            let doc = parse_json(text).unwrap_or(Json::Null);
            let again = doc.render(&indent_of(text), text.ends_with('\n'));
            assert_eq!(again, text, "{text:?}");
        }
    }

    #[test]
    fn comments_and_trailing_commas_are_read_past() {
        let doc = parse_json("// c\n{\n  \"a\": [1, /* two */ 2,],\n}\n");
        assert_eq!(
            doc.map(|d| d.render_inline()),
            Ok("{\"a\": [1, 2]}".to_string())
        );
        assert_eq!(parse_json("// nothing\n"), Ok(Json::Null));
        assert_eq!(parse_json("\n{\n").map_err(|e| e.line), Err(2));
    }

    fn entry() -> Json {
        Json::Object(vec![
            ("command".into(), Json::String("toolgate hook".into())),
            ("timeout".into(), Json::Number(30.into())),
        ])
    }

    fn doc(text: &str) -> Doc<'_> {
        match Doc::parse(text) {
            Ok(d) => d,
            Err(e) => panic!("{text:?}: {e}"),
        }
    }

    /// (name, before, container path, key, after): appending `entry()`
    /// gives `after`, and removing it again gives `before` back.
    type AppendCase = (
        &'static str,
        &'static str,
        &'static [Step<'static>],
        Option<&'static str>,
        &'static str,
    );

    #[rustfmt::skip]
    const APPENDS: &[AppendCase] = &[
        ("after a last member without a comma",
         "[\n  1\n]\n", &[], None,
         "[\n  1,\n  {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  }\n]\n"),
        ("after a trailing comma, keeping the style",
         "[\n  1,\n]", &[], None,
         "[\n  1,\n  {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  },\n]"),
        ("after the comment on the last member's line",
         "{\n  \"a\": 1 // one\n}", &[], Some("k"),
         "{\n  \"a\": 1, // one\n  \"k\": {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  }\n}"),
        ("after a trailing comma and its comment",
         "{\n  \"a\": 1, /* one */ // more\n\n}", &[], Some("k"),
         "{\n  \"a\": 1, /* one */ // more\n  \"k\": {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  },\n\n}"),
        ("blank lines inside the container stay",
         "{\n\n\t\"a\": [\n\n\t\t1\n\n\t]\n\n}", &[Step::Key("a")], None,
         "{\n\n\t\"a\": [\n\n\t\t1,\n\t\t{\n\t\t\t\"command\": \"toolgate hook\",\n\t\t\t\"timeout\": 30\n\t\t}\n\n\t]\n\n}"),
        ("an empty array is opened onto lines",
         "{\n    \"a\": []\n}", &[Step::Key("a")], None,
         "{\n    \"a\": [\n        {\n            \"command\": \"toolgate hook\",\n            \"timeout\": 30\n        }\n    ]\n}"),
        ("an empty object with a comment keeps it",
         "{\n  // nothing yet\n}\n", &[], Some("k"),
         "{\n  // nothing yet\n  \"k\": {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  }\n}\n"),
        ("a container on one line stays on one",
         "{\"a\": [1, 2], \"b\": true}", &[Step::Key("a")], None,
         "{\"a\": [1, 2, {\"command\": \"toolgate hook\", \"timeout\": 30}], \"b\": true}"),
        ("one line with a trailing comma",
         "[1,]", &[], None,
         "[1, {\"command\": \"toolgate hook\", \"timeout\": 30},]"),
        ("CRLF line endings",
         "{\r\n  \"a\": 1\r\n}\r\n", &[], Some("k"),
         "{\r\n  \"a\": 1,\r\n  \"k\": {\r\n    \"command\": \"toolgate hook\",\r\n    \"timeout\": 30\r\n  }\r\n}\r\n"),
        ("the closing bracket on the last member's line",
         "[\n  1 ]", &[], None,
         "[\n  1,\n  {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  } ]"),
    ];

    #[test]
    fn appending_keeps_the_rest_and_removing_gives_it_back() {
        for &(name, before, path, key, after) in APPENDS {
            let added = doc(before).append(path, key, &entry());
            assert_eq!(added.as_deref(), Ok(after), "{name}");
            let d = doc(after);
            let mut member = path.to_vec();
            member.push(match key {
                Some(k) => Step::Key(k),
                None => Step::Index(
                    d.get(path)
                        .and_then(members)
                        .map_or(0, |m| m.len().saturating_sub(1)),
                ),
            });
            assert_eq!(d.json(&member), Some(entry()), "{name}");
            assert_eq!(d.remove(&member).as_deref(), Ok(before), "{name}: removed");
        }
    }

    /// (name, before, member path, after)
    #[rustfmt::skip]
    const REMOVALS: &[(&str, &str, &[Step], &str)] = &[
        ("a middle member with its line",
         "[\n  1,\n  2,\n  3\n]", &[Step::Index(1)], "[\n  1,\n  3\n]"),
        ("the first of one line",
         "[1, 2]", &[Step::Index(0)], "[2]"),
        ("the last of one line",
         "[1, 2]", &[Step::Index(1)], "[1]"),
        ("the last of one line, with a trailing comma",
         "[1, 2,]", &[Step::Index(1)], "[1,]"),
        ("the closing bracket on its line",
         "[\n  1,\n  2 ]", &[Step::Index(1)], "[\n  1 ]"),
        ("one of two on a line of their own",
         "[\n  1, 2\n]", &[Step::Index(0)], "[\n  2\n]"),
        ("the only member",
         "{\"a\": 1}", &[Step::Key("a")], "{}"),
        ("the only member's lines: the container closes up",
         "{\n  \"a\": [\n    1\n  ]\n}", &[Step::Key("a"), Step::Index(0)], "{\n  \"a\": []\n}"),
        ("but not over a blank line",
         "[\n  1\n\n]", &[Step::Index(0)], "[\n\n]"),
        ("a comment after it on its line stays",
         "[\n  1,\n  2 // two\n]", &[Step::Index(1)], "[\n  1\n  // two\n]"),
        ("a comment inside it goes with it",
         "{\n  \"a\": 1,\n  \"b\": {\n    // b's\n    \"c\": 2\n  },\n  \"d\": 3\n}", &[Step::Key("b")],
         "{\n  \"a\": 1,\n  \"d\": 3\n}"),
        ("the comment above it stays",
         "[\n  // about 2\n  2\n]", &[Step::Index(0)], "[\n  // about 2\n]"),
    ];

    #[test]
    fn removing_takes_the_member_its_comma_and_its_lines() {
        for &(name, before, path, after) in REMOVALS {
            assert_eq!(doc(before).remove(path).as_deref(), Ok(after), "{name}");
        }
    }

    #[test]
    fn replacing_keeps_the_layout_of_the_old_value() {
        let text = "[\n  {\"command\": \"old\"}, // ours\n  {\n    \"x\": 1\n  }\n]";
        let d = doc(text);
        assert_eq!(
            d.replace(&[Step::Index(0)], &entry()).as_deref(),
            Ok("[\n  {\"command\": \"toolgate hook\", \"timeout\": 30}, // ours\n  {\n    \"x\": 1\n  }\n]")
        );
        assert_eq!(
            d.replace(&[Step::Index(1)], &entry()).as_deref(),
            Ok("[\n  {\"command\": \"old\"}, // ours\n  {\n    \"command\": \"toolgate hook\",\n    \"timeout\": 30\n  }\n]")
        );
    }

    #[test]
    fn only_comments_and_trailing_commas_are_accepted() {
        for ok in [
            "{} // c",
            "/* c */ {\"a\": [1,],}",
            "",
            "// only a comment\n",
        ] {
            assert!(Doc::parse(ok).is_ok(), "{ok:?}");
        }
        for (bad, line) in [
            ("{\n  \"a\": 1\n", 1),
            ("{\n  \"a\": [\n    1\n}", 4),
            ("{\n  'a': 1\n}", 2),
            ("{\n  a: 1\n}", 2),
            ("[\n  1\n  2\n]", 2),
            ("[0x10]", 1),
            ("{} /* open", 1),
            ("{} {}", 1),
        ] {
            match Doc::parse(bad) {
                Ok(_) => panic!("{bad:?} was accepted"),
                Err(e) => assert_eq!(e.line, line, "{bad:?}: {e}"),
            }
        }
        let e = Doc::parse("{\n  \"a\": [1,\n").err();
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("line 2, column 8: this `[` is never closed")
        );
    }

    #[test]
    fn the_indentation_unit_comes_from_the_file() {
        for (text, unit) in [
            ("{\n    \"a\": 1\n}", "    "),
            ("{\n\t\"a\": 1\n}", "\t"),
            ("{\"a\": {\n   \"b\": 1\n}}", "   "),
            ("{\"a\": 1}", "  "),
            ("/*\n *\n */\n{\n  \"a\": 1\n}", "  "),
        ] {
            assert_eq!(doc(text).unit(), unit, "{text:?}");
        }
    }

    /// Writes a JSONC document whose layout (containers on lines or on
    /// one, indentation unit, blank lines, line and block comments in every
    /// place they can go, trailing commas, CRLF) is chosen by `choices`.
    struct Layout<'a> {
        choices: &'a [u8],
        at: usize,
        unit: &'static str,
        out: String,
    }

    impl Layout<'_> {
        fn pick(&mut self, n: u8) -> u8 {
            let b = self.choices.get(self.at).copied().unwrap_or(0);
            self.at += 1;
            b % n
        }

        fn value(&mut self, depth: usize, indent: &str, root: bool) {
            let kind = self.pick(4);
            if !root && (depth >= 3 || kind == 0) {
                let scalar = ["1", "\"s\"", "true", "null", "-2.5e3"][usize::from(self.pick(5))];
                self.out.push_str(scalar);
                return;
            }
            let object = kind % 2 == 1;
            let n = self.pick(4);
            let lines = self.pick(3) != 0;
            let trailing = n > 0 && self.pick(2) == 0;
            let inner = format!("{indent}{}", self.unit);
            self.out.push(if object { '{' } else { '[' });
            // Whether a line comment or a blank line holds the container
            // open: else an empty one is written closed (see `remove`).
            let mut held_open = false;
            match self.pick(4) {
                0 if lines => {
                    self.out.push_str(" // opens");
                    held_open = true;
                }
                1 => self.out.push_str("/* opens */"),
                // `[ ]` comes back as `[]` too.
                2 if !lines && n > 0 => self.out.push(' '),
                _ => {}
            }
            for k in 0..n {
                if lines {
                    if self.pick(5) == 0 {
                        self.out.push('\n');
                    }
                    if self.pick(5) == 0 {
                        self.out.push_str(&format!("\n{inner}/* above */"));
                    }
                    self.out.push_str(&format!("\n{inner}"));
                } else if k > 0 {
                    self.out.push(' ');
                }
                if object {
                    self.out.push_str(&format!("\"k{k}\": "));
                }
                self.value(depth + 1, &inner, false);
                if self.pick(6) == 0 {
                    self.out.push_str(" /* after */");
                }
                if k + 1 < n || trailing {
                    self.out.push(',');
                }
                match self.pick(6) {
                    0 if lines => self.out.push_str(" // end of line"),
                    1 => self.out.push_str(" /* end */"),
                    _ => {}
                }
            }
            if lines {
                if self.pick(5) == 0 {
                    self.out.push_str(&format!("\n{inner}// last"));
                    held_open = true;
                }
                if self.pick(5) == 0 {
                    self.out.push('\n');
                    held_open = true;
                }
                if n > 0 || held_open {
                    self.out.push_str(&format!("\n{indent}"));
                }
            } else if n > 0 && self.pick(3) == 0 {
                self.out.push(' ');
            }
            self.out.push(if object { '}' } else { ']' });
        }
    }

    fn layout(choices: &[u8]) -> String {
        let mut l = Layout {
            choices,
            at: 0,
            unit: "",
            out: String::new(),
        };
        l.unit = ["  ", "    ", "\t"][usize::from(l.pick(3))];
        if l.pick(3) == 0 {
            l.out.push_str("// header\n");
        }
        l.value(0, "", true);
        if l.pick(2) == 0 {
            l.out.push('\n');
        }
        if l.pick(4) == 0 {
            l.out = l.out.replace('\n', "\r\n");
        }
        l.out
    }

    /// Every container's path in `v`, `v`'s own (`prefix`) first.
    fn containers<'k>(v: &'k Value, prefix: Vec<Step<'k>>, out: &mut Vec<Vec<Step<'k>>>) {
        match v {
            Value::Object(o) => {
                out.push(prefix.clone());
                for p in &o.properties {
                    let mut at = prefix.clone();
                    at.push(Step::Key(prop_name(p)));
                    containers(&p.value, at, out);
                }
            }
            Value::Array(a) => {
                out.push(prefix.clone());
                for (i, e) in a.elements.iter().enumerate() {
                    let mut at = prefix.clone();
                    at.push(Step::Index(i));
                    containers(e, at, out);
                }
            }
            _ => {}
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// Whatever the layout, adding a member anywhere leaves a file
        /// that parses to the old value plus the member, and removing the
        /// member gives back the very bytes there were.
        #[test]
        fn append_then_remove_gives_back_the_bytes(
            choices in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120),
        ) {
            let before = layout(&choices);
            let d = Doc::parse(&before);
            proptest::prop_assert!(d.is_ok(), "{:?}: {:?}", before, d.err());
            let Ok(d) = d else { return Ok(()) };
            let mut paths = Vec::new();
            if let Some(root) = d.root() {
                containers(root, Vec::new(), &mut paths);
            }
            for path in paths {
                let is_object = d.kind(&path) == Some(Kind::Object);
                let key = is_object.then_some("toolgate");
                let after = d.append(&path, key, &entry());
                proptest::prop_assert!(after.is_ok(), "{:?} at {:?}: {:?}", before, path, after);
                let after = after.unwrap_or_default();
                let a = Doc::parse(&after);
                proptest::prop_assert!(a.is_ok(), "{:?} at {:?} gave {:?}: {:?}", before, path, after, a.err());
                let Ok(a) = a else { continue };
                let mut member = path.clone();
                member.push(match key {
                    Some(k) => Step::Key(k),
                    None => Step::Index(a.get(&path).and_then(members).map_or(0, |m| m.len().saturating_sub(1))),
                });
                proptest::prop_assert_eq!(a.json(&member), Some(entry()), "{:?} at {:?} gave {:?}", before, path, after);
                let removed = a.remove(&member);
                proptest::prop_assert_eq!(removed.as_deref(), Ok(before.as_str()), "{:?} at {:?} gave {:?}", before, path, after);
                // And the rest of the value is as it was.
                let mut without = a.json(&[]);
                if let Some(old) = d.json(&[]) {
                    let new = without.take();
                    proptest::prop_assert_eq!(strip(new, &member), Some(old), "{:?}", after);
                }
            }
        }
    }

    /// `v` without the member at `path`.
    fn strip(v: Option<Json>, path: &[Step]) -> Option<Json> {
        let mut v = v?;
        let (last, parent) = path.split_last()?;
        let mut c = &mut v;
        for step in parent {
            c = match (step, c) {
                (Step::Key(k), j @ Json::Object(_)) => j.get_mut(k)?,
                (Step::Index(i), Json::Array(items)) => items.get_mut(*i)?,
                _ => return None,
            };
        }
        match (last, c) {
            (Step::Key(k), j @ Json::Object(_)) => j.remove(k),
            (Step::Index(i), Json::Array(items)) if *i < items.len() => {
                items.remove(*i);
            }
            _ => return None,
        }
        Some(v)
    }
}
