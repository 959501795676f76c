//! What a secret is, in one place: content detectors, placeholder rules and
//! secret file names, compiled from `taxonomy/secrets/*.toml`.
//!
//! Three users share it, so that they cannot drift apart: the look (what a
//! command would print is [`scan`]ned before the gate allows it), the
//! classifier (a search pattern that spells a detector's keyword hunts for
//! credentials, see [`hunt`]; a path a reader names is checked by
//! [`files`]), and the decision log, which masks every value a detector
//! finds.
//!
//! # How a text is scanned
//!
//! The reference is `tests/secrets_data_check.py`, and this follows it:
//!
//! 1. A text is read as lines (split at `\n`). A line is looked at only
//!    when it holds a keyword of a detector (ASCII letter case ignored):
//!    one pass over the whole text with a DFA of every detector's keywords,
//!    compiled with the taxonomy, finds those lines and, for each, which
//!    detectors to try.
//! 2. A detector's pattern (regex-automata, Unicode off, over bytes, one
//!    line as the haystack so that `^` and `$` are the line's ends) is run
//!    over the line: every leftmost-first match, none overlapping.
//! 3. A match's value is its `secret` group, or the whole match; it counts
//!    when it reaches the detector's `min_entropy` (Shannon, bits a byte)
//!    and, for a detector with `placeholders = true`, is no placeholder
//!    (`changeme`, `<your-key>`, `${API_KEY}`, …: see `placeholders.toml`).
//!
//! ```
//! use toolgate_core::secrets;
//! let text = b"region = eu-west-1\naws_access_key_id = AKIAJHXJO7GP6FHU37CX\n";
//! let hit = secrets::contains_secret(text).expect("a key");
//! assert_eq!((hit.detector, hit.kind, hit.line), ("aws-access-key-id", "a cloud access key", 2));
//! assert_eq!(&text[hit.range], b"AKIAJHXJO7GP6FHU37CX");
//! // The documentation's example key and a template are no secrets.
//! assert!(secrets::contains_secret(b"aws_access_key_id = AKIAIOSFODNN7EXAMPLE").is_none());
//! assert!(secrets::contains_secret(b"password: ${DB_PASSWORD}").is_none());
//! ```
//!
//! # Cost
//!
//! The detectors, keywords, placeholders and file names are statics that
//! `build.rs` wrote from the checked TOML, and the keyword DFA a table it
//! compiled: nothing is parsed or built at run time but each detector's
//! regex, on the first line that names its keywords, so that a process
//! that masks one command line compiles only what that line calls for.

mod bits;
mod data;
mod detector;
mod entropy;
pub mod files;
mod gate;
mod hit;
pub mod hunt;
mod placeholder;
// build.rs reads every field of the file formats; the library only checks
// them (`check_sources`).
#[allow(dead_code)]
mod schema;
mod sorted;
pub mod variables;

use std::sync::OnceLock;

pub use entropy::shannon;
pub use hit::SecretHit;
pub use placeholder::is_placeholder;

use crate::error::TaxonomyError;
use detector::Detector;
#[cfg(feature = "look")]
pub(crate) use gate::count_lines;
use gate::{Gate, GatedLine};

/// The detectors, each compiled on first use.
fn detectors() -> &'static [Detector] {
    static DETECTORS: OnceLock<Vec<Detector>> = OnceLock::new();
    DETECTORS.get_or_init(|| data::DETECTORS.iter().map(Detector::new).collect())
}

/// Every secret in `text`, in order: by line, then by where the value
/// starts, then by the detectors' order in the taxonomy. A value that two
/// detectors find (`GITHUB_TOKEN=ghp_…` is a GitHub token and a secret
/// assigned to a name) is found by each.
///
/// Lazy: it reads only as far as the hits taken from it need, so that
/// `scan(text).next()` stops at the first (see [`contains_secret`]).
pub fn scan(text: &[u8]) -> Scan<'_> {
    Scan {
        text,
        gate: Gate::new(text),
        found: Vec::new(),
    }
}

/// The first secret in `text`, if any: [`scan`], stopped at the first hit.
pub fn contains_secret(text: &[u8]) -> Option<SecretHit> {
    scan(text).next()
}

