//! Secret files by name: `taxonomy/secrets/files.toml` as a matcher of
//! paths. The first check of a path, before any content is read (and the
//! only one where nothing can be read, as in the classifier).
//!
//! A path is compared in ASCII lower case, component by component (its
//! `/`-separated, non-empty parts), each with its backup, compression and
//! archive suffixes stripped (`server.key.orig`, `id_rsa.tgz`: a copy of a
//! secret is the secret). The tables are tried in the order `dirs`,
//! `names`, `suffixes`, `paths`, `words`, each type's in file order; the
//! first that matches names the kind. `tests/secrets_data_check.py` holds
//! the reference matcher these rules follow.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::bits::Bits;
use super::data::{FileRule, Str, Strs, FILE_TABLES, FILE_TABLE_COUNT};
use super::sorted::sorted_run;

/// Backup, compression and archive suffixes, stripped from every component
/// again and again (`x.pem.gz.bak` is `x.pem`).
const BACKUPS: &[&str] = &[
    ".bak", ".orig", ".old", ".save", ".backup", ".swp", "~", "-", ".gz", ".z", "-z", ".bz2",
    ".xz", ".lzma", ".lz", ".zst", ".lz4", ".tar", ".tgz", ".tbz2", ".txz", ".zip", ".7z",
];

/// A name without the suffixes people and tools give backups and
/// compressed or archived copies: gzip and unzip also open `NAME.gz`,
/// `NAME.zip` when NAME is missing, which must be judged as NAME is.
/// (`name` is in lower case.)
pub(crate) fn strip_backup(name: &str) -> &str {
    // (No suffix of the list ends another, so which one is found first
    // does not matter: they are looked up by length.)
    let backups = &index().backups;
    let mut name = name;
    while let Some(len) = backups.ending(name).filter(|&len| name.len() > len) {
        name = &name[..name.len() - len];
    }
    name
}

/// The kind of secret the path whose components `parts` yields is, by
/// name, if it is one (`Some("a private key or keystore")`). With
/// `by_word` false the `[[words]]` tables are left out: for a word that
/// only might be a file's name.
///
/// It allocates only for a component with upper-case letters.
pub fn kind_of_components<'p>(
    parts: impl IntoIterator<Item = &'p str>,
    by_word: bool,
) -> Option<&'static str> {
    let lowered: smallvec::SmallVec<[Cow<'p, str>; 12]> = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| {
            if p.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(p.to_ascii_lowercase())
            } else {
                Cow::Borrowed(p)
            }
        })
        .collect();
    let index = index();
    // No table names anything as short as every component: most words
    // checked (a count, `-type f`, a short flag's value) end here.
    if lowered.iter().all(|c| c.len() < index.shortest) {
        return None;
    }
    let comps: smallvec::SmallVec<[&str; 12]> = lowered.iter().map(|c| strip_backup(c)).collect();
    let last = *comps.last()?;
    let found = index.tables_matching(&comps, last, by_word);
    found
        .iter()
        .find(|&t| !index.except[t].end(last))
        .map(|t| FILE_TABLES[t].kind.get())
}

/// The tables' entries arranged for lookup, once per process, each type's
/// entries of every table together: the components tables name whole in
/// one hash map, so that one lookup of a component finds every table that
/// names it; suffixes by length, after a look at the last byte; and the
/// fixed start and end of each glob, which rule out most names before the
/// glob is matched. The same answers as trying each table in turn: a look
/// over a tree checks every file's name and a scan every path, and trying
/// 42 tables in turn cost them 4,000 to 23,000 instructions a path.
struct Index {
    /// [`BACKUPS`].
    backups: Suffixes,
    /// Each table's `except_suffixes`, by the table's place.
    except: Vec<Suffixes>,
    /// Every component a table names whole: a `names` table's names, the
    /// first component of a `dirs` table's runs, the last component of a
    /// `paths` table's patterns where it has no `*`.
    exact: FxHashMap<&'static str, Vec<Exact>>,
    /// Every `suffixes` table's suffixes, each with its table's place.
    suffixes: Suffixes<usize>,
    /// Every `paths` table's patterns whose last component has a `*`
    /// after some text, sorted by that text's first byte: a name is tried
    /// only against those that start as it does.
    glob_last: Vec<GlobLast>,
    /// Those whose last component starts with `*`: tried against every
    /// name.
    glob_open: Vec<GlobLast>,
    /// The places of the `words` tables.
    words: Vec<usize>,
    /// The fewest bytes of a component some table can match: every match
    /// has a component at least this long (a name, a suffix, a folder of a
    /// `dirs` run, the text of a `paths` pattern's last component outside
    /// its `*`s, a word). Backup suffixes only lengthen a name.
    shortest: usize,
}

