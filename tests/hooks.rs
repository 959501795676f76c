//! `toolgate hook` as each agent runs it: real payloads in, protocol answers
//! out, and a well-formed fail-closed answer for every kind of bad input.

use std::path::PathBuf;

use crate::util;

use serde_json::{json, Value};

/// What `toolgate hook` printed and how it exited.
#[derive(Debug)]
pub(crate) struct Out {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `toolgate hook ARGS` with `stdin` and `env`.
pub(crate) fn hook(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Out {
    let mut full = vec!["hook"];
    full.extend_from_slice(args);
    let o = util::run(&full, stdin, env);
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The answer's stdout as JSON (panics, saying what was printed, if not).
pub(crate) fn json_out(o: &Out) -> Value {
    serde_json::from_str(o.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {:?} stderr {:?} code {:?}",
            o.stdout, o.stderr, o.code
        )
    })
}

fn claude_payload(command: &str) -> Vec<u8> {
    json!({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p", "prompt_id": "p",
        "permission_mode": "default", "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"}, "tool_use_id": "toolu_1"
    })
    .to_string()
    .into_bytes()
}

fn codex_payload(command: &str) -> Vec<u8> {
    json!({
        "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": "/p",
        "hook_event_name": "PreToolUse", "model": "gpt", "permission_mode": "bypassPermissions",
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "call_1"
    })
    .to_string()
    .into_bytes()
}

fn gemini_payload(command: &str) -> Vec<u8> {
    json!({
        "session_id": "s", "transcript_path": "/t", "cwd": "/p", "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-30T09:31:01.259Z", "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "d"}
    })
    .to_string()
    .into_bytes()
}

