//! What the agents send: the common core of every hook payload, the
//! helpers each client's reader shares, and detection.
//!
//! Claude Code, Codex, Gemini CLI and Qwen Code all send `tool_name` and
//! `tool_input` (with the shell command in `tool_input.command`), and so
//! does GitHub Copilot CLI for a hook written in Claude's format; the
//! docker-agent shape uses the same snake_case keys and `cmd` or `command`.
//! Each client adds its own fields (`prompt_id`, `effort`, `turn_id`,
//! `model`, `timestamp`, …): they are ignored.
//!
//! ```json
//! {"session_id": "…", "hook_event_name": "PreToolUse", "tool_name": "Bash",
//!  "tool_input": {"command": "rm -rf build", "description": "…"}}
//! ```
//!
//! The other clients send shapes of their own, read in their modules:
//! Copilot's native format (`toolName`, `toolArgs`), Cline (`preToolUse`),
//! OpenCode through toolgate's plugin (`input`, `output`), Cursor
//! (`command` at the top) and Windsurf (`tool_info.command_line`).

use serde_json::{Map, Value};

use super::{by_name, Client};

/// The part of a payload the gate needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The tool the agent wants to call, by the client's name for it.
    pub tool_name: String,
    /// Its arguments (an object).
    pub tool_input: Value,
    /// The commands of a shell call, for the clients whose shell tool the
    /// reader knows (Copilot's and OpenCode's `bash`, Cline's
    /// `run_commands`, Cursor's and Windsurf's shell events): each is
    /// non-blank, and each is decided as a shell command whatever the
    /// configuration's list of shell tool names says. `None` for every
    /// other call, which the gate reads from `tool_name` and `tool_input`
    /// as it reads any tool call.
    pub commands: Option<Vec<String>>,
    /// The payload's event name (`hook_event_name`, Cline's `hookName`),
    /// echoed in answers that carry one.
    pub event: Option<String>,
    /// The working directory the call runs in, when the payload names one
    /// that is an absolute path: the classifier then knows which absolute
    /// paths are inside it.
    pub cwd: Option<String>,
    /// The client's own permission mode as the payload names it (Claude
    /// Code's and Codex's `permission_mode`: `default`, `plan`,
    /// `acceptEdits`, `bypassPermissions`; Qwen Code's: `default`, `plan`,
    /// `auto-edit`, `yolo`), read by [`crate::hook::client_mode`].
    pub permission_mode: Option<String>,
}

/// Reads the common snake_case shape (`tool_name`, `tool_input`, `cwd`,
/// `hook_event_name`).
pub fn parse_common(payload: &Value) -> Result<Request, String> {
    let obj = object(payload)?;
    Ok(Request {
        tool_name: tool_name(obj, "tool_name")?,
        tool_input: tool_input(obj, "tool_input")?,
        commands: None,
        event: text(obj.get("hook_event_name")),
        cwd: absolute(obj.get("cwd")),
        permission_mode: text(obj.get("permission_mode")),
    })
}

/// The payload as an object.
pub fn object(payload: &Value) -> Result<&Map<String, Value>, String> {
    payload
        .as_object()
        .ok_or_else(|| "the hook payload is not a JSON object".to_string())
}

/// A tool name under `key`: a non-blank string.
pub fn tool_name(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(format!("`{key}` is empty")),
        Some(_) => Err(format!("`{key}` is not a string")),
        None => Err(format!("the payload has no `{key}`")),
    }
}

/// Tool arguments under `key`: an object, or none at all (an empty object,
/// which a shell call then fails on for want of a command).
pub fn tool_input(obj: &Map<String, Value>, key: &str) -> Result<Value, String> {
    match obj.get(key) {
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(Value::Null) | None => Ok(Value::Object(Map::new())),
        Some(_) => Err(format!("`{key}` is not an object")),
    }
}

/// A shell command under `key`: a non-blank string.
pub fn command(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err("the shell call has an empty command".into()),
        Some(Value::Null) | None => Err("the shell call has no command".into()),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

/// A string value, if it is one.
pub fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(String::from)
}

/// The client's id for the session the call belongs to, for the decision
/// log: `session_id` (Claude Code, Codex, Gemini CLI, Qwen Code,
/// docker-agent), `sessionId` (Copilot), OpenCode's `input.sessionID`, Cline's
/// `taskId`, Cursor's `conversation_id` or Windsurf's `trajectory_id`.
///
/// ```
/// use serde_json::json;
/// use toolgate_agents::client::session_id;
/// assert_eq!(session_id(&json!({"session_id": "s1"})).as_deref(), Some("s1"));
/// assert_eq!(session_id(&json!({"input": {"sessionID": "o2"}})).as_deref(), Some("o2"));
/// assert_eq!(session_id(&json!({"session_id": 7})), None);
/// ```
pub fn session_id(payload: &Value) -> Option<String> {
    const KEYS: &[&str] = &[
        "session_id",
        "sessionId",
        "sessionID",
        "taskId",
        "conversation_id",
        "trajectory_id",
    ];
    let pick = |v: &Value| {
        KEYS.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .filter(|s| !s.trim().is_empty())
            .map(String::from)
    };
    pick(payload).or_else(|| payload.get("input").and_then(pick))
}

