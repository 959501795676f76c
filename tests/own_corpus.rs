//! The project's own labelled corpus (`corpus/*.jsonl`) holds.

use std::path::PathBuf;

use serde_json::Value;
use toolgate::{classify, Class};

#[test]
fn own_corpus_expectations_hold() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
    {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let where_ = format!("{}:{}", path.display(), n + 1);
            let v: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{where_}: invalid JSON: {e}"));
                    continue;
                }
            };
            let cmd = v["command"].as_str().unwrap_or_default();
            let got = classify(cmd);
            let ok = match v["expect"].as_str() {
                Some("not_safe") => got.class != Class::Safe,
                Some("not_destructive") => got.class != Class::Destructive,
                Some(class) => {
                    got.class.as_str() == class
                        && v["blast_radius"]
                            .as_str()
                            .is_none_or(|b| got.blast_radius.map(|r| r.as_str()) == Some(b))
                        && v["category"].as_str().is_none_or(|c| c == got.category)
                }
                None => false,
            };
            checked += 1;
            if !ok {
                failures.push(format!(
                    "{where_}: {cmd:?} expected {} {} {}, got {} {:?} {} ({})",
                    v["expect"],
                    v["blast_radius"],
                    v["category"],
                    got.class,
                    got.blast_radius,
                    got.category,
                    got.reason
                ));
            }
        }
    }
    assert!(checked > 0, "no corpus lines found in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
