//! One place that says how taxonomy patterns are compiled.
//!
//! Patterns run over bytes with Unicode off: `[^\x1f]` is then a one-byte
//! class instead of a large UTF-8 automaton, `\b` and `\w` are ASCII, and
//! `(?i)` folds ASCII. Commands, flags and SQL keywords are ASCII; other
//! bytes in paths still match the byte classes. This keeps the automata
//! small, quick to build and able to run as DFAs.

use regex_automata::meta::{BuildError, Regex};
use regex_automata::util::syntax;
use regex_automata::MatchKind;

fn syntax_config() -> syntax::Config {
    syntax::Config::new().unicode(false).utf8(false)
}

/// Compiles several patterns into one automaton reporting every pattern
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
                .nfa_size_limit(Some(256 << 20))
                .hybrid_cache_capacity(16 << 20),
        )
        .build_many(patterns)
        .map_err(Box::new)
}

/// Compiles one pattern for a yes/no check or for captures.
pub fn compile_one(pattern: &str) -> Result<Regex, Box<BuildError>> {
    Regex::builder()
        .syntax(syntax_config())
        .configure(Regex::config().utf8_empty(false).dfa(false).onepass(false))
        .build(pattern)
        .map_err(Box::new)
}

/// Checks a pattern's syntax without building it: cheap enough to run on
/// every entry when a taxonomy is loaded.
pub fn check_syntax(pattern: &str) -> Result<(), String> {
    syntax::parse_with(pattern, &syntax_config())
        .map(|_| ())
        .map_err(|e| e.to_string())
}
