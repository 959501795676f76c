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

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::payload::{self, Request};
use super::{Answer, Call, Client, InstallShape, JsonShape, Outcome};
use crate::place::{Env, Scope};

/// The action toolgate answers.
const ACTION: &str = "pre_run_command";

/// Windsurf Cascade (from its documentation, unverified).
pub struct Windsurf;

impl Client for Windsurf {
    fn name(&self) -> &'static str {
        "windsurf"
    }

    fn title(&self) -> &'static str {
        "Windsurf"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["cascade"]
    }

    fn parse(&self, value: &Value) -> Result<Request, String> {
        let obj = payload::object(value)?;
        let action = payload::text(obj.get("agent_action_name"));
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
            commands: Some(vec![payload::command(info, "command_line")?]),
            event: action,
            cwd: payload::absolute(info.get("cwd")),
            permission_mode: None,
        })
    }

    /// Exit 0 for allow, exit 2 for the rest.
    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        match decision {
            Decision::Allow => Answer::silent(),
            Decision::Deny => Answer::blocked(reason),
            Decision::Ask | Decision::NoOpinion => Answer::blocked(&format!(
                "{reason} (needs confirmation, which Windsurf hooks cannot ask for: blocked)"
            )),
        }
    }

    /// Unverified: Windsurf reads only exit 2, so exit 0 (which runs the
    /// command) is the one other answer there is; with no permission flow
    /// of its own known to follow, none is given.
    fn no_opinion(&self) -> Option<Answer> {
        None
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        match answer.exit_code {
            0 => Outcome::Runs,
            2 => Outcome::Blocked,
            _ => Outcome::NoDecision,
        }
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "agent_action_name": "pre_run_command", "trajectory_id": "toolgate-doctor",
            "tool_info": {"command_line": command, "cwd": cwd}})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".codeium/windsurf/hooks.json"),
            Scope::Project(d) => d.join(".windsurf/hooks.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // Show the reason toolgate prints on a block.
        Some(InstallShape::Json(JsonShape {
            event: "pre_run_command",
            matcher: None,
            command_key: "command",
            timeout: None,
            typed: false,
            flags: &[("show_output", true)],
            versioned: false,
        }))
    }

    fn after_install(&self, _scope: &Scope) -> Option<&'static str> {
        Some(
            "This client's hook format is taken from its documentation and was not checked \
             against a running client: run `toolgate doctor` and try one command.",
        )
    }
}
