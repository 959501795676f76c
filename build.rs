//! Converts the embedded taxonomy from TOML to JSON at build time.
//!
//! The TOML files stay the source people edit and the one `cargo test`
//! validates line by line, examples included. The binary also carries a
//! JSON rendering of each file without the examples, because a hook runs as
//! a fresh process for every tool call and parsing that costs a fraction of
//! parsing the TOML.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "src/taxonomy/files.rs"]
mod files;

fn main() {
    println!("cargo:rerun-if-changed=taxonomy");
    let root = Path::new("taxonomy");
    // An unreadable taxonomy embeds nothing; the test suite then fails
    // on the empty taxonomy, naming the problem.
    let files = files::toml_files(root).unwrap_or_default();
    let mut code = String::from(
        "/// The embedded taxonomy files rendered as JSON, by relative path, with\n\
         /// each file's `id = …` lines kept at their line numbers (and every other\n\
         /// line blank) so that entries still report where they are written.\n\
         pub static EMBEDDED_JSON: &[(&str, &str, &str)] = &[\n",
    );
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // A file that does not parse is left out here; the TOML loader
        // reports it with its line, and the tests fail on it.
        let Ok(mut value) = text.parse::<toml::Table>() else {
            continue;
        };
        // Examples and near misses are for the test suite; a process that
        // classifies does not need to parse them.
        for class in ["destructive", "safe"] {
            if let Some(toml::Value::Array(entries)) = value.get_mut(class) {
                for entry in entries.iter_mut() {
                    if let toml::Value::Table(t) = entry {
                        t.remove("examples");
                        t.remove("near_misses");
                    }
                }
            }
        }
        let json = serde_json::to_string(&value).unwrap_or_default();
        let id_lines: Vec<&str> = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("id") {
                    l
                } else {
                    ""
                }
            })
            .collect();
        let id_lines = id_lines.join("\n");
        let _ = writeln!(code, "    ({rel:?}, {json:?}, {id_lines:?}),");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let _ = std::fs::write(out.join("embedded_taxonomy.rs"), code);
}
