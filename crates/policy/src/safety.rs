//! Safety profiles on their own: the hard constraints checked before a tool
//! call runs, in a fixed order where the first failure wins, each failure a
//! distinct error under [`ToolRuntimeError`].
//!
//! Order: read-only plan → checkpoints → unsafe tools → skill categories →
//! sandbox → human approval → cost limits → retry limit. Without a safety
//! profile only the plan's own read-only and checkpoint flags apply.

use std::sync::OnceLock;

use serde::Serialize;

use super::automation::SafetyProfile;

/// What the runtime knows about one tool call and the plan it belongs to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ToolCallContext {
    /// The tool's name, for messages.
    pub tool: String,
    /// The call writes (files, state, remote systems).
    pub writes: bool,
    /// The plan is read-only: writes are blocked whatever the profile.
    pub plan_read_only: bool,
    /// The plan itself asks for checkpoints.
    pub plan_requires_checkpoints: bool,
    /// The tool can be checkpointed (its effects rolled back).
    pub checkpointable: bool,
    /// The tool is marked unsafe.
    pub unsafe_tool: bool,
    /// The tool's skill category, if its metadata has one.
    pub skill_category: Option<String>,
    /// The sandbox the call runs in, if any.
    pub sandbox_id: Option<String>,
    /// A person's approval is recorded for this call.
    pub human_approved: bool,
    /// Cost spent so far in this plan.
    pub plan_cost: f64,
    /// Cost spent so far overall.
    pub total_cost: f64,
    /// Retries of this step so far.
    pub retries: u32,
}

/// Why a tool call may not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolRuntimeError {
    /// The plan is read-only and the call writes.
    #[error("`{tool}` writes, and the plan is read-only")]
    ReadOnlyPlan {
        /// The tool.
        tool: String,
    },
    /// Checkpoints are required and the tool cannot be checkpointed.
    #[error("`{tool}` cannot be checkpointed, and checkpoints are required")]
    CheckpointRequired {
        /// The tool.
        tool: String,
    },
    /// The tool is unsafe and the profile does not allow unsafe tools.
    #[error("`{tool}` is marked unsafe, and the profile does not allow unsafe tools")]
    UnsafeToolBlocked {
        /// The tool.
        tool: String,
    },
    /// The profile allows only some skill categories and the tool has none.
    #[error("`{tool}` has no skill category in its metadata; the profile allows only: {allowed}")]
    SkillCategoryMissing {
        /// The tool.
        tool: String,
        /// The allowed categories, comma-separated.
        allowed: String,
    },
    /// The tool's skill category is not on the allow-list.
    #[error("`{tool}` is in skill category `{category}`; the profile allows only: {allowed}")]
    SkillCategoryNotAllowed {
        /// The tool.
        tool: String,
        /// Its category.
        category: String,
        /// The allowed categories, comma-separated.
        allowed: String,
    },
    /// The call writes outside a sandbox.
    #[error("`{tool}` writes, and the profile requires a sandbox id for writes")]
    SandboxRequired {
        /// The tool.
        tool: String,
    },
    /// No human approval is recorded.
    #[error("`{tool}` needs a person's approval, and none is recorded")]
    HumanApprovalRequired {
        /// The tool.
        tool: String,
    },
    /// A cost limit is reached.
    #[error("the {which} cost limit is reached: {spent} spent of {limit}")]
    CostLimitReached {
        /// `per-plan` or `total`.
        which: &'static str,
        /// Spent so far.
        spent: f64,
        /// The limit.
        limit: f64,
    },
    /// Too many retries.
    #[error("{retries} retries exceed the limit of {max} per step")]
    RetryLimitExceeded {
        /// Retries so far.
        retries: u32,
        /// The limit.
        max: u32,
    },
}

