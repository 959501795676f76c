//! The secret taxonomy's file formats (`taxonomy/secrets/*.toml`) and their
//! checks.
//!
//! Standalone (std, serde, toml and regex-automata's parser only) because
//! `build.rs` includes this file too: it checks the files with these same
//! rules before it embeds them, and a file that breaks one fails the build
//! with its file, line and field, since a detector that silently went
//! missing would let a secret through.
//!
//! `tests/secrets_data_check.py` is the reference for what the files mean;
//! the checks here are the ones the Rust side needs to compile them.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;

/// The placeholder rules' file.
pub const PLACEHOLDERS_FILE: &str = "placeholders.toml";
/// The secret file names' file.
pub const FILES_FILE: &str = "files.toml";

/// A content detector file: every file but the two above.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorFile {
    /// Its detectors, in file order.
    #[serde(default)]
    pub detector: Vec<RawDetector>,
}

/// One `[[detector]]` table as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDetector {
    /// Unique kebab-case id.
    pub id: String,
    /// The noun phrase a reason names the secret with ("a cloud access key").
    pub kind: String,
    /// Literal words, one of which (any letter case) a line must hold for
    /// the pattern to be tried on it.
    pub keywords: Vec<String>,
    /// The regex, run on one line; its `secret` group (or the whole match)
    /// is the value judged.
    pub pattern: String,
    /// ASCII letter case ignored by the pattern.
    #[serde(default)]
    pub case_insensitive: bool,
    /// The least Shannon entropy, in bits a byte, the value must have.
    #[serde(default)]
    pub min_entropy: Option<f64>,
    /// A value that reads as a placeholder is no secret.
    #[serde(default)]
    pub placeholders: bool,
    /// Texts the detector must find.
    pub examples: Vec<String>,
    /// Texts it must not find.
    pub near_misses: Vec<String>,
}

/// `placeholders.toml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceholdersFile {
    /// The one table.
    pub placeholders: RawPlaceholders,
}

/// The `[placeholders]` table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlaceholders {
    /// Contained anywhere in the lower-cased value.
    pub words: Vec<String>,
    /// Equal to the whole lower-cased value.
    #[serde(default)]
    pub values: Vec<String>,
    /// (start, end) pairs that wrap a whole value.
    pub wrappers: Vec<(String, String)>,
    /// Values that must read as placeholders.
    pub examples: Vec<String>,
    /// Values that must not.
    pub near_misses: Vec<String>,
}

/// `files.toml` as written: tables of secret file names by how they match.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesFile {
    /// Directories whose every file is a secret.
    #[serde(default)]
    pub dirs: Vec<RawFileTable>,
    /// Exact last components.
    #[serde(default)]
    pub names: Vec<RawFileTable>,
    /// Endings of the last component.
    #[serde(default)]
    pub suffixes: Vec<RawFileTable>,
    /// Trailing components, with `*` and `**`.
    #[serde(default)]
    pub paths: Vec<RawFileTable>,
    /// Words at word boundaries in the last component.
    #[serde(default)]
    pub words: Vec<RawFileTable>,
}

/// One table of `files.toml`; which list it holds depends on its type.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFileTable {
    /// The noun phrase of the reason.
    pub kind: String,
    /// `[[dirs]]` and `[[names]]`.
    pub names: Option<Vec<String>>,
    /// `[[suffixes]]`.
    pub suffixes: Option<Vec<String>>,
    /// `[[paths]]`.
    pub paths: Option<Vec<String>>,
    /// `[[words]]`.
    pub words: Option<Vec<String>>,
    /// Last components ending so are not matched by this table.
    pub except_suffixes: Option<Vec<String>>,
    /// `[[words]]`: a last `.ext` among these is code, not a secret.
    pub code_suffixes: Option<Vec<String>>,
    /// Paths the table must match.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Paths no table may match.
    #[serde(default)]
    pub near_misses: Vec<String>,
}

