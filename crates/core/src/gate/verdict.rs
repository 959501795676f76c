//! The gate: rules first, then the mode's row for the call's label.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compound::CompoundPolicy;
use super::mode::{Decision, Mode, ModeChoice, ModeSetting};
use super::policy::{Policy, PolicyCall};
use super::rules::Rules;
use crate::classify::{Assessment, Classifier, Context};
use crate::guard_paths::{tampered_path, GuardPaths, GUARD_TAMPER};
use crate::label::{BlastRadius, Class, Label, Origin};

/// Why a compound command was decided as a safe call, when the operator
/// chose it (the config's, `--compound`'s or a profile's
/// `compound = every-part-safe`).
const COMPOUND_REASON: &str = "compound shell whose every part is safe on its own, let through \
     as safe by the operator's choice (compound = every-part-safe)";
/// The same, in the guard mode, which always lets such lists through.
const GUARD_COMPOUND_REASON: &str = "compound shell whose every part is safe on its own, let \
     through as safe (compound = every-part-safe, always on)";
use crate::tools::{Hints, ToolLabeler, DEFAULT_SHELL_TOOLS};

/// What the gate says about one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Allow, ask or deny.
    pub decision: Decision,
    /// Why, for a person.
    pub reason: String,
    /// The call's label.
    pub label: Label,
    /// A stable string naming what decided: `rule_deny`, `rule_allow`,
    /// `rule_ask`, `mode_guard`, `mode_strict`, `mode_balanced`,
    /// `mode_restricted`, `yolo` (autonomous), `mode_legacy`, `profile_NAME`,
    /// `compound_every_part_safe`, `self_protection` (a call that would
    /// disable or weaken the guard, see [`crate::guard_paths`]), or
    /// `fail_closed`.
    pub source: String,
}

/// How a gate is set up.
///
/// ```
/// use toolgate_core::gate::{GateConfig, Mode, ModeSetting};
/// // A library names the mode: a typo does not compile.
/// let config = GateConfig { mode: Mode::Balanced.into(), ..GateConfig::default() };
/// assert_eq!(config.mode.mode(), Mode::Balanced);
/// // Text from outside, read fail-closed as the hook reads it.
/// assert_eq!(ModeSetting::from_name(Some("yolo")).mode(), Mode::Strict);
/// ```
#[derive(Clone, Debug, Default)]
pub struct GateConfig {
    /// The safety mode (default: the legacy one). A name that arrives as
    /// text is read by [`ModeSetting::from_name`] (fail-closed: strict,
    /// and the verdicts say which name) or by [`Mode`]'s `FromStr` (an
    /// error).
    pub mode: ModeSetting,
    /// Permission rules.
    pub rules: Rules,
    /// Tool names treated as the shell tool (default: [`DEFAULT_SHELL_TOOLS`]).
    pub shell_tools: Option<Vec<String>>,
    /// MCP hints for non-shell tools, by tool name.
    pub hints: HashMap<String, Hints>,
    /// A policy that decides instead of the mode (a profile: see the
    /// `toolgate-policy` crate, which also reads profile names).
    pub policy: Option<&'static dyn Policy>,
    /// What to do with compound shell whose every part is safe (default:
    /// refuse, which decides it by its unknown label). The guard mode
    /// always lets such a list through; a policy that sets its own choice
    /// overrides both.
    pub compound: CompoundPolicy,
}

/// Turns tool calls into verdicts.
#[derive(Debug)]
pub struct Gate<'c> {
    labeler: ToolLabeler<'c>,
    mode: ModeChoice,
    policy: Option<&'static dyn Policy>,
    rules: Rules,
    hints: HashMap<String, Hints>,
    compound: CompoundPolicy,
    guard_paths: GuardPaths,
}

