//! The keyword gate: which lines hold which detectors' keywords.
//!
//! A detector's pattern is tried only on a line that holds one of its
//! keywords, in any ASCII letter case (the reference's rule). Most lines of
//! most files hold none, so one pass over the text with every keyword at
//! once settles most of it: an Aho-Corasick automaton over all keywords
//! (overlapping matches, since `pass` and `password` both count). A short
//! text (a command line, a tool call's arguments) is searched keyword by
//! keyword from each byte instead: building the automaton costs a process
//! more than such a text takes to search without it.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, FindOverlappingIter};

use super::data::{DETECTOR_COUNT, KEYWORDS, KEYWORD_PAIRS, KEYWORD_STARTS};

/// Texts shorter than this are searched without the automaton.
pub(crate) const SHORT_TEXT: usize = 4096;

/// A set of detectors, by index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DetectorSet([u64; DETECTOR_COUNT.div_ceil(64)]);

impl DetectorSet {
    fn add_keyword(&mut self, keyword: usize) {
        if let Some(k) = KEYWORDS.get(keyword) {
            for &d in k.detectors {
                let d = usize::from(d);
                self.0[d / 64] |= 1 << (d % 64);
            }
        }
    }

    /// The detectors in the set, in index order.
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        (0..DETECTOR_COUNT).filter(move |&d| self.0[d / 64] & (1 << (d % 64)) != 0)
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
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

/// The automaton over every keyword (lower case, matched in any ASCII
/// case), built once per process; `None` if it cannot be built, and then
/// every text is searched the short way.
fn automaton() -> Option<&'static AhoCorasick> {
    static AC: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    AC.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(KEYWORDS.iter().map(|k| k.lower))
            .ok()
    })
    .as_ref()
}

/// The lines of `text` that hold keywords, in order.
pub(crate) struct Gate<'t> {
    text: &'t [u8],
    how: How<'t>,
    /// Lines counted: `newlines` `\n` bytes lie before `counted_to`.
    counted_to: usize,
    newlines: usize,
}

enum How<'t> {
    /// Keyword by keyword; the next line starts at `next`.
    Short { next: usize },
    /// By the automaton; `pending` is the line its last match fell in.
    Automaton {
        matches: FindOverlappingIter<'static, 't>,
        pending: Option<GatedLine>,
        /// Where the last gated line ended: the next starts after it.
        floor: usize,
    },
}

impl<'t> Gate<'t> {
    pub(crate) fn new(text: &'t [u8]) -> Gate<'t> {
        // (The length first: a short text must not build the automaton.)
        let ac = (text.len() >= SHORT_TEXT).then(automaton).flatten();
        let how = match ac {
            Some(ac) => How::Automaton {
                matches: ac.find_overlapping_iter(text),
                pending: None,
                floor: 0,
            },
            None => How::Short { next: 0 },
        };
        Gate::with(text, how)
    }

    /// The gate searching keyword by keyword whatever the length (for
    /// tests that hold the two ways to one answer).
    #[cfg(test)]
    pub(crate) fn short(text: &'t [u8]) -> Gate<'t> {
        Gate::with(text, How::Short { next: 0 })
    }

    fn with(text: &'t [u8], how: How<'t>) -> Gate<'t> {
        Gate {
            text,
            how,
            counted_to: 0,
            newlines: 0,
        }
    }

    /// The 1-based number of the line starting at `start` (at or after
    /// every line asked about before).
    fn number(&mut self, start: usize) -> usize {
        let from = self.counted_to.min(start);
        self.newlines += self.text[from..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted_to = start;
        self.newlines + 1
    }

    /// The line around the keyword match starting at `at`, no earlier than
    /// `floor`.
    fn line_at(&mut self, at: usize, floor: usize) -> (usize, usize, usize) {
        let start = self.text[floor..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(floor, |p| floor + p + 1);
        let end = self.text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.text.len(), |p| at + p);
        (start, end, self.number(start))
    }
}

/// The detectors whose keywords `line` holds, keyword by keyword.
fn short_set(line: &[u8]) -> DetectorSet {
    let mut set = DetectorSet::default();
    for i in 0..line.len() {
        let first = line[i].to_ascii_lowercase();
        // Most bytes start no keyword's first two bytes (build.rs marks
        // every pair a keyword starts, and every pair for a one-byte one).
        if let Some(&second) = line.get(i + 1) {
            let bit = usize::from(first) * 256 + usize::from(second.to_ascii_lowercase());
            if KEYWORD_PAIRS[bit / 64] & (1 << (bit % 64)) == 0 {
                continue;
            }
        }
        // Keywords are sorted: those starting with `first` are a run.
        let from = usize::from(KEYWORD_STARTS[usize::from(first)]);
        let to = usize::from(KEYWORD_STARTS[usize::from(first) + 1]);
        for (k, kw) in KEYWORDS
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let kb = kw.lower.as_bytes();
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
            match &mut self.how {
                How::Short { next } => {
                    let start = *next;
                    if start > self.text.len() {
                        return None;
                    }
                    let end = self.text[start..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(self.text.len(), |p| start + p);
                    *next = end + 1;
                    let detectors = short_set(&self.text[start..end]);
                    if !detectors.is_empty() {
                        let number = self.number(start);
                        return Some(GatedLine {
                            start,
                            end,
                            number,
                            detectors,
                        });
                    }
                }
                How::Automaton {
                    matches,
                    pending,
                    floor,
                } => {
                    let Some(m) = matches.next() else {
                        return pending.take();
                    };
                    if let Some(p) = pending {
                        if m.start() < p.end {
                            p.detectors.add_keyword(m.pattern().as_usize());
                            continue;
                        }
                    }
                    let done = pending.take();
                    let floor_now = done.as_ref().map_or(*floor, |d| d.end);
                    *floor = floor_now;
                    let at = m.start();
                    let keyword = m.pattern().as_usize();
                    let (start, end, number) = self.line_at(at, floor_now);
                    let mut detectors = DetectorSet::default();
                    detectors.add_keyword(keyword);
                    if let How::Automaton { pending, .. } = &mut self.how {
                        *pending = Some(GatedLine {
                            start,
                            end,
                            number,
                            detectors,
                        });
                    }
                    if done.is_some() {
                        return done;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The automaton and the keyword-by-keyword search gate the same lines
    /// with the same detectors, on texts long enough for the automaton.
    #[test]
    fn both_ways_gate_alike() {
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
        let mut gated = 0;
        for t in &texts {
            if t.len() < SHORT_TEXT {
                continue;
            }
            let a: Vec<GatedLine> = Gate::new(t).collect();
            let b: Vec<GatedLine> = Gate::short(t).collect();
            assert_eq!(a, b);
            gated += a.len();
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
}
