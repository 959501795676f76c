//! Conformance against the verdicts other tools assert in their own tests
//! (`../shared/peers`, read by path; skipped when the folder is absent).
//!
//! Every destructive, dangerous or blocking case of docker-agent, Codex and
//! dcg must be labelled destructive, and none of them safe. Where we disagree
//! with a peer on purpose, the disagreement is listed below with its reason;
//! a listed disagreement that no longer occurs fails the test too, so the
//! list cannot go stale.

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate::{classify, label_tool_call, Class, Hints, Label};

fn peers_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/peers");
    dir.is_dir().then_some(dir)
}

fn rows(file: &str) -> Option<Vec<Value>> {
    let text = std::fs::read_to_string(peers_dir()?.join(file)).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    )
}

/// A deliberate disagreement: which peer row, and why we differ.
struct Disagreement {
    peer: &'static str,
    applies: fn(&str, &str) -> bool,
    why: &'static str,
}

const DISAGREEMENTS: &[Disagreement] = &[
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, _| {
            matches!(
                cmd,
                "rm -rf /tmp/foo" | "rm -rf /tmp/x" | "grep foo|rm -rf /tmp/x"
            )
        },
        why: "a delete below the temporary directory is destructive with a low blast \
              radius: toolgate grades writes and deletes by where they land",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, _| cmd == "grep \"mysql -e 'drop database foo'\" file",
        why: "the SQL is quoted data in a grep pattern, not a statement anyone runs; \
              toolgate reads shell the way a shell does, so this grep is a safe read",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, _| cmd.contains("<EMAIL>"),
        why: "the row's `<EMAIL>` placeholder is shell syntax: `<EMAIL>` reads from a file \
              named EMAIL and `>` writes a file named --firstName, so the command as written \
              does overwrite a file",
    },
    Disagreement {
        peer: "codex",
        applies: |cmd, expect| {
            expect == "not_safe" && cmd.starts_with("git ") && !cmd.contains(" -")
        },
        why: "Codex refuses to auto-approve any git command because a hostile repository's \
              config can make git run programs; toolgate follows docker-agent and treats plain \
              read-only git in the working repository as safe, while still refusing every \
              global option (-c, -C, --git-dir, --exec-path, -p) that could redirect it",
    },
    Disagreement {
        peer: "codex",
        applies: |cmd, expect| {
            expect == "not_safe"
                && matches!(
                    cmd,
                    "git log -p -1"
                        | "git diff -p"
                        | "git show -p HEAD"
                        | "git branch --show-current"
                        | "git log -1"
                )
        },
        why: "as above: `-p` only selects patch output, which `git diff` prints anyway",
    },
    Disagreement {
        peer: "codex",
        applies: |cmd, expect| {
            expect == "not_safe"
                && (cmd.starts_with("git --work-tree") || cmd.starts_with("git --namespace"))
        },
        why: "--work-tree only says where the checkout is (the repository, and the config \
              that could name programs, is still the one found from the working directory, \
              while -C and --git-dir are refused); --namespace only narrows which refs are seen",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, expect| {
            expect == "eq"
                && ((cmd.starts_with("rg ") && (cmd.ends_with(" .") || !cmd.contains('/')))
                    || (cmd.starts_with("grep ") && cmd.contains(" -r") && cmd.ends_with(" .")))
        },
        why: "a recursive search of the whole working directory opens `.env` files and keys \
              (the sandbox oracle saw `grep -r` open them), so toolgate calls only searches of \
              a named, visible subdirectory safe",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, expect| {
            expect == "eq" && (cmd.starts_with("go env") || cmd.starts_with("go version"))
        },
        why: "go switches toolchains before every command: a go.mod that asks for a newer Go \
              makes `go version` download and run it; and `go env` prints GOPROXY and GOAUTH, \
              which can carry credentials",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, expect| expect == "eq" && cmd.contains("--log-failed"),
        why: "gh stores the log archive it downloads in its cache directory: a write",
    },
    Disagreement {
        peer: "docker-agent",
        applies: |cmd, expect| expect == "not_safe" && cmd == "sed -n -e '1p' file",
        why: "every word is explained by sed's spec: -e supplies a print-only script, and the \
              file operand passes the path check",
    },
];

