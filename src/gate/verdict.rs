//! The gate: rules first, then the mode's row for the call's label.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compound::CompoundPolicy;
use super::mode::{Decision, Mode, ModeChoice, ModeSetting};
use super::rules::Rules;
use crate::classify::{Assessment, Classifier, Context};
use crate::guard_paths::{tampered_path, GuardPaths, GUARD_TAMPER};
use crate::label::{BlastRadius, Class, Label, Origin};

/// Why a compound command was decided as a safe call.
const COMPOUND_REASON: &str = "compound shell whose every part is safe on its own, let through \
     as safe by the operator's choice (compound = every-part-safe)";
use crate::profile::{
    action_class_map, action_profile, automation_profile, builtin_action, builtin_automation,
    custom_profile, threshold_map, ActionCall, ActionProfile, AnyProfile, AutomationProfile, Store,
};
use crate::tools::{shell_command_arg, Hints, ToolLabeler, DEFAULT_SHELL_TOOLS};

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
    /// `rule_ask`, `mode_strict`, `mode_balanced`, `mode_restricted`,
    /// `yolo` (autonomous), `mode_legacy`, `profile_NAME`,
    /// `compound_every_part_safe`, `self_protection` (a call that would
    /// disable or weaken the guard, see [`crate::guard_paths`]), or
    /// `fail_closed`.
    pub source: String,
}

/// How a gate is set up.
///
/// ```
/// use toolgate::gate::{GateConfig, Mode, ModeSetting};
/// // A library names the mode: a typo does not compile.
/// let config = GateConfig { mode: Mode::Balanced.into(), ..GateConfig::default() };
/// // A profile name is checked when it is set (built-in profiles are
/// // data, custom ones files, so it stays a name).
/// let config = config.with_profile("cautious")?;
/// assert_eq!(config.profile.as_deref(), Some("cautious"));
/// assert!(GateConfig::default().with_profile("cautios").is_err());
/// // Text from outside, read fail-closed as the hook reads it.
/// assert_eq!(ModeSetting::from_name(Some("yolo")).mode(), Mode::Strict);
/// # Ok::<(), Box<dyn std::error::Error>>(())
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
    /// A profile by name: a safety mode (`balanced`, …), an automation
    /// profile (`cautious`, `full_auto`, …) or an action-class profile
    /// (`safe-default`, `coding-agent`, …), or a custom `namespace/name`
    /// profile from the profile store. When set, it decides instead of
    /// the mode. An unknown name is strict, with a reason that names it,
    /// the fail-closed reading the hook needs for a name it was handed;
    /// [`GateConfig::with_profile`] checks a name instead and says what is
    /// wrong with it. (A name rather than a type: custom profiles are
    /// files, found when the gate is built.)
    pub profile: Option<String>,
    /// What to do with compound shell whose every part is safe (default:
    /// refuse, which decides it by its unknown label). A custom profile
    /// that sets `compound` overrides it.
    pub compound: CompoundPolicy,
}

impl GateConfig {
    /// Sets [`GateConfig::profile`] to `name` if the gate would find it (a
    /// safety mode, a built-in profile, or a custom `namespace/name`
    /// profile in the default store), and otherwise says why not, instead
    /// of the strict gate an unknown name gives.
    ///
    /// ```
    /// use toolgate::gate::GateConfig;
    /// let config = GateConfig::default().with_profile("coding-agent")?;
    /// assert_eq!(config.profile.as_deref(), Some("coding-agent"));
    /// let err = GateConfig::default().with_profile("codng-agent").unwrap_err();
    /// assert_eq!(err.name(), "codng-agent");
    /// assert!(err.to_string().starts_with("unknown profile `codng-agent`: use a safety mode"));
    /// // A custom profile is looked up in the store (`toolgate profile list`).
    /// assert!(GateConfig::default().with_profile("acme/nowhere").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_profile(mut self, name: &str) -> Result<GateConfig, UnknownProfile> {
        let name = name.trim();
        let is_mode = !name.is_empty() && Mode::parse(Some(name)).unrecognised.is_none();
        if !is_mode && lookup_profile(name).is_none() {
            return Err(UnknownProfile::new(name));
        }
        self.profile = Some(name.to_string());
        Ok(self)
    }
}

