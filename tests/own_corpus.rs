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

/// [`Classifier::classify_terse_all`] reads a few commands ahead before it
/// judges them, reusing each script's buffers from one run to the next:
/// over the corpus, the shared corpora where present, and commands that
/// outgrow the kept buffers between them, every label is the one
/// [`Classifier::classify_terse_in`] gives that command alone, in its own
/// place.
#[test]
fn labels_read_ahead_match_labels_one_by_one() {
    use toolgate::{Class, Classifier, Context};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
    let mut commands: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(root.join("corpus"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let v = serde_json::from_str::<serde_json::Value>(line).ok();
            if let Some(command) = v.as_ref().and_then(|v| v.get("command")?.as_str()) {
                commands.push(command.to_string());
            }
        }
    }
    let own = commands.len();
    for name in ["tldr.txt", "nl2bash.txt", "gtfobins.txt"] {
        match std::fs::read_to_string(root.join("../shared/corpus").join(name)) {
            Ok(text) => commands.extend(text.lines().map(String::from)),
            Err(_) => eprintln!("../shared/corpus/{name} is absent: the own corpus only"),
        }
    }
    // A long pipeline and a many-word command every so often, whose
    // scripts are let go, and blank commands.
    let long = vec!["cat notes.txt"; 40].join(" | ");
    let wide = format!("ls {}", vec!["src"; 100].join(" "));
    let mut at = 0;
    while at < commands.len() {
        for extra in [long.clone(), String::new(), wide.clone(), "  ".to_string()] {
            commands.insert(at, extra);
            at += 1;
        }
        at += 37;
    }
    let places = [None, Some("/home/dev/project"), Some("/")];
    let calls: Vec<(&str, Context)> = commands
        .iter()
        .enumerate()
        .map(|(i, command)| {
            let cwd = places[i % places.len()];
            (command.as_str(), Context { cwd })
        })
        .collect();
    let mut safe = 0;
    for (run, size) in [(0, calls.len()), (1, 5), (2, 1)] {
        let got: Vec<_> = calls
            .chunks(size)
            .flat_map(|chunk| c.classify_terse_all(chunk))
            .collect();
        assert_eq!(got.len(), calls.len());
        for ((command, ctx), label) in calls.iter().zip(&got) {
            assert_eq!(
                *label,
                c.classify_terse_in(command, ctx),
                "run {run}: {command:?} in {:?}",
                ctx.cwd
            );
            safe += usize::from(label.class == Class::Safe);
        }
    }
    assert!(own >= 1500, "only {own} commands in corpus/");
    assert!(safe > 0, "no command was labelled safe");
}