impl<'c> Gate<'c> {
    /// The same gate, noting what each shell command would read
    /// ([`Assessment::reach`]), for a caller that looks before it allows
    /// ([`Gate::settle_look`]).
    pub fn reaching(mut self, on: bool) -> Gate<'c> {
        self.labeler = self.labeler.reaching(on);
        self
    }

    /// Whether a verdict on `assessment` waits on a look: an allow that
    /// the words alone gave a call that reads something, or a call that a
    /// clean look would let the row allow. Rules and autonomous mode allow
    /// what they allow without one.
    pub fn wants_look(&self, verdict: &Verdict, assessment: &Assessment) -> bool {
        let Some(reach) = &assessment.reach else {
            return false;
        };
        if reach.is_empty() || verdict.source.starts_with("rule_") || verdict.source == "yolo" {
            return false;
        }
        verdict.decision == Decision::Allow || assessment.look_clears
    }

    /// Settles a verdict on what a look at the call's reach found: a clean
    /// look lets stand an allow, and lets the row allow a call only a look
    /// could clear (its label stays unknown); a secret gets the row's
    /// answer for a destructive credential read (ask, or deny where the
    /// mode denies); what the look could not settle, the row's unknown
    /// answer. Never more permissive than the row for a safe call.
    pub fn settle_look(
        &self,
        tool: &str,
        args: &Value,
        verdict: Verdict,
        assessment: &Assessment,
        outcome: &crate::reach::Outcome,
    ) -> Verdict {
        use crate::reach::Outcome;
        let decide_as = |label: Label, every_part_safe: bool| {
            self.decide_assessed(
                tool,
                args,
                None,
                None,
                Assessment {
                    label,
                    every_part_safe,
                    look_clears: false,
                    reach: None,
                },
            )
        };
        match outcome {
            Outcome::Clear if verdict.decision == Decision::Allow => verdict,
            Outcome::Clear if assessment.look_clears => {
                let compound = assessment.label.reason.starts_with("compound shell");
                let basis = if compound {
                    assessment.label.clone()
                } else {
                    Label {
                        class: Class::Safe,
                        origin: Origin::Classifier,
                        blast_radius: BlastRadius::Safe,
                        category: "read".into(),
                        reason: "reads only what a look found no secret in".into(),
                    }
                };
                let settled = decide_as(basis, compound);
                let looked = assessment
                    .reach
                    .as_ref()
                    .map_or(String::new(), |r| r.needs_look.join("; "));
                Verdict {
                    decision: settled.decision,
                    reason: format!(
                        "{}; a look found no secret in what it reads ({looked})",
                        settled.reason
                    ),
                    label: assessment.label.clone(),
                    source: format!("look_{}", settled.source),
                }
            }
            Outcome::Clear => verdict,
            Outcome::Secret(why) => {
                let secret = Label {
                    class: Class::Destructive,
                    origin: Origin::Classifier,
                    blast_radius: BlastRadius::High,
                    category: "credential-access".into(),
                    reason: why.clone().into(),
                };
                let settled = decide_as(secret, false);
                Verdict {
                    decision: settled.decision.max(Decision::Ask),
                    reason: why.clone(),
                    label: assessment.label.clone(),
                    source: "look_secret".into(),
                }
            }
            Outcome::Unsettled(why) => {
                let settled = decide_as(Label::unknown(why.clone()), false);
                Verdict {
                    decision: settled.decision,
                    reason: format!("a look could not clear what it reads: {why}"),
                    label: assessment.label.clone(),
                    source: "look_unsettled".into(),
                }
            }
        }
    }

    /// Builds a gate over a classifier.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate_core::gate::{Decision, Gate, GateConfig, Mode};
    /// let classifier = toolgate_core::Classifier::embedded()?;
    /// let gate = Gate::new(classifier, GateConfig { mode: Mode::Balanced.into(), ..GateConfig::default() });
    /// let v = gate.decide("shell", &json!({"cmd": "git status"}), None);
    /// assert_eq!((v.decision, v.source.as_str()), (Decision::Allow, "mode_balanced"));
    /// let v = gate.decide("shell", &json!({"cmd": "rm -rf ~"}), None);
    /// assert_eq!(v.decision, Decision::Ask);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(classifier: &'c Classifier, config: GateConfig) -> Gate<'c> {
        let shell_tools = config
            .shell_tools
            .unwrap_or_else(|| DEFAULT_SHELL_TOOLS.iter().map(|s| s.to_string()).collect());
        let mode = config.mode.choice();
        // Guard's row includes every-part-safe compounds: `git status &&
        // git diff` is no reason to interrupt anyone.
        let compound = match mode.mode {
            Mode::Guard => CompoundPolicy::EveryPartSafe,
            _ => config.compound,
        };
        Gate {
            labeler: ToolLabeler::new(classifier).shell_tools(shell_tools),
            mode,
            policy: config.policy,
            rules: config.rules,
            hints: config.hints,
            compound: config.policy.and_then(|p| p.compound()).unwrap_or(compound),
            // Read once here, not per call: the hook and a scan decide
            // under one environment.
            guard_paths: GuardPaths::from_env(),
        }
    }

    /// The mode in force.
    pub fn mode(&self) -> Mode {
        self.mode.mode
    }

    /// The mode or profile name that was not recognised (strict is then in
    /// force), quoted as `mode NAME` or `profile NAME`.
    pub fn unrecognised(&self) -> Option<&str> {
        self.mode.unrecognised.as_deref()
    }

    /// Is `tool` the shell tool?
    pub fn is_shell_tool(&self, tool: &str) -> bool {
        self.labeler.is_shell_tool(tool)
    }

    /// Why a list of safe parts was let through: the guard mode's own
    /// default, unless a profile chose it.
    fn compound_reason(&self) -> &'static str {
        let profile_chose = self.policy.and_then(|p| p.compound()).is_some();
        if self.mode.mode == Mode::Guard && !profile_chose {
            GUARD_COMPOUND_REASON
        } else {
            COMPOUND_REASON
        }
    }

    /// The classifier that labels shell commands.
    pub fn classifier(&self) -> &'c Classifier {
        self.labeler.classifier()
    }

    /// Decides one call. `hints` overrides the configured hints for the tool.
    pub fn decide(&self, tool: &str, args: &Value, hints: Option<Hints>) -> Verdict {
        self.decide_full(tool, args, hints, None, &Context::default())
    }

    /// Decides one call made in a known place (the hook payload's `cwd`):
    /// an absolute path below the working directory is then inside it.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate_core::gate::{Decision, Gate, GateConfig, Mode};
    /// use toolgate_core::Context;
    /// let classifier = toolgate_core::Classifier::embedded()?;
    /// let gate = Gate::new(classifier, GateConfig { mode: Mode::Balanced.into(), ..GateConfig::default() });
    /// let call = json!({"command": "cat /app/src/main.rs"});
    /// let here = Context { cwd: Some("/app") };
    /// assert_eq!(gate.decide_in("Bash", &call, None, &here).decision, Decision::Allow);
    /// assert_eq!(gate.decide("Bash", &call, None).decision, Decision::Ask);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decide_in(
        &self,
        tool: &str,
        args: &Value,
        hints: Option<Hints>,
        ctx: &Context<'_>,
    ) -> Verdict {
        self.decide_full(tool, args, hints, None, ctx)
    }

    /// Decides one call, with the caller's confidence in it (used by
    /// automation profiles; the label's own confidence otherwise).
    pub fn decide_with_confidence(
        &self,
        tool: &str,
        args: &Value,
        hints: Option<Hints>,
        confidence: Option<f64>,
    ) -> Verdict {
        self.decide_full(tool, args, hints, confidence, &Context::default())
    }

    fn decide_full(
        &self,
        tool: &str,
        args: &Value,
        hints: Option<Hints>,
        confidence: Option<f64>,
        ctx: &Context<'_>,
    ) -> Verdict {
        let assessment = self.assess_in(tool, args, hints, ctx);
        self.decide_assessed(tool, args, hints, confidence, assessment)
    }

    /// What the gate's decision rests on for one call made in `ctx`: the
    /// label (a file edit of the guard's own files labelled so), and
    /// whether a compound command's every part is safe. A caller deciding
    /// the same call under a second gate that labels it alike (the project
    /// policy's, for a shell call) hands this to [`Gate::decide_assessed`]
    /// rather than classifying the command again.
    pub fn assess_in(
        &self,
        tool: &str,
        args: &Value,
        hints: Option<Hints>,
        ctx: &Context<'_>,
    ) -> Assessment {
        let hints = hints
            .or_else(|| self.hints.get(tool).copied())
            .unwrap_or_default();
        let shell = self.is_shell_tool(tool);
        let mut assessment = self.labeler.assess_in(tool, args, hints, ctx);
        if !shell {
            if let Some((path, what)) = tampered_path(tool, args, &self.guard_paths) {
                assessment.label = Label {
                    class: Class::Destructive,
                    origin: Origin::Classifier,
                    blast_radius: BlastRadius::High,
                    category: GUARD_TAMPER.into(),
                    reason: format!(
                        "writes `{path}`, {what}: it would disable or weaken the guard"
                    )
                    .into(),
                };
                assessment.every_part_safe = false;
            }
        }
        assessment
    }

    /// Decides one call on an [`Assessment`] made by [`Gate::assess_in`]
    /// (of this gate, or of one that labels the call alike).
    pub fn decide_assessed(
        &self,
        tool: &str,
        args: &Value,
        hints: Option<Hints>,
        confidence: Option<f64>,
        assessment: Assessment,
    ) -> Verdict {
        let hints = hints
            .or_else(|| self.hints.get(tool).copied())
            .unwrap_or_default();
        let shell = self.is_shell_tool(tool);
        let label = assessment.label;
        // Self-protection comes before every rule: an allow rule cannot
        // grant a call that would switch the gate off, and a profile is
        // not the operator's "allow everything". Only autonomous, which
        // allows everything anyway, lets it through.
        if label.category == GUARD_TAMPER
            && !(self.policy.is_none() && self.mode.mode == Mode::Autonomous)
        {
            return Verdict {
                decision: Decision::Deny,
                reason: format!(
                    "self-protection: {} (denied in every mode but autonomous; no rule can allow it)",
                    label.reason
                ),
                label,
                source: "self_protection".into(),
            };
        }
        if let Some(rule) = self.rules.deny.iter().find(|r| r.denies(tool, args, shell)) {
            return Verdict {
                decision: Decision::Deny,
                reason: format!("denied by rule `{}`", rule.text),
                label,
                source: "rule_deny".into(),
            };
        }
        if let Some(rule) = self
            .rules
            .allow
            .iter()
            .find(|r| r.grants(tool, args, shell))
        {
            return Verdict {
                decision: Decision::Allow,
                reason: format!("allowed by rule `{}`", rule.text),
                label,
                source: "rule_allow".into(),
            };
        }
        // Ask rules read the command as eagerly as deny rules: asking is
        // the cautious side.
        if let Some(rule) = self.rules.ask.iter().find(|r| r.denies(tool, args, shell)) {
            return Verdict {
                decision: Decision::Ask,
                reason: format!("rule `{}` asks for confirmation", rule.text),
                label,
                source: "rule_ask".into(),
            };
        }
        // A list or pipeline of safe parts, when the operator chose to let
        // one through, is decided as a safe call would be; the verdict
        // keeps the unknown label and says why it was decided otherwise.
        let parts_safe =
            self.compound == CompoundPolicy::EveryPartSafe && assessment.every_part_safe;
        let as_safe = parts_safe.then(|| Label {
            class: Class::Safe,
            origin: label.origin,
            blast_radius: BlastRadius::Safe,
            category: label.category.clone(),
            reason: self.compound_reason().into(),
        });
        let basis = as_safe.as_ref().unwrap_or(&label);
        let compound_source = |source: String| {
            if parts_safe {
                "compound_every_part_safe".to_string()
            } else {
                source
            }
        };
        if let Some(policy) = self.policy {
            let call = PolicyCall {
                tool,
                args,
                shell,
                hints,
                label: basis,
                confidence,
            };
            if let Some(d) = policy.decide(&call) {
                return Verdict {
                    decision: d.decision,
                    reason: d.reason,
                    source: compound_source(format!("profile_{}", policy.name())),
                    label,
                };
            }
        }
        let mode = self.mode.mode;
        let decision = mode.decide(basis);
        if parts_safe {
            let mut reason = format!("{} in {mode} mode", self.compound_reason());
            if let Some(bad) = &self.mode.unrecognised {
                reason.push_str(&format!(" (unrecognised {bad}: using strict)"));
            }
            return Verdict {
                decision,
                reason,
                label,
                source: compound_source(String::new()),
            };
        }
        let mut reason = format!(
            "{} ({}{}) in {} mode",
            label.class,
            label.blast_radius,
            if label.category.is_empty() {
                String::new()
            } else {
                format!(", {}", label.category)
            },
            mode
        );
        if !label.reason.is_empty() {
            reason.push_str(": ");
            reason.push_str(&label.reason);
        }
        if let Some(bad) = &self.mode.unrecognised {
            reason.push_str(&format!(" (unrecognised {bad}: using strict)"));
        }
        Verdict {
            decision,
            reason,
            label,
            source: mode.source().into(),
        }
    }
}