/// The secrets of a text, line by line (see [`scan`]).
pub struct Scan<'t> {
    text: &'t [u8],
    gate: Gate<'t>,
    /// The current line's hits, last first.
    found: Vec<SecretHit>,
}

impl Scan<'_> {
    /// Runs the detectors `line` calls for on it.
    fn scan_line(&mut self, line: GatedLine) {
        let dets = detectors();
        let bytes = &self.text[line.start..line.end];
        for d in line.detectors.iter() {
            let Some(det) = dets.get(d) else { continue };
            det.find_in(bytes, |r| {
                self.found.push(SecretHit {
                    detector: det.data.id.get(),
                    kind: det.data.kind.get(),
                    line: line.number,
                    range: line.start + r.start..line.start + r.end,
                });
                true
            });
        }
        // Detectors ran in taxonomy order: a stable sort by start keeps it
        // among values that start together. Reversed, to pop in order.
        self.found.sort_by_key(|h| h.range.start);
        self.found.reverse();
    }
}

impl Iterator for Scan<'_> {
    type Item = SecretHit;

    fn next(&mut self) -> Option<SecretHit> {
        loop {
            if let Some(hit) = self.found.pop() {
                return Some(hit);
            }
            let line = self.gate.next()?;
            self.scan_line(line);
        }
    }
}

/// A detector of the embedded taxonomy, as a caller may list it.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct DetectorInfo {
    /// Its id.
    pub id: &'static str,
    /// What it finds, as a noun phrase.
    pub kind: &'static str,
    /// Its file under `taxonomy/secrets/`.
    pub file: &'static str,
    /// The line of its `id` there.
    pub line: u32,
}

/// Every detector of the embedded taxonomy, in order.
pub fn detector_list() -> impl Iterator<Item = DetectorInfo> {
    data::DETECTORS.iter().map(|d| DetectorInfo {
        id: d.id.get(),
        kind: d.kind.get(),
        file: d.file.get(),
        line: d.line,
    })
}

/// Checks secret taxonomy files (pairs of a path relative to
/// `taxonomy/secrets/` and its text) by the rules `build.rs` checks the
/// embedded ones with, and reports the first problem with its file, line
/// and field. The embedded files passed them, or this toolgate would not
/// have been built.
pub fn check_sources(sources: &[(String, String)]) -> Result<(), TaxonomyError> {
    match schema::check(sources) {
        Ok(_) => Ok(()),
        Err(problems) => Err(problems
            .into_iter()
            .next()
            .map(|p| {
                if p.field.is_empty() {
                    TaxonomyError::Syntax {
                        file: format!("secrets/{}", p.file),
                        message: p.message,
                    }
                } else {
                    TaxonomyError::Entry {
                        file: format!("secrets/{}", p.file),
                        line: p.line,
                        id: p.entry,
                        field: p.field,
                        message: p.message,
                    }
                }
            })
            .unwrap_or_else(|| TaxonomyError::Syntax {
                file: "secrets/".into(),
                message: "the files do not check".into(),
            })),
    }
}

/// The keywords that spell a token's own format (`ghp_`, `AKIA`, `xoxb-`,
/// `-----BEGIN`), as the data spells them: what a mask may keep of a value
/// to say what it was, and what a search for tokens spells.
pub fn format_keywords() -> impl Iterator<Item = &'static str> {
    data::KEYWORDS
        .iter()
        .filter(|k| k.format)
        .map(|k| k.spelled.get())
}

/// The format keywords (see [`format_keywords`]) that start with the byte
/// `first`, in their letter case: the only ones a text starting with that
/// byte can start with.
pub fn format_keywords_starting(first: u8) -> impl Iterator<Item = &'static str> {
    sorted::sorted_run(
        data::FORMAT_KEYWORDS.names(),
        |k| k.bytes().first().copied(),
        Some(first),
    )
    .iter()
    .map(|k| k.get())
}

/// The longest format keyword (see [`format_keywords`]) `value` starts
/// with, in its letter case: `ghp_` of a GitHub token, `AKIA` of an access
/// key id. A mask keeps it (`ghp_***`): it says what the secret was and
/// gives nothing of it away.
pub fn leading_format_keyword(value: &[u8]) -> Option<&'static str> {
    format_keywords()
        .filter(|k| value.starts_with(k.as_bytes()))
        .max_by_key(|k| k.len())
}