/// How a `files.toml` table matches, in the order tables are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableType {
    /// `[[dirs]]`.
    Dirs,
    /// `[[names]]`.
    Names,
    /// `[[suffixes]]`.
    Suffixes,
    /// `[[paths]]`.
    Paths,
    /// `[[words]]`.
    Words,
}

impl TableType {
    /// Every type, in the order a path is tried against them.
    pub const ALL: [TableType; 5] = [
        TableType::Dirs,
        TableType::Names,
        TableType::Suffixes,
        TableType::Paths,
        TableType::Words,
    ];

    /// The TOML key of its tables.
    pub fn key(self) -> &'static str {
        match self {
            TableType::Dirs => "dirs",
            TableType::Names => "names",
            TableType::Suffixes => "suffixes",
            TableType::Paths => "paths",
            TableType::Words => "words",
        }
    }

    /// The key of its list of entries.
    pub fn list_key(self) -> &'static str {
        match self {
            TableType::Dirs | TableType::Names => "names",
            TableType::Suffixes => "suffixes",
            TableType::Paths => "paths",
            TableType::Words => "words",
        }
    }
}

impl RawFileTable {
    /// The entries of a table of type `t`.
    pub fn entries(&self, t: TableType) -> &[String] {
        let list = match t {
            TableType::Dirs | TableType::Names => &self.names,
            TableType::Suffixes => &self.suffixes,
            TableType::Paths => &self.paths,
            TableType::Words => &self.words,
        };
        list.as_deref().unwrap_or_default()
    }
}

/// A `files.toml` table with where it is.
#[derive(Clone, Debug)]
pub struct FileTableAt {
    /// How it matches.
    pub table_type: TableType,
    /// The 1-based line of its `[[type]]` header.
    pub line: usize,
    /// The table.
    pub table: RawFileTable,
}

/// A detector with where it is.
#[derive(Clone, Debug)]
pub struct DetectorAt {
    /// Its file, relative to `taxonomy/secrets/`.
    pub file: String,
    /// The 1-based line of its `id`.
    pub line: usize,
    /// The detector.
    pub detector: RawDetector,
}

/// The whole secret taxonomy, checked.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Every detector, files in path order, each file's in file order.
    pub detectors: Vec<DetectorAt>,
    /// The placeholder rules.
    pub placeholders: RawPlaceholders,
    /// Every `files.toml` table, types in [`TableType::ALL`] order.
    pub files: Vec<FileTableAt>,
}

/// Something wrong in a secret taxonomy file: where, and what to fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to `taxonomy/secrets/`.
    pub file: String,
    /// The 1-based line of the entry (0: the file as a whole).
    pub line: usize,
    /// The entry: a detector's id, a table's type and kind, or the file.
    pub entry: String,
    /// The offending field (empty: the file's syntax).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "taxonomy/secrets/{}:{}: entry `{}`: field `{}`: {}",
            self.file, self.line, self.entry, self.field, self.message
        )
    }
}

/// The fewest examples, and near misses, an entry may prove itself with.
const MIN_CASES: usize = 2;

/// The largest bounded repetition a pattern may use: bigger ones make the
/// Thompson NFA big for little gain (the reference says the same).
pub const MAX_REPEAT: u32 = 4000;