/// A profile name the gate would not find: [`GateConfig::with_profile`]'s
/// error. The message says what the name may be, or, for a custom
/// `namespace/name` profile, why the store did not give it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile `{name}`: {hint}")]
pub struct UnknownProfile {
    name: String,
    hint: String,
}

impl UnknownProfile {
    fn new(name: &str) -> UnknownProfile {
        UnknownProfile {
            name: name.to_string(),
            hint: UnknownProfile::hint(name, Store::default_location()),
        }
    }

    /// What to say of `name`, custom profiles looked up in `store`.
    fn hint(name: &str, store: Option<Store>) -> String {
        if name.contains('/') {
            // The store's own error (a missing file, a bad name, a file
            // that does not parse) is the most useful thing to say.
            match store.map(|s| s.load(name)) {
                Some(Err(e)) => e.to_string(),
                None => "no profile store: set TOOLGATE_PROFILE_DIR, XDG_CONFIG_HOME or HOME"
                    .to_string(),
                // `custom_profile` remembers a miss for the life of the
                // process (as it does a hit), so a gate built now would
                // not find it either.
                Some(Ok(_)) => "it was added to the store after this process first looked \
                                for it; a new process will find it"
                    .to_string(),
            }
        } else {
            let builtins: Vec<&str> = builtin_automation()
                .iter()
                .map(|p| p.name.as_str())
                .chain(builtin_action().iter().map(|p| p.name.as_str()))
                .collect();
            format!(
                "use a safety mode (strict, balanced, restricted or autonomous), a built-in \
                 profile ({}) or a custom `namespace/name` one (`toolgate profile list` shows \
                 them all)",
                builtins.join(", ")
            )
        }
    }

