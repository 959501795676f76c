//! Finding the taxonomy's `.toml` files under a directory, and the lines of
//! their entries. Standalone (no crate imports) because `build.rs` includes
//! it too, to embed the same files the run-time loader reads from disk.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every `.toml` file below `root`, as (path relative to `root` with `/`
/// separators, full path), sorted by the relative path.
pub fn toml_files(root: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().and_then(|e| e.to_str()) == Some("toml") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The `id = "…"` lines of a file, read once: entries ask for their line in
/// file order, and a repeated id gets its next occurrence.
pub struct IdLines<'t> {
    lines: HashMap<&'t str, Vec<usize>>,
}

impl<'t> IdLines<'t> {
    pub fn new(text: &'t str) -> IdLines<'t> {
        let mut lines: HashMap<&str, Vec<usize>> = HashMap::default();
        for (i, l) in text.lines().enumerate() {
            let t = l.trim_start();
            let Some(rest) = t.strip_prefix("id") else {
                continue;
            };
            let Some(value) = rest.trim_start().strip_prefix('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            lines.entry(value).or_default().push(i + 1);
        }
        // Hand out occurrences front to back.
        for v in lines.values_mut() {
            v.reverse();
        }
        IdLines { lines }
    }

    pub fn next_line_of(&mut self, id: &str) -> usize {
        self.lines.get_mut(id).and_then(Vec::pop).unwrap_or(0)
    }
}
