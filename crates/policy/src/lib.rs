#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

//! Profiles: named, versioned policies an operator picks for an agent.
//!
//! [`enforce`] checks a call against a safety profile (the hard constraints,
//! in a fixed order), and [`resolve`] / [`PlanSafety`] pick the profile that
//! applies (plan > action > project > global > default), locked to the plan.
//!
//! This module also holds the eight built-in automation profiles
//! (manual, review, supervised, cautious, trusted, auto, ci, full-auto):
//! per-action thresholds in `[0, 1]` and a safety sub-profile, stored as
//! YAML under `taxonomy/profiles/` and embedded like the taxonomy. The map
//! from a call's label to the threshold it answers to is data too
//! (`taxonomy/profiles/automation-map.yaml`).
//!
//! The four action-class profiles (safe-default, coding-agent,
//! finance-operations, customer-support) decide by the classes of a call
//! (read, write, delete, …) and by named rules with parameters; they live
//! under `taxonomy/profiles/action/`.

mod action;
mod automation;
mod builtin;
mod catalog;
mod guardrails;
mod guards;
mod safety;

pub use action::{
    ActionCall, ActionClass, ActionProfile, ActionVerdict, ClassMap, ClassRule, NamedRule,
};
pub use automation::{
    AutomationProfile, CategoryRule, LabelConfidence, ProfileDecision, SafetyProfile, ThresholdMap,
    Thresholds,
};
pub use builtin::{
    action_class_map, action_profile, automation_profile, builtin_action, builtin_automation,
    parse_action, parse_automation, threshold_map, ProfileError, ACTION_CLASS_MAP, ACTION_DIR,
    AUTOMATION_DIR, THRESHOLD_MAP,
};
pub use catalog::{
    builtin_modes, builtins, catalogue, check_custom_name, custom_profile, entries, parse_custom,
    AnyProfile, Entry, ProfileKind, Store, StoreError,
};
pub use guardrails::{
    parse_iso8601, ActorLimits, AuditEntry, AuditEvent, GuardrailConfig, GuardrailDecision,
    GuardrailState, Guardrails, DEFAULT_AUDIT_CAPACITY,
};
pub use guards::{GuardDecision, GuardInput, Guards, APPLY_TOOL};
pub use safety::{
    enforce, resolve, PlanSafety, Provenance, ResolvedSafety, ToolCallContext, ToolRuntimeError,
};

#[cfg(feature = "action-guard")]
pub mod action_guard;
mod gate;

pub use gate::{apply_profile, ProfileConfig, UnknownProfile};
