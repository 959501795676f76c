//! Automation profiles: per-action thresholds deciding when a call may run
//! on its own, plus the safety sub-profile they carry.
//!
//! A threshold of 0 is automatic, 1 means a human always, and anything
//! between lets a call proceed only when its confidence exceeds it.

use serde::{Deserialize, Serialize};

use toolgate_core::gate::Decision;
use toolgate_core::label::{BlastRadius, Class, Label};

/// The eleven thresholds, each in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Splitting a task into steps.
    pub decompose_task: f64,
    /// Creating a new tool.
    pub create_tool: f64,
    /// Choosing which tool to call.
    pub select_tool: f64,
    /// Editing code.
    pub edit_code: f64,
    /// Running a command.
    pub execute_command: f64,
    /// Creating or overwriting a file.
    pub create_file: f64,
    /// Deleting content.
    pub delete_content: f64,
    /// Reaching the network.
    pub access_network: f64,
    /// Installing a dependency.
    pub install_dependency: f64,
    /// Changing configuration.
    pub modify_config: f64,
    /// Approving a plan.
    pub approve_plan: f64,
}

impl Thresholds {
    /// The names of the thresholds, in table order.
    pub const NAMES: [&'static str; 11] = [
        "decompose_task",
        "create_tool",
        "select_tool",
        "edit_code",
        "execute_command",
        "create_file",
        "delete_content",
        "access_network",
        "install_dependency",
        "modify_config",
        "approve_plan",
    ];

    /// A threshold by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "decompose_task" => self.decompose_task,
            "create_tool" => self.create_tool,
            "select_tool" => self.select_tool,
            "edit_code" => self.edit_code,
            "execute_command" => self.execute_command,
            "create_file" => self.create_file,
            "delete_content" => self.delete_content,
            "access_network" => self.access_network,
            "install_dependency" => self.install_dependency,
            "modify_config" => self.modify_config,
            "approve_plan" => self.approve_plan,
            _ => return None,
        })
    }
}

/// The hard constraints an automation profile carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafetyProfile {
    /// Writes must happen in a sandbox.
    pub require_sandbox: bool,
    /// Tools must be checkpointable.
    pub require_checkpoints: bool,
    /// Tools marked unsafe may run.
    pub allow_unsafe_tools: bool,
    /// A person must approve each action.
    pub require_human_approval: bool,
    /// Skill categories allowed (empty: all).
    pub allowed_skill_categories: Vec<String>,
    /// Cost limit per plan (none: unlimited).
    pub max_cost_per_plan: Option<f64>,
    /// Cost limit overall (none: unlimited).
    pub max_total_cost: Option<f64>,
    /// Retries allowed per step, 0 to 100.
    pub max_retries_per_step: u32,
}

/// One automation profile as its file describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutomationProfile {
    /// Its name (`manual`, `cautious`, `acme/nightly`, …).
    pub name: String,
    /// Schema version (1).
    pub version: u32,
    /// What it is for.
    pub description: String,
    /// Per-action thresholds.
    pub thresholds: Thresholds,
    /// Hard constraints.
    pub safety: SafetyProfile,
    /// What the gate does with compound shell whose every part is safe
    /// under this profile (unset: the gate's own setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compound: Option<toolgate_core::gate::CompoundPolicy>,
}

/// One rule of the label → threshold map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryRule {
    /// A category prefix (`fs-delete`, `dk-`).
    pub prefix: String,
    /// The threshold calls in those categories answer to.
    pub threshold: String,
}

/// Confidence of a label when the caller gives none.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelConfidence {
    /// A safe label.
    pub safe: f64,
    /// A destructive label of low radius.
    pub low: f64,
    /// Medium radius.
    pub medium: f64,
    /// High radius.
    pub high: f64,
    /// An unknown label.
    pub unknown: f64,
}

/// Which threshold a labelled call answers to (`automation-map.yaml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdMap {
    /// Category rules, first match wins.
    pub categories: Vec<CategoryRule>,
    /// The threshold for everything else.
    pub default_threshold: String,
    /// Label confidences.
    pub label_confidence: LabelConfidence,
}

