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

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::payload::{self, Request};
use super::{by_word, field, Answer, Call, Client, InstallShape, JsonShape, Outcome};
use crate::place::{Env, Scope};

/// The event toolgate answers.
const EVENT: &str = "beforeShellExecution";

/// Cursor (from its documentation, unverified).
pub struct Cursor;

impl Client for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn title(&self) -> &'static str {
        "Cursor"
    }

    fn parse(&self, value: &Value) -> Result<Request, String> {
        let obj = payload::object(value)?;
        let event = payload::text(obj.get("hook_event_name"));
        if let Some(other) = event.as_deref().filter(|e| *e != EVENT) {
            return Err(format!(
                "toolgate answers Cursor's `{EVENT}` hook, not `{other}`"
            ));
        }
        let first_root = || {
            obj.get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| payload::absolute(roots.first()))
        };
        let command = payload::command(obj, "command")?;
        Ok(Request {
            tool_name: "Shell".into(),
            tool_input: json!({ "command": command }),
            commands: Some(vec![command]),
            event,
            cwd: payload::absolute(obj.get("cwd")).or_else(first_root),
            permission_mode: None,
        })
    }

    /// Ask becomes deny: Cursor's hooks cannot ask.
    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        let reason = match decision {
            Decision::Allow => return Answer::json(json!({ "permission": "allow" })),
            Decision::Deny => reason.to_string(),
            Decision::Ask | Decision::NoOpinion => {
                format!("{reason} (needs confirmation, which Cursor hooks cannot ask for: denied)")
            }
        };
        Answer::json(json!({
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
        }))
    }

    /// Unverified: Cursor's documentation names no answer that leaves the
    /// call to its own approval, so none is given (an ask, which becomes
    /// a deny, is answered instead).
    fn no_opinion(&self) -> Option<Answer> {
        None
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        by_word(field(&answer.last_json(), "permission").as_deref())
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "hook_event_name": "beforeShellExecution", "conversation_id": "toolgate-doctor",
            "workspace_roots": [cwd], "command": command, "cwd": cwd})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".cursor/hooks.json"),
            Scope::Project(d) => d.join(".cursor/hooks.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // Cursor documents no timeout field that is known to be read.
        Some(InstallShape::Json(JsonShape {
            event: "beforeShellExecution",
            matcher: None,
            command_key: "command",
            timeout: None,
            typed: false,
            flags: &[],
            versioned: true,
        }))
    }

    fn after_install(&self, _scope: &Scope) -> Option<&'static str> {
        Some(
            "This client's hook format is taken from its documentation and was not checked \
             against a running client: run `toolgate doctor` and try one command.",
        )
    }
}
