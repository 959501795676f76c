//! The shell front end checked against an independent parser.
//!
//! For every line of `../shared/corpus` that brush-parser (a maintained bash
//! parser) accepts, the simple commands toolgate finds outside substitutions
//! must name the same commands, in the same order, as brush's syntax tree.
//! Deliberate differences are filtered with their reason; the test reports
//! how many lines it compared so a silent skip cannot pass for agreement.

use std::path::PathBuf;

use brush_parser::{unquote_str, Parser, ParserOptions};
use serde_json::Value;

/// Collects the command names of brush's simple commands in source order.
fn brush_names(v: &Value, out: &mut Vec<Option<String>>) {
    match v {
        Value::Object(map) => {
            let is_simple = map.contains_key("word_or_name")
                || (map.contains_key("prefix") && map.contains_key("suffix"));
            if is_simple {
                let raw = map
                    .get("word_or_name")
                    .and_then(|w| w.get("value"))
                    .and_then(Value::as_str);
                out.push(raw.map(String::from));
                // Process substitutions in a prefix/suffix are commands too,
                // but toolgate reports those as nested: do not descend.
                return;
            }
            for value in map.values() {
                brush_names(value, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                brush_names(item, out);
            }
        }
        _ => {}
    }
}

/// brush keeps words raw; its `unquote_str` is exact only for words with no
/// expansion, no escape and a single kind of quote.
fn comparable(raw: &str) -> Option<String> {
    if raw.contains(['$', '`', '\\']) || (raw.contains('\'') && raw.contains('"')) {
        return None;
    }
    Some(unquote_str(raw))
}

/// Why a line is left out of the comparison, if it is.
fn deliberate_difference(line: &str) -> Option<&'static str> {
    if line.contains("[[") {
        // brush parses `[[ … ]]` as an extended test; toolgate reports it as
        // a command named `[[` so substitutions inside are still found.
        return Some("extended test");
    }
    if line.contains('\r') {
        // bash treats a carriage return as part of a word; so does
        // toolgate, while brush's tokenizer splits on it.
        return Some("carriage return");
    }
    None
}

#[test]
fn simple_commands_agree_with_brush() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !dir.is_dir() {
        eprintln!("skipping: ../shared/corpus is absent");
        return;
    }
    let options = ParserOptions::default();
    let (mut compared, mut skipped, mut rejected) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for name in [
        "tldr.txt",
        "nl2bash.txt",
        "cheatsheets.txt",
        "kypo_history.txt",
        "gtfobins.txt",
        "slp_malicious.txt",
    ] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if deliberate_difference(line).is_some() {
                skipped += 1;
                continue;
            }
            let mut parser = Parser::new(std::io::BufReader::new(line.as_bytes()), &options);
            let Ok(program) = parser.parse_program() else {
                rejected += 1;
                continue;
            };
            let Ok(tree) = serde_json::to_value(&program) else {
                rejected += 1;
                continue;
            };
            let mut theirs = Vec::new();
            brush_names(&tree, &mut theirs);
            let script = toolgate::shell::parse(line);
            if script
                .error
                .as_ref()
                .is_some_and(|e| e.message.starts_with("in backquoted command"))
            {
                // brush keeps backquoted text as an opaque word; toolgate
                // parses it, as bash does when it runs it.
                skipped += 1;
                continue;
            }
            if script.error.is_some() || script.limit.is_some() {
                failures.push(format!(
                    "{name}: brush accepts, toolgate rejects ({:?}): {line}",
                    script.error
                ));
                continue;
            }
            let named = |c: &&toolgate::shell::SimpleCommand| {
                c.words.first().is_some_and(|w| w.text != "[[")
            };
            // Commands toolgate finds outside substitutions, and all of them:
            // brush reports a process substitution used as a redirection
            // target (`done < <(find …)`) as part of the outer command list,
            // toolgate as nested, so brush's count must fall in between.
            let top: Vec<String> = script
                .commands
                .iter()
                .filter(|c| !c.in_substitution)
                .filter(named)
                .map(|c| c.words[0].text.to_string())
                .collect();
            let all: Vec<String> = script
                .commands
                .iter()
                .filter(named)
                .map(|c| c.words[0].text.to_string())
                .collect();
            let theirs: Vec<String> = theirs.into_iter().flatten().collect();
            if theirs.len() < top.len() || theirs.len() > all.len() {
                failures.push(format!(
                    "{name}: {} commands vs brush's {}: {line}\n  ours {all:?}\n  brush {theirs:?}",
                    top.len(),
                    theirs.len()
                ));
                continue;
            }
            // serde_json orders object keys alphabetically, so brush's
            // commands come out of the tree in no particular order: compare
            // as multisets.
            let mut remaining = all.clone();
            let mut same = true;
            for t in theirs.iter().filter_map(|t| comparable(t)) {
                match remaining.iter().position(|o| *o == t) {
                    Some(i) => {
                        remaining.swap_remove(i);
                    }
                    None => same = false,
                }
            }
            if !same {
                failures.push(format!(
                    "{name}: names differ: {line}\n  ours {all:?}\n  brush {theirs:?}"
                ));
                continue;
            }
            compared += 1;
        }
    }
    eprintln!("differential: {compared} lines agree, {skipped} skipped on purpose, {rejected} rejected by brush, {} disagree", failures.len());
    assert!(compared > 10_000, "only {compared} lines compared");
    assert!(
        failures.is_empty(),
        "{} lines disagree with brush-parser:\n{}",
        failures.len(),
        failures
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
