//! The keyword gate: which lines hold which detectors' keywords.
//!
//! A detector's pattern is tried only on a line that holds one of its
//! keywords, in any ASCII letter case (the reference's rule). Most lines of
//! most files hold none, so one pass over the text with every keyword at
//! once settles most of it. That pass runs a DFA over all keywords that
//! `build.rs` compiled with the taxonomy and shipped as a table (see
//! `src/table.rs`): nothing is built at run time, so a hook that
//! masks one command line pays as little as a look that reads 16 MiB, and
//! a long text is read as four interleaved streams. The table says where a
//! keyword ends, not which one: each line where one ends is then read once
//! more, alone, keyword by keyword, for the detectors to try on it.

use std::sync::OnceLock;

use crate::table::Table;

use super::bits::Bits;
use super::data::{keywords_at, DETECTOR_COUNT, KEYWORDS, KEYWORD_LONGEST};

/// The keyword table `build.rs` wrote.
static KEYWORD_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/keywords.table"));

/// The keyword table, read once; `None` only in a damaged binary.
fn table() -> Option<&'static Table<'static>> {
    static TABLE: OnceLock<Option<Table<'static>>> = OnceLock::new();
    TABLE
        .get_or_init(|| Table::new(KEYWORD_TABLE).filter(|t| t.pattern_count() == 1))
        .as_ref()
}

/// A set of detectors, by index.
pub(crate) type DetectorSet = Bits<{ DETECTOR_COUNT.div_ceil(64) }>;

impl DetectorSet {
    /// Adds the detectors that list keyword `keyword`.
    fn add_keyword(&mut self, keyword: usize) {
        if let Some(k) = KEYWORDS.get(keyword) {
            for &d in k.detectors.get() {
                self.add(usize::from(d));
            }
        }
    }
}

/// A line that holds keywords: its bytes' range in the text, its 1-based
/// number, and the detectors whose keywords it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GatedLine {
    pub start: usize,
    pub end: usize,
    pub number: usize,
    pub detectors: DetectorSet,
}

/// The lines of `text` that hold keywords, in order.
pub(crate) struct Gate<'t> {
    text: &'t [u8],
    /// Where keywords end, in order, each once; the next to look at is at
    /// `next_end`.
    ends: Vec<usize>,
    next_end: usize,
    /// The keyword table; `None` in a damaged binary, and then every line
    /// is read keyword by keyword (slower, never blind).
    table: Option<&'static Table<'static>>,
    /// Where the next line may start.
    floor: usize,
    /// Lines counted: `newlines` `\n` bytes lie before `counted_to`.
    counted_to: usize,
    newlines: usize,
}

