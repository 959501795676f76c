//! The gate: turns a labelled tool call into a decision (allow, ask or
//! deny) under the operator's permission rules and safety mode.
//!
//! Rules come first (deny > allow > ask); otherwise the mode's row of the
//! gating table decides ([`Mode::decide`]). Every verdict names its source
//! with a stable string, so logs and audits can tell a rule from a mode.

mod compound;
mod mode;
mod policy;
mod rules;
mod verdict;

pub use crate::glob::glob_match;
pub use compound::{CompoundPolicy, UnknownCompoundPolicy};
pub use mode::{Decision, Mode, ModeChoice, ModeSetting, UnknownMode};
pub use policy::{Policy, PolicyCall, PolicyVerdict};
pub use rules::{Rule, RuleError, Rules};
pub use verdict::{Gate, GateConfig, Verdict};