/// Parses and checks every secret taxonomy file of `sources` (pairs of a
/// path relative to `taxonomy/secrets/` and its text), sorted by path.
/// Every problem found is returned, not only the first.
pub fn check(sources: &[(String, String)]) -> Result<Checked, Vec<Problem>> {
    let mut out = Checked::default();
    let mut problems = Vec::new();
    let mut seen_ids: HashMap<String, String> = HashMap::new();
    let mut have_placeholders = false;
    let mut have_files = false;
    for (file, text) in sources {
        let syntax = |e: toml::de::Error| Problem {
            file: file.clone(),
            line: 0,
            entry: file.clone(),
            field: String::new(),
            message: e.to_string(),
        };
        if file == PLACEHOLDERS_FILE {
            have_placeholders = true;
            match toml::from_str::<PlaceholdersFile>(text) {
                Ok(p) => {
                    check_placeholders(file, &p.placeholders, &mut problems);
                    out.placeholders = p.placeholders;
                }
                Err(e) => problems.push(syntax(e)),
            }
        } else if file == FILES_FILE {
            have_files = true;
            match toml::from_str::<FilesFile>(text) {
                Ok(f) => out.files = check_files(file, text, f, &mut problems),
                Err(e) => problems.push(syntax(e)),
            }
        } else {
            match toml::from_str::<DetectorFile>(text) {
                Ok(d) => {
                    let mut lines = id_lines(text);
                    for det in d.detector {
                        let line = lines
                            .get_mut(det.id.as_str())
                            .and_then(Vec::pop)
                            .unwrap_or(0);
                        let at = DetectorAt {
                            file: file.clone(),
                            line,
                            detector: det,
                        };
                        check_detector(&at, &mut problems);
                        if let Some(first) = seen_ids.get(&at.detector.id) {
                            problems.push(problem(
                                &at,
                                "id",
                                format!("the id is already used in {first}"),
                            ));
                        } else {
                            seen_ids
                                .insert(at.detector.id.clone(), format!("{}:{}", at.file, line));
                        }
                        out.detectors.push(at);
                    }
                }
                Err(e) => problems.push(syntax(e)),
            }
        }
    }
    for (present, name) in [
        (have_placeholders, PLACEHOLDERS_FILE),
        (have_files, FILES_FILE),
    ] {
        if !present {
            problems.push(Problem {
                file: name.into(),
                line: 0,
                entry: name.into(),
                field: String::new(),
                message: "the file is missing".into(),
            });
        }
    }
    if out.detectors.is_empty() {
        problems.push(Problem {
            file: String::new(),
            line: 0,
            entry: "detectors".into(),
            field: "detector".into(),
            message: "no content detector is defined".into(),
        });
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The lines of each `id = "…"` of a file, each list last-first so that
/// popping hands them out in file order.
fn id_lines(text: &str) -> HashMap<&str, Vec<usize>> {
    let mut lines: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let Some(rest) = l.trim_start().strip_prefix("id") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        lines
            .entry(value.trim().trim_matches('"'))
            .or_default()
            .push(i + 1);
    }
    for v in lines.values_mut() {
        v.reverse();
    }
    lines
}

fn problem(at: &DetectorAt, field: &str, message: String) -> Problem {
    Problem {
        file: at.file.clone(),
        line: at.line,
        entry: at.detector.id.clone(),
        field: field.into(),
        message,
    }
}

/// Whether `s` is a noun phrase with an article ("a cloud access key"):
/// reasons read "would print a cloud access key".
fn is_kind(s: &str) -> bool {
    ["a ", "an ", "the "].iter().any(|a| {
        s.strip_prefix(a)
            .is_some_and(|r| r.starts_with(|c: char| !c.is_whitespace()))
    })
}

fn check_detector(at: &DetectorAt, problems: &mut Vec<Problem>) {
    let d = &at.detector;
    let mut bad = |field: &str, message: String| problems.push(problem(at, field, message));
    let kebab = !d.id.is_empty()
        && d.id.split('-').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !kebab {
        bad(
            "id",
            "the id must be kebab-case (`aws-access-key-id`)".into(),
        );
    }
    if !is_kind(&d.kind) {
        bad(
            "kind",
            "the kind must be a noun phrase with an article (`a cloud access key`)".into(),
        );
    }
    if d.keywords.is_empty() {
        bad(
            "keywords",
            "at least one keyword is needed: a line is looked at only when it holds one".into(),
        );
    }
    let mut lower: Vec<String> = Vec::new();
    for k in &d.keywords {
        if k.len() < 3 || !k.is_ascii() {
            bad(
                "keywords",
                format!("keyword `{k}` must be ASCII and at least 3 bytes"),
            );
        }
        let l = k.to_ascii_lowercase();
        if lower.contains(&l) {
            bad(
                "keywords",
                format!("keyword `{k}` repeats another (letter case is ignored)"),
            );
        }
        lower.push(l);
    }
    if d.examples.len() < MIN_CASES || d.near_misses.len() < MIN_CASES {
        bad(
            "examples",
            format!("at least {MIN_CASES} examples and {MIN_CASES} near misses are needed"),
        );
    }
    if let Some(e) = d.min_entropy {
        if !(0.0..=8.0).contains(&e) {
            bad(
                "min_entropy",
                format!("{e} is no entropy in bits a byte (0 to 8)"),
            );
        }
    }
    if d.pattern.is_empty() || d.pattern.contains('\n') {
        bad("pattern", "the pattern must be one non-empty line".into());
        return;
    }
    for message in pattern_problems(&d.pattern, d.case_insensitive) {
        bad("pattern", message);
    }
}

/// What is wrong with a detector's pattern: it must parse as
/// regex-automata reads it (Unicode off, bytes), name no group but
/// `secret`, set no flags inline (`case_insensitive` says it), and bound
/// every repetition by [`MAX_REPEAT`].
pub fn pattern_problems(pattern: &str, case_insensitive: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut names = 0;
    let mut rest = pattern;
    while let Some(at) = rest.find("(?") {
        let after = &rest[at + 2..];
        if let Some(name) = after.strip_prefix("P<") {
            names += 1;
            if !name.starts_with("secret>") {
                out.push("the only named group allowed is `(?P<secret>…)`".into());
            }
        } else if after.starts_with('<') && !after.starts_with("<=") && !after.starts_with("<!") {
            out.push("write a named group as `(?P<secret>…)`".into());
        } else if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '-') {
            out.push("inline flags are not allowed: use `case_insensitive`".into());
        }
        rest = after;
    }
    if names > 1 {
        out.push(format!("{names} named groups: at most one, `secret`"));
    }
    let config = regex_automata::util::syntax::Config::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(case_insensitive);
    match regex_automata::util::syntax::parse_with(pattern, &config) {
        Ok(_) => {
            if let Some(max) = largest_repeat(pattern) {
                if max > MAX_REPEAT {
                    out.push(format!("a repetition bound of {max} is above {MAX_REPEAT}"));
                }
            }
        }
        Err(e) => out.push(format!("the pattern does not parse: {e}")),
    }
    out
}

