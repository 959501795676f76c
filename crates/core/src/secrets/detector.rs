//! One content detector, compiled on first use.
//!
//! A detector's regex is compiled the first time a line holds one of its
//! keywords, not when the process starts: a hook process masks or looks at
//! a few lines, which name the keywords of a few detectors, and compiling
//! all of them (tens of milliseconds) would cost every process what only
//! the rare one needs. Each regex is a regex-automata meta regex (a lazy
//! DFA finds the match, a bounded engine then only its `secret` group),
//! with Unicode off, over bytes, as the reference reads the patterns.

use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::util::primitives::NonMaxUsize;
use regex_automata::util::syntax;
use regex_automata::Input;

use super::data::DetectorData;
use super::entropy::shannon;
use super::placeholder::is_placeholder;

/// A detector and its regex, once compiled.
pub(crate) struct Detector {
    pub data: &'static DetectorData,
    compiled: OnceLock<Option<Compiled>>,
}

struct Compiled {
    regex: Regex,
    /// The slot pair of the `secret` group, if the pattern has one.
    secret: Option<usize>,
}

/// Slots for a pattern's groups, kept on the stack for the usual few.
type Slots = smallvec::SmallVec<[Option<NonMaxUsize>; 8]>;

impl Detector {
    pub(crate) const fn new(data: &'static DetectorData) -> Detector {
        Detector {
            data,
            compiled: OnceLock::new(),
        }
    }

    /// The compiled regex; `None` if it does not compile, which `build.rs`
    /// rules out for the embedded data short of a size limit.
    fn compiled(&self) -> Option<&Compiled> {
        self.compiled
            .get_or_init(|| {
                let regex = Regex::builder()
                    .syntax(
                        syntax::Config::new()
                            .unicode(false)
                            .utf8(false)
                            .case_insensitive(self.data.case_insensitive),
                    )
                    .configure(Regex::config().utf8_empty(false))
                    .build(self.data.pattern.get())
                    .ok()?;
                let secret = regex
                    .group_info()
                    .to_index(regex_automata::PatternID::ZERO, "secret");
                Some(Compiled { regex, secret })
            })
            .as_ref()
    }

    /// Calls `found` with the byte range (in `line`) of each value the
    /// detector accepts in `line`, in order, until it returns false.
    ///
    /// The matches are the reference's `finditer`: leftmost-first and not
    /// overlapping, each search starting where the last match ended. A
    /// match's value is its `secret` group (the whole match when the group
    /// took no part); it is accepted when it reaches `min_entropy` and,
    /// where the detector says so, is no placeholder.
    ///
    /// A regex that does not compile finds the whole line: failing closed,
    /// a line that holds a keyword is then taken for a secret.
    pub(crate) fn find_in(&self, line: &[u8], mut found: impl FnMut(Range<usize>) -> bool) {
        let Some(c) = self.compiled() else {
            found(0..line.len());
            return;
        };
        let mut slots: Slots = smallvec::smallvec![None; c.regex.group_info().slot_len()];
        let mut at = 0;
        while at <= line.len() {
            let input = Input::new(line).span(at..line.len());
            if c.regex.search_slots(&input, &mut slots).is_none() {
                return;
            }
            let (Some(start), Some(end)) = (slots[0], slots[1]) else {
                return;
            };
            let whole = start.get()..end.get();
            let value = c
                .secret
                .and_then(|g| match (slots.get(2 * g), slots.get(2 * g + 1)) {
                    (Some(Some(s)), Some(Some(e))) => Some(s.get()..e.get()),
                    _ => None,
                })
                .unwrap_or_else(|| whole.clone());
            if self.accepts(&line[value.clone()]) && !found(value) {
                return;
            }
            at = if whole.end > whole.start {
                whole.end
            } else {
                whole.end + 1
            };
        }
    }

    /// Whether a matched value is a secret by the entropy and placeholder
    /// rules.
    fn accepts(&self, value: &[u8]) -> bool {
        if self
            .data
            .min_entropy
            .is_some_and(|min| shannon(value) < min)
        {
            return false;
        }
        !(self.data.placeholders && is_placeholder(value))
    }
}
