//! GitHub Copilot CLI `preToolUse` (1.0.102).
//!
//! A hook written in Copilot's own format (`"version": 1`, camelCase
//! `preToolUse`, a `bash` key) gets a camelCase payload:
//!
//! ```json
//! {"sessionId": "…", "timestamp": 1796148089875, "cwd": "/home/dev/project",
//!  "toolName": "bash", "toolArgs": {"command": "rm -rf build", "description": "…"}}
//! ```
//!
//! and Copilot reads only a top-level answer:
//!
//! ```json
//! {"permissionDecision": "deny", "permissionDecisionReason": "…"}
//! ```
//!
//! Deny (with or without a reason), exit 2 and exit 1 block; allow runs the
//! call, and in `copilot -p` it stands in for `--allow-all-tools`; ask in
//! `-p` ends as a denial. Empty or non-JSON output, a timeout, and a
//! Claude-style `hookSpecificOutput` answer *let the call run*: answering
//! this payload in Claude's shape, as toolgate did before it knew Copilot,
//! is no answer at all.
//!
//! The same hook written Claude-style (PascalCase `PreToolUse`, nested
//! `matcher`/`hooks`) gets a snake_case payload like Claude Code's (with a
//! `timestamp` and no `transcript_path`), and Copilot then honours both the
//! top-level answer and `hookSpecificOutput`. That answer carries both
//! shapes, so it stays right if the payload was in fact Claude Code's.
//!
//! Only deny is known to block wherever Copilot runs (ask was seen only in
//! `-p`), so a call toolgate cannot check is denied. A native hook has no
//! matcher and sees every tool call: a call to a tool other than the shell
//! that no rule names and no `[tools.NAME]` hint describes gets the empty
//! answer, which leaves it to Copilot's own permissions, as a `bash`
//! matcher would have. Copilot's shell tools are known here and always
//! checked, whatever the configuration's `shell_tools` lists.

use serde_json::{json, Map, Value};

use super::wire::{self, Request};
use super::Answer;
use toolgate_core::gate::Decision;

/// Copilot's shell tools: `bash` (`powershell` on Windows) natively, `Bash`
/// in the Claude-format payload. They are read as shell calls whatever the
/// configuration's `shell_tools` says, so that a list written for another
/// client cannot turn Copilot's shell into a tool toolgate leaves alone.
const SHELL_TOOLS: &[&str] = &["bash", "powershell", "Bash"];

/// Reads either payload: the snake_case one when it has `tool_name`, the
/// native one otherwise. `toolArgs` may be an object or, as Copilot's
/// documentation describes it, a string holding one.
pub fn parse(payload: &Value) -> Result<Request, String> {
    let obj = wire::object(payload)?;
    let mut request = if obj.contains_key("tool_name") {
        wire::parse_common(payload)?
    } else {
        let tool_input = match obj.get("toolArgs") {
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Object(_)) => v,
                _ => return Err("`toolArgs` is a string but not a JSON object".into()),
            },
            _ => wire::tool_input(obj, "toolArgs")?,
        };
        Request {
            tool_name: wire::tool_name(obj, "toolName")?,
            tool_input,
            commands: None,
            event: None,
            cwd: wire::absolute(obj.get("cwd")),
        }
    };
    if SHELL_TOOLS.contains(&request.tool_name.as_str()) {
        let args = request.tool_input.as_object().cloned().unwrap_or_default();
        request.commands = Some(vec![wire::command(&args, "command")?]);
    }
    Ok(request)
}

/// Renders a decision. `claude_format` (the payload was the snake_case
/// one) adds `hookSpecificOutput`.
pub fn answer(decision: Decision, reason: &str, claude_format: bool) -> Answer {
    let mut out = Map::new();
    out.insert("permissionDecision".into(), decision.as_str().into());
    out.insert("permissionDecisionReason".into(), reason.into());
    if claude_format {
        out.insert(
            "hookSpecificOutput".into(),
            json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": decision.as_str(),
                "permissionDecisionReason": reason,
            }),
        );
    }
    Answer::json(Value::Object(out))
}

/// The answer that leaves a call to Copilot's own permissions: nothing.
pub fn no_opinion() -> Answer {
    Answer {
        stdout: String::new(),
        stderr: String::new(),
        exit_code: 0,
    }
}