/// The largest `n` of any `{m,n}` or `{n}` in a pattern (escaped braces
/// aside).
fn largest_repeat(pattern: &str) -> Option<u32> {
    let b = pattern.as_bytes();
    let mut max = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'{' => {
                let close = b[i..].iter().position(|&c| c == b'}').map(|p| i + p);
                if let Some(close) = close {
                    for part in pattern[i + 1..close].split(',') {
                        if let Ok(n) = part.trim().parse::<u32>() {
                            max = Some(max.map_or(n, |m: u32| m.max(n)));
                        }
                    }
                    i = close + 1;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    max
}

fn check_placeholders(file: &str, p: &RawPlaceholders, problems: &mut Vec<Problem>) {
    let mut bad = |field: &str, message: String| {
        problems.push(Problem {
            file: file.into(),
            line: 0,
            entry: "placeholders".into(),
            field: field.into(),
            message,
        })
    };
    for w in &p.words {
        if w.is_empty() || *w != w.to_lowercase() {
            bad(
                "words",
                format!("word `{w}` must be non-empty and in lower case"),
            );
        }
    }
    for v in &p.values {
        if *v != v.to_lowercase() {
            bad("values", format!("value `{v}` must be in lower case"));
        }
    }
    for (start, _) in &p.wrappers {
        if start.is_empty() {
            bad("wrappers", "a wrapper's start must not be empty".into());
        }
    }
    if p.examples.len() < MIN_CASES || p.near_misses.len() < MIN_CASES {
        bad(
            "examples",
            format!("at least {MIN_CASES} examples and {MIN_CASES} near misses are needed"),
        );
    }
}

/// The lines of a file's `[[dirs]]`, `[[names]]`, … headers by type, in
/// order.
fn header_lines(text: &str, key: &str) -> Vec<usize> {
    let header = format!("[[{key}]]");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .map(|(i, _)| i + 1)
        .collect()
}

fn check_files(
    file: &str,
    text: &str,
    parsed: FilesFile,
    problems: &mut Vec<Problem>,
) -> Vec<FileTableAt> {
    let mut out = Vec::new();
    for t in TableType::ALL {
        let tables = match t {
            TableType::Dirs => &parsed.dirs,
            TableType::Names => &parsed.names,
            TableType::Suffixes => &parsed.suffixes,
            TableType::Paths => &parsed.paths,
            TableType::Words => &parsed.words,
        };
        let lines = header_lines(text, t.key());
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, table) in tables.iter().enumerate() {
            let line = lines.get(i).copied().unwrap_or(0);
            let mut bad = |field: &str, message: String| {
                problems.push(Problem {
                    file: file.into(),
                    line,
                    entry: format!("[[{}]] {}", t.key(), table.kind),
                    field: field.into(),
                    message,
                })
            };
            if !is_kind(&table.kind) {
                bad(
                    "kind",
                    "the kind must be a noun phrase with an article".into(),
                );
            }
            let allowed: &[&str] = match t {
                TableType::Dirs => &["names"],
                TableType::Names => &["names", "except_suffixes"],
                TableType::Suffixes => &["suffixes", "except_suffixes"],
                TableType::Paths => &["paths", "except_suffixes"],
                TableType::Words => &["words", "code_suffixes"],
            };
            for (key, present) in [
                ("names", table.names.is_some()),
                ("suffixes", table.suffixes.is_some()),
                ("paths", table.paths.is_some()),
                ("words", table.words.is_some()),
                ("except_suffixes", table.except_suffixes.is_some()),
                ("code_suffixes", table.code_suffixes.is_some()),
            ] {
                if present && !allowed.contains(&key) {
                    bad(key, format!("`{key}` is not a key of [[{}]]", t.key()));
                }
            }
            if t == TableType::Words && table.code_suffixes.is_none() {
                bad("code_suffixes", "[[words]] needs `code_suffixes`".into());
            }
            let list = t.list_key();
            let entries = table.entries(t);
            if entries.is_empty() {
                bad(list, "the table lists nothing".into());
            }
            for e in entries {
                if e.is_empty() || *e != e.to_lowercase() {
                    bad(
                        list,
                        format!("entry `{e}` must be non-empty and in lower case"),
                    );
                }
                if t != TableType::Paths && e.contains('*') {
                    bad(list, format!("entry `{e}`: `*` is only for [[paths]]"));
                }
                if matches!(t, TableType::Names | TableType::Suffixes | TableType::Words)
                    && e.contains('/')
                {
                    bad(
                        list,
                        format!("entry `{e}`: `/` is only for [[dirs]] and [[paths]]"),
                    );
                }
                if t == TableType::Paths {
                    let parts: Vec<&str> = e.split('/').collect();
                    if parts
                        .iter()
                        .any(|p| p.is_empty() || (p.contains("**") && *p != "**"))
                        || parts.last() == Some(&"**")
                        || e.contains(['?', '[', ']'])
                    {
                        bad(list, format!("path `{e}`: components must be names, `*` globs or `**`, the last a name"));
                    }
                }
                if t == TableType::Dirs && e.split('/').any(str::is_empty) {
                    bad(list, format!("directory `{e}` has an empty component"));
                }
                if let Some(first) = seen.insert(e.as_str(), line) {
                    bad(list, format!("entry `{e}` repeats the one at line {first}"));
                }
            }
            if table.examples.len() < MIN_CASES || table.near_misses.len() < MIN_CASES {
                bad(
                    "examples",
                    format!("at least {MIN_CASES} examples and {MIN_CASES} near misses are needed"),
                );
            }
            out.push(FileTableAt {
                table_type: t,
                line,
                table: table.clone(),
            });
        }
    }
    out
}
