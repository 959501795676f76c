//! Guards: per-call checks a profile can add, in a fixed order — deny list,
//! allow list, tool calls per step, cost budget, write approval, and apply
//! approval for the special `__apply__` tool.

use serde::{Deserialize, Serialize};

use toolgate_core::gate::glob_match;

/// The tool name that applies a plan's changes.
pub const APPLY_TOOL: &str = "__apply__";

/// A profile's guards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guards {
    /// Tools (globs) that may never run.
    #[serde(default)]
    pub deny: Vec<String>,
    /// When not empty, only these tools (globs) may run.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Tool calls allowed in one step.
    pub max_tool_calls_per_step: Option<u32>,
    /// Cost allowed in all.
    pub cost_budget: Option<f64>,
    /// Writes need approval.
    #[serde(default)]
    pub require_write_approval: bool,
    /// `__apply__` needs approval.
    #[serde(default)]
    pub require_apply_approval: bool,
}

/// What a guard check knows about the call.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GuardInput {
    /// The tool.
    pub tool: String,
    /// The call writes.
    pub writes: bool,
    /// Tool calls already made in this step.
    pub calls_this_step: u32,
    /// Cost spent so far.
    pub cost_spent: f64,
    /// The safety profile's total cost limit, if any: the tighter of it and
    /// the guard budget applies.
    pub safety_cost_limit: Option<f64>,
}

/// A guard's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuardDecision {
    /// The call may run (perhaps after approval).
    pub allowed: bool,
    /// Why, for a person.
    pub reason: String,
    /// A person must approve first.
    pub requires_approval: bool,
}

impl GuardDecision {
    fn block(reason: String) -> GuardDecision {
        GuardDecision {
            allowed: false,
            reason,
            requires_approval: false,
        }
    }
}

impl Guards {
    /// Checks one call; the first guard that objects decides.
    ///
    /// ```
    /// use toolgate_policy::{GuardInput, Guards};
    /// let g = Guards { deny: vec!["shell".into()], ..Guards::default() };
    /// let d = g.check(&GuardInput { tool: "shell".into(), ..GuardInput::default() });
    /// assert!(!d.allowed);
    /// ```
    pub fn check(&self, input: &GuardInput) -> GuardDecision {
        let tool = input.tool.as_str();
        if let Some(rule) = self.deny.iter().find(|d| glob_match(d, tool)) {
            return GuardDecision::block(format!("`{tool}` is on the deny list (`{rule}`)"));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|a| glob_match(a, tool)) {
            return GuardDecision::block(format!("`{tool}` is not on the allow list"));
        }
        if let Some(max) = self.max_tool_calls_per_step {
            if input.calls_this_step >= max {
                return GuardDecision::block(format!(
                    "{} tool calls already made in this step (limit {max})",
                    input.calls_this_step
                ));
            }
        }
        let budget = match (self.cost_budget, input.safety_cost_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(budget) = budget {
            if input.cost_spent >= budget {
                return GuardDecision::block(format!(
                    "the cost budget is spent: {} of {budget}",
                    input.cost_spent
                ));
            }
        }
        if self.require_write_approval && input.writes {
            return GuardDecision {
                allowed: true,
                reason: format!("`{tool}` writes; writes need approval"),
                requires_approval: true,
            };
        }
        if self.require_apply_approval && tool == APPLY_TOOL {
            return GuardDecision {
                allowed: true,
                reason: "applying the plan needs approval".into(),
                requires_approval: true,
            };
        }
        GuardDecision {
            allowed: true,
            reason: "no guard objects".into(),
            requires_approval: false,
        }
    }
}
