//! Issue 34: the guard mode (the default install), the no-opinion answer of
//! every client that has one, on the payloads captured from the released
//! clients; the client's own permission mode; the ask that says how to stop
//! being asked; file tools routed to the hook; rules written by
//! `toolgate allow|ask|deny`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::hooks::{hook, Out};

/// A capture from ../shared/protocols, or `None` (said so) when absent.
fn capture(name: &str) -> Option<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/protocols")
        .join(name);
    match std::fs::read(&path) {
        Ok(p) => serde_json::from_slice(&p).ok(),
        Err(_) => {
            eprintln!("skipping {name}: ../shared/protocols is absent");
            None
        }
    }
}

/// The capture with its command replaced, wherever that client keeps it.
fn with_command(mut payload: Value, command: &str) -> Value {
    if let Some(input) = payload.get_mut("tool_input") {
        input["command"] = json!(command);
    }
    if let Some(args) = payload.get_mut("toolArgs") {
        args["command"] = json!(command);
    }
    if let Some(p) = payload.get_mut("preToolUse") {
        p["parameters"]["commands"] = json!(json!([command]).to_string());
    }
    if let Some(c) = payload.get_mut("tool_call") {
        c["input"]["commands"] = json!([command]);
    }
    if let Some(o) = payload.get_mut("output") {
        o["args"]["command"] = json!(command);
    }
    payload
}

/// The clients with a no-opinion answer, their capture, and that answer
/// exactly (stdout, exit status).
const NO_OPINION: &[(&str, &str, &str)] = &[
    ("claude", "claude-code-2.1.332-PreToolUse-Bash.json", ""),
    ("codex", "codex-0.171.0-PreToolUse-Bash.json", ""),
    (
        "gemini",
        "gemini-cli-0.61.0-BeforeTool-run_shell_command.json",
        "",
    ),
    ("copilot", "copilot-1.0.102-preToolUse-bash.json", ""),
    (
        "copilot",
        "copilot-1.0.102-claude-format-PreToolUse-Bash.json",
        "",
    ),
    (
        "qwen",
        "qwen-code-0.15.10-PreToolUse-run_shell_command.json",
        "",
    ),
    (
        "cline",
        "cline-3.0.65-PreToolUse-run_commands.json",
        "{\"cancel\":false}\n",
    ),
    (
        "opencode",
        "opencode-1.18.33-tool.execute.before-bash.json",
        "{\"decision\":\"no_opinion\",\"reason\":\"left to OpenCode's own permissions\"}\n",
    ),
];

fn guard(protocol: &str, payload: &Value) -> Out {
    hook(
        &["--protocol", protocol, "--mode", "guard"],
        payload.to_string().as_bytes(),
        &[],
    )
}

/// Whether the answer lets the call run, stops it, or leaves it to the
/// client, as that client reads it.
fn reading(protocol: &str, o: &Out) -> &'static str {
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap_or(Value::Null);
    let word = v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .or(v["permissionDecision"].as_str())
        .or(v["decision"].as_str());
    match (protocol, word, &v["cancel"]) {
        (_, _, Value::Bool(true)) => "stop",
        (_, _, Value::Bool(false)) => "client",
        (_, Some("allow"), _) => "run",
        // OpenCode's plugin cannot ask: it throws.
        ("opencode", Some("ask"), _) => "stop",
        (_, Some("ask"), _) => "ask",
        (_, Some("deny"), _) => "stop",
        (_, Some("no_opinion"), _) => "client",
        (_, None, _) if o.stdout.trim().is_empty() && o.code == Some(0) => "client",
        _ => "other",
    }
}

