//! Gemini CLI `BeforeTool` (0.61).
//!
//! Answer `{"decision": "allow"|"deny"|"ask", "reason": "…"}` with exit 0
//! (exit 2 also denies; exit 1 lets the call run). In headless `gemini -p` an
//! ask waits for a person who is not there until the CLI times out, so
//! `--headless` (or `TOOLGATE_HEADLESS=1`) turns ask into deny before the
//! answer is rendered here.

use serde_json::json;

use super::Answer;
use toolgate_core::gate::Decision;

/// Renders a decision.
pub fn answer(decision: Decision, reason: &str) -> Answer {
    Answer::json(json!({ "decision": decision.as_str(), "reason": reason }))
}