/// What a component named whole in a table stands for there.
#[derive(Clone, Copy)]
enum Exact {
    /// A `names` table's name.
    Name { table: usize },
    /// The first component of a `dirs` table's run `at`.
    DirFirst { table: usize, at: usize },
    /// The last component of a `paths` table's pattern `at`.
    PathLast { table: usize, at: usize },
}

/// A path pattern whose last component is a glob, with what a name must
/// start and end with to match it (the glob's text before its first `*`
/// and after its last).
struct GlobLast {
    /// Its table's place, and its place in the table.
    table: usize,
    at: usize,
    starts: &'static str,
    ends: &'static str,
}

impl GlobLast {
    /// The first byte a name must start with (0 for none).
    fn first_byte(&self) -> u8 {
        self.starts.as_bytes().first().copied().unwrap_or(0)
    }

    /// Whether `name` may match: it starts and ends as the glob does.
    fn may_match(&self, name: &str) -> bool {
        name.len() >= self.starts.len() + self.ends.len()
            && name.starts_with(self.starts)
            && name.ends_with(self.ends)
    }
}

/// Tables, by place, as a set.
type TableSet = Bits<{ FILE_TABLE_COUNT.div_ceil(64) }>;

/// A `paths` table's pattern `at`.
fn path_pattern(table: usize, at: usize) -> Option<&'static [Str]> {
    match FILE_TABLES[table].rule {
        FileRule::Paths(paths) => paths.lists().get(at).map(|p| p.names()),
        _ => None,
    }
}

impl Index {
    /// The tables whose rule matches the path of (lower-cased, stripped)
    /// components `comps`, `except_suffixes` aside.
    fn tables_matching(&self, comps: &[&str], last: &str, by_word: bool) -> TableSet {
        let mut found = TableSet::default();
        let last_at = comps.len() - 1;
        for (at, comp) in comps.iter().enumerate() {
            let Some(entries) = self.exact.get(comp) else {
                continue;
            };
            for &entry in entries {
                match entry {
                    Exact::Name { table } if at == last_at => found.add(table),
                    Exact::DirFirst { table, at: k } => {
                        let FileRule::Dirs(dirs) = FILE_TABLES[table].rule else {
                            continue;
                        };
                        let run = dirs.lists()[k].names();
                        let here = comps.get(at..at + run.len()).is_some_and(|c| {
                            c.iter().zip(run).all(|(c, r)| c.as_bytes() == r.bytes())
                        });
                        if here {
                            found.add(table);
                        }
                    }
                    Exact::PathLast { table, at: k }
                        if at == last_at
                            && path_pattern(table, k).is_some_and(|p| glob_tail(p, comps)) =>
                    {
                        found.add(table);
                    }
                    _ => {}
                }
            }
        }
        for (_, table) in self.suffixes.ending_with(last) {
            found.add(table);
        }
        let first = last.as_bytes().first().copied().unwrap_or(0);
        let same_start = sorted_run(&self.glob_last, GlobLast::first_byte, first);
        for g in same_start.iter().chain(&self.glob_open) {
            if !found.has(g.table)
                && g.may_match(last)
                && path_pattern(g.table, g.at).is_some_and(|p| glob_tail(p, comps))
            {
                found.add(g.table);
            }
        }
        if by_word {
            for &table in &self.words {
                if let FileRule::Words {
                    words,
                    code_suffixes,
                } = FILE_TABLES[table].rule
                {
                    let code = last
                        .rfind('.')
                        .is_some_and(|dot| code_suffixes.binary_search(&last[dot..]).is_ok());
                    if !code && has_word(last, words.names()) {
                        found.add(table);
                    }
                }
            }
        }
        found
    }
}

/// Suffixes grouped by length, each group sorted, each suffix with a tag
/// (the table it is of, where that matters).
#[derive(Default)]
struct Suffixes<T = ()> {
    by_len: Vec<SameLength<T>>,
}

/// The suffixes of one length, sorted, and their last bytes: a text is
/// looked up only in the groups that have a suffix ending as it does (most
/// texts end as none does).
struct SameLength<T> {
    len: usize,
    ends: Bits<4>,
    suffixes: Vec<Tagged<T>>,
}

