//! Codex `PreToolUse` (0.171).
//!
//! Codex reads the same `hookSpecificOutput` answer as Claude Code but
//! honours only allow and deny: it *runs the command* when the hook answers
//! `ask`, denies without a non-empty reason, prints non-JSON, exits non-zero
//! other than 2, or passes its timeout. So every ask becomes a deny, and
//! every deny carries a reason.

use super::{claude, Answer};
use toolgate_core::gate::Decision;

/// Renders a decision, turning ask into deny.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    let reason = if reason.trim().is_empty() {
        "denied by toolgate"
    } else {
        reason
    };
    match decision {
        Decision::Allow => claude::answer(Decision::Allow, reason),
        Decision::Deny => claude::answer(Decision::Deny, reason),
        Decision::Ask => claude::answer(
            Decision::Deny,
            &format!("{reason} (needs confirmation, which Codex hooks cannot ask for: denied)"),
        ),
    }
}
