//! What a profile lets run unasked: the destructive categories of the
//! taxonomy whose calls it allows without a person, and the profile
//! fields toolgate's hook cannot enforce at all.
//!
//! Every built-in automation profile but `manual` allows some destructive
//! calls by its thresholds (`auto`, `ci` and `full-auto` let `rm -rf ~`
//! run). That is the profiles' data, not a bug, but a person who picks a
//! profile should see it before installing it: `profile show`, `install
//! --profile` (which then wants `--yes`) and `doctor` list them.

use std::collections::BTreeMap;

use serde_json::json;
use toolgate_core::gate::{Decision, GateConfig, PolicyCall};
use toolgate_core::label::{BlastRadius, Class, Label, Origin};
use toolgate_core::tools::Hints;
use toolgate_core::Taxonomy;

/// A destructive category a profile lets run unasked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unasked {
    /// The taxonomy category (`fs-delete`).
    pub category: String,
    /// The blast radii of that category that run unasked, worst first.
    pub radii: Vec<BlastRadius>,
}

impl std::fmt::Display for Unasked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let radii: Vec<&str> = self.radii.iter().map(|r| r.as_str()).collect();
        write!(f, "{} ({})", self.category, radii.join(", "))
    }
}

/// The destructive categories of the embedded taxonomy that `profile` (a
/// safety mode or profile name, as `--profile` takes it) allows with no
/// person asked, in category order. Each category is tried at every blast
/// radius its rules declare, with the label's own confidence, as a shell
/// call. Self-protection (`guard-tamper`) is left out: the gate denies it
/// before any profile decides.
///
/// ```
/// use toolgate_agents::install::risk::unasked_destructive;
/// let auto = unasked_destructive("auto");
/// assert!(auto.iter().any(|u| u.category == "fs-delete"));
/// assert!(unasked_destructive("manual").is_empty());
/// assert!(unasked_destructive("guard").is_empty());
/// ```
pub fn unasked_destructive(profile: &str) -> Vec<Unasked> {
    let Ok(taxonomy) = Taxonomy::embedded() else {
        return Vec::new();
    };
    let mut pairs: BTreeMap<String, Vec<BlastRadius>> = BTreeMap::new();
    for rule in taxonomy.rules() {
        if rule.category == "guard-tamper" {
            continue;
        }
        let radii = pairs.entry(rule.category.to_string()).or_default();
        if !radii.contains(&rule.blast_radius) {
            radii.push(rule.blast_radius);
        }
    }
    let config = toolgate_policy::apply_profile(GateConfig::default(), Some(profile));
    let args = json!({ "command": "" });
    let mut out = Vec::new();
    for (category, mut radii) in pairs {
        radii.sort_by_key(|r| std::cmp::Reverse(rank(*r)));
        let running: Vec<BlastRadius> = radii
            .into_iter()
            .filter(|&blast_radius| {
                let label = Label {
                    class: Class::Destructive,
                    origin: Origin::Classifier,
                    blast_radius,
                    category: category.clone().into(),
                    reason: String::new().into(),
                };
                let decision = match config.policy {
                    Some(policy) => policy
                        .decide(&PolicyCall {
                            tool: "Bash",
                            args: &args,
                            shell: true,
                            hints: Hints::default(),
                            label: &label,
                            confidence: None,
                        })
                        .map_or(Decision::Ask, |v| v.decision),
                    None => config.mode.mode().decide(&label),
                };
                decision == Decision::Allow
            })
            .collect();
        if !running.is_empty() {
            out.push(Unasked {
                category,
                radii: running,
            });
        }
    }
    out
}

fn rank(r: BlastRadius) -> u8 {
    match r {
        BlastRadius::High => 4,
        BlastRadius::Medium => 3,
        BlastRadius::Low => 2,
        BlastRadius::Unknown => 1,
        BlastRadius::Safe => 0,
    }
}

/// The fields of an automation profile that toolgate's hook cannot
/// enforce, each with how a caller can: the hook sees one call at a time,
/// after the client chose to make it.
pub const NOT_ENFORCED: &[(&str, &str)] = &[
    (
        "require_sandbox",
        "toolgate runs no sandbox: run the agent inside one (a container, bubblewrap, the client's own sandbox setting)",
    ),
    (
        "require_checkpoints",
        "toolgate takes no checkpoint: commit or snapshot the work tree before the run",
    ),
    (
        "max_cost_per_plan, max_total_cost",
        "a hook sees no cost: set the client's or the model provider's spending limit",
    ),
    (
        "max_retries_per_step",
        "a hook sees no retries: the agent runtime must count them (the library's guardrails do, for a runtime that embeds toolgate)",
    ),
];
