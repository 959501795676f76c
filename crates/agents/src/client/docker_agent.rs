//! The `docker-agent` protocol: an agent runtime's snake_case hook shape.
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

use std::path::PathBuf;

use serde_json::{json, Map, Value};
use toolgate_core::gate::Decision;

use super::{by_word, field, Answer, Call, Client, InstallShape, Outcome};
use crate::place::{Env, Scope};

/// The `docker-agent` protocol's snake_case hook shape.
pub struct DockerAgent;

impl Client for DockerAgent {
    fn name(&self) -> &'static str {
        "docker-agent"
    }

    fn title(&self) -> &'static str {
        "a docker-agent runtime"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["docker_agent", "seed"]
    }

    /// The decision and the label's metadata (with `--label-only`, only
    /// the label).
    fn answer(&self, decision: Decision, reason: &str, call: &Call<'_>) -> Answer {
        let mut out = Map::new();
        let event = call.request.and_then(|r| r.event.as_deref());
        out.insert(
            "hook_event_name".into(),
            Value::String(event.unwrap_or("pre_tool_use").to_string()),
        );
        if !call.label_only {
            out.insert(
                "permission_decision".into(),
                Value::String(decision.as_str().into()),
            );
            out.insert(
                "permission_decision_reason".into(),
                Value::String(reason.into()),
            );
        }
        let metadata: Map<String, Value> = call
            .label
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

    /// The runtime always wants a decision.
    fn no_opinion(&self) -> Option<Answer> {
        None
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Ask
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        let v = answer.last_json();
        let out = v
            .get("hook_specific_output")
            .cloned()
            .unwrap_or(Value::Null);
        by_word(field(&out, "permission_decision").as_deref())
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "session_id": "toolgate-doctor", "cwd": cwd, "hook_event_name": "pre_tool_use",
            "tool_name": "shell", "tool_input": {"cmd": command}})
    }

    fn settings_path(&self, _scope: &Scope, _env: &Env) -> Option<PathBuf> {
        None
    }

    fn install_shape(&self) -> Option<InstallShape> {
        None
    }
}
