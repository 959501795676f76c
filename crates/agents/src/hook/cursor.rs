//! Cursor `beforeShellExecution` (from Cursor's documentation; not yet
//! checked against a running Cursor).
//!
//! A command hook in `hooks.json` (`~/.cursor/hooks.json` or
//! `.cursor/hooks.json`) gets:
//!
//! ```json
//! {"hook_event_name": "beforeShellExecution", "conversation_id": "…",
//!  "generation_id": "…", "workspace_roots": ["/home/dev/project"],
//!  "command": "rm -rf build", "cwd": "/home/dev/project"}
//! ```
//!
//! and answers on stdout:
//!
//! ```json
//! {"permission": "deny", "user_message": "…", "agent_message": "…"}
//! ```
//!
//! Cursor documents `ask` too, but an ask is reported to let the command
//! run where nobody answers it, so ask becomes deny, and a call toolgate
//! cannot check is denied. The working directory is `cwd`, else the first
//! workspace root. Only this event is read: Cursor's other events carry
//! other things under `command` (`beforeMCPExecution` puts the MCP server's
//! command line there), so under `--protocol cursor` any other event is
//! denied with a reason rather than misread.

use serde_json::{json, Value};

use super::wire::{self, Request};
use super::Answer;
use toolgate_core::gate::Decision;

/// The event toolgate answers.
const EVENT: &str = "beforeShellExecution";

/// Reads the payload.
pub fn parse(payload: &Value) -> Result<Request, String> {
    let obj = wire::object(payload)?;
    let event = wire::text(obj.get("hook_event_name"));
    if let Some(other) = event.as_deref().filter(|e| *e != EVENT) {
        return Err(format!(
            "toolgate answers Cursor's `{EVENT}` hook, not `{other}`"
        ));
    }
    let first_root = || {
        obj.get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| wire::absolute(roots.first()))
    };
    let command = wire::command(obj, "command")?;
    Ok(Request {
        tool_name: "Shell".into(),
        tool_input: json!({ "command": command }),
        commands: Some(vec![command]),
        event,
        cwd: wire::absolute(obj.get("cwd")).or_else(first_root),
    })
}

/// Renders a decision, turning ask into deny.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    let reason = match decision {
        Decision::Allow => return Answer::json(json!({ "permission": "allow" })),
        Decision::Deny => reason.to_string(),
        Decision::Ask => {
            format!("{reason} (needs confirmation, which Cursor hooks cannot ask for: denied)")
        }
    };
    Answer::json(json!({
        "permission": "deny",
        "user_message": reason,
        "agent_message": reason,
    }))
}
