//! The built-in profiles, embedded from `taxonomy/profiles/`.

use std::sync::OnceLock;

use super::action::{ActionProfile, ClassMap};
use super::automation::{AutomationProfile, ThresholdMap};
use toolgate_core::taxonomy::EMBEDDED;

/// Where the automation profiles live in the taxonomy directory.
pub const AUTOMATION_DIR: &str = "profiles/automation";
/// The label → threshold map.
pub const THRESHOLD_MAP: &str = "profiles/automation-map.yaml";

/// A profile file that could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ProfileError {
    /// The file.
    pub file: String,
    /// What is wrong: the YAML error (with line and column) or the field
    /// and why.
    pub message: String,
}

/// Parses a profile file of any kind, then validates it; both errors name
/// the file.
fn parse_yaml<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    validate: impl FnOnce(&T) -> Result<(), String>,
) -> Result<T, ProfileError> {
    let error = |message: String| ProfileError {
        file: file.to_string(),
        message,
    };
    let profile: T = serde_yaml_ng::from_str(text).map_err(|e| error(e.to_string()))?;
    validate(&profile).map_err(error)?;
    Ok(profile)
}

/// Parses and validates an automation profile file.
pub fn parse_automation(file: &str, text: &str) -> Result<AutomationProfile, ProfileError> {
    parse_yaml(file, text, |p: &AutomationProfile| {
        p.validate()
            .map_err(|(field, message)| format!("field `{field}`: {message}"))
    })
}

fn embedded_text(path: &str) -> Option<&'static str> {
    EMBEDDED.get_file(path).and_then(|f| f.contents_utf8())
}

/// The embedded profiles `DIR/NAME.yaml` in the order given. A file that
/// does not parse is left out (the test suite fails on it).
fn embedded_profiles<T>(
    dir: &str,
    names: &[&str],
    parse: fn(&str, &str) -> Result<T, ProfileError>,
) -> Vec<T> {
    names
        .iter()
        .filter_map(|n| {
            let path = format!("{dir}/{n}.yaml");
            parse(&path, embedded_text(&path)?).ok()
        })
        .collect()
}

/// An embedded data file (`None` only on a broken build).
fn embedded_yaml<T: serde::de::DeserializeOwned>(path: &str) -> Option<T> {
    serde_yaml_ng::from_str(embedded_text(path)?).ok()
}

/// The eight built-in automation profiles, in table order. A file that does
/// not parse is left out (the test suite fails on it).
pub fn builtin_automation() -> &'static [AutomationProfile] {
    static CELL: OnceLock<Vec<AutomationProfile>> = OnceLock::new();
    CELL.get_or_init(|| {
        let order = [
            "manual",
            "review",
            "supervised",
            "cautious",
            "trusted",
            "auto",
            "ci",
            "full-auto",
        ];
        embedded_profiles(AUTOMATION_DIR, &order, parse_automation)
    })
}

/// The label → threshold map (`None` only on a broken build).
pub fn threshold_map() -> Option<&'static ThresholdMap> {
    static CELL: OnceLock<Option<ThresholdMap>> = OnceLock::new();
    CELL.get_or_init(|| embedded_yaml(THRESHOLD_MAP)).as_ref()
}

/// A built-in automation profile by name; the legacy automation levels
/// `manual`, `supervised`, `auto` and `full_auto` are accepted too.
///
/// ```
/// let p = toolgate_policy::automation_profile("full_auto").map(|p| p.name.as_str());
/// assert_eq!(p, Some("full-auto"));
/// assert!(toolgate_policy::automation_profile("yolo").is_none());
/// ```
pub fn automation_profile(name: &str) -> Option<&'static AutomationProfile> {
    let name = name.trim().to_ascii_lowercase();
    let name = match name.as_str() {
        "full_auto" => "full-auto",
        other => other,
    };
    builtin_automation().iter().find(|p| p.name == name)
}

/// Where the action-class profiles live in the taxonomy directory.
pub const ACTION_DIR: &str = "profiles/action";
/// The label → action classes map.
pub const ACTION_CLASS_MAP: &str = "profiles/action-classes.yaml";

/// Parses and validates an action-class profile file.
pub fn parse_action(file: &str, text: &str) -> Result<ActionProfile, ProfileError> {
    parse_yaml(file, text, ActionProfile::validate)
}

/// The four built-in action-class profiles. A file that does not parse is
/// left out (the test suite fails on it).
pub fn builtin_action() -> &'static [ActionProfile] {
    static CELL: OnceLock<Vec<ActionProfile>> = OnceLock::new();
    CELL.get_or_init(|| {
        let order = [
            "safe-default",
            "coding-agent",
            "finance-operations",
            "customer-support",
        ];
        embedded_profiles(ACTION_DIR, &order, parse_action)
    })
}

/// A built-in action-class profile by name.
///
/// ```
/// let p = toolgate_policy::action_profile("coding-agent").map(|p| p.version.as_str());
/// assert_eq!(p, Some("1.0.0"));
/// ```
pub fn action_profile(name: &str) -> Option<&'static ActionProfile> {
    let name = name.trim().to_ascii_lowercase();
    builtin_action().iter().find(|p| p.name == name)
}

/// The label → action classes map (`None` only on a broken build).
pub fn action_class_map() -> Option<&'static ClassMap> {
    static CELL: OnceLock<Option<ClassMap>> = OnceLock::new();
    CELL.get_or_init(|| embedded_yaml(ACTION_CLASS_MAP))
        .as_ref()
}
