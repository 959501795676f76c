//! A policy that decides in place of the mode's row: the seam through
//! which profiles (the `toolgate-policy` crate) plug into the gate.
//!
//! The gate keeps what no policy may change: self-protection first, then
//! the operator's permission rules, then the compound choice; only the
//! last step, the row for the label, is the policy's.

use std::fmt;

use serde_json::Value;

use super::compound::CompoundPolicy;
use super::mode::Decision;
use crate::label::Label;
use crate::tools::Hints;

/// One call as a [`Policy`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct PolicyCall<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// Its arguments.
    pub args: &'a Value,
    /// The tool is the shell tool.
    pub shell: bool,
    /// The MCP hints it was labelled with.
    pub hints: Hints,
    /// The label the decision rests on (a compound of safe parts that the
    /// operator lets through is here as a safe label).
    pub label: &'a Label,
    /// The caller's confidence in the call, when it gave one.
    pub confidence: Option<f64>,
}

/// What a [`Policy`] decided, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyVerdict {
    /// The decision.
    pub decision: Decision,
    /// Why, for a person (the verdict's reason as it stands).
    pub reason: String,
}

/// A named policy that decides a call in place of the mode's row.
///
/// Its verdicts carry the source `profile_NAME`. A policy that cannot
/// decide (its own data did not load) returns `None`, and the mode's row
/// decides instead.
pub trait Policy: fmt::Debug + Send + Sync {
    /// The name verdicts are sourced to (`profile_NAME`).
    fn name(&self) -> &str;
    /// The compound choice the policy makes, overriding the gate's own.
    fn compound(&self) -> Option<CompoundPolicy>;
    /// Decides one call.
    fn decide(&self, call: &PolicyCall<'_>) -> Option<PolicyVerdict>;
}
