//! One place that says how taxonomy patterns are compiled.
//!
//! Patterns run over bytes with Unicode off: `[^\x1f]` is then a one-byte
//! class instead of a large UTF-8 automaton, `\b` and `\w` are ASCII, and
//! `(?i)` folds ASCII. Commands, flags and SQL keywords are ASCII; other
//! bytes in paths still match the byte classes. This keeps the automata
//! small, quick to build and able to run as DFAs.
//!
//! `build.rs` compiles the embedded taxonomy's DFAs with the same settings
//! (its `sparse_dfa`); `tests/taxonomy_examples.rs` checks that the shipped
//! and the run-time automata find the same entries for every example.

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, OnceLock};

use crate::taxonomy::syntax::syntax_config;
use regex_automata::hybrid;
use regex_automata::meta::{BuildError, Regex};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::{Input, MatchKind, PatternSet};

/// Several patterns compiled into one lazy DFA that reports every pattern
/// matching a haystack.
///
/// Only "which patterns match" is ever asked of these automata, and a
/// forward lazy DFA answers that alone: the meta regex would also build a
/// reverse automaton and the engines that report spans, which is half the
/// compile time a hook process pays.
pub struct MultiPattern {
    dfa: Arc<hybrid::dfa::DFA>,
    caches: Pool<hybrid::dfa::Cache, CacheFn>,
    /// The patterns again, for the fallback.
    patterns: Vec<String>,
    /// Built only if the lazy DFA ever gives up on a search.
    fallback: OnceLock<Result<Regex, String>>,
}

type CacheFn = Box<dyn Fn() -> hybrid::dfa::Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

impl std::fmt::Debug for MultiPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiPattern")
            .field("patterns", &self.patterns.len())
            .finish()
    }
}

impl MultiPattern {
    /// Compiles the patterns, pattern id `i` being `patterns[i]`.
    pub fn new(patterns: &[&str]) -> Result<MultiPattern, Box<hybrid::BuildError>> {
        let dfa = hybrid::dfa::Builder::new()
            .syntax(syntax_config())
            .thompson(
                thompson::Config::new()
                    .utf8(false)
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(256 << 20)),
            )
            .configure(
                hybrid::dfa::Config::new()
                    .match_kind(MatchKind::All)
                    .cache_capacity(16 << 20),
            )
            .build_many(patterns)
            .map_err(Box::new)?;
        let dfa = Arc::new(dfa);
        let for_caches = Arc::clone(&dfa);
        let create: CacheFn = Box::new(move || for_caches.create_cache());
        Ok(MultiPattern {
            dfa,
            caches: Pool::new(create),
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            fallback: OnceLock::new(),
        })
    }

    /// How many patterns it holds.
    #[cfg(test)]
    pub fn pattern_len(&self) -> usize {
        self.patterns.len()
    }

    /// Adds to `set` every pattern matching `haystack`.
    pub fn which_matches(&self, haystack: &str, set: &mut PatternSet) {
        let input = Input::new(haystack);
        let mut cache = self.caches.get();
        if self
            .dfa
            .try_which_overlapping_matches(&mut cache, &input, set)
            .is_ok()
        {
            return;
        }
        // The lazy DFA gave up (it never should with these settings): ask a
        // full regex engine instead.
        let fallback = self.fallback.get_or_init(|| {
            let refs: Vec<&str> = self.patterns.iter().map(String::as_str).collect();
            compile_many(&refs).map_err(|e| e.to_string())
        });
        if let Ok(re) = fallback {
            set.clear();
            re.which_overlapping_matches(&input, set);
        }
    }
}

/// Compiles several patterns into one meta regex reporting every pattern
/// that matches (overlapping semantics).
pub fn compile_many(patterns: &[&str]) -> Result<Regex, Box<BuildError>> {
    Regex::builder()
        .syntax(syntax_config())
        .configure(
            Regex::config()
                .match_kind(MatchKind::All)
                .utf8_empty(false)
                // Only "which patterns match" is asked of these automata: a
                // lazy DFA answers that, so skip building the full DFA and
                // the engines that report spans and captures.
                .dfa(false)
                .onepass(false)
                .backtrack(false)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(256 << 20))
                .hybrid_cache_capacity(16 << 20),
        )
        .build_many(patterns)
        .map_err(Box::new)
}

/// Compiles one pattern for a yes/no check.
pub fn compile_one(pattern: &str) -> Result<Regex, Box<BuildError>> {
    Regex::builder()
        .syntax(syntax_config())
        .configure(
            Regex::config()
                .utf8_empty(false)
                .dfa(false)
                .onepass(false)
                .which_captures(WhichCaptures::None),
        )
        .build(pattern)
        .map_err(Box::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_matching_pattern_once() {
        let m = MultiPattern::new(&[r"^\x1frm\x1f", r"-r\x1f", r"^\x1fls\x1f", r"x\x1f$"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.pattern_len(), 4);
        let mut set = PatternSet::new(m.pattern_len());
        m.which_matches("\x1frm\x1f-r\x1fx\x1f", &mut set);
        let ids: Vec<usize> = set.iter().map(|p| p.as_usize()).collect();
        assert_eq!(ids, vec![0, 1, 3]);
        set.clear();
        m.which_matches("\x1fls\x1f", &mut set);
        assert_eq!(
            set.iter().map(|p| p.as_usize()).collect::<Vec<_>>(),
            vec![2]
        );
    }

    #[test]
    fn a_bad_pattern_is_an_error_not_a_panic() {
        let err = MultiPattern::new(&["ok", "(unclosed"]).map(|_| ());
        assert!(err.is_err_and(|e| e.to_string().contains("error")));
    }
}
