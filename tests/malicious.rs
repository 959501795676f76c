//! Known-hostile corpora (`../shared/corpus`, read by path; skipped when
//! absent): nothing in them may be labelled safe.

use std::path::PathBuf;

use toolgate::{classify, Class};

fn corpus(name: &str) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(name);
    std::fs::read_to_string(path).ok()
}

fn assert_nothing_safe(name: &str) {
    let Some(text) = corpus(name) else {
        eprintln!("skipping: ../shared/corpus/{name} is absent");
        return;
    };
    let mut lines = 0;
    let safe: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .inspect(|_| lines += 1)
        .filter(|l| classify(l).class == Class::Safe)
        .map(String::from)
        .collect();
    assert!(lines > 50, "{name}: only {lines} lines read");
    assert!(
        safe.is_empty(),
        "{name}: {} of {lines} lines labelled safe:\n{}",
        safe.len(),
        safe.join("\n")
    );
}

#[test]
fn slp_malicious_is_never_safe() {
    assert_nothing_safe("slp_malicious.txt");
}

#[test]
fn gtfobins_is_never_safe() {
    assert_nothing_safe("gtfobins.txt");
}
