//! `toolgate check`: labelled expectations for CI.
//!
//! Each line is `{"command": …, "expect": "safe"|"destructive"|"unknown"|
//! "not_safe"|"not_destructive", "blast_radius"?: …, "category"?: …, "cwd"?:
//! "/abs/dir"}` (`cwd`: the working directory it is classified in). A line
//! may also pin what the gate decides, `"expect_decision": "allow"|"ask"|
//! "deny"|"no_opinion"` under `"mode"` (strict, balanced, restricted,
//! autonomous, or a profile's name), with or without `expect`: a team pins
//! its gate's behaviour, not only its labels. Every failure is printed with
//! the label (and decision) it got and why; the last line counts passes and
//! failures. `-` reads the lines from standard input.

use std::fs;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;
use toolgate::gate::Gate;
use toolgate::hook::HookConfig;
use toolgate::{Class, Classifier};

/// What one line expects.
struct Expectation {
    command: String,
    /// The class expected, or `None` when only a decision is.
    expect: Option<String>,
    /// The decision expected, and the mode (or profile) that decides.
    decision: Option<(String, String)>,
    blast_radius: Option<String>,
    category: Option<String>,
    cwd: Option<String>,
}

fn parse_line(v: &Value) -> Result<Expectation, String> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    let command = field("command").ok_or("missing string field `command`")?;
    let expect = field("expect");
    if let Some(expect) = &expect {
        if !matches!(
            expect.as_str(),
            "safe" | "destructive" | "unknown" | "not_safe" | "not_destructive"
        ) {
            return Err(format!(
                "`expect` is {expect:?}; use safe, destructive, unknown, not_safe or not_destructive"
            ));
        }
    }
    let decision = match (field("expect_decision"), field("mode")) {
        (None, None) => None,
        (Some(d), Some(mode)) => {
            if !matches!(d.as_str(), "allow" | "ask" | "deny" | "no_opinion") {
                return Err(format!(
                    "`expect_decision` is {d:?}; use allow, ask, deny or no_opinion"
                ));
            }
            Some((d, mode))
        }
        (Some(_), None) => {
            return Err("`expect_decision` needs a string field `mode` (strict, balanced, restricted, autonomous or a profile)".into())
        }
        (None, Some(_)) => return Err("`mode` without `expect_decision`".into()),
    };
    if expect.is_none() && decision.is_none() {
        return Err("missing string field `expect` (or `expect_decision` with `mode`)".into());
    }
    let cwd = field("cwd");
    if let Some(c) = cwd.as_deref().filter(|c| !c.starts_with('/')) {
        return Err(format!("`cwd` is {c:?}; give an absolute path"));
    }
    Ok(Expectation {
        command,
        expect,
        decision,
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
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        anyhow::bail!("`-` (standard input) can be read only once");
    }
    for file in files {
        let stdin = file.as_os_str() == "-";
        let text = match stdin {
            true => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("reading standard input")?;
                text
            }
            false => {
                fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?
            }
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = match stdin {
                true => format!("line {}", n + 1),
                false => format!("{}:{}", file.display(), n + 1),
            };
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
            let class_ok = match e.expect.as_deref() {
                None => true,
                Some("not_safe") => got.class != Class::Safe,
                Some("not_destructive") => got.class != Class::Destructive,
                Some(c) => got.class.as_str() == c,
            };
            let decided = match &e.decision {
                None => None,
                Some((want, mode)) => match decide(classifier, &e.command, mode, &ctx) {
                    Ok(got) => Some((want, mode, got)),
                    Err(msg) => {
                        failed += 1;
                        writeln!(out, "FAIL {at}: {msg}")?;
                        continue;
                    }
                },
            };
            let decision_ok = decided
                .as_ref()
                .is_none_or(|(want, _, (got, _))| *want == got);
            let radius_ok = e
                .blast_radius
                .as_deref()
                .is_none_or(|r| got.blast_radius.as_str() == r);
            let category_ok = e.category.as_deref().is_none_or(|c| c == got.category);
            if class_ok && radius_ok && category_ok && decision_ok {
                passed += 1;
                continue;
            }
            failed += 1;
            let mut want = e.expect.clone().unwrap_or_else(|| "any label".into());
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
            if let Some((want, mode, (got, source))) = decided.filter(|_| !decision_ok) {
                writeln!(
                    out,
                    "  expected decision {want} under {mode}, got {got} (decided by {source})"
                )?;
            }
        }
    }
    writeln!(out, "{passed} passed, {failed} failed")?;
    Ok(failed == 0)
}

/// What the gate under `mode` (a mode or a profile's name) decides for a
/// command: the decision and its source, or why the mode is not one.
fn decide(
    classifier: &Classifier,
    command: &str,
    mode: &str,
    ctx: &toolgate::Context,
) -> Result<(String, String), String> {
    let (mode_name, profile) = match mode {
        "strict" | "balanced" | "restricted" | "autonomous" => (Some(mode.to_string()), None),
        _ => (None, Some(mode.to_string())),
    };
    let config = HookConfig::default()
        .gate_config("", mode_name, profile, None)
        .map_err(|e| format!("`mode` {mode:?}: {e}"))?;
    let gate = Gate::new(classifier, config);
    if gate.unrecognised().is_some() {
        return Err(format!(
            "`mode` {mode:?} is not strict, balanced, restricted, autonomous or a profile from `toolgate profile list`"
        ));
    }
    let call = serde_json::json!({ "command": command });
    let v = gate.decide_in("shell", &call, None, ctx);
    Ok((v.decision.as_str().to_string(), v.source))
}
