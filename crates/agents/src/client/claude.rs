//! Claude Code `PreToolUse`.
//!
//! Answer on stdout, exit 0:
//!
//! ```json
//! {"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": "deny", "permissionDecisionReason": "…"}}
//! ```
//!
//! Claude Code honours allow, ask and deny; in headless `claude -p` an ask
//! ends as a denial. Exit 0 with nothing on stdout is no decision at all:
//! the user's own permission rules and prompts apply. Its file tools
//! (`Read`, `Grep`, `Glob`, `Write`, `Edit`, `MultiEdit`, `NotebookEdit`)
//! are routed to the hook by the matcher `install` writes ([`MATCHER`]).

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::{by_word, Answer, Call, Client, InstallShape, JsonShape, Outcome, Timeout};
use crate::place::{Env, Scope};

/// Claude Code.
pub struct ClaudeCode;

/// The tools toolgate's hook is routed: the shell, and Claude Code's own
/// file tools (a matcher is a regular expression over the tool name).
pub const MATCHER: &str = "Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit";

/// Claude Code's answer to `decision`, which Codex and Qwen Code read too.
pub(super) fn hook_specific(decision: Decision, reason: &str) -> Answer {
    Answer::json(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision.as_str(),
            "permissionDecisionReason": reason,
        }
    }))
}

/// The `permissionDecision` (and its reason) of a `hookSpecificOutput`.
pub(super) fn specific(v: &Value) -> Option<(Option<String>, Option<String>)> {
    v.get("hookSpecificOutput").map(|h| {
        (
            super::field(h, "permissionDecision"),
            super::field(h, "permissionDecisionReason"),
        )
    })
}

impl Client for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn title(&self) -> &'static str {
        "Claude Code"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["claude-code"]
    }

    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        hook_specific(decision, reason)
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Ask
    }

    fn hooks_file_edits(&self) -> bool {
        true
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        if answer.exit_code == 2 {
            return Outcome::Blocked;
        }
        by_word(specific(&answer.last_json()).and_then(|s| s.0).as_deref())
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "toolgate doctor canary"},
            "tool_use_id": "toolgate-doctor"})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".claude/settings.json"),
            Scope::Project(d) => d.join(".claude/settings.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // `timeout` in seconds.
        // Its file tools too: a secret read gets the destructive answer,
        // an edit of a guard file is denied, everything else no opinion.
        Some(InstallShape::Json(JsonShape {
            event: "PreToolUse",
            matcher: Some(MATCHER),
            command_key: "command",
            timeout: Some(Timeout {
                key: "timeout",
                millis: false,
            }),
            typed: true,
            flags: &[],
            versioned: false,
        }))
    }
}
