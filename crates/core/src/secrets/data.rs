//! The embedded secret taxonomy, as `build.rs` checked it and wrote it out:
//! plain statics, read in place. A hook process that masks one command line
//! or checks one path pays nothing to load them.
//!
//! No static holds a pointer. Every string lies in one text ([`TEXT`]) and
//! is named by where it starts and its length; a list is a run of such
//! names in [`STRS`], a list of lists a run of runs in [`RUNS`]. A pointer
//! in a static of a position-independent binary is a relocation the loader
//! applies when every process starts, used or not: written as pointers,
//! these tables were about 2,400 of them, a fifth of the relocations of
//! the whole binary and 26,000 instructions of every hook process.

/// The places a run that starts at `at` and holds `len` covers.
fn span(at: u32, len: u32) -> std::ops::Range<usize> {
    at as usize..at as usize + len as usize
}

/// A string of [`TEXT`]: where it starts and its length, in bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Str {
    at: u32,
    len: u32,
}

impl Str {
    pub(crate) const fn new(at: u32, len: u32) -> Str {
        Str { at, len }
    }

    /// The string. (`build.rs` wrote the bounds from the text it wrote;
    /// `every_string_lies_within_the_text` checks them.)
    pub(crate) fn get(self) -> &'static str {
        &TEXT[span(self.at, self.len)]
    }

    /// The string's bytes: for the loops that compare keywords at every
    /// byte of a text, which need no check that the string starts and ends
    /// on a character's boundary.
    pub(crate) fn bytes(self) -> &'static [u8] {
        &TEXT.as_bytes()[span(self.at, self.len)]
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.get()
    }
}

/// A list of strings: a run of [`STRS`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strs {
    at: u32,
    len: u32,
}

impl Strs {
    pub(crate) const fn new(at: u32, len: u32) -> Strs {
        Strs { at, len }
    }

    /// The run's entries.
    pub(crate) fn names(self) -> &'static [Str] {
        &STRS[span(self.at, self.len)]
    }

    /// The run's strings, in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = &'static str> + Clone {
        self.names().iter().map(|s| s.get())
    }

    /// Where `want` is in the run, which is sorted.
    pub(crate) fn binary_search(self, want: &str) -> Result<usize, usize> {
        self.names()
            .binary_search_by(|s| s.bytes().cmp(want.as_bytes()))
    }
}

/// A list of lists of strings: a run of [`RUNS`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Runs {
    at: u32,
    len: u32,
}

impl Runs {
    pub(crate) const fn new(at: u32, len: u32) -> Runs {
        Runs { at, len }
    }

    /// The lists.
    pub(crate) fn lists(self) -> &'static [Strs] {
        &RUNS[span(self.at, self.len)]
    }
}

/// A list of detector indexes: a run of [`INDEXES`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Indexes {
    at: u32,
    len: u32,
}

impl Indexes {
    pub(crate) const fn new(at: u32, len: u32) -> Indexes {
        Indexes { at, len }
    }

    /// The indexes into [`DETECTORS`].
    pub(crate) fn get(self) -> &'static [u16] {
        &INDEXES[span(self.at, self.len)]
    }
}

/// One content detector of `taxonomy/secrets/*.toml`, without its examples.
#[derive(Debug)]
pub(crate) struct DetectorData {
    /// Its unique id (`aws-access-key-id`).
    pub id: Str,
    /// The noun phrase a reason names the secret with.
    pub kind: Str,
    /// Its file, relative to `taxonomy/secrets/`.
    pub file: Str,
    /// The line of its `id`.
    pub line: u32,
    /// The regex, with Unicode off, run on one line at a time.
    pub pattern: Str,
    /// ASCII letter case ignored by the pattern.
    pub case_insensitive: bool,
    /// The least entropy, in bits a byte, of the value.
    pub min_entropy: Option<f64>,
    /// A value that reads as a placeholder is no secret.
    pub placeholders: bool,
}

/// A keyword, lower-cased, with the detectors that list it.
#[derive(Debug)]
pub(crate) struct KeywordData {
    /// The keyword in ASCII lower case.
    pub lower: Str,
    /// As the data spells it (first spelling seen).
    pub spelled: Str,
    /// Indexes into [`DETECTORS`].
    pub detectors: Indexes,
    /// Spelled as a token spells itself (`ghp_`, `AKIA`) rather than a
    /// word or a name (`password`): see `build.rs`.
    pub format: bool,
}

/// The placeholder rules of `placeholders.toml`.
#[derive(Debug)]
pub(crate) struct PlaceholderData {
    /// Contained anywhere in the lower-cased value.
    pub words: Strs,
    /// Equal to the whole lower-cased value; sorted.
    pub values: Strs,
    /// Pairs that wrap a whole value: start, end, start, end, …
    pub wrappers: Strs,
}

/// One table of `files.toml`.
#[derive(Debug)]
pub(crate) struct FileTableData {
    /// The noun phrase of the reason.
    pub kind: Str,
    /// How it matches, with its entries.
    pub rule: FileRule,
    /// A last component ending with one of these is not matched.
    pub except_suffixes: Strs,
}

