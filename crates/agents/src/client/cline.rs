//! Cline CLI `PreToolUse` (3.0.65): an executable named `PreToolUse` in
//! `~/.cline/hooks` or `<workspace>/.clinerules/hooks`.
//!
//! ```json
//! {"hookName": "tool_call", "workspaceRoots": ["/home/dev/project"],
//!  "workspaceInfo": {"rootPath": "/home/dev/project"},
//!  "preToolUse": {"toolName": "run_commands",
//!                 "parameters": {"commands": "[\"rm -rf build\"]"}}}
//! ```
//!
//! The shell tool is `run_commands`, and its `commands` parameter arrives as
//! a JSON *string* holding the array of commands: every one of them is
//! classified, and the call gets the most restrictive decision. (Older
//! Clines call the shell tool `execute_command` with one `command`; it is
//! read too.)
//!
//! Only `{"cancel": true}` blocks, and it aborts the whole run (the task
//! ends `aborted`), not just the call. `{"cancel": false}`, non-JSON output,
//! exit 1, exit 2 and a timeout (120 s, fixed) all let the call run, so exit
//! 2, the answer other clients read as a block, is no answer here: give
//! `--protocol cline` in the hook. Cline has nothing like ask, and an ask
//! must not become a silent run, so ask cancels, as deny does, and so does
//! a call toolgate cannot check. Stdout is exactly `{"cancel":true}` (no
//! other field was seen to be honoured, and an answer Cline fails to read
//! is a run); the reason goes to stderr.
//!
//! The hook sees every tool call and Cline has no matcher: a call to a tool
//! other than the shell that no rule names and no `[tools.NAME]` hint
//! describes gets `{"cancel": false}`, which leaves it to Cline's own
//! approval, so that a file read does not end the run.

use std::path::PathBuf;

use serde_json::{json, Map, Value};
use toolgate_core::gate::Decision;

use super::payload::{self, Request};
use super::{Answer, Call, Client, InstallShape, Outcome};
use crate::place::{Env, Scope};

/// Cline CLI.
pub struct Cline;

impl Client for Cline {
    fn name(&self) -> &'static str {
        "cline"
    }

    fn title(&self) -> &'static str {
        "Cline"
    }

    fn parse(&self, value: &Value) -> Result<Request, String> {
        let obj = payload::object(value)?;
        let (call, name_key, params_key) = match (obj.get("preToolUse"), obj.get("tool_call")) {
            (Some(Value::Object(call)), _) => (call, "toolName", "parameters"),
            (Some(_), _) => return Err("`preToolUse` is not an object".into()),
            (None, Some(Value::Object(call))) => (call, "name", "input"),
            (None, _) => return Err("the payload has no `preToolUse`".into()),
        };
        let tool_name = payload::tool_name(call, name_key)?;
        let tool_input = payload::tool_input(call, params_key)?;
        let params = tool_input.as_object().cloned().unwrap_or_default();
        let commands = match tool_name.as_str() {
            "run_commands" => Some(commands(&params)?),
            "execute_command" => Some(vec![payload::command(&params, "command")?]),
            _ => None,
        };
        let root = obj
            .get("workspaceInfo")
            .and_then(|w| payload::absolute(w.get("rootPath")));
        let first_root = || {
            obj.get("workspaceRoots")
                .and_then(Value::as_array)
                .and_then(|roots| payload::absolute(roots.first()))
        };
        Ok(Request {
            tool_name,
            tool_input,
            commands,
            event: payload::text(obj.get("hookName")),
            cwd: root.or_else(first_root),
            permission_mode: None,
        })
    }

    /// Renders a decision: allow is `{"cancel": false}`; ask and deny
    /// cancel, with the reason on stderr.
    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        let why = match decision {
            Decision::Allow | Decision::NoOpinion => return no_opinion(),
            Decision::Deny => format!("{reason} (cancelled: this ends the Cline run)"),
            Decision::Ask => format!(
                "{reason} (needs confirmation, which Cline hooks cannot ask for: cancelled, \
                 which ends the Cline run)"
            ),
        };
        Answer {
            stderr: format!("{why}\n"),
            ..Answer::json(json!({ "cancel": true }))
        }
    }

    fn no_opinion(&self) -> Option<Answer> {
        Some(no_opinion())
    }

    fn no_opinion_note(&self) -> Option<&'static str> {
        Some(
            "Cline runs a command its hook leaves alone as its own approval says: with \
             auto-approve on (`cline -y`, or commands auto-approved in its settings) unknown \
             commands run unasked. For a stop on them too, install with `--mode balanced` \
             (an ask, which Cline can only honour by cancelling the run) or `--mode restricted` \
             (a denial, which cancels the run as well).",
        )
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn sees_every_tool(&self) -> bool {
        true
    }

    fn hooks_file_edits(&self) -> bool {
        true
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        match answer.last_json().get("cancel") {
            Some(Value::Bool(true)) => Outcome::Blocked,
            Some(Value::Bool(false)) => Outcome::Runs,
            _ => Outcome::NoDecision,
        }
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "clineVersion": "", "taskId": "toolgate-doctor", "workspaceRoots": [cwd],
            "workspaceInfo": {"rootPath": cwd}, "hookName": "tool_call",
            "preToolUse": {"toolName": "run_commands",
                           "parameters": {"commands": Value::from(vec![command]).to_string()}}})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".cline/hooks/PreToolUse"),
            Scope::Project(d) => d.join(".clinerules/hooks/PreToolUse"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        Some(InstallShape::Script)
    }
}

