//! Agent transcripts: what an agent ran, with the directory it ran in.
//!
//! A Claude Code session (`~/.claude/projects/*/SESSION.jsonl`) has one
//! JSON object per line; an assistant line's `message.content` holds its
//! tool calls, and a `Bash` call's `input.command` is the command, run in
//! the line's `cwd`. A Codex rollout (`~/.codex/sessions/…/rollout-*.jsonl`)
//! has `response_item` lines whose `payload` is a `function_call` (`shell`,
//! `shell_command`, `exec_command`, `container.exec`; its `arguments` a
//! JSON string with `command` as argv or text, or `cmd`, and `workdir`) or
//! a `local_shell_call` (`action.command`, `action.working_directory`);
//! the session's `cwd` (from `session_meta` or `turn_context`) stands in
//! when a call names none. Each call is reported at its line, column 1.

use serde_json::Value;

use super::{join_argv, Extract, Found, Problem};

/// Adds every Bash call of a Claude Code session.
pub(super) fn read_claude(text: &str, out: &mut Extract) {
    for (n, line) in text.lines().enumerate() {
        let Some(v) = json_line(line, n, out) else {
            continue;
        };
        let cwd = v.get("cwd").and_then(Value::as_str);
        let content = v.pointer("/message/content").and_then(Value::as_array);
        for item in content.into_iter().flatten() {
            if item.get("type").and_then(Value::as_str) != Some("tool_use")
                || item.get("name").and_then(Value::as_str) != Some("Bash")
            {
                continue;
            }
            match item.pointer("/input/command").and_then(Value::as_str) {
                Some(command) => push(out, n, command.to_string(), cwd),
                None => out.problems.push(Problem {
                    line: n as u64 + 1,
                    column: 1,
                    message: "a Bash tool call without a string `input.command`".into(),
                }),
            }
        }
    }
}

/// Adds every shell call of a Codex rollout.
pub(super) fn read_codex(text: &str, out: &mut Extract) {
    let mut session_cwd: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let Some(v) = json_line(line, n, out) else {
            continue;
        };
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        // Rollouts wrap each item in `payload`; early ones did not.
        let item = v.get("payload").unwrap_or(&v);
        if matches!(kind, "session_meta" | "turn_context") {
            if let Some(cwd) = item.get("cwd").and_then(Value::as_str) {
                session_cwd = Some(cwd.to_string());
            }
            continue;
        }
        let call = match item.get("type").and_then(Value::as_str) {
            Some("function_call") => function_call(item),
            Some("local_shell_call") => item.get("action").map(|a| {
                (
                    command_of(a.get("command")),
                    a.get("working_directory")
                        .and_then(Value::as_str)
                        .map(String::from),
                )
            }),
            _ => None,
        };
        let Some((command, cwd)) = call else { continue };
        match command {
            Some(command) => push(out, n, command, cwd.as_deref().or(session_cwd.as_deref())),
            None => out.problems.push(Problem {
                line: n as u64 + 1,
                column: 1,
                message: "a shell call without a `command` (argv or text) or `cmd`".into(),
            }),
        }
    }
}

/// The command and working directory of a `function_call` that runs a
/// command, or `None` for another function.
#[allow(clippy::type_complexity)]
fn function_call(item: &Value) -> Option<(Option<String>, Option<String>)> {
    let name = item.get("name").and_then(Value::as_str)?;
    if !matches!(
        name,
        "shell" | "shell_command" | "exec_command" | "container.exec" | "local_shell"
    ) {
        return None;
    }
    let args = match item.get("arguments") {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s).unwrap_or(Value::Null),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let command = command_of(args.get("command")).or_else(|| command_of(args.get("cmd")));
    let cwd = ["workdir", "cwd", "working_directory"]
        .iter()
        .find_map(|k| args.get(k).and_then(Value::as_str))
        .map(String::from);
    Some((command, cwd))
}

/// A command given as argv (joined as a shell reads it back) or as text.
fn command_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
            words.filter(|w| !w.is_empty()).map(|w| join_argv(&w))
        }
        _ => None,
    }
}

/// One JSON object line, or `None` (a blank line, or a problem noted).
fn json_line(line: &str, n: usize, out: &mut Extract) -> Option<Value> {
    if line.trim().is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(line) {
        Ok(v) => Some(v),
        Err(e) => {
            out.problems.push(Problem {
                line: n as u64 + 1,
                column: e.column() as u64,
                message: format!("invalid JSON: {e}"),
            });
            None
        }
    }
}

fn push(out: &mut Extract, n: usize, command: String, cwd: Option<&str>) {
    out.found.push(Found {
        line: n as u64 + 1,
        column: 1,
        classify: command.clone(),
        command,
        cwd: cwd.filter(|c| c.starts_with('/')).map(String::from),
        ..Found::default()
    });
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    fn found(kind: Kind, src: &str) -> Vec<(u64, String, Option<String>)> {
        let e = extract(kind, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        e.found
            .into_iter()
            .map(|f| (f.line, f.command, f.cwd))
            .collect()
    }

    #[test]
    fn claude_code_bash_calls_with_their_cwd() {
        let src = r#"{"type":"summary","summary":"x"}
{"type":"user","cwd":"/home/a/p","sessionId":"s","message":{"role":"user","content":"clean up"}}
{"type":"assistant","cwd":"/home/a/p","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"rm -rf / is not what I will run"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf build","description":"clean"}}]}}
{"type":"assistant","cwd":"/home/a/p/sub","sessionId":"s","message":{"content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/etc/passwd"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"git status"}}]}}
"#;
        assert_eq!(
            found(Kind::ClaudeCode, src),
            [
                (3, "rm -rf build".to_string(), Some("/home/a/p".to_string())),
                (
                    4,
                    "git status".to_string(),
                    Some("/home/a/p/sub".to_string())
                ),
            ]
        );
    }

    #[test]
    fn codex_exec_calls_with_their_cwd() {
        let src = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w/repo"}}
{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"rm -rf /"}]}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf target\"],\"workdir\":\"/w/repo/sub\"}","call_id":"c1"}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\",\"-la\"]}","call_id":"c2"}}
{"type":"response_item","payload":{"type":"local_shell_call","action":{"type":"exec","command":["git","status"],"working_directory":"/w"}}}
{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}"}}
{"type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"{}"}}
"#;
        let w = |s: &str| Some(s.to_string());
        assert_eq!(
            found(Kind::Codex, src),
            [
                (3, "bash -lc 'rm -rf target'".to_string(), w("/w/repo/sub")),
                (4, "ls -la".to_string(), w("/w/repo")),
                (5, "git status".to_string(), w("/w")),
                (6, "cargo test".to_string(), w("/w/repo")),
            ]
        );
    }

    #[test]
    fn a_bad_line_is_a_problem_and_the_rest_is_read() {
        let src = "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Bash\",\"input\":{}}]}}\nnot json\n";
        let e = extract(Kind::ClaudeCode, src);
        let lines: Vec<u64> = e.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [1, 2]);
        assert_eq!(
            e.problems[0].message,
            "a Bash tool call without a string `input.command`"
        );
    }
}
