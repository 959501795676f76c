//! Stores the embedded taxonomy in the binary already parsed.
//!
//! The TOML files stay the source people edit and the one `cargo test`
//! validates line by line, examples included. The binary also carries the
//! same files read into the loader's schema (without the examples) and
//! written in postcard's compact binary form, because a hook runs as a fresh
//! process for every tool call and decoding that costs a small fraction of
//! parsing TOML.

use std::path::{Path, PathBuf};

#[path = "src/taxonomy/files.rs"]
mod files;
#[allow(dead_code)]
#[path = "src/taxonomy/schema.rs"]
mod schema;

fn main() {
    println!("cargo:rerun-if-changed=taxonomy");
    let root = Path::new("taxonomy");
    // An unreadable taxonomy embeds nothing; the test suite then fails
    // on the empty taxonomy, naming the problem.
    let files = files::toml_files(root).unwrap_or_default();
    let mut bundle = schema::Bundle::default();
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        // Profiles live under the same root but are not taxonomy files.
        let is_commands = rel == "commands.toml";
        if !is_commands && !rel.starts_with("rules/") {
            continue;
        }
        bundle.files_seen += 1;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // A file that does not parse is left out here; the loader then
        // refuses the bundle, the TOML loader reports the file with its
        // line, and the tests fail on it.
        if is_commands {
            bundle.commands = toml::from_str(&text).ok();
            continue;
        }
        let Ok(mut rules) = toml::from_str::<schema::RuleFile>(&text) else {
            continue;
        };
        let mut ids = files::IdLines::new(&text);
        let mut lines = Vec::new();
        for raw in rules.destructive.iter_mut().chain(rules.safe.iter_mut()) {
            lines.push(ids.next_line_of(&raw.id));
            // Examples and near misses are for the test suite; a process
            // that classifies does not need them.
            raw.examples = Vec::new();
            raw.near_misses = Vec::new();
        }
        bundle.rule_files.push(schema::BundledRules {
            path: rel.clone(),
            lines,
            rules,
        });
    }
    let bytes = postcard::to_allocvec(&bundle).unwrap_or_default();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let _ = std::fs::write(out.join("taxonomy.postcard"), bytes);
}