fn seed_payload(command: &str) -> Vec<u8> {
    json!({"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"cmd": command}})
        .to_string()
        .into_bytes()
}

fn claude_decision(o: &Out) -> (String, String) {
    let v = json_out(o);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    (
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("?")
            .to_string(),
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn claude_asks(v: &Value) -> bool {
    v["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
        && v["hookSpecificOutput"]["permissionDecision"] == "ask"
}

#[test]
fn captured_payloads_are_answered_in_their_protocol() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/protocols");
    let Ok(files) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: ../shared/protocols is absent");
        return;
    };
    // Each capture is `rm -rf build`, which balanced mode asks about: the
    // answer is that client's ask, or its block where it has no ask. The
    // protocol is detected from the payload, as it is when a hook is
    // configured without `--protocol`. By file name prefix, the more
    // specific first:
    type Check = fn(&Out, &Value) -> bool;
    let clients: Vec<(&str, Check)> = vec![
        ("claude-code-", |_, v| {
            claude_asks(v) && keys(v) == ["hookSpecificOutput"]
        }),
        ("codex-", |_, v| {
            v["hookSpecificOutput"]["permissionDecision"] == "deny"
        }),
        ("gemini-cli-", |_, v| v["decision"] == "ask"),
        // Both shapes, each honoured by this Copilot hook.
        ("copilot-1.0.102-claude-format-", |_, v| {
            v["permissionDecision"] == "ask" && claude_asks(v)
        }),
        // Top level only: the Claude shape alone lets the call run.
        ("copilot-", |_, v| {
            v["permissionDecision"] == "ask"
                && keys(v) == ["permissionDecision", "permissionDecisionReason"]
        }),
        // The capture is in yolo mode, where Qwen Code asks nobody: the
        // destructive call is denied rather than asked about.
        ("qwen-code-", |_, v| {
            v["hookSpecificOutput"]["permissionDecision"] == "deny"
                && v["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| r.contains("yolo"))
                && keys(v) == ["hookSpecificOutput"]
        }),
        // Cline's one block; the reason is on stderr.
        ("cline-", |o, _| {
            o.stdout == "{\"cancel\":true}\n" && o.stderr.contains("recursive delete")
        }),
        ("opencode-", |_, v| v["decision"] == "ask"),
    ];
    let mut seen = Vec::new();
    for f in files.filter_map(|e| e.ok().map(|e| e.path())) {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.ends_with(".json") {
            continue;
        }
        let Some((prefix, answered)) = clients.iter().find(|(p, _)| name.starts_with(p)) else {
            panic!("{name}: a capture of a client this test does not know");
        };
        let payload = std::fs::read(&f).unwrap_or_default();
        let o = hook(&["--mode", "balanced"], &payload, &[]);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        assert!(answered(&o, &json_out(&o)), "{name}: {}", o.stdout);
        seen.push(*prefix);
    }
    for (prefix, _) in &clients {
        assert!(seen.contains(prefix), "no capture starts with {prefix}");
    }
}

#[test]
fn claude_allow_ask_deny() {
    for (mode, cmd, want) in [
        ("balanced", "git status", "allow"),
        ("balanced", "rm -rf build", "ask"),
        ("restricted", "rm -rf build", "deny"),
        ("strict", "ls", "ask"),
    ] {
        let o = hook(
            &["--protocol", "claude", "--mode", mode],
            &claude_payload(cmd),
            &[],
        );
        assert_eq!(o.code, Some(0));
        let (d, reason) = claude_decision(&o);
        assert_eq!(d, want, "{mode} {cmd}");
        assert!(!reason.is_empty());
    }
    // Detected without --protocol.
    let o = hook(&["--mode", "balanced"], &claude_payload("git status"), &[]);
    assert_eq!(claude_decision(&o).0, "allow");
}

#[test]
fn codex_never_answers_ask_and_every_deny_has_a_reason() {
    for (mode, cmd, want) in [
        ("balanced", "git status", "allow"),
        ("balanced", "rm -rf build", "deny"),
        ("strict", "ls", "deny"),
        ("restricted", "curl x | sh", "deny"),
        ("autonomous", "rm -rf build", "allow"),
    ] {
        let o = hook(&["--mode", mode], &codex_payload(cmd), &[]);
        assert_eq!(o.code, Some(0));
        let (d, reason) = claude_decision(&o);
        assert_eq!(d, want, "{mode} {cmd}");
        assert!(!reason.trim().is_empty(), "{mode} {cmd}");
    }
}

#[test]
fn gemini_allow_ask_deny_and_headless() {
    for (args, env, cmd, want) in [
        (vec!["--mode", "balanced"], vec![], "git status", "allow"),
        (vec!["--mode", "balanced"], vec![], "rm -rf build", "ask"),
        (vec!["--mode", "restricted"], vec![], "rm -rf build", "deny"),
        (
            vec!["--mode", "balanced", "--headless"],
            vec![],
            "rm -rf build",
            "deny",
        ),
        (
            vec!["--mode", "balanced"],
            vec![("TOOLGATE_HEADLESS", "1")],
            "rm -rf build",
            "deny",
        ),
    ] {
        let o = hook(&args, &gemini_payload(cmd), &env);
        assert_eq!(o.code, Some(0));
        let v = json_out(&o);
        assert_eq!(v["decision"], want, "{args:?} {cmd}");
        assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()));
    }
}

#[test]
fn seed_runtime_shape_with_metadata_and_label_only() {
    let o = hook(&["--mode", "balanced"], &seed_payload("rm -rf /tmp/x"), &[]);
    let v = json_out(&o);
    let out = &v["hook_specific_output"];
    assert_eq!(out["hook_event_name"], "pre_tool_use");
    assert_eq!(out["permission_decision"], "ask");
    assert_eq!(
        out["metadata"],
        json!({"safety_label": "destructive", "blast_radius": "low", "category": "fs-delete",
               "reason": "recursive delete: whole directory trees are removed with no undo"})
    );
    for (mode, cmd, want) in [
        ("balanced", "git status", "allow"),
        ("restricted", "rm -rf /tmp/x", "deny"),
        ("strict", "git status", "ask"),
    ] {
        let v = json_out(&hook(
            &["--protocol", "docker-agent", "--mode", mode],
            &seed_payload(cmd),
            &[],
        ));
        assert_eq!(
            v["hook_specific_output"]["permission_decision"], want,
            "{mode} {cmd}"
        );
    }
    // `command` works as well as `cmd`.
    let p = json!({"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"command": "git status"}});
    let v = json_out(&hook(
        &["--mode", "balanced"],
        p.to_string().as_bytes(),
        &[],
    ));
    assert_eq!(v["hook_specific_output"]["permission_decision"], "allow");
    let o = hook(&["--label-only"], &seed_payload("git status"), &[]);
    let v = json_out(&o);
    assert!(v["hook_specific_output"]
        .get("permission_decision")
        .is_none());
    assert_eq!(
        v["hook_specific_output"]["metadata"]["safety_label"],
        "safe"
    );
}

#[test]
fn mode_precedence_flag_then_env_then_config() {
    let dir = std::env::temp_dir().join(format!("toolgate-hook-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let cfg = dir.join("config.toml");
    std::fs::write(
        &cfg,
        "mode = \"restricted\"\n[rules]\nallow = [\"shell:cmd=make*\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cfg_s = cfg.to_string_lossy().into_owned();
    let decide = |args: &[&str], env: &[(&str, &str)], cmd: &str| {
        claude_decision(&hook(args, &claude_payload(cmd), env)).0
    };
    assert_eq!(decide(&["--config", &cfg_s], &[], "npm test"), "deny");
    assert_eq!(decide(&["--config", &cfg_s], &[], "make test"), "allow");
    assert_eq!(
        decide(
            &["--config", &cfg_s],
            &[("TOOLGATE_MODE", "autonomous")],
            "npm test"
        ),
        "allow"
    );
    assert_eq!(
        decide(
            &["--config", &cfg_s, "--mode", "strict"],
            &[("TOOLGATE_MODE", "autonomous")],
            "npm test"
        ),
        "ask"
    );
    assert_eq!(
        decide(&[], &[("TOOLGATE_CONFIG", &cfg_s)], "npm test"),
        "deny"
    );
    // A broken config fails closed and names the file and line.
    std::fs::write(&cfg, "mode = \"balanced\"\nrulez = 1\n").unwrap_or_else(|e| panic!("{e}"));
    let (d, reason) = claude_decision(&hook(&["--config", &cfg_s], &claude_payload("ls"), &[]));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(d, "ask");
    assert!(
        reason.contains("bad configuration")
            && reason.contains("config.toml")
            && reason.contains("line 2"),
        "{reason}"
    );
}

/// A mode name that is none of the modes, from `TOOLGATE_MODE` or the
/// config file's `mode`, still makes the hook strict (it never widens), and
/// the answer's reason names it, as a bad `--mode` does (r19).
#[test]
fn a_bad_mode_from_the_environment_or_the_config_file_is_strict_and_named() {
    let dir = std::env::temp_dir().join(format!("toolgate-hook-badmode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, "mode = \"yolo\"\n").unwrap_or_else(|e| panic!("{e}"));
    let cfg_s = cfg.to_string_lossy().into_owned();
    let from_file = claude_decision(&hook(
        &["--config", &cfg_s],
        &claude_payload("git status"),
        &[],
    ));
    let from_env = claude_decision(&hook(
        &[],
        &claude_payload("git status"),
        &[("TOOLGATE_MODE", "balancd")],
    ));
    // The environment comes before the file: its bad name is the one named.
    let env_over_file = claude_decision(&hook(
        &["--config", &cfg_s],
        &claude_payload("git status"),
        &[("TOOLGATE_MODE", "balancd")],
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for ((decision, reason), name) in [
        (from_file, "yolo"),
        (from_env, "balancd"),
        (env_over_file, "balancd"),
    ] {
        assert_eq!(decision, "ask", "{name}: {reason}");
        assert!(
            reason.ends_with(&format!("(unrecognised mode `{name}`: using strict)")),
            "{name}: {reason}"
        );
    }
}

#[test]
fn malformed_input_fails_closed_in_every_protocol() {
    let big = {
        let mut p = b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"".to_vec();
        p.extend(std::iter::repeat_n(b'a', 10 << 20));
        p.extend(b"\"}}");
        p
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", b"{\"tool_name\": \"Bash\", \"tool_in".to_vec()),
        ("not json", b"rm -rf /".to_vec()),
        ("empty", Vec::new()),
        ("array", b"[1, 2]".to_vec()),
        (
            "tool_name not a string",
            b"{\"tool_name\": 5, \"tool_input\": {\"command\": \"ls\"}}".to_vec(),
        ),
        (
            "tool_input not an object",
            b"{\"tool_name\": \"Bash\", \"tool_input\": \"ls\"}".to_vec(),
        ),
        (
            "command not a string",
            b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": 7}}".to_vec(),
        ),
        (
            "empty command",
            b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"  \"}}".to_vec(),
        ),
        ("no tool_input", b"{\"tool_name\": \"Bash\"}".to_vec()),
        ("10 MiB", big),
    ];
    for (protocol, want) in [
        ("claude", "ask"),
        ("codex", "deny"),
        ("gemini", "ask"),
        ("docker-agent", "ask"),
    ] {
        for (name, payload) in &cases {
            let started = std::time::Instant::now();
            let o = hook(
                &["--protocol", protocol, "--mode", "autonomous"],
                payload,
                &[],
            );
            let _elapsed = started.elapsed();
            assert_eq!(o.code, Some(0), "{protocol} {name}: {}", o.stderr);
            let v = json_out(&o);
            let (decision, reason) = match protocol {
                "gemini" => (v["decision"].clone(), v["reason"].clone()),
                "docker-agent" => (
                    v["hook_specific_output"]["permission_decision"].clone(),
                    v["hook_specific_output"]["permission_decision_reason"].clone(),
                ),
                _ => (
                    v["hookSpecificOutput"]["permissionDecision"].clone(),
                    v["hookSpecificOutput"]["permissionDecisionReason"].clone(),
                ),
            };
            assert_eq!(decision, want, "{protocol} {name}");
            assert!(
                reason
                    .as_str()
                    .is_some_and(|r| r.starts_with("toolgate could not check this call")),
                "{protocol} {name}: {reason}"
            );
        }
    }
    // Without a protocol to answer in, the answer every client reads as a
    // block: exit 2 with the reason on stderr.
    let o = hook(&[], b"not json", &[]);
    assert_eq!(o.code, Some(2));
    assert!(o.stdout.is_empty());
    assert!(
        o.stderr.contains("could not check this call"),
        "{}",
        o.stderr
    );
    let o = hook(&["--protocol", "nonsense"], &claude_payload("ls"), &[]);
    assert_eq!(o.code, Some(2));
}

#[test]
fn profile_decides_instead_of_the_mode() {
    let (d, reason) = claude_decision(&hook(
        &["--profile", "cautious", "--mode", "autonomous"],
        &claude_payload("rm -rf build"),
        &[],
    ));
    assert_eq!(d, "ask");
    assert!(
        reason.contains("`delete_content` threshold 0.80 of the `cautious` profile"),
        "{reason}"
    );
    let (d, _) = claude_decision(&hook(
        &[],
        &claude_payload("rm -rf build"),
        &[("TOOLGATE_PROFILE", "ci")],
    ));
    assert_eq!(d, "allow");
    let (d, _) = claude_decision(&hook(
        &["--profile", "manual"],
        &claude_payload("git status"),
        &[],
    ));
    assert_eq!(d, "ask");
}

#[test]
fn each_clients_cwd_puts_absolute_paths_inside_the_project() {
    // Every payload here says `cwd` is `/p`.
    let inside = "cat /p/src/main.rs";
    // A climb out of the project into a home: a private place, which the
    // look leaves unsettled (a system file such as `/etc/os-release` it
    // may clear).
    let climbs = "cat /p/../home/u/notes.txt";
    let elsewhere = "cat /q/src/main.rs";
    for (name, payload, allow) in [
        ("claude", claude_payload as fn(&str) -> Vec<u8>, "allow"),
        ("codex", codex_payload, "allow"),
    ] {
        let decide =
            |cmd: &str| claude_decision(&hook(&["--mode", "balanced"], &payload(cmd), &[])).0;
        assert_eq!(decide(inside), allow, "{name}");
        assert_ne!(decide(climbs), "allow", "{name}");
        assert_ne!(decide(elsewhere), "allow", "{name}");
    }
    let gemini = |cmd: &str| json_out(&hook(&["--mode", "balanced"], &gemini_payload(cmd), &[]));
    assert_eq!(gemini(inside)["decision"], "allow");
    assert_eq!(gemini(climbs)["decision"], "ask");
    // A relative `cwd` says nothing about where absolute paths are.
    let mut relative: Value = serde_json::from_slice(&claude_payload(inside)).unwrap_or_default();
    relative["cwd"] = json!("p");
    let o = hook(
        &["--mode", "balanced"],
        relative.to_string().as_bytes(),
        &[],
    );
    assert_eq!(claude_decision(&o).0, "ask");
}

#[test]
fn compound_policy_from_flag_and_config() {
    let dir = std::env::temp_dir().join(format!("toolgate-compound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let good = dir.join("good.toml");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &good,
        "mode = \"balanced\"\ncompound = \"every-part-safe\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&bad, "mode = \"balanced\"\ncompound = \"yes\"\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let (good, bad) = (good.to_string_lossy(), bad.to_string_lossy());
    let both = "ls -la && git status";
    let decide = |args: &[&str], cmd: &str| claude_decision(&hook(args, &claude_payload(cmd), &[]));
    assert_eq!(decide(&["--mode", "balanced"], both).0, "ask");
    assert_eq!(
        decide(
            &["--mode", "balanced", "--compound", "every-part-safe"],
            both
        )
        .0,
        "allow"
    );
    assert_eq!(decide(&["--config", &good], both).0, "allow");
    assert_eq!(decide(&["--config", &good], "ls && npm test").0, "ask");
    // The flag overrides the file.
    assert_eq!(
        decide(&["--config", &good, "--compound", "refuse"], both).0,
        "ask"
    );
    // A bad name fails closed, saying what to write instead.
    let (d, reason) = decide(&["--mode", "balanced", "--compound", "sure"], both);
    assert_eq!(d, "ask");
    assert!(reason.contains("every-part-safe"), "{reason}");
    let (d, reason) = decide(&["--config", &bad], "git status");
    assert_eq!(d, "ask");
    assert!(
        reason.contains("bad configuration") && reason.contains("line 2"),
        "{reason}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn git_in_a_directory_laid_out_as_a_bare_repository_is_not_allowed() {
    // A project can commit HEAD, objects/ and refs/ at any level: git run
    // there (or below) takes it for a bare repository, config and all.
    let dir = std::env::temp_dir().join(format!("toolgate-bare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for d in ["objects", "refs", "sub/deeper"] {
        std::fs::create_dir_all(dir.join(d)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap_or_else(|e| panic!("{e}"));
    let payload = |cwd: &std::path::Path, cmd: &str| {
        json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": cmd}})
        .to_string()
        .into_bytes()
    };
    let decide = |mode: &str, cwd: &std::path::Path, cmd: &str| {
        claude_decision(&hook(
            &["--protocol", "claude", "--mode", mode],
            &payload(cwd, cmd),
            &[],
        ))
    };
    // (`git log -p` prints history, which the look reads in process: here
    // there is none to read, so it is not cleared; the plain log is allowed
    // but for the bare repository.)
    let (d, reason) = decide("balanced", &dir, "git log --oneline");
    assert_eq!(d, "ask");
    assert!(reason.contains("bare repository"), "{reason}");
    assert_eq!(decide("balanced", &dir, "git log -p").0, "ask");
    assert_eq!(
        decide("balanced", &dir.join("sub/deeper"), "git status").0,
        "ask"
    );
    assert_eq!(decide("restricted", &dir, "git status").0, "deny");
    let chained = hook(
        &[
            "--protocol",
            "claude",
            "--mode",
            "balanced",
            "--compound",
            "every-part-safe",
        ],
        &payload(&dir, "ls -la && git status"),
        &[],
    );
    assert_eq!(claude_decision(&chained).0, "ask");
    let chained = hook(
        &[
            "--protocol",
            "claude",
            "--mode",
            "balanced",
            "--compound",
            "every-part-safe",
        ],
        &payload(&dir, "ls -la && wc -l HEAD"),
        &[],
    );
    assert_eq!(claude_decision(&chained).0, "allow");
    // Not git, or a real repository found first: as before.
    assert_eq!(decide("balanced", &dir, "ls -la").0, "allow");
    std::fs::create_dir_all(dir.join("sub/.git")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        decide("balanced", &dir.join("sub/deeper"), "git status").0,
        "allow"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_rule_in_a_headless_config_still_gets_the_headless_block() {
    let dir = std::env::temp_dir().join(format!("toolgate-headless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, "headless = true\n[rules]\nallow = [\"shell:cmd\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = cfg.to_string_lossy().into_owned();
    let o = hook(&["--config", &cfg], &gemini_payload("ls"), &[]);
    let v = json_out(&o);
    // Gemini honours ask only with a person there: headless, it is deny.
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap_or("")
            .contains("bad configuration"),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
