//! The action guard: a policy of checks for tools with real side effects
//! (refund, pay, email, deploy), decided against trusted evidence from the
//! caller's own systems — never against the model's word alone.
//!
//! The policy file ([`Policy`]) and the decision ([`evaluate`]) say
//! whether an action may run; amounts are exact decimals ([`Amount`]),
//! never floating point. [`ActionGuard::run`] records the action in an
//! [`ActionStore`] before the tool is called, calls it at most once, and
//! never retries an outcome nobody knows.

mod amount;
mod decision;
mod keys;
mod policy;
mod recovery;
mod run;
mod sqlite;
mod store;

pub use amount::Amount;
pub use decision::{evaluate, Approver, GuardDecision, GuardVerdict, ReasonCode};
pub use keys::{Secret, SecretError};
pub use policy::{ActionPolicy, Policy, PolicyError};
pub use recovery::{Lookup, RecoveryError, Settlement, DEFAULT_STALE_AFTER_S};
pub use run::{now, ActionGuard, Outcome, Recovery, RunReport, ToolResult};
pub use sqlite::SqliteStore;
pub use store::{
    check_reservation, judge, ActionStore, IdKind, MemoryStore, Record, Reservation, State,
    StoreError,
};
