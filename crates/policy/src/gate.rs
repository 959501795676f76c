//! Profiles in the gate: each profile is a [`Policy`] that decides in
//! place of the mode's row, and a profile *name* (from a flag, a
//! configuration file or a library caller) is read here into the gate's
//! configuration.

use std::borrow::Cow;

use toolgate_core::gate::{
    CompoundPolicy, GateConfig, Mode, ModeSetting, Policy, PolicyCall, PolicyVerdict,
};
use toolgate_core::tools::{shell_command_arg, Hints};

use crate::{
    action_class_map, action_profile, automation_profile, builtin_action, builtin_automation,
    custom_profile, threshold_map, ActionCall, ActionProfile, AnyProfile, AutomationProfile, Store,
};

impl Policy for AutomationProfile {
    fn name(&self) -> &str {
        &self.name
    }

    fn compound(&self) -> Option<CompoundPolicy> {
        self.compound
    }

    fn decide(&self, call: &PolicyCall<'_>) -> Option<PolicyVerdict> {
        let map = threshold_map()?;
        let d = AutomationProfile::decide(self, call.label, call.confidence, map);
        Some(PolicyVerdict {
            decision: d.decision,
            reason: format!("{} ({} label)", d.reason, call.label.class),
        })
    }
}

impl Policy for ActionProfile {
    fn name(&self) -> &str {
        &self.name
    }

    fn compound(&self) -> Option<CompoundPolicy> {
        self.compound
    }

    fn decide(&self, call: &PolicyCall<'_>) -> Option<PolicyVerdict> {
        let map = action_class_map()?;
        let action = ActionCall {
            tool: call.tool,
            args: Cow::Borrowed(call.args),
            command: call.shell.then(|| shell_command_arg(call.args)).flatten(),
            classes: map.classes_for(call.label),
            // The shell tool is read by the classifier and a tool with
            // hints declared what it does: both are confirmed. Any other
            // tool is not.
            confirmed: call.shell || call.hints != Hints::default(),
        };
        let d = ActionProfile::decide(self, &action);
        Some(PolicyVerdict {
            decision: d.decision,
            reason: format!("{} ({} label, rule {})", d.reason, call.label.class, d.rule),
        })
    }
}

/// The policy a profile name stands for (a safety mode's name is not one:
/// the gate takes it as the mode).
fn lookup(name: &str) -> Option<&'static dyn Policy> {
    if let Some(p) = automation_profile(name) {
        return Some(p);
    }
    if let Some(p) = action_profile(name) {
        return Some(p);
    }
    match custom_profile(name)? {
        AnyProfile::Automation(a) => Some(a),
        AnyProfile::Action(a) => Some(a),
        AnyProfile::Mode { .. } => None,
    }
}

/// The fail-closed reading of a profile name as the hook gets it: a
/// safety mode's name (`balanced`, …) sets that mode; a built-in or custom
/// profile decides instead of the mode; a blank name changes nothing; any
/// other name is strict, and every verdict's reason names it.
///
/// ```
/// use toolgate_core::gate::{GateConfig, Mode};
/// let config = toolgate_policy::apply_profile(GateConfig::default(), Some("cautios"));
/// assert_eq!((config.mode.mode(), config.policy.is_none()), (Mode::Strict, true));
/// let config = toolgate_policy::apply_profile(GateConfig::default(), Some("cautious"));
/// assert_eq!(config.policy.map(|p| p.name()), Some("cautious"));
/// ```
pub fn apply_profile(mut config: GateConfig, name: Option<&str>) -> GateConfig {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return config;
    };
    let as_mode = Mode::parse(Some(name));
    if as_mode.unrecognised.is_none() {
        config.mode = ModeSetting::Known(as_mode.mode);
        config.policy = None;
    } else if let Some(policy) = lookup(name) {
        config.policy = Some(policy);
    } else {
        config.mode = ModeSetting::UnrecognisedProfile(name.to_string());
        config.policy = None;
    }
    config
}

/// Profile names on a [`GateConfig`], checked.
pub trait ProfileConfig: Sized {
    /// Sets the profile `name` if the gate would find it (a safety mode, a
    /// built-in profile, or a custom `namespace/name` profile in the
    /// default store), and otherwise says why not, instead of the strict
    /// gate an unknown name gives ([`apply_profile`]).
    ///
    /// ```
    /// use toolgate_core::gate::GateConfig;
    /// use toolgate_policy::ProfileConfig;
    /// let config = GateConfig::default().with_profile("coding-agent")?;
    /// assert_eq!(config.policy.map(|p| p.name()), Some("coding-agent"));
    /// let err = GateConfig::default().with_profile("codng-agent").unwrap_err();
    /// assert_eq!(err.name(), "codng-agent");
    /// assert!(err.to_string().starts_with("unknown profile `codng-agent`: use a safety mode"));
    /// // A custom profile is looked up in the store (`toolgate profile list`).
    /// assert!(GateConfig::default().with_profile("acme/nowhere").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn with_profile(self, name: &str) -> Result<Self, UnknownProfile>;
}

impl ProfileConfig for GateConfig {
    fn with_profile(self, name: &str) -> Result<GateConfig, UnknownProfile> {
        let name = name.trim();
        let is_mode = !name.is_empty() && Mode::parse(Some(name)).unrecognised.is_none();
        if !is_mode && lookup(name).is_none() {
            return Err(UnknownProfile::new(name));
        }
        Ok(apply_profile(self, Some(name)))
    }
}

/// A profile name the gate would not find: [`ProfileConfig::with_profile`]'s
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

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::gate::Gate;
    use toolgate_core::Classifier;

    #[test]
    fn with_profile_takes_what_the_gate_finds_and_names_what_it_does_not() {
        for (known, policy) in [
            ("cautious", Some("cautious")),
            ("full_auto", Some("full-auto")),
            (" Coding-Agent ", Some("coding-agent")),
            ("balanced", None),
            ("safe-auto", None),
        ] {
            let config = GateConfig::default().with_profile(known);
            assert_eq!(
                config.map(|c| c.policy.map(|p| p.name().to_string())),
                Ok(policy.map(str::to_string)),
                "{known:?}"
            );
        }
        for unknown in ["cautios", "", "  ", "legacy", "yolo"] {
            let err = GateConfig::default()
                .with_profile(unknown)
                .map(|c| c.policy.is_some())
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
            let gate = Gate::new(classifier, apply_profile(GateConfig::default(), Some(name)));
            assert_eq!(
                (gate.mode(), gate.unrecognised()),
                (Mode::Strict, Some(format!("profile {name}").as_str()))
            );
        }
    }
}