/// `{"cancel": false}`: Cline's own approval decides.
fn no_opinion() -> Answer {
    Answer::json(json!({ "cancel": false }))
}

/// The commands of a `run_commands` call. Cline hands the hook the array
/// as JSON text; an array that is already an array is taken as it is. Text
/// that is not a JSON array of strings is read as one command: that is
/// what a model that sent a plain string meant, and the classifier judges
/// it like any other command.
fn commands(params: &Map<String, Value>) -> Result<Vec<String>, String> {
    let list = match params.get("commands") {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => strings(&items)?,
            Ok(Value::String(one)) => vec![one],
            _ => vec![text.clone()],
        },
        Some(Value::Array(items)) => strings(items)?,
        Some(Value::Null) | None => return Err("the shell call has no command".into()),
        Some(_) => return Err("`commands` is not a string or an array".into()),
    };
    if list.is_empty() {
        return Err("the shell call has no command".into());
    }
    if list.iter().any(|c| c.trim().is_empty()) {
        return Err("the shell call has an empty command".into());
    }
    Ok(list)
}

fn strings(items: &[Value]) -> Result<Vec<String>, String> {
    items
        .iter()
        .map(|i| {
            i.as_str()
                .map(String::from)
                .ok_or_else(|| "a command in `commands` is not a string".to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn cmds(v: Value) -> Result<Vec<String>, String> {
        let params = v.as_object().cloned().unwrap_or_default();
        commands(&params)
    }

    #[test]
    fn run_commands_are_read_in_every_spelling() {
        let two = vec!["git status".to_string(), "rm -rf build".to_string()];
        for (params, want) in [
            (
                json!({"commands": "[\"git status\", \"rm -rf build\"]"}),
                Ok(two.clone()),
            ),
            (json!({"commands": ["git status", "rm -rf build"]}), Ok(two)),
            (json!({"commands": "\"ls\""}), Ok(vec!["ls".to_string()])),
            (
                json!({"commands": "ls -la"}),
                Ok(vec!["ls -la".to_string()]),
            ),
            (json!({"commands": "true"}), Ok(vec!["true".to_string()])),
            (
                json!({"commands": "[]"}),
                Err("the shell call has no command"),
            ),
            (
                json!({"commands": []}),
                Err("the shell call has no command"),
            ),
            (json!({}), Err("the shell call has no command")),
            (
                json!({"commands": null}),
                Err("the shell call has no command"),
            ),
            (
                json!({"commands": "[\"ls\", 5]"}),
                Err("a command in `commands` is not a string"),
            ),
            (
                json!({"commands": ["ls", " "]}),
                Err("the shell call has an empty command"),
            ),
            (
                json!({"commands": 5}),
                Err("`commands` is not a string or an array"),
            ),
        ] {
            let got = cmds(params.clone());
            assert_eq!(got, want.map_err(String::from), "{params}");
        }
    }
}
