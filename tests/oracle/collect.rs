//! Where the oracle's candidate commands come from: every command line the
//! project already has an opinion about, plus the shared real-world corpora
//! when asked for.
//!
//! Candidates are deduplicated and kept in first-seen order, so a failure
//! report lists commands in the order a reader of the sources meets them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use toolgate::taxonomy::{embedded_sources, load_sources};

/// The environment variable that turns on the shared corpora
/// (`../shared/corpus/*.txt`, about 50,000 lines of third-party commands).
/// Off by default: most of those lines are not safe and the rest take
/// minutes to run, too slow for every `cargo test`.
pub const SHARED_ENV: &str = "TOOLGATE_ORACLE_SHARED";

/// Every candidate command, deduplicated, in order: the project corpus,
/// the taxonomy's examples and near misses, the shared corpora (only when
/// [`SHARED_ENV`] is `1`), then `extra`.
pub fn candidates(extra: Vec<String>) -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Unique::default();
    for file in files_with_ext(&root.join("corpus"), "jsonl") {
        out.extend(corpus_commands(&file));
    }
    out.extend(taxonomy_commands());
    if std::env::var(SHARED_ENV).is_ok_and(|v| v == "1") {
        for file in files_with_ext(&root.join("../shared/corpus"), "txt") {
            out.extend(read(&file).lines().map(str::to_string));
        }
    }
    out.extend(extra);
    out.list
}

/// A list that keeps only the first copy of each command (and no blank
/// ones).
#[derive(Default)]
struct Unique {
    seen: HashSet<String>,
    list: Vec<String>,
}

impl Unique {
    fn extend(&mut self, commands: impl IntoIterator<Item = String>) {
        for c in commands {
            if !c.trim().is_empty() && self.seen.insert(c.clone()) {
                self.list.push(c);
            }
        }
    }
}

/// The files of `dir` ending in `.ext`, sorted; none when `dir` does not
/// exist (the shared corpora are optional).
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()))
}

/// The `command` of every JSON line of a corpus file.
fn corpus_commands(file: &Path) -> Vec<String> {
    read(file)
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", file.display(), i + 1));
            v["command"]
                .as_str()
                .unwrap_or_else(|| panic!("{}:{}: no \"command\"", file.display(), i + 1))
                .to_string()
        })
        .collect()
}

/// Every example and near miss of the embedded taxonomy. The binary form
/// `Taxonomy::embedded()` uses carries no examples, so this loads the
/// embedded TOML the way `tests/taxonomy_examples.rs` does.
fn taxonomy_commands() -> Vec<String> {
    let tax = load_sources(&embedded_sources()).unwrap_or_else(|e| panic!("{e}"));
    tax.rules()
        .iter()
        .flat_map(|r| r.examples.iter().chain(&r.near_misses).cloned())
        .collect()
}
