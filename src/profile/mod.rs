//! Profiles: named, versioned policies an operator picks for an agent.
//!
//! This first part holds the eight automation profiles of the seed system
//! (manual, review, supervised, cautious, trusted, auto, ci, full-auto):
//! per-action thresholds in `[0, 1]` and a safety sub-profile, stored as
//! YAML under `taxonomy/profiles/` and embedded like the taxonomy. The map
//! from a call's label to the threshold it answers to is data too
//! (`taxonomy/profiles/automation-map.yaml`).

mod automation;
mod builtin;

pub use automation::{
    AutomationProfile, CategoryRule, LabelConfidence, ProfileDecision, SafetyProfile, ThresholdMap,
    Thresholds,
};
pub use builtin::{
    automation_profile, builtin_automation, parse_automation, threshold_map, ProfileError,
    AUTOMATION_DIR, THRESHOLD_MAP,
};
