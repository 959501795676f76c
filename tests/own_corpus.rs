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

/// `scan --format jsonl` labels with [`Classifier::classify_terse`]: over
/// every command of the corpus, that is the label with an unknown one's
/// reason left out, and nothing else changed.
#[test]
fn terse_labels_match_full_labels_over_the_corpus() {
    use toolgate::{Class, Classifier, Label};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(command) = v.get("command").and_then(|c| c.as_str()) else {
                continue;
            };
            let full = c.classify(command);
            let expected = match full.class {
                Class::Unknown => Label {
                    reason: "".into(),
                    ..full
                },
                _ => full,
            };
            assert_eq!(c.classify_terse(command), expected, "{command:?}");
            seen += 1;
        }
    }
    assert!(seen >= 1500, "only {seen} commands compared");
}
