//! The project's own labelled corpus (`corpus/*.jsonl`) holds, checked the
//! way CI users run it: through `toolgate check`.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn own_corpus_passes_toolgate_check() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    files.sort();
    assert!(!files.is_empty(), "no corpus files in {}", dir.display());
    let lines: usize = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count()
        })
        .sum();
    assert!(
        lines >= 1500,
        "the corpus should hold at least 1,500 commands, has {lines}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("check")
        .args(&files)
        .output()
        .unwrap_or_else(|e| panic!("running toolgate check: {e}"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.ends_with(&format!("{lines} passed, 0 failed\n")),
        "{}",
        out.lines().rev().take(60).collect::<Vec<_>>().join("\n")
    );
    assert!(o.status.success());
}
