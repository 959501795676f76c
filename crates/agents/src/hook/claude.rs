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
//! ends as a denial.

use serde_json::json;

use super::Answer;
use toolgate_core::gate::Decision;

/// Renders a decision.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    Answer::json(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision.as_str(),
            "permissionDecisionReason": reason,
        }
    }))
}
