//! The action guard: a policy of checks for tools with real side effects
//! (refund, pay, email, deploy), decided against trusted evidence from the
//! caller's own systems — never against the model's word alone.
//!
//! This part holds the policy file ([`Policy`]) and the decision
//! ([`evaluate`]); amounts are exact decimals ([`Amount`]), never floating
//! point.

mod amount;
mod decision;
mod policy;

pub use amount::Amount;
pub use decision::{evaluate, Approver, GuardDecision, GuardVerdict, ReasonCode};
pub use policy::{ActionPolicy, Policy, PolicyError};