fn check(
    peer: &'static str,
    cmd: &str,
    expect: &str,
    ok: bool,
    got: &Label,
    failures: &mut Vec<String>,
    used: &mut [usize],
) {
    if ok {
        return;
    }
    if let Some(i) = DISAGREEMENTS
        .iter()
        .position(|d| d.peer == peer && (d.applies)(cmd, expect))
    {
        used[i] += 1;
        return;
    }
    failures.push(format!(
        "{peer}: {cmd:?} expected {expect}, got {} {:?} {} ({})",
        got.class, got.blast_radius, got.category, got.reason
    ));
}

#[test]
fn peers_agree_or_disagree_on_purpose() {
    let (Some(docker), Some(codex), Some(dcg)) = (
        rows("docker_agent_cases.jsonl"),
        rows("codex_cases.jsonl"),
        rows("dcg_v0.4.1_cases.jsonl"),
    ) else {
        eprintln!("skipping: ../shared/peers is absent");
        return;
    };
    let mut failures = Vec::new();
    let mut used = vec![0usize; DISAGREEMENTS.len()];
    let mut counted = [0usize; 3];

    for v in &docker {
        let cmd = v["cmd"].as_str().unwrap_or_default();
        let expect = v["expect"].as_str().unwrap_or_default();
        let got = if let Some(tool) = v.get("tool").and_then(Value::as_str) {
            let args = match v.get("args") {
                Some(a) => a.clone(),
                None => json!({ v["args_key"].as_str().unwrap_or("cmd"): cmd }),
            };
            let hints = Hints {
                read_only: v.get("read_only_hint").and_then(Value::as_bool),
                destructive: v.get("destructive_hint").and_then(Value::as_bool),
            };
            let got = label_tool_call(tool, &args, hints);
            if let Some(origin) = v.get("origin").and_then(Value::as_str) {
                if got.origin.as_str() != origin {
                    failures.push(format!(
                        "docker-agent: {cmd:?} origin {origin} got {:?}",
                        got.origin
                    ));
                }
            }
            got
        } else {
            classify(cmd)
        };
        let ok = match expect {
            "eq" => {
                let class_ok = v["class"].as_str() == Some(got.class.as_str());
                let radius_ok = v["blast_radius"]
                    .as_str()
                    .is_none_or(|b| got.blast_radius.as_str() == b);
                let cat_ok = v["category"].as_str().is_none_or(|c| c == got.category);
                class_ok && radius_ok && cat_ok
            }
            "not_safe" => got.class != Class::Safe,
            "not_destructive" => got.class != Class::Destructive,
            other => {
                failures.push(format!("docker-agent: unknown expectation {other}"));
                true
            }
        };
        if v["class"].as_str() == Some("destructive") {
            counted[0] += 1;
        }
        check(
            "docker-agent",
            cmd,
            expect,
            ok,
            &got,
            &mut failures,
            &mut used,
        );
    }

    for v in &codex {
        let cmd = v["cmd"].as_str().unwrap_or_default();
        let expect = v["expect"].as_str().unwrap_or_default();
        let got = classify(cmd);
        let ok = match expect {
            "dangerous" => {
                counted[1] += 1;
                got.class == Class::Destructive
            }
            "not_safe" => got.class != Class::Safe,
            // Codex auto-approves these; toolgate may be more careful
            // (unknown) but must not call them destructive.
            "safe" => got.class != Class::Destructive,
            _ => true,
        };
        check("codex", cmd, expect, ok, &got, &mut failures, &mut used);
    }

    for v in &dcg {
        let cmd = v["cmd"].as_str().unwrap_or_default();
        let expect = v["expect"].as_str().unwrap_or_default();
        // dcg's `allow` means "not blocked", not "harmless": only its blocks
        // are asserted.
        if expect != "block" {
            continue;
        }
        counted[2] += 1;
        let got = classify(cmd);
        check(
            "dcg",
            cmd,
            expect,
            got.class == Class::Destructive,
            &got,
            &mut failures,
            &mut used,
        );
    }

    for (i, d) in DISAGREEMENTS.iter().enumerate() {
        if used[i] == 0 {
            failures.push(format!(
                "listed disagreement with {} no longer occurs; remove it: {}",
                d.peer, d.why
            ));
        }
    }
    eprintln!(
        "destructive cases checked: docker-agent {}, codex {}, dcg {}",
        counted[0], counted[1], counted[2]
    );
    assert!(
        failures.is_empty(),
        "{} peer failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