impl<'t> Gate<'t> {
    pub(crate) fn new(text: &'t [u8]) -> Gate<'t> {
        let mut ends = Vec::new();
        // A search that fails leaves the gate without the table, and then
        // `ends` unread.
        let table = table().filter(|t| {
            t.match_ends(text, KEYWORD_LONGEST, |e| ends.push(e))
                .is_ok()
        });
        ends.sort_unstable();
        ends.dedup();
        Gate {
            text,
            ends,
            next_end: 0,
            table,
            floor: 0,
            counted_to: 0,
            newlines: 0,
        }
    }

    /// The 1-based number of the line starting at `start` (at or after
    /// every line asked about before).
    fn number(&mut self, start: usize) -> usize {
        let from = self.counted_to.min(start);
        self.newlines += count_lines(&self.text[from..start]);
        self.counted_to = start;
        self.newlines + 1
    }

    /// The line holding the byte at `at`, no earlier than the floor.
    fn line_at(&self, at: usize) -> (usize, usize) {
        let at = at.max(self.floor).min(self.text.len());
        let start = self.text[self.floor..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(self.floor, |p| self.floor + p + 1);
        let end = self.text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.text.len(), |p| at + p);
        (start, end)
    }
}

/// The `\n` bytes of `bytes`, counted in runs short enough for a byte
/// to hold each run's count: the form compilers turn into vector
/// instructions (a count byte by byte took five instructions a byte).
pub(crate) fn count_lines(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|run| usize::from(run.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum()
}

/// The detectors whose keywords `line` holds, keyword by keyword.
fn detectors_of_line(line: &[u8]) -> DetectorSet {
    let mut set = DetectorSet::default();
    for i in 0..line.len() {
        let (from, run) = keywords_at(line, i);
        for (k, kw) in run.iter().enumerate() {
            let kb = kw.lower.bytes();
            if line.len() - i >= kb.len() && line[i..i + kb.len()].eq_ignore_ascii_case(kb) {
                set.add_keyword(from + k);
            }
        }
    }
    set
}

impl Iterator for Gate<'_> {
    type Item = GatedLine;

    fn next(&mut self) -> Option<GatedLine> {
        loop {
            let (start, end) = if self.table.is_some() {
                // A keyword's last byte is just before its end.
                let end_of_keyword = *self.ends.get(self.next_end)?;
                self.next_end += 1;
                if end_of_keyword <= self.floor {
                    continue;
                }
                self.line_at(end_of_keyword - 1)
            } else {
                if self.floor > self.text.len() {
                    return None;
                }
                self.line_at(self.floor)
            };
            self.floor = end + 1;
            let detectors = detectors_of_line(&self.text[start..end]);
            if detectors.is_empty() {
                continue;
            }
            let number = self.number(start);
            return Some(GatedLine {
                start,
                end,
                number,
                detectors,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The detectors of every keyword `line` holds, keyword by keyword: the
    /// reference the table must agree with.
    fn by_each_keyword(line: &[u8]) -> DetectorSet {
        let mut set = DetectorSet::default();
        for (k, kw) in KEYWORDS.iter().enumerate() {
            let kb = kw.lower.bytes();
            if line.windows(kb.len()).any(|w| w.eq_ignore_ascii_case(kb)) {
                set.add_keyword(k);
            }
        }
        set
    }

    /// Each line's detectors, by reading every line keyword by keyword.
    fn reference(text: &[u8]) -> Vec<GatedLine> {
        let mut out = Vec::new();
        let mut start = 0;
        for (n, line) in text.split(|&b| b == b'\n').enumerate() {
            let detectors = by_each_keyword(line);
            if !detectors.is_empty() {
                out.push(GatedLine {
                    start,
                    end: start + line.len(),
                    number: n + 1,
                    detectors,
                });
            }
            start += line.len() + 1;
        }
        out
    }

    #[test]
    fn the_table_gates_as_each_keyword_would() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for (_, text) in crate::taxonomy::embedded_sources() {
            texts.push(text.into_bytes());
        }
        for file in ["corpus/core.jsonl", "corpus/agent-calls.jsonl"] {
            if let Ok(t) = std::fs::read(format!("{root}/{file}")) {
                texts.push(t);
            }
        }
        // Keywords at every edge: the text's, the quarters' (where the
        // four streams meet), a line's; upper case; one in another.
        let mut edges = Vec::new();
        for len in [0usize, 1, 7, 40, 41, 42, 43, 44, 45, 100, 101] {
            for kw in ["PASSWORD", "token", "sk-", "ghp_", "xoxb-", "passphrase>"] {
                let mut t = vec![b'x'; len];
                let at = len / 4;
                t.splice(at..at, kw.bytes());
                t.extend_from_slice(kw.as_bytes());
                edges.push(t.clone());
                t.insert(len / 2, b'\n');
                edges.push(t);
            }
        }
        texts.extend(edges);
        let mut gated = 0;
        for t in &texts {
            let got: Vec<GatedLine> = Gate::new(t).collect();
            assert_eq!(got, reference(t), "{}", String::from_utf8_lossy(t));
            gated += got.len();
        }
        assert!(gated > 100, "{gated}");
    }

    #[test]
    fn lines_are_numbered_from_one() {
        let text = b"nothing\nGITHUB_TOKEN here\n\nand a Password\n";
        let lines: Vec<(usize, usize, usize)> = Gate::new(text)
            .map(|l| (l.start, l.end, l.number))
            .collect();
        assert_eq!(lines, [(8, 25, 2), (27, 41, 4)]);
    }

    #[test]
    fn the_shipped_table_is_whole() {
        let table = table().unwrap_or_else(|| panic!("the keyword table does not read"));
        assert_eq!(table.check(), Ok(()));
    }
}
