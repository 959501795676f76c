//! The seed runtime's hook shape (snake_case).
//!
//! ```json
//! {"hook_specific_output": {"hook_event_name": "pre_tool_use",
//!   "permission_decision": "ask", "permission_decision_reason": "…",
//!   "metadata": {"safety_label": "destructive", "blast_radius": "high",
//!                "category": "fs-delete", "reason": "…"}}}
//! ```
//!
//! In label-only mode the answer carries the metadata and no decision, for
//! runtimes that gate by themselves and only want the label.

use serde_json::{json, Map, Value};

use super::Answer;
use toolgate_core::gate::Decision;
use toolgate_core::label::Label;

/// Renders a decision (or, with `decision` `None`, only the label).
pub fn answer(
    decision: Option<Decision>,
    reason: &str,
    label: Option<&Label>,
    event: Option<&str>,
) -> Answer {
    let mut out = Map::new();
    out.insert(
        "hook_event_name".into(),
        Value::String(event.unwrap_or("pre_tool_use").to_string()),
    );
    if let Some(d) = decision {
        out.insert(
            "permission_decision".into(),
            Value::String(d.as_str().into()),
        );
        out.insert(
            "permission_decision_reason".into(),
            Value::String(reason.into()),
        );
    }
    let metadata: Map<String, Value> = label
        .map(|l| {
            l.metadata()
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v)))
                .collect()
        })
        .unwrap_or_default();
    out.insert("metadata".into(), Value::Object(metadata));
    Answer::json(json!({ "hook_specific_output": out }))
}
