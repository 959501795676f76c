//! Qwen Code `PreToolUse` (0.15).
//!
//! Qwen Code copied Claude Code's hooks: the payload is Claude's shape with
//! Qwen's tool names (the shell tool is `run_shell_command`, the name
//! Gemini CLI uses, but the event is `PreToolUse`, not Gemini's
//! `BeforeTool`), and the answer is Claude's:
//!
//! ```json
//! {"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": "deny", "permissionDecisionReason": "…"}}
//! ```
//!
//! Qwen reads `hookSpecificOutput.permissionDecision` first and a top-level
//! `decision` only when it is missing. Deny, ask (in `qwen -p`),
//! `{"continue": false}` and exit 2 block; allow, non-JSON output, exit 1
//! and a timeout let the call run. Headless `qwen -p` offers the shell tool
//! only in yolo mode, and there an ask is a denial already. Ask was seen to
//! block only in `-p`, so a call toolgate cannot check is denied.
//!
//! Its file tools (`read_file`, `glob`, `grep_search`, `list_directory`,
//! `write_file`, and `edit`, Gemini's `replace` renamed) are routed to the
//! hook by the matcher `install` writes ([`MATCHER`]).

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::claude::{hook_specific, specific};
use super::{by_word, field, Answer, Call, Client, InstallShape, JsonShape, Outcome, Timeout};
use crate::place::{Env, Scope};

/// Qwen Code.
pub struct QwenCode;

/// The tools toolgate's hook is routed: the shell and Qwen Code's file
/// tools, as a regular expression over the tool name, anchored so that no
/// MCP tool whose name holds one of them is sent.
pub const MATCHER: &str =
    "^(run_shell_command|read_file|glob|grep_search|list_directory|write_file|edit)$";

impl Client for QwenCode {
    fn name(&self) -> &'static str {
        "qwen"
    }

    fn title(&self) -> &'static str {
        "Qwen Code"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["qwen-code"]
    }

    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        hook_specific(decision, reason)
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn hooks_file_edits(&self) -> bool {
        true
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        let v = answer.last_json();
        if answer.exit_code == 2 || v.get("continue") == Some(&Value::Bool(false)) {
            return Outcome::Blocked;
        }
        by_word(
            specific(&v)
                .and_then(|s| s.0)
                .or_else(|| field(&v, "decision"))
                .as_deref(),
        )
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-01-01T00:00:00.000Z",
            "permission_mode": "default", "tool_name": "run_shell_command",
            "tool_input": {"command": command}, "tool_use_id": "toolgate-doctor"})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".qwen/settings.json"),
            Scope::Project(d) => d.join(".qwen/settings.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // Claude's shape, Gemini's tool name, milliseconds.
        Some(InstallShape::Json(JsonShape {
            event: "PreToolUse",
            matcher: Some(MATCHER),
            command_key: "command",
            timeout: Some(Timeout {
                key: "timeout",
                millis: true,
            }),
            typed: true,
            flags: &[],
            versioned: false,
        }))
    }
}