/// Every client that has a no-opinion answer gives exactly it for a
/// command toolgate calls unknown, and allows a safe one and a safe
/// compound, and stops or asks about a destructive one.
#[test]
fn the_guard_row_on_every_captured_payload() {
    for &(protocol, file, no_opinion) in NO_OPINION {
        let Some(payload) = capture(file) else {
            continue;
        };
        let o = guard(protocol, &with_command(payload.clone(), "npm test"));
        assert_eq!(
            (o.stdout.as_str(), o.code),
            (no_opinion, Some(0)),
            "{file}: {o:?}"
        );
        for (command, want) in [
            ("git status", "run"),
            ("git status && git diff --stat", "run"),
            ("rm -rf build", "destructive"),
            ("make", "client"),
        ] {
            let o = guard(protocol, &with_command(payload.clone(), command));
            let got = reading(protocol, &o);
            let want = match (want, protocol) {
                // Codex, Cline and OpenCode cannot ask: their block.
                ("destructive", "codex" | "cline" | "opencode") => "stop",
                // The captured Codex and Qwen sessions ask nobody
                // (bypassPermissions, yolo): an ask would not stop it.
                ("destructive", _)
                    if payload
                        .get("permission_mode")
                        .is_some_and(|m| m == "bypassPermissions" || m == "yolo") =>
                {
                    "stop"
                }
                ("destructive", _) => "ask",
                // Cline's allow is its no-opinion answer: `{"cancel":false}`.
                ("run", "cline") => "client",
                (w, _) => w,
            };
            assert_eq!(got, want, "{file} {command:?}: {o:?}");
        }
    }
}

/// The legacy row (no mode) still asks for everything: installs that
/// predate the guard mode keep answering as they did until reinstalled.
#[test]
fn no_mode_is_still_the_legacy_row() {
    let Some(payload) = capture("claude-code-2.1.332-PreToolUse-Bash.json") else {
        return;
    };
    let o = hook(
        &["--protocol", "claude"],
        with_command(payload, "git status").to_string().as_bytes(),
        &[],
    );
    assert_eq!(reading("claude", &o), "ask", "{o:?}");
}

fn claude(mode: &str, command: &str, cwd: &str) -> Value {
    json!({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd,
        "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"}, "tool_use_id": "t"})
}

/// The (decision, source) of a Claude answer, by `--mode`.
fn decided(mode: &str, payload: &Value) -> (String, String) {
    let o = hook(
        &["--protocol", "claude", "--mode", mode],
        payload.to_string().as_bytes(),
        &[],
    );
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap_or(Value::Null);
    let word = v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or(if o.stdout.is_empty() { "none" } else { "?" })
        .to_string();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (word, reason)
}

/// A throwaway project with a `.git` and a `src/`.
struct Project(PathBuf);

