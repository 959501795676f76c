//! Windsurf Cascade `pre_run_command` (from Windsurf's documentation; not
//! yet checked against a running Windsurf).
//!
//! A hook in `hooks.json` (`~/.codeium/windsurf/hooks.json`,
//! `.windsurf/hooks.json` or `/etc/windsurf/hooks.json`) gets:
//!
//! ```json
//! {"agent_action_name": "pre_run_command", "trajectory_id": "…",
//!  "execution_id": "…", "timestamp": "…",
//!  "tool_info": {"command_line": "rm -rf build", "cwd": "/home/dev/project"}}
//! ```
//!
//! Cascade reads no decision from stdout: exit 2 blocks (stderr is the
//! reason), exit 0 lets the command run, and any other exit is an error
//! that lets it run too. So allow is a silent exit 0; ask (Cascade has no
//! ask), deny and a call toolgate cannot check are exit 2 with the reason
//! on stderr. Only this action is read: under `--protocol windsurf` any
//! other is blocked with a reason rather than misread.

use serde_json::Value;

use super::wire::{self, Request};
use super::Answer;
use toolgate_core::gate::Decision;

/// The action toolgate answers.
const ACTION: &str = "pre_run_command";

/// Reads the payload.
pub fn parse(payload: &Value) -> Result<Request, String> {
    let obj = wire::object(payload)?;
    let action = wire::text(obj.get("agent_action_name"));
    if let Some(other) = action.as_deref().filter(|a| *a != ACTION) {
        return Err(format!(
            "toolgate answers Windsurf's `{ACTION}` hook, not `{other}`"
        ));
    }
    let info = match obj.get("tool_info") {
        Some(Value::Object(info)) => info,
        Some(_) => return Err("`tool_info` is not an object".into()),
        None => return Err("the payload has no `tool_info`".into()),
    };
    Ok(Request {
        tool_name: "run_command".into(),
        tool_input: Value::Object(info.clone()),
        commands: Some(vec![wire::command(info, "command_line")?]),
        event: action,
        cwd: wire::absolute(info.get("cwd")),
    })
}

/// Renders a decision: exit 0 for allow, exit 2 for the rest.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    match decision {
        Decision::Allow => Answer {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: 0,
        },
        Decision::Deny => Answer::blocked(reason),
        Decision::Ask => Answer::blocked(&format!(
            "{reason} (needs confirmation, which Windsurf hooks cannot ask for: blocked)"
        )),
    }
}
