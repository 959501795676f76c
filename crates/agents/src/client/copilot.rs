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

use std::path::PathBuf;

use serde_json::{json, Map, Value};
use toolgate_core::gate::Decision;

use super::payload::{self, Request};
use super::{by_word, field, Answer, Call, Client, InstallShape, JsonShape, Outcome, Timeout};
use crate::place::{Env, Scope};

const SHELL_TOOLS: &[&str] = &["bash", "powershell", "Bash"];

/// GitHub Copilot CLI.
pub struct CopilotCli;

impl Client for CopilotCli {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn title(&self) -> &'static str {
        "GitHub Copilot CLI"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["copilot-cli", "github-copilot"]
    }

    fn parse(&self, value: &Value) -> Result<Request, String> {
        let obj = payload::object(value)?;
        let mut request = if obj.contains_key("tool_name") {
            payload::parse_common(value)?
        } else {
            let tool_input = match obj.get("toolArgs") {
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => return Err("`toolArgs` is a string but not a JSON object".into()),
                },
                _ => payload::tool_input(obj, "toolArgs")?,
            };
            Request {
                tool_name: payload::tool_name(obj, "toolName")?,
                tool_input,
                commands: None,
                event: None,
                cwd: payload::absolute(obj.get("cwd")),
                permission_mode: None,
            }
        };
        if SHELL_TOOLS.contains(&request.tool_name.as_str()) {
            let args = request.tool_input.as_object().cloned().unwrap_or_default();
            request.commands = Some(vec![payload::command(&args, "command")?]);
        }
        Ok(request)
    }

    /// The top-level answer, and Claude's shape too for a Claude-format
    /// payload (one that names its event).
    fn answer(&self, decision: Decision, reason: &str, call: &Call<'_>) -> Answer {
        let claude_format = call.request.is_some_and(|r| r.event.is_some());
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
        if answer.exit_code == 1 || answer.exit_code == 2 {
            return Outcome::Blocked;
        }
        by_word(field(&answer.last_json(), "permissionDecision").as_deref())
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "sessionId": "toolgate-doctor", "timestamp": 0, "cwd": cwd,
            "toolName": "bash", "toolArgs": {"command": command}})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".copilot/hooks/toolgate.json"),
            Scope::Project(d) => d.join(".github/hooks/toolgate.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // Copilot's own format: `bash`, `timeoutSec`.
        Some(InstallShape::Json(JsonShape {
            event: "preToolUse",
            matcher: None,
            command_key: "bash",
            timeout: Some(Timeout {
                key: "timeoutSec",
                millis: false,
            }),
            typed: true,
            flags: &[],
            versioned: true,
        }))
    }

    fn after_install(&self, scope: &Scope) -> Option<&'static str> {
        match scope {
            Scope::Project(_) => Some(
                "Copilot loads repository hooks in `copilot -p` only when the folder is trusted.",
            ),
            Scope::User => None,
        }
    }
}