impl Project {
    fn new(name: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("toolgate-guard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in [".git", "src"] {
            std::fs::create_dir_all(dir.join(d)).unwrap_or_else(|e| panic!("{e}"));
        }
        Project(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn cwd(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The client's permission mode, as Claude Code's payload carries it.
#[test]
fn the_clients_own_mode_changes_the_row() {
    let p = Project::new("modes");
    let cwd = p.cwd();
    for (client_mode, command, want) in [
        // Plan: nothing but safe runs.
        ("plan", "git status", "allow"),
        ("plan", "npm test", "deny"),
        ("plan", "rm -rf build", "deny"),
        ("plan", "mkdir -p src/new", "deny"),
        // Accept edits: a write confined to the project, like the
        // client's own edit tool; nothing else changes.
        ("acceptEdits", "mkdir -p src/new", "allow"),
        ("acceptEdits", "sed -i 's/a/b/g' src/main.rs", "allow"),
        (
            "acceptEdits",
            "cat > src/notes.md <<'EOF'\nhi\nEOF",
            "allow",
        ),
        ("acceptEdits", "npm test", "none"),
        ("acceptEdits", "rm src/main.rs", "ask"),
        ("acceptEdits", "perl -i -pe 's/a/b/' src/main.rs", "ask"),
        ("acceptEdits", "sed -i 's/a/b/e' src/main.rs", "ask"),
        ("acceptEdits", "touch .git/hooks/pre-commit", "none"),
        ("acceptEdits", "echo KEY=1 > .env", "ask"),
        ("acceptEdits", "echo '{}' > .claude/settings.json", "deny"),
        ("acceptEdits", "cp src/main.rs /tmp/elsewhere.rs", "ask"),
        ("acceptEdits", "mv src/main.rs src/lib.rs", "allow"),
        // Bypass: nobody is asked, so a destructive call is denied.
        ("bypassPermissions", "rm -rf build", "deny"),
        ("bypassPermissions", "npm test", "none"),
        ("bypassPermissions", "git status", "allow"),
        // A value toolgate does not know is the client's default.
        ("Plan", "npm test", "none"),
        ("dontAsk", "rm -rf build", "ask"),
        ("default", "rm -rf build", "ask"),
    ] {
        let (got, reason) = decided("guard", &claude(client_mode, command, &cwd));
        assert_eq!(got, want, "{client_mode} {command:?}: {reason}");
    }
    // Accept edits widens only what the row left to the client or asked
    // about: strict asks for a confined write all the same.
    let (got, _) = decided("strict", &claude("acceptEdits", "mkdir src/x", &cwd));
    assert_eq!(got, "ask");
    let (got, reason) = decided("guard", &claude("bypassPermissions", "rm -rf build", &cwd));
    assert_eq!(got, "deny");
    assert!(
        reason.ends_with(
            "(the client is in bypassPermissions mode and asks nobody, so an ask would not stop it: denied)"
        ),
        "{reason}"
    );
    let (_, reason) = decided("guard", &claude("plan", "npm test", &cwd));
    assert!(
        reason.ends_with("(the client is in plan mode, where only read-only calls run: denied)"),
        "{reason}"
    );
}

/// An ask for an unknown command ends with the rule that would allow it;
/// an ask for a destructive one does not offer one.
#[test]
fn an_ask_says_how_to_stop_being_asked() {
    let (got, reason) = decided("balanced", &claude("default", "npm test", "/p"));
    assert_eq!(got, "ask");
    assert!(
        reason.ends_with("; to stop being asked for it: toolgate allow 'shell:cmd=npm test'"),
        "{reason}"
    );
    let (got, reason) = decided("balanced", &claude("default", "rm -rf build", "/p"));
    assert_eq!(got, "ask");
    assert!(!reason.contains("toolgate allow"), "{reason}");
}

/// A list is never offered an allow rule for itself, which could never
/// match: the ask names the part that is not safe on its own, with that
/// part's rule, or, when every part is safe, the compound setting.
#[test]
fn an_ask_for_a_list_names_the_part_to_allow() {
    let lead = "; to stop being asked for it: no allow rule covers more than one command \
                (each part is judged on its own); ";
    let (got, reason) = decided(
        "balanced",
        &claude("default", "cat a.txt && npm test", "/home/dev/project"),
    );
    assert_eq!(got, "ask");
    assert!(
        reason.ends_with(&format!(
            "{lead}not safe on its own: `npm test` (`toolgate allow 'shell:cmd=npm test'` allows it run alone)"
        )),
        "{reason}"
    );
    let (got, reason) = decided(
        "balanced",
        &claude("default", "cat a.txt && git status", "/home/dev/project"),
    );
    assert_eq!(got, "ask");
    assert!(
        reason.ends_with(&format!(
            "{lead}every part of this one is safe, and `compound = \"every-part-safe\"` in your \
             config (always on in the guard mode) lets such a list through"
        )),
        "{reason}"
    );
    assert!(
        !reason.contains("shell:cmd=cat a.txt && git status"),
        "{reason}"
    );
}

fn claude_tool(tool: &str, input: Value, cwd: &str) -> Value {
    json!({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd,
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": input, "tool_use_id": "t"})
}

/// Claude Code's own file tools, routed to the hook: a secret read gets
/// the destructive answer, an edit of a guard file is denied, the rest is
/// no opinion.
#[test]
fn file_tools_get_an_answer_only_where_it_matters() {
    let p = Project::new("files");
    let cwd = p.cwd();
    let at = |rel: &str| p.path().join(rel).display().to_string();
    for (tool, input, want) in [
        ("Read", json!({"file_path": at(".env")}), "ask"),
        ("Read", json!({"file_path": at("src/id_rsa")}), "ask"),
        ("Read", json!({"file_path": at("src/main.rs")}), "none"),
        ("Grep", json!({"pattern": "x", "path": at("src")}), "none"),
        ("Glob", json!({"pattern": "**/*.rs"}), "none"),
        ("Grep", json!({"pattern": "fn main"}), "none"),
        (
            "Edit",
            json!({"file_path": at(".claude/settings.json"), "old_string": "a", "new_string": "b"}),
            "deny",
        ),
        (
            "Write",
            json!({"file_path": at(".toolgate.toml"), "content": ""}),
            "deny",
        ),
        (
            "Edit",
            json!({"file_path": at("src/main.rs"), "old_string": "a", "new_string": "b"}),
            "none",
        ),
    ] {
        let (got, reason) = decided("guard", &claude_tool(tool, input.clone(), &cwd));
        assert_eq!(got, want, "{tool} {input}: {reason}");
    }
    // Routed to the hook whatever the mode: balanced does not ask for
    // every file read, and still asks for a secret one.
    let (got, _) = decided(
        "balanced",
        &claude_tool("Glob", json!({"pattern": "*"}), &cwd),
    );
    assert_eq!(got, "none");
    let (got, _) = decided(
        "balanced",
        &claude_tool("Read", json!({"file_path": at(".env")}), &cwd),
    );
    assert_eq!(got, "ask");
    // A rule that names the tool still decides a read of no secret.
    let config = p.path().join("config.toml");
    std::fs::write(
        &config,
        "[rules]\ndeny = [\"Read:file_path=*/private/*\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let payload = claude_tool("Read", json!({"file_path": at("private/notes.md")}), &cwd);
    let o = hook(
        &["--protocol", "claude", "--mode", "guard"],
        payload.to_string().as_bytes(),
        &[("TOOLGATE_CONFIG", &config.display().to_string())],
    );
    assert!(
        o.stdout.contains("\"permissionDecision\":\"deny\""),
        "{o:?}"
    );
}

/// A payload of `client` for its tool `tool`, shaped like the captured
/// ones of that client.
fn client_tool(client: &str, tool: &str, input: Value, cwd: &str) -> Value {
    match client {
        "gemini" => json!({
            "session_id": "s", "transcript_path": "/t.json", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00.000Z",
            "tool_name": tool, "tool_input": input}),
        "qwen" => json!({
            "session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-01-01T00:00:00.000Z",
            "permission_mode": "default", "tool_name": tool, "tool_input": input,
            "tool_use_id": "t"}),
        "codex" => json!({
            "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
            "tool_name": tool, "tool_input": input, "tool_use_id": "t"}),
        other => panic!("no payload shape for {other}"),
    }
}

/// Gemini CLI's, Qwen Code's and Codex's own file tools, routed to the
/// hook by their install: the exact answer each client honours for a
/// secret read (its ask, or Codex's deny that says it cannot ask), an
/// edit of its own hook settings or toolgate's config (deny), and an
/// ordinary read or edit (nothing on stdout: no opinion).
#[test]
fn each_clients_file_tools_get_its_own_answers() {
    let p = Project::new("client-files");
    let cwd = p.cwd();
    let at = |rel: &str| p.path().join(rel).display().to_string();
    let secret = |path: &str| {
        format!(
            "destructive (medium, credential-access) in guard mode: a file tool's read judged as \
             `cat -- {path}`: reads a file that holds keys, tokens or passwords"
        )
    };
    let tamper = |path: &str, what: &str| {
        format!(
            "self-protection: writes `{path}`, {what}: it would disable or weaken the guard \
             (denied in every mode but autonomous; no rule can allow it)"
        )
    };
    let gemini = |decision: &str, reason: &str| {
        format!("{}\n", json!({"decision": decision, "reason": reason}))
    };
    let specific = |decision: &str, reason: &str| {
        format!(
            "{}\n",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": decision, "permissionDecisionReason": reason}})
        )
    };
    let patch = |path: &str| json!({"command": format!("*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n")});
    let cases: Vec<(&str, &str, Value, String)> = vec![
        // Gemini CLI 0.61: `file_path`, `dir_path`, `include`.
        (
            "gemini",
            "read_file",
            json!({"file_path": at(".env")}),
            gemini("ask", &secret(&at(".env"))),
        ),
        (
            "gemini",
            "read_many_files",
            json!({"include": ["src/**", "config/.env"]}),
            gemini("ask", &secret("config/.env")),
        ),
        (
            "gemini",
            "read_file",
            json!({"file_path": at("src/main.rs")}),
            String::new(),
        ),
        (
            "gemini",
            "read_many_files",
            json!({"include": ["src/**/*.rs"]}),
            String::new(),
        ),
        (
            "gemini",
            "glob",
            json!({"pattern": "**/*.rs", "dir_path": at("src")}),
            String::new(),
        ),
        (
            "gemini",
            "grep_search",
            json!({"pattern": "fn main", "dir_path": at("src")}),
            String::new(),
        ),
        (
            "gemini",
            "list_directory",
            json!({"dir_path": at("src")}),
            String::new(),
        ),
        (
            "gemini",
            "replace",
            json!({"file_path": at(".gemini/settings.json"), "old_string": "a", "new_string": "b"}),
            gemini(
                "deny",
                &tamper(&at(".gemini/settings.json"), "Gemini CLI's hook settings"),
            ),
        ),
        (
            "gemini",
            "write_file",
            json!({"file_path": at(".toolgate.toml"), "content": ""}),
            gemini(
                "deny",
                &tamper(&at(".toolgate.toml"), "toolgate's project policy"),
            ),
        ),
        (
            "gemini",
            "write_file",
            json!({"file_path": at("src/main.rs"), "content": ""}),
            String::new(),
        ),
        // Qwen Code: `path` for directories, `edit` for Gemini's `replace`.
        (
            "qwen",
            "read_file",
            json!({"file_path": at(".env")}),
            specific("ask", &secret(&at(".env"))),
        ),
        (
            "qwen",
            "read_file",
            json!({"file_path": at("src/main.rs")}),
            String::new(),
        ),
        (
            "qwen",
            "grep_search",
            json!({"pattern": "x", "path": at("src")}),
            String::new(),
        ),
        (
            "qwen",
            "list_directory",
            json!({"path": at("src")}),
            String::new(),
        ),
        (
            "qwen",
            "edit",
            json!({"file_path": at(".qwen/settings.json"), "old_string": "a", "new_string": "b"}),
            specific(
                "deny",
                &tamper(&at(".qwen/settings.json"), "Qwen Code's hook settings"),
            ),
        ),
        (
            "qwen",
            "edit",
            json!({"file_path": at("src/main.rs"), "old_string": "a", "new_string": "b"}),
            String::new(),
        ),
        // Codex: no file-reading tool (it reads with its shell, which
        // cannot ask); edits are patches.
        (
            "codex",
            "Bash",
            json!({"command": "cat .env"}),
            specific(
                "deny",
                "destructive (medium, credential-access) in guard mode: reads a file \
                           that holds keys, tokens or passwords (needs confirmation, which Codex \
                           hooks cannot ask for: denied)",
            ),
        ),
        (
            "codex",
            "apply_patch",
            patch(".codex/config.toml"),
            specific(
                "deny",
                &tamper(".codex/config.toml", "Codex's hook settings"),
            ),
        ),
        ("codex", "apply_patch", patch("src/main.rs"), String::new()),
        (
            "codex",
            "Bash",
            json!({"command": "cat src/main.rs"}),
            specific(
                "allow",
                "safe (safe, fs-read) in guard mode: prints file contents",
            ),
        ),
    ];
    for (client, tool, input, want) in cases {
        let o = guard(client, &client_tool(client, tool, input.clone(), &cwd));
        assert_eq!(
            (o.stdout.as_str(), o.code),
            (want.as_str(), Some(0)),
            "{client} {tool} {input}: {o:?}"
        );
    }
}

/// `toolgate allow|ask|deny` run by an agent through its shell tool is
/// self-protection, like `install`; `suggest` and `log --stats` are not.
#[test]
fn rule_writers_are_guarded_from_the_agent() {
    for (command, want) in [
        ("toolgate allow 'shell:cmd=rm -rf *'", "deny"),
        ("toolgate deny --project 'shell:cmd=git push*'", "deny"),
        ("toolgate ask Bash", "deny"),
        ("toolgate suggest", "none"),
    ] {
        let (got, reason) = decided("guard", &claude("default", command, "/p"));
        assert_eq!(got, want, "{command}: {reason}");
    }
    let (got, _) = decided(
        "autonomous",
        &claude("default", "toolgate log --stats", "/p"),
    );
    assert_eq!(got, "allow");
}

/// A rule in another syntax in the config file is an error with file,
/// line and the right spelling, in the hook's reason.
#[test]
fn a_bad_rule_is_named_in_the_hooks_reason() {
    let p = Project::new("badrule");
    let config = p.path().join("config.toml");
    std::fs::write(
        &config,
        "mode = \"guard\"\n[rules]\nallow = [\n  \"Bash(npm test)\",\n]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = hook(
        &["--protocol", "claude"],
        claude("default", "npm test", "/p").to_string().as_bytes(),
        &[("TOOLGATE_CONFIG", &config.display().to_string())],
    );
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap_or(Value::Null);
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("");
    assert_eq!(
        reason,
        format!(
            "toolgate could not check this call: bad configuration: {}:4: [rules]: permission rule \
             `Bash(npm test)`: this is Claude Code's permission syntax, which toolgate does not read: \
             write `shell:cmd=npm test`",
            config.display()
        )
    );
}

/// `explain` ends with the rule that would allow a command it calls
/// unknown, offers none for a destructive or a safe one, and for a list
/// names the parts to allow instead.
#[test]
fn explain_ends_with_the_allow_rule_for_an_unknown_command() {
    let run = |words: &[&str]| {
        let mut args = vec!["explain"];
        args.extend_from_slice(words);
        let o = crate::util::run(&args, b"", &[]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = run(&["npm", "test"]);
    assert!(
        out.ends_with(
            "\nto allow it: toolgate allow 'shell:cmd=npm test' (the guard mode leaves it to your \
             client's own permissions; balanced and strict ask for it)\n"
        ),
        "{out}"
    );
    for words in [&["rm", "-rf", "build"][..], &["git", "status"]] {
        let out = run(words);
        assert!(!out.contains("to allow it"), "{words:?}: {out}");
    }
    // A list gets no rule for itself: the parts not safe on their own
    // are named, each with its own rule.
    let out = run(&["cat a.txt && npm test && make"]);
    assert!(
        out.ends_with(
            "\nto allow it: no allow rule covers more than one command (each part is judged on its \
             own); not safe on its own: `npm test` (`toolgate allow 'shell:cmd=npm test'` allows it \
             run alone), `make` (`toolgate allow 'shell:cmd=make'` allows it run alone)\n"
        ),
        "{out}"
    );
    assert!(!out.contains("shell:cmd=cat a.txt &&"), "{out}");
}
