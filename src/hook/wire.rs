//! What the agents send: the common core of every hook payload.
//!
//! Claude Code, Codex and Gemini CLI all send `tool_name` and `tool_input`
//! (with the shell command in `tool_input.command`); the seed runtime's
//! shape uses the same snake_case keys and `cmd` or `command`. Each client
//! adds its own fields (`prompt_id`, `effort`, `turn_id`, `model`,
//! `timestamp`, …): they are ignored.
//!
//! ```json
//! {"session_id": "…", "hook_event_name": "PreToolUse", "tool_name": "Bash",
//!  "tool_input": {"command": "rm -rf build", "description": "…"}}
//! ```

use serde_json::Value;

use super::Protocol;

/// The part of a payload the gate needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The tool the agent wants to call.
    pub tool_name: String,
    /// Its arguments (an object).
    pub tool_input: Value,
    /// The payload's `hook_event_name`, echoed in answers that carry one.
    pub event: Option<String>,
    /// The working directory the call runs in (the payload's `cwd`), when
    /// it is an absolute path: the classifier then knows which absolute
    /// paths are inside it.
    pub cwd: Option<String>,
}

/// Reads a payload; the error is a reason for a fail-closed answer.
pub fn parse_request(payload: &Value) -> Result<Request, String> {
    let obj = payload
        .as_object()
        .ok_or("the hook payload is not a JSON object")?;
    let tool_name = match obj.get("tool_name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err("`tool_name` is empty".into()),
        Some(_) => return Err("`tool_name` is not a string".into()),
        None => return Err("the payload has no `tool_name`".into()),
    };
    let tool_input = match obj.get("tool_input") {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(Value::Null) | None => Value::Object(Default::default()),
        Some(_) => return Err("`tool_input` is not an object".into()),
    };
    let event = obj
        .get("hook_event_name")
        .and_then(Value::as_str)
        .map(String::from);
    let cwd = obj
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| c.starts_with('/'))
        .map(String::from);
    Ok(Request {
        tool_name,
        tool_input,
        event,
        cwd,
    })
}

/// Guesses the protocol from a payload: Gemini's event is `BeforeTool`,
/// Codex sends `turn_id` and `model`, the seed runtime's shell tool is
/// `shell` with `cmd`; everything else is read as Claude Code.
pub fn detect(payload: &Value) -> Protocol {
    let event = payload.get("hook_event_name").and_then(Value::as_str);
    let tool = payload.get("tool_name").and_then(Value::as_str);
    let input = payload.get("tool_input");
    if event == Some("BeforeTool") || tool == Some("run_shell_command") {
        Protocol::Gemini
    } else if payload.get("turn_id").is_some() || payload.get("model").is_some() {
        Protocol::Codex
    } else if input.and_then(|i| i.get("cmd")).is_some()
        || matches!(tool, Some("shell" | "run_background_job"))
        || event
            .is_some_and(|e| e.contains('_') || e.chars().next().is_some_and(char::is_lowercase))
    {
        Protocol::DockerAgent
    } else {
        Protocol::Claude
    }
}
