//! OpenCode (1.18), through the plugin toolgate ships.
//!
//! OpenCode has no command hooks for tool calls. A plugin's
//! `tool.execute.before(input, output)` is the one place a call can be
//! stopped: throwing (or rejecting) blocks it, and the tool part ends
//! `status: "error"` with the message; a hook that never settles hangs the
//! run. [`PLUGIN`] (`src/hook/opencode_plugin.js`) bridges that to this
//! command: for each shell call it runs `toolgate hook --protocol opencode`
//! with what OpenCode gave it, plus the plugin's `directory`, on stdin:
//!
//! ```json
//! {"input": {"tool": "bash", "sessionID": "…", "callID": "…"},
//!  "output": {"args": {"command": "rm -rf build"}},
//!  "directory": "/home/dev/project"}
//! ```
//!
//! and reads one answer on stdout:
//!
//! ```json
//! {"decision": "allow" | "ask" | "deny", "reason": "…"}
//! ```
//!
//! The plugin lets the call run only on a clean allow (exit 0, that JSON,
//! `"allow"`); ask, deny, anything else on stdout, a non-zero exit, a
//! failure to start and its own timeout (it kills the child) all throw. A
//! plugin cannot ask a person, so ask blocks, interactively and in
//! `opencode run` alike, and a call toolgate cannot check is denied.
//!
//! The working directory is the bash call's own `workdir` when that is
//! absolute, else the plugin's `directory`; a relative `workdir` leaves it
//! unknown.

use serde_json::{json, Value};

use super::wire::{self, Request};
use super::Answer;
use toolgate_core::gate::Decision;

/// The plugin's source, for `toolgate install opencode` to write into
/// `.opencode/plugins/` or `~/.config/opencode/plugins/`.
pub const PLUGIN: &str = include_str!("opencode_plugin.js");

/// Reads what the plugin sends.
pub fn parse(payload: &Value) -> Result<Request, String> {
    let obj = wire::object(payload)?;
    let input = match obj.get("input") {
        Some(Value::Object(i)) => i,
        Some(_) => return Err("`input` is not an object".into()),
        None => return Err("the payload has no `input`".into()),
    };
    let output = match obj.get("output") {
        Some(Value::Object(o)) => o,
        Some(_) => return Err("`output` is not an object".into()),
        None => return Err("the payload has no `output`".into()),
    };
    let tool_input = wire::tool_input(output, "args")?;
    let cwd = match tool_input.get("workdir") {
        Some(Value::Null) | None => wire::absolute(obj.get("directory")),
        Some(dir) => wire::absolute(Some(dir)),
    };
    let tool_name = wire::tool_name(input, "tool")?;
    // OpenCode's shell tool, read as one whatever `shell_tools` says.
    let commands = match tool_name.as_str() {
        "bash" => {
            let args = tool_input.as_object().cloned().unwrap_or_default();
            Some(vec![wire::command(&args, "command")?])
        }
        _ => None,
    };
    Ok(Request {
        tool_name,
        tool_input,
        commands,
        event: None,
        cwd,
    })
}

/// Renders a decision. Ask stays ask: the plugin blocks it and says why.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    Answer::json(json!({ "decision": decision.as_str(), "reason": reason }))
}
