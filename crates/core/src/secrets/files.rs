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

use super::data::{FileRule, FileTableData, FILE_TABLES, FILE_TABLE_COUNT};

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
    let comps: smallvec::SmallVec<[&str; 12]> = lowered.iter().map(|c| strip_backup(c)).collect();
    let last = *comps.last()?;
    let index = index();
    let hits = index.hits(&comps, last);
    FILE_TABLES
        .iter()
        .zip(&index.tables)
        .enumerate()
        .filter(|(_, (t, _))| by_word || !matches!(t.rule, FileRule::Words { .. }))
        .find(|&(at, (t, ix))| {
            !ix.except.end(last) && table_matches(at, t, ix, &hits, &comps, last)
        })
        .map(|(_, (t, _))| t.kind.get())
}

/// The tables' entries arranged for lookup, once per process: the names,
/// the first components of directory runs and the last components of
/// path patterns of every table in one sorted list each, so that one
/// search finds the tables a path may match; suffixes by length for a
/// bisection; and the fixed start and end of each glob, which rule out
/// most names before the glob is matched. The same answers as a scan of
/// each table's lists: a look over a tree checks every file's name, and
/// scanning the lists took a sixth of its instructions.
struct Index {
    /// One per table of [`FILE_TABLES`], in order.
    tables: Vec<TableIndex>,
    /// [`BACKUPS`].
    backups: Suffixes,
    /// Every `names` table's names, with the table's place; sorted.
    names: Vec<(&'static str, usize)>,
    /// Every `dirs` table's runs by their first component, with the
    /// table's place and the run's place in it; sorted.
    dir_first: Vec<(&'static str, usize, usize)>,
    /// Every `paths` table's patterns whose last component has no `*`, by
    /// that component, with the table's place and the pattern's; sorted.
    literal_last: Vec<(&'static str, usize, usize)>,
}

#[derive(Default)]
struct TableIndex {
    /// `except_suffixes`.
    except: Suffixes,
    /// A `suffixes` table's entries.
    suffixes: Suffixes,
    /// A `paths` table's patterns whose last component has a `*`.
    glob_last: Vec<GlobLast>,
}

/// A path pattern whose last component is a glob, with what a name must
/// start and end with to match it (the glob's text before its first `*`
/// and after its last).
struct GlobLast {
    /// Its place in its table.
    at: usize,
    starts: &'static str,
    ends: &'static str,
}

impl GlobLast {
    /// Whether `name` may match: it starts and ends as the glob does.
    fn may_match(&self, name: &str) -> bool {
        name.len() >= self.starts.len() + self.ends.len()
            && name.starts_with(self.starts)
            && name.ends_with(self.ends)
    }
}

/// Tables, by place, as a set.
#[derive(Clone, Copy, Default)]
struct TableSet([u64; FILE_TABLE_COUNT.div_ceil(64)]);

impl TableSet {
    fn add(&mut self, table: usize) {
        self.0[table / 64] |= 1 << (table % 64);
    }

    fn has(&self, table: usize) -> bool {
        self.0[table / 64] & (1 << (table % 64)) != 0
    }
}

/// The tables whose lists a path's components were found in by one search
/// of each merged list.
#[derive(Default)]
struct Hits {
    /// `names` tables that list the last component.
    names: TableSet,
    /// `dirs` tables with a run among the components.
    dirs: TableSet,
    /// `paths` tables with a pattern whose last component is literal that
    /// matches.
    paths: TableSet,
}

impl Index {
    fn hits(&self, comps: &[&str], last: &str) -> Hits {
        let mut hits = Hits::default();
        for &(_, table) in sorted_run(&self.names, |e| e.0, last) {
            hits.names.add(table);
        }
        for (at, comp) in comps.iter().enumerate() {
            for &(_, table, k) in sorted_run(&self.dir_first, |e| e.0, *comp) {
                if hits.dirs.has(table) {
                    continue;
                }
                let FileRule::Dirs(dirs) = FILE_TABLES[table].rule else {
                    continue;
                };
                let run = dirs.lists()[k].names();
                let here = comps
                    .get(at..at + run.len())
                    .is_some_and(|c| c.iter().zip(run).all(|(c, r)| c.as_bytes() == r.bytes()));
                if here {
                    hits.dirs.add(table);
                }
            }
        }
        for &(_, table, k) in sorted_run(&self.literal_last, |e| e.0, last) {
            if let FileRule::Paths(paths) = FILE_TABLES[table].rule {
                if !hits.paths.has(table) && glob_tail(paths.lists()[k].names(), comps) {
                    hits.paths.add(table);
                }
            }
        }
        hits
    }
}

/// Suffixes grouped by length, each group sorted.
#[derive(Default)]
struct Suffixes {
    by_len: Vec<(usize, Vec<&'static [u8]>)>,
}

impl Suffixes {
    fn of(list: impl IntoIterator<Item = &'static str>) -> Suffixes {
        let mut by_len: Vec<(usize, Vec<&'static [u8]>)> = Vec::new();
        for s in list {
            match by_len.iter_mut().find(|(len, _)| *len == s.len()) {
                Some((_, group)) => group.push(s.as_bytes()),
                None => by_len.push((s.len(), vec![s.as_bytes()])),
            }
        }
        for (_, group) in &mut by_len {
            group.sort_unstable();
        }
        Suffixes { by_len }
    }

    /// Whether `text` ends with one of them.
    fn end(&self, text: &str) -> bool {
        self.ending(text).is_some()
    }

    /// The length of one of them that `text` ends with.
    fn ending(&self, text: &str) -> Option<usize> {
        let b = text.as_bytes();
        self.by_len
            .iter()
            .find(|(len, group)| {
                b.len() >= *len && group.binary_search(&&b[b.len() - len..]).is_ok()
            })
            .map(|(len, _)| *len)
    }
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut names = Vec::new();
        let mut dir_first = Vec::new();
        let mut literal_last = Vec::new();
        let tables = FILE_TABLES
            .iter()
            .enumerate()
            .map(|(table, t)| {
                let mut ix = TableIndex {
                    except: Suffixes::of(t.except_suffixes.iter()),
                    ..TableIndex::default()
                };
                match t.rule {
                    FileRule::Names(list) => names.extend(list.iter().map(|n| (n, table))),
                    FileRule::Suffixes(list) => ix.suffixes = Suffixes::of(list.iter()),
                    FileRule::Dirs(dirs) => {
                        for (k, d) in dirs.lists().iter().enumerate() {
                            if let Some(first) = d.names().first() {
                                dir_first.push((first.get(), table, k));
                            }
                        }
                    }
                    FileRule::Paths(paths) => {
                        for (k, p) in paths.lists().iter().enumerate() {
                            match p.names().last().map(|l| l.get()) {
                                Some(last) if !last.contains('*') => {
                                    literal_last.push((last, table, k))
                                }
                                Some(glob) => ix.glob_last.push(GlobLast {
                                    at: k,
                                    starts: glob.split('*').next().unwrap_or(""),
                                    ends: glob.rsplit('*').next().unwrap_or(""),
                                }),
                                None => {}
                            }
                        }
                    }
                    FileRule::Words { .. } => {}
                }
                ix
            })
            .collect();
        names.sort_unstable();
        dir_first.sort_unstable();
        literal_last.sort_unstable();
        Index {
            tables,
            backups: Suffixes::of(BACKUPS.iter().copied()),
            names,
            dir_first,
            literal_last,
        }
    })
}

/// [`kind_of_components`] of a path as written, `/`-separated.
pub fn kind_of_path(path: &str, by_word: bool) -> Option<&'static str> {
    kind_of_components(path.split('/'), by_word)
}

/// Whether table `at` matches (its `except_suffixes` aside), given the
/// tables the merged lists found.
fn table_matches(
    at: usize,
    t: &FileTableData,
    ix: &TableIndex,
    hits: &Hits,
    comps: &[&str],
    last: &str,
) -> bool {
    match t.rule {
        FileRule::Dirs(_) => hits.dirs.has(at),
        FileRule::Names(_) => hits.names.has(at),
        FileRule::Suffixes(_) => ix.suffixes.end(last),
        FileRule::Paths(paths) => {
            hits.paths.has(at)
                || ix
                    .glob_last
                    .iter()
                    .any(|g| g.may_match(last) && glob_tail(paths.lists()[g.at].names(), comps))
        }
        FileRule::Words {
            words,
            code_suffixes,
        } => {
            let code = last
                .rfind('.')
                .is_some_and(|dot| code_suffixes.binary_search(&last[dot..]).is_ok());
            !code && has_word(last, words.names())
        }
    }
}

/// The entries of `sorted` (sorted by `key`) whose key is `want`.
pub(super) fn sorted_run<T, K: Ord>(sorted: &[T], key: impl Fn(&T) -> K, want: K) -> &[T] {
    let from = sorted.partition_point(|t| key(t) < want);
    let len = sorted[from..].partition_point(|t| key(t) == want);
    &sorted[from..from + len]
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
    let mut parts = pat.split('*');
    let Some(first) = parts.next() else {
        return pat == text;
    };
    let rest: smallvec::SmallVec<[&str; 4]> = parts.collect();
    let Some((last, mids)) = rest.split_last() else {
        return pat == text;
    };
    let Some(mut pos) = text.starts_with(first).then_some(first.len()) else {
        return false;
    };
    for mid in mids {
        match text[pos..].find(mid) {
            Some(k) => pos += k + mid.len(),
            None => return false,
        }
    }
    text.len() - pos >= last.len() && text.ends_with(last)
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