    /// The name, trimmed, as it was given.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The profile that decides in place of the mode.
#[derive(Clone, Copy, Debug)]
enum GateProfile {
    Automation(&'static AutomationProfile),
    Action(&'static ActionProfile),
}

/// The profile a name stands for, the way [`Gate::new`] looks it up (a
/// safety mode's name is not one: the gate takes it as the mode).
fn lookup_profile(name: &str) -> Option<GateProfile> {
    automation_profile(name)
        .map(GateProfile::Automation)
        .or_else(|| action_profile(name).map(GateProfile::Action))
        .or_else(|| match custom_profile(name)? {
            AnyProfile::Automation(a) => Some(GateProfile::Automation(a)),
            AnyProfile::Action(a) => Some(GateProfile::Action(a)),
            AnyProfile::Mode { .. } => None,
        })
}

/// Turns tool calls into verdicts.
#[derive(Debug)]
pub struct Gate<'c> {
    labeler: ToolLabeler<'c>,
    mode: ModeChoice,
    profile: Option<GateProfile>,
    rules: Rules,
    hints: HashMap<String, Hints>,
    compound: CompoundPolicy,
    guard_paths: GuardPaths,
}

impl<'c> Gate<'c> {
    /// Builds a gate over a classifier.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate::gate::{Decision, Gate, GateConfig, Mode};
    /// let classifier = toolgate::Classifier::embedded()?;
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
        let requested = config
            .profile
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        let as_mode = requested
            .map(|p| Mode::parse(Some(p)))
            .filter(|m| m.unrecognised.is_none());
        let profile = requested.and_then(lookup_profile);
        let mode = match (requested, profile, as_mode) {
            // A safety mode named as a profile is that mode.
            (_, _, Some(m)) => m,
            // An unknown profile never widens approval: strict.
            (Some(bad), None, None) => ModeChoice {
                mode: Mode::Strict,
                unrecognised: Some(format!("profile {bad}")),
            },
            _ => config.mode.choice(),
        };
        Gate {
            labeler: ToolLabeler::new(classifier).shell_tools(shell_tools),
            mode,
            profile,
            rules: config.rules,
            hints: config.hints,
            compound: match profile {
                Some(GateProfile::Automation(p)) => p.compound,
                Some(GateProfile::Action(p)) => p.compound,
                None => None,
            }
            .unwrap_or(config.compound),
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

    /// Decides one call. `hints` overrides the configured hints for the tool.
    pub fn decide(&self, tool: &str, args: &Value, hints: Option<Hints>) -> Verdict {
        self.decide_full(tool, args, hints, None, &Context::default())
    }

    /// Decides one call made in a known place (the hook payload's `cwd`):
    /// an absolute path below the working directory is then inside it.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate::gate::{Decision, Gate, GateConfig, Mode};
    /// use toolgate::Context;
    /// let classifier = toolgate::Classifier::embedded()?;
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
            && !(self.profile.is_none() && self.mode.mode == Mode::Autonomous)
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
            reason: COMPOUND_REASON.into(),
        });
        let basis = as_safe.as_ref().unwrap_or(&label);
        let compound_source = |source: String| {
            if parts_safe {
                "compound_every_part_safe".to_string()
            } else {
                source
            }
        };
        match self.profile {
            Some(GateProfile::Automation(profile)) => {
                if let Some(map) = threshold_map() {
                    let d = profile.decide(basis, confidence, map);
                    return Verdict {
                        decision: d.decision,
                        reason: format!("{} ({} label)", d.reason, basis.class),
                        source: compound_source(format!("profile_{}", profile.name)),
                        label,
                    };
                }
            }
            Some(GateProfile::Action(profile)) => {
                if let Some(map) = action_class_map() {
                    let call = ActionCall {
                        tool,
                        args: Cow::Borrowed(args),
                        command: shell.then(|| shell_command_arg(args)).flatten(),
                        classes: map.classes_for(basis),
                        // The shell tool is read by the classifier and a
                        // tool with hints declared what it does: both are
                        // confirmed. Any other tool is not.
                        confirmed: shell || hints != Hints::default(),
                    };
                    let d = profile.decide(&call);
                    return Verdict {
                        decision: d.decision,
                        reason: format!("{} ({} label, rule {})", d.reason, basis.class, d.rule),
                        source: compound_source(format!("profile_{}", profile.name)),
                        label,
                    };
                }
            }
            None => {}
        }
        let mode = self.mode.mode;
        let decision = mode.decide(basis);
        if parts_safe {
            let mut reason = format!("{COMPOUND_REASON} in {mode} mode");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_profile_takes_what_the_gate_finds_and_names_what_it_does_not() {
        for known in [
            "cautious",
            "full_auto",
            " Coding-Agent ",
            "balanced",
            "safe-auto",
        ] {
            let config = GateConfig::default().with_profile(known);
            assert_eq!(
                config.map(|c| c.profile),
                Ok(Some(known.trim().to_string())),
                "{known:?}"
            );
        }
        for unknown in ["cautios", "", "  ", "legacy", "yolo"] {
            let err = GateConfig::default()
                .with_profile(unknown)
                .map(|c| c.profile)
                .err();
            let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
            assert!(
                text.starts_with(&format!(
                    "unknown profile `{}`: use a safety mode",
                    unknown.trim()
                )) && text.contains("cautious, trusted")
                    && text.contains("`toolgate profile list`"),
                "{unknown:?}: {text}"
            );
        }
    }

    #[test]
    fn an_unknown_custom_profile_says_what_the_store_said() {
        let dir =
            std::env::temp_dir().join(format!("toolgate-unknown-profile-{}", std::process::id()));
        let store = || Some(Store::new(&dir));
        assert_eq!(
            UnknownProfile::hint("acme/nowhere", store()),
            "no custom profile `acme/nowhere` (see `toolgate profile list`)"
        );
        assert!(UnknownProfile::hint("acme/", store()).contains("acme/"));
        assert!(UnknownProfile::hint("acme/x", None).starts_with("no profile store"));
    }

    #[test]
    fn the_gate_is_strict_for_a_name_with_profile_refuses() {
        // What `with_profile` refuses is what the gate would not find.
        let Ok(classifier) = Classifier::embedded() else {
            panic!("the embedded taxonomy");
        };
        for name in ["cautios", "acme/nowhere"] {
            assert!(GateConfig::default().with_profile(name).is_err());
            let gate = Gate::new(
                classifier,
                GateConfig {
                    profile: Some(name.into()),
                    ..GateConfig::default()
                },
            );
            assert_eq!(
                (gate.mode(), gate.unrecognised()),
                (Mode::Strict, Some(format!("profile {name}").as_str()))
            );
        }
    }
}
