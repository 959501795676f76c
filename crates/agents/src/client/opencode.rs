//! OpenCode (1.18), through the plugin toolgate ships.
//!
//! OpenCode has no command hooks for tool calls. A plugin's
//! `tool.execute.before(input, output)` is the one place a call can be
//! stopped: throwing (or rejecting) blocks it, and the tool part ends
//! `status: "error"` with the message; a hook that never settles hangs the
//! run. [`PLUGIN`] (`opencode_plugin.js` beside this file) bridges that to this
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
//! {"decision": "allow" | "no_opinion" | "ask" | "deny", "reason": "…"}
//! ```
//!
//! The plugin lets the call run only on a clean allow (exit 0, that JSON,
//! `"allow"`), and leaves it to OpenCode's own permissions on
//! `"no_opinion"`; ask, deny, anything else on stdout, a non-zero exit, a
//! failure to start and its own timeout (it kills the child) all throw. A
//! plugin cannot ask a person, so ask blocks, interactively and in
//! `opencode run` alike, and a call toolgate cannot check is denied.
//!
//! The working directory is the bash call's own `workdir` when that is
//! absolute, else the plugin's `directory`; a relative `workdir` leaves it
//! unknown.

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::payload::{self, Request};
use super::{field, Answer, Call, Client, InstallShape, Outcome};
use crate::place::{Env, Scope};

/// The plugin's source, for `toolgate install opencode` to write into
/// `.opencode/plugins/` or `~/.config/opencode/plugins/`.
pub const PLUGIN: &str = include_str!("opencode_plugin.js");

/// OpenCode, through toolgate's plugin.
pub struct OpenCode;

impl Client for OpenCode {
    fn name(&self) -> &'static str {
        "opencode"
    }

    fn title(&self) -> &'static str {
        "OpenCode"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["open-code"]
    }

    fn parse(&self, value: &Value) -> Result<Request, String> {
        let obj = payload::object(value)?;
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
        let tool_input = payload::tool_input(output, "args")?;
        let cwd = match tool_input.get("workdir") {
            Some(Value::Null) | None => payload::absolute(obj.get("directory")),
            Some(dir) => payload::absolute(Some(dir)),
        };
        let tool_name = payload::tool_name(input, "tool")?;
        // OpenCode's shell tool, read as one whatever `shell_tools` says.
        let commands = match tool_name.as_str() {
            "bash" => {
                let args = tool_input.as_object().cloned().unwrap_or_default();
                Some(vec![payload::command(&args, "command")?])
            }
            _ => None,
        };
        Ok(Request {
            tool_name,
            tool_input,
            commands,
            event: None,
            cwd,
            permission_mode: None,
        })
    }

    /// Ask stays ask: the plugin blocks it and says why.
    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        Answer::json(json!({ "decision": decision.as_str(), "reason": reason }))
    }

    fn no_opinion(&self) -> Option<Answer> {
        Some(Answer::json(json!({
            "decision": Decision::NoOpinion.as_str(),
            "reason": "left to OpenCode's own permissions",
        })))
    }

    fn no_opinion_note(&self) -> Option<&'static str> {
        Some(
            "OpenCode runs a command its plugin leaves alone as its `permission.bash` setting \
             says: where that is `allow` (OpenCode's default when nothing is set), unknown \
             commands run unasked. For a stop on them too, set `\"permission\": {\"bash\": \
             \"ask\"}` in opencode.json, or install with `--mode restricted` (the plugin \
             cannot ask, so `--mode balanced` blocks unknown commands as well).",
        )
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        match (
            answer.exit_code,
            field(&answer.last_json(), "decision").as_deref(),
        ) {
            (0, Some("allow")) => Outcome::Runs,
            (0, Some("no_opinion")) => Outcome::NoDecision,
            _ => Outcome::Blocked,
        }
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "input": {"tool": "bash", "sessionID": "toolgate-doctor", "callID": "toolgate-doctor"},
            "output": {"args": {"command": command}}, "directory": cwd})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.config_home()?.join("opencode/plugins/toolgate.js"),
            Scope::Project(d) => d.join(".opencode/plugins/toolgate.js"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        Some(InstallShape::OpenCodePlugin)
    }

    fn after_install(&self, _scope: &Scope) -> Option<&'static str> {
        Some("Restart OpenCode to load the plugin; it needs the toolgate binary named in it.")
    }
}