/// A suffix and its tag.
type Tagged<T> = (&'static [u8], T);

impl<T: Copy + Ord> Suffixes<T> {
    fn tagged(list: impl IntoIterator<Item = (&'static str, T)>) -> Suffixes<T> {
        let mut by_len: Vec<SameLength<T>> = Vec::new();
        for (s, tag) in list {
            let s = s.as_bytes();
            let Some(&e) = s.last() else { continue };
            let at = match by_len.iter().position(|g| g.len == s.len()) {
                Some(at) => at,
                None => {
                    by_len.push(SameLength {
                        len: s.len(),
                        ends: Bits::default(),
                        suffixes: Vec::new(),
                    });
                    by_len.len() - 1
                }
            };
            by_len[at].ends.add(usize::from(e));
            by_len[at].suffixes.push((s, tag));
        }
        for group in &mut by_len {
            group.suffixes.sort_unstable();
        }
        Suffixes { by_len }
    }

    /// The suffixes `text` ends with, as their lengths and tags, length
    /// by length.
    fn ending_with<'s>(&'s self, text: &'s str) -> impl Iterator<Item = (usize, T)> + 's {
        let b = text.as_bytes();
        let last = b.last().map(|&e| usize::from(e));
        self.by_len
            .iter()
            .filter(move |g| last.is_some_and(|e| g.ends.has(e)))
            .flat_map(move |g| {
                let tail = b.len().checked_sub(g.len).map(|from| &b[from..]);
                tail.map_or(&[][..], |tail| sorted_run(&g.suffixes, |e| e.0, tail))
                    .iter()
                    .map(move |&(_, tag)| (g.len, tag))
            })
    }
}

impl Suffixes {
    fn of(list: impl IntoIterator<Item = &'static str>) -> Suffixes {
        Suffixes::tagged(list.into_iter().map(|s| (s, ())))
    }

    /// Whether `text` ends with one of them.
    fn end(&self, text: &str) -> bool {
        self.ending(text).is_some()
    }

    /// The length of one of them that `text` ends with.
    fn ending(&self, text: &str) -> Option<usize> {
        self.ending_with(text).next().map(|(len, ())| len)
    }
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut ix = Index {
            backups: Suffixes::of(BACKUPS.iter().copied()),
            except: Vec::with_capacity(FILE_TABLE_COUNT),
            exact: FxHashMap::default(),
            suffixes: Suffixes::default(),
            glob_last: Vec::new(),
            glob_open: Vec::new(),
            words: Vec::new(),
            shortest: FILE_TABLES.iter().map(shortest_match).min().unwrap_or(0),
        };
        let mut table_suffixes = Vec::new();
        for (table, t) in FILE_TABLES.iter().enumerate() {
            ix.except.push(Suffixes::of(t.except_suffixes.iter()));
            match t.rule {
                FileRule::Names(list) => {
                    for name in list.iter() {
                        ix.exact
                            .entry(name)
                            .or_default()
                            .push(Exact::Name { table });
                    }
                }
                FileRule::Suffixes(list) => {
                    table_suffixes.extend(list.iter().map(|s| (s, table)));
                }
                FileRule::Dirs(dirs) => {
                    for (k, d) in dirs.lists().iter().enumerate() {
                        if let Some(first) = d.names().first() {
                            let entry = Exact::DirFirst { table, at: k };
                            ix.exact.entry(first.get()).or_default().push(entry);
                        }
                    }
                }
                FileRule::Paths(paths) => {
                    for (k, p) in paths.lists().iter().enumerate() {
                        match p.names().last().map(|l| l.get()) {
                            Some(last) if !last.contains('*') => {
                                let entry = Exact::PathLast { table, at: k };
                                ix.exact.entry(last).or_default().push(entry);
                            }
                            Some(glob) => {
                                let g = GlobLast {
                                    table,
                                    at: k,
                                    starts: glob.split('*').next().unwrap_or(""),
                                    ends: glob.rsplit('*').next().unwrap_or(""),
                                };
                                match g.starts.is_empty() {
                                    true => ix.glob_open.push(g),
                                    false => ix.glob_last.push(g),
                                }
                            }
                            None => {}
                        }
                    }
                }
                FileRule::Words { .. } => ix.words.push(table),
            }
        }
        ix.suffixes = Suffixes::tagged(table_suffixes);
        ix.glob_last.sort_by_key(GlobLast::first_byte);
        ix
    })
}

