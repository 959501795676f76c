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

use super::{claude, Answer};
use toolgate_core::gate::Decision;

/// Renders a decision.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    claude::answer(decision, reason)
}