/// How a `files.toml` table matches a path's lower-cased components.
#[derive(Debug)]
pub(crate) enum FileRule {
    /// Runs of components (`.config/op`), anywhere.
    Dirs(Runs),
    /// The last component exactly; sorted.
    Names(Strs),
    /// The last component's ending.
    Suffixes(Strs),
    /// The trailing components, `*` within one, `**` for any number.
    Paths(Runs),
    /// A word at word boundaries in the last component, unless its last
    /// `.ext` is one of `code_suffixes` (sorted).
    Words {
        /// The words; sorted.
        words: Strs,
        /// Suffixes of code about secrets.
        code_suffixes: Strs,
    },
}

include!(concat!(env!("OUT_DIR"), "/secrets.rs"));

/// The keywords that may start at `text[i]`, with the place of the first
/// in [`KEYWORDS`]: those whose first two bytes are `text[i..i + 2]` in
/// lower case (or whose first is, at a text's last byte), or none where no
/// keyword starts with the two bytes there (`build.rs` marks every pair of
/// lower-case bytes a keyword starts, and every pair for a one-byte
/// keyword). Most bytes of a text start none.
pub(crate) fn keywords_at(text: &[u8], i: usize) -> (usize, &'static [KeywordData]) {
    let Some(first) = text.get(i).map(u8::to_ascii_lowercase) else {
        return (0, &[]);
    };
    let second = text.get(i + 1).map(u8::to_ascii_lowercase);
    if let Some(second) = second {
        let bit = usize::from(first) * 256 + usize::from(second);
        if KEYWORD_PAIRS[bit / 64] & (1 << (bit % 64)) == 0 {
            return (0, &[]);
        }
    }
    // Keywords are sorted by their lower-case bytes: those starting with
    // `first` are a run, and within it those whose second byte is
    // `second` (a keyword compared from `text[i]` matches only there).
    let from = usize::from(KEYWORD_STARTS[usize::from(first)]);
    let to = usize::from(KEYWORD_STARTS[usize::from(first) + 1]);
    let run = KEYWORDS.get(from..to).unwrap_or_default();
    match (second, run.first()) {
        // A one-byte keyword sorts first and matches whatever follows it:
        // the whole run stays.
        (Some(second), Some(k)) if k.lower.bytes().len() > 1 => {
            let second_of = |k: &KeywordData| k.lower.bytes().get(1).copied();
            let cut = super::sorted::sorted_range(run, second_of, Some(second));
            (from + cut.start, &run[cut])
        }
        _ => (from, run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keywords found at a byte are exactly those a comparison from
    /// there could match: the run of its first byte, cut to its second.
    #[test]
    fn keywords_at_a_byte_are_those_its_two_bytes_start() {
        for first in 0..=255u8 {
            for second in 0..=255u8 {
                let text = [first, second];
                let (from, found) = keywords_at(&text, 0);
                let want: Vec<usize> = (0..KEYWORDS.len())
                    .filter(|&k| {
                        let kb = KEYWORDS[k].lower.bytes();
                        kb[0] == first.to_ascii_lowercase()
                            && kb.get(1).is_none_or(|&b| b == second.to_ascii_lowercase())
                    })
                    .collect();
                let got: Vec<usize> = (from..from + found.len()).collect();
                // A one-byte keyword keeps its whole run (a superset).
                if want.iter().any(|&k| KEYWORDS[k].lower.bytes().len() == 1) {
                    assert!(want.iter().all(|k| got.contains(k)), "{text:?}");
                } else {
                    assert_eq!(got, want, "{text:?}");
                }
            }
        }
        // At a text's last byte, every keyword of its first byte.
        let (from, found) = keywords_at(b"p", 0);
        let p = (0..KEYWORDS.len()).filter(|&k| KEYWORDS[k].lower.bytes()[0] == b'p');
        assert_eq!(
            (from..from + found.len()).collect::<Vec<_>>(),
            p.collect::<Vec<_>>()
        );
        assert!(!found.is_empty());
    }

    #[test]
    fn every_string_lies_within_the_text() {
        let whole = |s: &Str| TEXT.get(span(s.at, s.len)).is_some();
        assert!(STRS.iter().all(whole));
        assert!(RUNS.iter().all(|r| STRS.get(span(r.at, r.len)).is_some()));
        for d in &DETECTORS {
            assert!([d.id, d.kind, d.file, d.pattern].iter().all(whole), "{d:?}");
        }
        for k in &KEYWORDS {
            assert!(whole(&k.lower) && whole(&k.spelled), "{k:?}");
            assert!(INDEXES.get(span(k.detectors.at, k.detectors.len)).is_some());
            assert!(k
                .detectors
                .get()
                .iter()
                .all(|&d| usize::from(d) < DETECTORS.len()));
        }
        assert!(FILE_TABLES.iter().all(|t| whole(&t.kind)));
        assert_eq!(PLACEHOLDERS.wrappers.len % 2, 0, "wrappers come in pairs");
    }

    #[test]
    fn the_strings_read_as_the_data_spells_them() {
        let first = &DETECTORS[0];
        assert_eq!(first.file.get(), "ai.toml");
        assert!(first.pattern.get().contains("(?P<secret>"));
        assert!(FORMAT_KEYWORDS.iter().any(|k| k == "ghp_"));
        assert!(PLACEHOLDERS.values.binary_search("changeme").is_err());
        assert!(PLACEHOLDERS.values.binary_search("password").is_ok());
        assert!(FILE_TABLES.iter().any(|t| match t.rule {
            FileRule::Names(n) => n.binary_search(".netrc").is_ok(),
            _ => false,
        }));
    }
}
