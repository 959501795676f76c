//! Shell text cut out of another file, and where each of its bytes came
//! from there.
//!
//! A `run:` block in a workflow, a recipe line in a Makefile or a string in
//! `package.json` is shell text once the outer file's own syntax is taken
//! off: indentation, quotes, escapes, make's `$$`. The shell front end reads
//! that text; a report must name the line and column of the outer file. A
//! [`Snippet`] keeps both: the text and a mark wherever the mapping jumps.
//!
//! Text the outer tool fills in before the shell sees it (`${{ … }}` in a
//! workflow, `$(VAR)` in a recipe) is neither literal nor the shell's to
//! expand: it is replaced by a parameter expansion of a name of its own,
//! which the classifier reads as something it cannot know, and the command
//! is never labelled safe (see [`Snippet::substituted`]).

use std::ops::Range;

/// The name every placeholder starts with.
const PLACEHOLDER: &str = "__toolgate_substituted_";

/// Shell text and its origin in the file it was cut from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    text: String,
    /// `(offset in text, line, column)`, by offset: the byte at the offset
    /// is at that line and column of the file (both from 1, the column in
    /// characters); the bytes after it follow on, a newline starting the
    /// next line at column 1.
    marks: Vec<(usize, u64, u64)>,
    /// The text each placeholder stands for, by its number.
    substituted: Vec<String>,
}

impl Snippet {
    /// An empty snippet.
    pub fn new() -> Snippet {
        Snippet::default()
    }

    /// A whole file's text, which starts at line 1, column 1. Each line
    /// is marked, so that finding a place costs a line's length, not the
    /// file's.
    pub fn whole(text: &str) -> Snippet {
        let mut s = Snippet::new();
        for (n, line) in text.split_inclusive('\n').enumerate() {
            s.push(line, n as u64 + 1, 1);
        }
        s
    }

    /// The text the shell front end reads.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Appends `text`, whose first byte is at `line` and `column` of the
    /// file.
    pub fn push(&mut self, text: &str, line: u64, column: u64) {
        if text.is_empty() {
            return;
        }
        self.mark(line, column);
        self.text.push_str(text);
    }

    /// Appends text that only the snippet has (a separator the outer file
    /// implies): it is placed where the text before it ends.
    pub fn push_implied(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Appends a placeholder for `original`, text at `line` and `column`
    /// that another tool fills in before the shell reads it.
    pub fn push_substituted(&mut self, original: &str, line: u64, column: u64) {
        self.mark(line, column);
        let n = self.substituted.len();
        self.substituted.push(original.to_string());
        self.text.push_str(&format!("${{{PLACEHOLDER}{n}}}"));
    }

    fn mark(&mut self, line: u64, column: u64) {
        let at = self.text.len();
        match self.marks.last_mut() {
            Some(last) if last.0 == at => *last = (at, line, column),
            _ => self.marks.push((at, line, column)),
        }
    }

    /// The line and column of the file where byte `offset` of the text
    /// is.
    pub fn position(&self, offset: usize) -> (u64, u64) {
        let i = self.marks.partition_point(|m| m.0 <= offset);
        let Some(&(start, line, column)) = i.checked_sub(1).and_then(|i| self.marks.get(i)) else {
            return (1, 1);
        };
        let between = self
            .text
            .get(start..offset.min(self.text.len()))
            .unwrap_or("");
        match between.rfind('\n') {
            Some(nl) => {
                let lines = between.bytes().filter(|&b| b == b'\n').count() as u64;
                let after = between.get(nl + 1..).unwrap_or("");
                (line + lines, after.chars().count() as u64 + 1)
            }
            None => (line, column + between.chars().count() as u64),
        }
    }

    /// True when some text in `range` was filled in by another tool.
    pub fn substituted(&self, text: &str) -> bool {
        !self.substituted.is_empty() && text.contains(PLACEHOLDER)
    }

    /// `text` (a piece of this snippet's text) with each placeholder put
    /// back as the file wrote it.
    pub fn original(&self, text: &str) -> String {
        if !self.substituted(text) {
            return text.to_string();
        }
        let open = format!("${{{PLACEHOLDER}");
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&open) {
            out.push_str(&rest[..at]);
            let after = &rest[at + open.len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let original = after[..digits]
                .parse::<usize>()
                .ok()
                .and_then(|n| self.substituted.get(n))
                .filter(|_| after[digits..].starts_with('}'));
            match original {
                Some(o) => {
                    out.push_str(o);
                    rest = &after[digits + 1..];
                }
                None => {
                    out.push_str(&open);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The byte range of the text.
    pub fn range(&self) -> Range<usize> {
        0..self.text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_marks_and_newlines() {
        let mut s = Snippet::new();
        s.push("echo a\n", 4, 7);
        s.push("  ls é x\n", 5, 7);
        assert_eq!(s.position(0), (4, 7));
        assert_eq!(s.position(5), (4, 12));
        assert_eq!(s.position(9), (5, 9));
        // Columns count characters: `é` is two bytes.
        assert_eq!(s.position(15), (5, 14));
        let whole = Snippet::whole("a\nbc\n");
        assert_eq!(whole.position(3), (2, 2));
        assert_eq!(Snippet::new().position(3), (1, 1));
    }

    #[test]
    fn placeholders_are_marked_and_put_back() {
        let mut s = Snippet::new();
        s.push("echo '", 1, 1);
        s.push_substituted("${{ github.event.issue.title }}", 1, 7);
        s.push("' done", 1, 38);
        assert_eq!(s.text(), "echo '${__toolgate_substituted_0}' done");
        assert!(s.substituted(s.text()));
        assert!(!s.substituted("echo done"));
        assert_eq!(
            s.original(s.text()),
            "echo '${{ github.event.issue.title }}' done"
        );
        assert_eq!(s.position(s.text().len() - 5), (1, 39));
        // Text that merely looks like one stays.
        assert_eq!(
            s.original("${__toolgate_substituted_9} ${__toolgate_substituted_x"),
            "${__toolgate_substituted_9} ${__toolgate_substituted_x"
        );
    }
}