/// Checks one call against a safety profile (or, with none, against the
/// plan's own flags only). The first failure in the fixed order wins.
pub fn enforce(
    profile: Option<&SafetyProfile>,
    ctx: &ToolCallContext,
) -> Result<(), ToolRuntimeError> {
    let tool = || ctx.tool.clone();
    if ctx.plan_read_only && ctx.writes {
        return Err(ToolRuntimeError::ReadOnlyPlan { tool: tool() });
    }
    let checkpoints =
        ctx.plan_requires_checkpoints || profile.is_some_and(|p| p.require_checkpoints);
    if checkpoints && !ctx.checkpointable {
        return Err(ToolRuntimeError::CheckpointRequired { tool: tool() });
    }
    let Some(p) = profile else {
        return Ok(());
    };
    if ctx.unsafe_tool && !p.allow_unsafe_tools {
        return Err(ToolRuntimeError::UnsafeToolBlocked { tool: tool() });
    }
    if !p.allowed_skill_categories.is_empty() {
        let allowed = p.allowed_skill_categories.join(", ");
        match ctx
            .skill_category
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            None => {
                return Err(ToolRuntimeError::SkillCategoryMissing {
                    tool: tool(),
                    allowed,
                })
            }
            Some(c) if !p.allowed_skill_categories.iter().any(|a| a == c) => {
                return Err(ToolRuntimeError::SkillCategoryNotAllowed {
                    tool: tool(),
                    category: c.to_string(),
                    allowed,
                })
            }
            Some(_) => {}
        }
    }
    if p.require_sandbox
        && ctx.writes
        && ctx
            .sandbox_id
            .as_deref()
            .is_none_or(|s| s.trim().is_empty())
    {
        return Err(ToolRuntimeError::SandboxRequired { tool: tool() });
    }
    if p.require_human_approval && !ctx.human_approved {
        return Err(ToolRuntimeError::HumanApprovalRequired { tool: tool() });
    }
    for (which, spent, limit) in [
        ("per-plan", ctx.plan_cost, p.max_cost_per_plan),
        ("total", ctx.total_cost, p.max_total_cost),
    ] {
        if let Some(limit) = limit {
            if spent >= limit {
                return Err(ToolRuntimeError::CostLimitReached {
                    which,
                    spent,
                    limit,
                });
            }
        }
    }
    if ctx.retries > p.max_retries_per_step {
        return Err(ToolRuntimeError::RetryLimitExceeded {
            retries: ctx.retries,
            max: p.max_retries_per_step,
        });
    }
    Ok(())
}

/// Where a resolved safety profile came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// Set on the plan.
    Plan,
    /// Set on the action.
    Action,
    /// Set for the project.
    Project,
    /// Set globally.
    Global,
    /// None set: the default.
    Default,
}

/// A safety profile with where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResolvedSafety {
    /// The profile (`None`: no profile, only the plan's own flags apply).
    pub profile: Option<SafetyProfile>,
    /// Where it came from.
    pub provenance: Provenance,
}

/// Resolves which safety profile applies: plan, then action, then project,
/// then global, else the default.
pub fn resolve(
    plan: Option<&SafetyProfile>,
    action: Option<&SafetyProfile>,
    project: Option<&SafetyProfile>,
    global: Option<&SafetyProfile>,
    default: Option<&SafetyProfile>,
) -> ResolvedSafety {
    let (profile, provenance) = [
        (plan, Provenance::Plan),
        (action, Provenance::Action),
        (project, Provenance::Project),
        (global, Provenance::Global),
    ]
    .into_iter()
    .find_map(|(p, prov)| p.map(|p| (Some(p.clone()), prov)))
    .unwrap_or((default.cloned(), Provenance::Default));
    ResolvedSafety {
        profile,
        provenance,
    }
}

/// A plan's safety profile, resolved once and then locked: later changes to
/// the action, project or global settings do not move a running plan.
#[derive(Debug, Default)]
pub struct PlanSafety {
    locked: OnceLock<ResolvedSafety>,
}

impl PlanSafety {
    /// A plan with nothing resolved yet.
    pub fn new() -> PlanSafety {
        PlanSafety::default()
    }

    /// The plan's profile: resolved by `resolve` the first time, the same
    /// answer every time after.
    pub fn get_or_resolve(&self, resolve: impl FnOnce() -> ResolvedSafety) -> &ResolvedSafety {
        self.locked.get_or_init(resolve)
    }
}