/// The fewest bytes of the longest component of a path `table` matches
/// (see [`Index::shortest`]).
fn shortest_match(table: &super::data::FileTableData) -> usize {
    let shortest = |list: Strs| list.iter().map(str::len).min().unwrap_or(usize::MAX);
    match table.rule {
        FileRule::Names(list) | FileRule::Suffixes(list) => shortest(list),
        FileRule::Words { words, .. } => shortest(words),
        // Every folder of a run is a component of the path.
        FileRule::Dirs(dirs) => dirs
            .lists()
            .iter()
            .map(|run| run.iter().map(str::len).max().unwrap_or(0))
            .min()
            .unwrap_or(usize::MAX),
        // The last component matches the pattern's last, whose text
        // outside its `*`s it holds.
        FileRule::Paths(paths) => paths
            .lists()
            .iter()
            .map(|p| {
                p.names()
                    .last()
                    .map_or(0, |l| l.get().bytes().filter(|&b| b != b'*').count())
            })
            .min()
            .unwrap_or(usize::MAX),
    }
}

/// [`kind_of_components`] of a path as written, `/`-separated.
pub fn kind_of_path(path: &str, by_word: bool) -> Option<&'static str> {
    kind_of_components(path.split('/'), by_word)
}

/// Whether `pat` (components; `**` stands for any number of them) matches
/// the trailing components of `comps`, starting at any of them.
fn glob_tail<P: AsRef<str>>(pat: &[P], comps: &[&str]) -> bool {
    // The last pattern component is always a name: most paths are settled
    // by it alone.
    match (pat.last(), comps.last()) {
        (Some(p), Some(c)) if glob_one(p.as_ref(), c) => {}
        _ => return false,
    }
    (0..comps.len()).any(|start| match_from(pat, &comps[start..]))
}

/// Whether `pat` matches all of `comps`.
fn match_from<P: AsRef<str>>(pat: &[P], comps: &[&str]) -> bool {
    match pat.split_first() {
        None => comps.is_empty(),
        Some((p, rest)) if p.as_ref() == "**" => {
            (0..=comps.len()).any(|k| match_from(rest, &comps[k..]))
        }
        Some((p, rest)) => comps
            .split_first()
            .is_some_and(|(c, more)| glob_one(p.as_ref(), c) && match_from(rest, more)),
    }
}

/// Whether the glob `pat` (`*`: any run of characters; all else literal)
/// matches `text` whole.
fn glob_one(pat: &str, text: &str) -> bool {
    let (p, t) = (pat.as_bytes(), text.as_bytes());
    let (Some(first), Some(last)) = (
        p.iter().position(|&c| c == b'*'),
        p.iter().rposition(|&c| c == b'*'),
    ) else {
        return p == t;
    };
    let (head, tail) = (&p[..first], &p[last + 1..]);
    if t.len() < head.len() + tail.len() || !t.starts_with(head) || !t.ends_with(tail) {
        return false;
    }
    // The parts between the stars, each found leftmost after the one
    // before, all before the tail.
    let end = t.len() - tail.len();
    let mut at = head.len();
    let between = p.get(first + 1..last).unwrap_or_default();
    for mid in between.split(|&c| c == b'*') {
        if mid.is_empty() {
            continue;
        }
        match t[at..end].windows(mid.len()).position(|w| w == mid) {
            Some(k) => at += k + mid.len(),
            None => return false,
        }
    }
    true
}

/// Whether one of `words` (sorted) stands in `name` between word
/// boundaries (a byte that is no ASCII letter or digit, or an end), in one
/// pass over the places a word can start.
fn has_word<W: AsRef<str>>(name: &str, words: &[W]) -> bool {
    let b = name.as_bytes();
    let first = |w: &W| w.as_ref().as_bytes().first().copied().unwrap_or(0);
    (0..b.len())
        .filter(|&start| start == 0 || !b[start - 1].is_ascii_alphanumeric())
        .any(|start| {
            sorted_run(words, first, b[start]).iter().any(|w| {
                let w = w.as_ref();
                let end = start + w.len();
                b.get(start..end) == Some(w.as_bytes())
                    && (end == b.len() || !b[end].is_ascii_alphanumeric())
            })
        })
}

/// The secret names of the `[[names]]` tables and the one-component names
/// of the `[[dirs]]` tables: what a glob of file names could expand to.
pub fn whole_names() -> impl Iterator<Item = &'static str> {
    FILE_TABLES
        .iter()
        .flat_map(|t| -> Box<dyn Iterator<Item = &'static str>> {
            match t.rule {
                FileRule::Names(names) => Box::new(names.iter()),
                FileRule::Dirs(dirs) => {
                    Box::new(dirs.lists().iter().filter_map(|d| match d.names() {
                        [only] => Some(only.get()),
                        _ => None,
                    }))
                }
                _ => Box::new(std::iter::empty()),
            }
        })
}

