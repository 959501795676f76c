//! `toolgate check`: labelled expectations for CI.
//!
//! Each line is `{"command": …, "expect": "safe"|"destructive"|"unknown"|
//! "not_safe"|"not_destructive", "blast_radius"?: …, "category"?: …, "cwd"?:
//! "/abs/dir"}` (`cwd`: the working directory it is classified in). Every
//! failure is printed with the label it got and why; the last line counts
//! passes and failures.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;
use toolgate::{Class, Classifier};

/// What one line expects.
struct Expectation {
    command: String,
    expect: String,
    blast_radius: Option<String>,
    category: Option<String>,
    cwd: Option<String>,
}

fn parse_line(v: &Value) -> Result<Expectation, String> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    let command = field("command").ok_or("missing string field `command`")?;
    let expect = field("expect").ok_or("missing string field `expect`")?;
    if !matches!(
        expect.as_str(),
        "safe" | "destructive" | "unknown" | "not_safe" | "not_destructive"
    ) {
        return Err(format!(
            "`expect` is {expect:?}; use safe, destructive, unknown, not_safe or not_destructive"
        ));
    }
    let cwd = field("cwd");
    if let Some(c) = cwd.as_deref().filter(|c| !c.starts_with('/')) {
        return Err(format!("`cwd` is {c:?}; give an absolute path"));
    }
    Ok(Expectation {
        command,
        expect,
        blast_radius: field("blast_radius"),
        category: field("category"),
        cwd,
    })
}

/// Runs `check`; returns whether every expectation held.
pub fn run(
    classifier: &Classifier,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let (mut passed, mut failed) = (0u64, 0u64);
    for file in files {
        let text =
            fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{}:{}", file.display(), n + 1);
            let e = match serde_json::from_str::<Value>(line)
                .map_err(|e| format!("invalid JSON: {e}"))
                .and_then(|v| parse_line(&v))
            {
                Ok(e) => e,
                Err(msg) => {
                    failed += 1;
                    writeln!(out, "FAIL {at}: {msg}")?;
                    continue;
                }
            };
            let ctx = toolgate::Context {
                cwd: e.cwd.as_deref(),
            };
            let a = classifier.analyze_in(&e.command, &ctx);
            let got = &a.label;
            let class_ok = match e.expect.as_str() {
                "not_safe" => got.class != Class::Safe,
                "not_destructive" => got.class != Class::Destructive,
                c => got.class.as_str() == c,
            };
            let radius_ok = e
                .blast_radius
                .as_deref()
                .is_none_or(|r| got.blast_radius.as_str() == r);
            let category_ok = e.category.as_deref().is_none_or(|c| c == got.category);
            if class_ok && radius_ok && category_ok {
                passed += 1;
                continue;
            }
            failed += 1;
            let mut want = e.expect.clone();
            if let Some(r) = &e.blast_radius {
                want.push_str(&format!(" {r}"));
            }
            if let Some(c) = &e.category {
                want.push_str(&format!(" {c}"));
            }
            writeln!(out, "FAIL {at}: {}", e.command)?;
            writeln!(
                out,
                "  expected {want}, got {}",
                super::classify::label_text(got)
                    .split(':')
                    .next()
                    .unwrap_or_default()
            )?;
            if !a.findings.is_empty() {
                let rules: Vec<String> = a
                    .findings
                    .iter()
                    .map(|f| format!("{} ({})", f.rule, f.blast_radius))
                    .collect();
                writeln!(out, "  matched: {}", rules.join(", "))?;
            }
            writeln!(out, "  why: {}", got.reason)?;
        }
    }
    writeln!(out, "{passed} passed, {failed} failed")?;
    Ok(failed == 0)
}