/// A directory, if it is an absolute path: a relative one says nothing
/// about where the absolute paths of a command are.
pub fn absolute(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|c| c.starts_with('/'))
        .map(String::from)
}

/// Guesses the client from a payload, by what only one client sends
/// (each rule says which), in an order that keeps the rules apart;
/// everything else is read as Claude Code.
pub fn detect(payload: &Value) -> &'static dyn Client {
    let named = |name: &str| by_name(name).unwrap_or(&super::claude::ClaudeCode);
    let has = |key: &str| payload.get(key).is_some();
    let event = payload.get("hook_event_name").and_then(Value::as_str);
    let tool = payload.get("tool_name").and_then(Value::as_str);
    let input = payload.get("tool_input");

    // Windsurf names its action in `agent_action_name`.
    if has("agent_action_name") {
        return named("windsurf");
    }

    // Cline's keys are camelCase and its own.
    if has("hookName") || has("preToolUse") || has("clineVersion") {
        return named("cline");
    }

    // toolgate's OpenCode plugin sends OpenCode's `input` and `output`.
    if payload.get("input").is_some_and(Value::is_object)
        && payload.get("output").is_some_and(Value::is_object)
    {
        return named("opencode");
    }

    // Copilot's own format: camelCase `toolName` and `toolArgs`.
    if has("toolName") || has("toolArgs") {
        return named("copilot");
    }

    // Cursor's shell event (Cursor also sends `model`, hence before Codex).
    if event == Some("beforeShellExecution") || has("cursor_version") {
        return named("cursor");
    }

    // Qwen Code: Gemini's shell tool name with Claude's event.
    if tool == Some("run_shell_command") && event == Some("PreToolUse") {
        return named("qwen");
    }

    if event == Some("BeforeTool") || tool == Some("run_shell_command") {
        return named("gemini");
    }

    if has("turn_id") || has("model") {
        return named("codex");
    }

    // Copilot's Claude-format payload has a `timestamp` and no
    // `transcript_path`, which Claude Code always sends.
    if event == Some("PreToolUse") && has("timestamp") && !has("transcript_path") {
        return named("copilot");
    }

    // docker-agent's shell tool is `shell` with `cmd`, and its events
    // are snake_case.
    if input.and_then(|i| i.get("cmd")).is_some()
        || matches!(tool, Some("shell" | "run_background_job"))
        || event
            .is_some_and(|e| e.contains('_') || e.chars().next().is_some_and(char::is_lowercase))
    {
        return named("docker-agent");
    }

    named("claude")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_clients_shape_is_detected() {
        let is =
            |payload: Value, want: &str| assert_eq!(detect(&payload).name(), want, "{payload}");

        is(
            json!({"agent_action_name": "pre_run_command", "tool_info": {"command_line": "ls"}}),
            "windsurf",
        );

        is(
            json!({"hookName": "tool_call", "preToolUse": {"toolName": "run_commands"}}),
            "cline",
        );

        is(
            json!({"input": {"tool": "bash"}, "output": {"args": {"command": "ls"}}}),
            "opencode",
        );
        // An `input` that is not the plugin's object is not OpenCode.
        is(
            json!({"input": "x", "output": {}, "tool_name": "Bash"}),
            "claude",
        );

        is(
            json!({"toolName": "bash", "toolArgs": {"command": "ls"}, "cwd": "/p"}),
            "copilot",
        );
        is(
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "timestamp": "t"}),
            "copilot",
        );

        is(
            json!({"hook_event_name": "beforeShellExecution", "command": "ls", "model": "m"}),
            "cursor",
        );

        is(
            json!({"hook_event_name": "PreToolUse", "tool_name": "run_shell_command",
                   "timestamp": "t", "transcript_path": "/t"}),
            "qwen",
        );

        is(
            json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}),
            "gemini",
        );
        is(
            json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
            "gemini",
        );
        is(
            json!({"hook_event_name": "PreToolUse", "turn_id": "t", "tool_name": "Bash"}),
            "codex",
        );
        is(
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "timestamp": "t",
                   "transcript_path": "/t"}),
            "claude",
        );
        is(
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}),
            "claude",
        );
        is(
            json!({"hook_event_name": "pre_tool_use", "tool_name": "shell"}),
            "docker-agent",
        );
    }

    #[test]
    fn a_cwd_counts_only_when_absolute() {
        for (cwd, want) in [
            (json!("/home/dev/project"), Some("/home/dev/project")),
            (json!("project"), None),
            (json!(""), None),
            (json!(7), None),
        ] {
            assert_eq!(absolute(Some(&cwd)).as_deref(), want, "{cwd}");
        }
    }
}