/// Whether `.ext` is the suffix of a source or documentation file, which
/// a secret is never named with (the `[[words]]` tables' `code_suffixes`).
pub fn is_code_suffix(suffix: &str) -> bool {
    FILE_TABLES.iter().any(|t| match t.rule {
        FileRule::Words { code_suffixes, .. } => code_suffixes.binary_search(suffix).is_ok(),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_the_reference_does() {
        assert!(glob_one(".env*", ".env"));
        assert!(glob_one(".env*", ".envrc"));
        assert!(!glob_one(".env*", "x.env"));
        assert!(glob_one(
            "*firebase-adminsdk*.json",
            "a-firebase-adminsdk-x.json"
        ));
        assert!(!glob_one("*.env.*", ".env"));
        assert!(glob_one("*.env.*", "a.env.b"));
        assert!(glob_one("krb5cc_*", "krb5cc_1000"));
        assert!(glob_tail(
            &["*.git", "**", "config"],
            &["x", ".git", "config"]
        ));
        assert!(glob_tail(
            &["*.git", "**", "config"],
            &[".git", "modules", "a", "config"]
        ));
        assert!(!glob_tail(&["*.git", "**", "config"], &["config"]));
        assert!(glob_tail(
            &["proc", "*", "environ"],
            &["proc", "self", "environ"]
        ));
    }

    /// No table matches a path whose every component is shorter than the
    /// index's bound, with the matcher itself as the judge: every
    /// one-component path of such a component over letters, digits and
    /// `._-~*` (and of one byte over every ASCII byte), and a sample of
    /// the two-component paths of them.
    #[test]
    fn nothing_shorter_than_the_bound_is_a_secret() {
        let ix = index();
        assert!(ix.shortest >= 3, "the bound fell to {}", ix.shortest);
        let matches = |comps: &[&str]| {
            let stripped: Vec<&str> = comps.iter().map(|c| strip_backup(c)).collect();
            let last = stripped.last().copied().unwrap_or("");
            ix.tables_matching(&stripped, last, true)
                .iter()
                .next()
                .is_some()
        };
        let alphabet: Vec<u8> = b"._-~*abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
        let mut short: Vec<String> = Vec::new();
        let mut grow = vec![String::new()];
        for _ in 1..ix.shortest {
            grow = grow
                .iter()
                .flat_map(|w| alphabet.iter().map(move |&b| format!("{w}{}", b as char)))
                .collect();
            short.extend(grow.iter().cloned());
        }
        short.extend(
            (0..=255u8)
                .filter(u8::is_ascii)
                .map(|b| (b as char).to_string()),
        );
        for a in &short {
            assert!(!matches(&[a]), "{a:?}");
        }
        for a in short.iter().step_by(7) {
            for b in short.iter().step_by(5) {
                assert!(!matches(&[a, b]), "{a:?}/{b:?}");
            }
        }
        // The bound is met: some entry of that length is a secret.
        assert!(FILE_TABLES.iter().any(|t| shortest_match(t) == ix.shortest));
    }

    /// A glob matched by trying every split: the reference.
    fn glob_reference(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).any(|k| glob_reference(rest, &t[k..])),
            Some((c, rest)) => t
                .split_first()
                .is_some_and(|(d, more)| c == d && glob_reference(rest, more)),
        }
    }

    proptest::proptest! {
        #[test]
        fn globs_match_as_trying_every_split_does(pat in "[ab.*]{0,7}", text in "[ab.]{0,8}") {
            proptest::prop_assert_eq!(
                glob_one(&pat, &text),
                glob_reference(pat.as_bytes(), text.as_bytes()),
                "{:?} {:?}", pat, text
            );
        }
    }

    #[test]
    fn words_stand_between_boundaries() {
        let words = ["pass", "secret", "token"];
        for (name, want) in [
            ("my_secret.txt", true),
            ("a-token-b", true),
            ("token", true),
            ("secretary.txt", false),
            ("tokens", false),
            ("mytoken", false),
            ("compass", false),
            ("pass.txt", true),
            ("", false),
        ] {
            assert_eq!(has_word(name, &words), want, "{name}");
        }
    }

    #[test]
    fn kinds_come_from_the_first_table_that_matches() {
        assert_eq!(
            kind_of_path("/home/u/.ssh/id_rsa", true),
            Some("a credentials directory")
        );
        assert_eq!(kind_of_path("keys/ID_ED25519", true), Some("a private key"));
        assert_eq!(
            kind_of_path("server.key.orig", true),
            Some("a private key or keystore")
        );
        assert_eq!(
            kind_of_path("config/secrets.yaml", true),
            Some("a file named for a secret")
        );
        assert_eq!(kind_of_path("config/secrets.yaml", false), None);
        assert_eq!(kind_of_path("src/tokenizer.py", true), None);
        assert_eq!(kind_of_path("", true), None);
    }
}
