//! The embedded secret taxonomy, as `build.rs` checked it and wrote it out:
//! plain statics, read in place. A hook process that masks one command line
//! or checks one path pays nothing to load them.

/// One content detector of `taxonomy/secrets/*.toml`, without its examples.
#[derive(Debug)]
pub(crate) struct DetectorData {
    /// Its unique id (`aws-access-key-id`).
    pub id: &'static str,
    /// The noun phrase a reason names the secret with.
    pub kind: &'static str,
    /// Its file, relative to `taxonomy/secrets/`.
    pub file: &'static str,
    /// The line of its `id`.
    pub line: u32,
    /// The regex, with Unicode off, run on one line at a time.
    pub pattern: &'static str,
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
    pub lower: &'static str,
    /// As the data spells it (first spelling seen).
    pub spelled: &'static str,
    /// Indexes into [`DETECTORS`].
    pub detectors: &'static [u16],
    /// Spelled as a token spells itself (`ghp_`, `AKIA`) rather than a
    /// word or a name (`password`): see `build.rs`.
    pub format: bool,
}

/// The placeholder rules of `placeholders.toml`.
#[derive(Debug)]
pub(crate) struct PlaceholderData {
    /// Contained anywhere in the lower-cased value.
    pub words: &'static [&'static str],
    /// Equal to the whole lower-cased value; sorted.
    pub values: &'static [&'static str],
    /// (start, end) pairs that wrap a whole value.
    pub wrappers: &'static [(&'static str, &'static str)],
}

/// One table of `files.toml`.
#[derive(Debug)]
pub(crate) struct FileTableData {
    /// The noun phrase of the reason.
    pub kind: &'static str,
    /// How it matches, with its entries.
    pub rule: FileRule,
    /// A last component ending with one of these is not matched.
    pub except_suffixes: &'static [&'static str],
}

/// How a `files.toml` table matches a path's lower-cased components.
#[derive(Debug)]
pub(crate) enum FileRule {
    /// Runs of components (`.config/op`), anywhere.
    Dirs(&'static [&'static [&'static str]]),
    /// The last component exactly; sorted.
    Names(&'static [&'static str]),
    /// The last component's ending.
    Suffixes(&'static [&'static str]),
    /// The trailing components, `*` within one, `**` for any number.
    Paths(&'static [&'static [&'static str]]),
    /// A word at word boundaries in the last component, unless its last
    /// `.ext` is one of `code_suffixes` (sorted).
    Words {
        /// The words; sorted.
        words: &'static [&'static str],
        /// Suffixes of code about secrets.
        code_suffixes: &'static [&'static str],
    },
}

include!(concat!(env!("OUT_DIR"), "/secrets.rs"));