impl ThresholdMap {
    /// The threshold a label answers to.
    pub fn threshold_for(&self, label: &Label) -> &str {
        self.categories
            .iter()
            .find(|r| !label.category.is_empty() && label.category.starts_with(&r.prefix))
            .map_or(self.default_threshold.as_str(), |r| r.threshold.as_str())
    }

    /// A label's own confidence.
    pub fn confidence_of(&self, label: &Label) -> f64 {
        let c = &self.label_confidence;
        match (label.class, label.blast_radius) {
            (Class::Safe, _) => c.safe,
            (Class::Destructive, BlastRadius::Low) => c.low,
            (Class::Destructive, BlastRadius::Medium) => c.medium,
            (Class::Destructive, BlastRadius::High) => c.high,
            _ => c.unknown,
        }
    }
}

/// What an automation profile says about one call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileDecision {
    /// Allow or ask.
    pub decision: Decision,
    /// The threshold consulted (`None` for a safe call: automatic).
    pub threshold: Option<(String, f64)>,
    /// The confidence compared with it.
    pub confidence: f64,
    /// Why, for a person.
    pub reason: String,
}

impl AutomationProfile {
    /// Decides a labelled call. Safe calls are automatic in every profile
    /// whose thresholds are not all 1 (`manual`: a human approves every
    /// action); others compare `confidence` (the caller's, else the
    /// label's) with the threshold the label answers to.
    pub fn decide(
        &self,
        label: &Label,
        confidence: Option<f64>,
        map: &ThresholdMap,
    ) -> ProfileDecision {
        let confidence = confidence
            .filter(|c| c.is_finite())
            .unwrap_or_else(|| map.confidence_of(label))
            .clamp(0.0, 1.0);
        let human_always = Thresholds::NAMES
            .iter()
            .all(|n| self.thresholds.get(n) == Some(1.0));
        if label.class == Class::Safe && !human_always {
            return ProfileDecision {
                decision: Decision::Allow,
                threshold: None,
                confidence,
                reason: format!(
                    "read-only calls are automatic in the `{}` profile",
                    self.name
                ),
            };
        }
        let name = map.threshold_for(label);
        // A map naming a threshold that does not exist asks: bad data never
        // widens approval.
        let threshold = self.thresholds.get(name).unwrap_or(1.0);
        let allow = threshold <= 0.0 || (threshold < 1.0 && confidence > threshold);
        let reason = if threshold <= 0.0 {
            format!("`{name}` is automatic in the `{}` profile", self.name)
        } else if threshold >= 1.0 {
            format!(
                "`{name}` always needs a person in the `{}` profile",
                self.name
            )
        } else if allow {
            format!("confidence {confidence:.2} exceeds the `{name}` threshold {threshold:.2} of the `{}` profile", self.name)
        } else {
            format!("confidence {confidence:.2} does not exceed the `{name}` threshold {threshold:.2} of the `{}` profile", self.name)
        };
        ProfileDecision {
            decision: if allow {
                Decision::Allow
            } else {
                Decision::Ask
            },
            threshold: Some((name.to_string(), threshold)),
            confidence,
            reason,
        }
    }

    /// Checks values the schema cannot: thresholds in `[0, 1]`, costs
    /// finite and not negative, retries 0 to 100. The error names the field.
    pub fn validate(&self) -> Result<(), (String, String)> {
        for n in Thresholds::NAMES {
            let v = self.thresholds.get(n).unwrap_or(f64::NAN);
            if !(0.0..=1.0).contains(&v) {
                return Err((
                    format!("thresholds.{n}"),
                    format!("{v} is not between 0 and 1"),
                ));
            }
        }
        for (field, v) in [
            ("safety.max_cost_per_plan", self.safety.max_cost_per_plan),
            ("safety.max_total_cost", self.safety.max_total_cost),
        ] {
            if let Some(v) = v {
                if !v.is_finite() || v < 0.0 {
                    return Err((
                        field.into(),
                        format!("{v} is not a cost (a number 0 or more)"),
                    ));
                }
            }
        }
        if self.safety.max_retries_per_step > 100 {
            return Err((
                "safety.max_retries_per_step".into(),
                format!("{} is more than 100", self.safety.max_retries_per_step),
            ));
        }
        if self.version != 1 {
            return Err((
                "version".into(),
                format!("version {} is not supported (use 1)", self.version),
            ));
        }
        Ok(())
    }
}
