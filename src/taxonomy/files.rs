//! Finding the taxonomy's `.toml` files under a directory. Standalone (no
//! crate imports) because `build.rs` includes it too, to embed the same
//! files the run-time loader reads from disk.

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
