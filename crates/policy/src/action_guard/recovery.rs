//! Settling actions whose outcome nobody recorded: `inspect` shows the
//! stored state, `reconcile` asks a read-only status lookup, `resolve`
//! takes a person's word. None of them runs the tool.

use serde::Serialize;

use super::run::{now, ActionGuard, Recovery};
use super::store::{Record, State, StoreError};

/// The default age after which an EXECUTING action counts as stale.
pub const DEFAULT_STALE_AFTER_S: u64 = 900;

/// What a read-only status lookup found in the system the tool acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The action was performed.
    Succeeded,
    /// The action was definitely not performed.
    Failed,
    /// The lookup cannot tell.
    Unknown,
}

/// The result of a reconcile or resolve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Settlement {
    /// The state before.
    pub before: State,
    /// The state after.
    pub after: State,
    /// What to do next.
    pub recovery: Recovery,
    /// For a person.
    pub detail: String,
}

/// Why recovery could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No action is recorded under the key.
    #[error("no action `{0}` is recorded under this key")]
    NotFound(String),
    /// A person asked for something the rules forbid.
    #[error("{0}")]
    Refused(String),
}

/// Emits a recovery event: the action's name and the states, never keys.
fn trace(kind: &str, action: &str, s: &Result<Settlement, RecoveryError>) {
    match s {
        Ok(s) => {
            tracing::info!(kind, action, before = ?s.before, after = ?s.after, recovery = ?s.recovery, "action recovery")
        }
        Err(e) => tracing::warn!(kind, action, error = %e, "action recovery refused"),
    }
}

impl ActionGuard<'_> {
    /// The stored record of an action key.
    pub fn inspect(&self, action: &str, action_key: &str) -> Result<Option<Record>, StoreError> {
        self.store().get(&self.record_id(action, action_key))
    }

    fn record(&self, action: &str, key: &str) -> Result<Record, RecoveryError> {
        self.inspect(action, key)?
            .ok_or_else(|| RecoveryError::NotFound(action.into()))
    }

    fn set(&self, rec: &Record, state: State, stale: bool) -> Result<(), StoreError> {
        let ids: Vec<String> = rec
            .group
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let ids = if ids.is_empty() {
            vec![rec.id.clone()]
        } else {
            ids
        };
        self.store().settle(&ids, state, now(), stale)
    }

    /// Settles an action from a read-only status lookup. A confirmed
    /// success is recorded at any time. While the execution is younger than
    /// `stale_after_s` nothing else changes; after that a FAILED lookup is
    /// recorded and anything else marks it UNKNOWN and stale.
    pub fn reconcile(
        &self,
        action: &str,
        action_key: &str,
        stale_after_s: u64,
        lookup: impl FnOnce() -> Lookup,
    ) -> Result<Settlement, RecoveryError> {
        let s = self.reconcile_inner(action, action_key, stale_after_s, lookup);
        trace("reconcile", action, &s);
        s
    }

    fn reconcile_inner(
        &self,
        action: &str,
        action_key: &str,
        stale_after_s: u64,
        lookup: impl FnOnce() -> Lookup,
    ) -> Result<Settlement, RecoveryError> {
        let rec = self.record(action, action_key)?;
        let before = rec.state;
        if before == State::Succeeded {
            return Ok(Settlement {
                before,
                after: before,
                recovery: Recovery::None,
                detail: "already recorded as succeeded".into(),
            });
        }
        let found = lookup();
        let settle = |after: State, stale: bool, recovery: Recovery, detail: &str| {
            self.set(&rec, after, stale)?;
            Ok(Settlement {
                before,
                after,
                recovery,
                detail: detail.into(),
            })
        };
        if found == Lookup::Succeeded {
            return settle(
                State::Succeeded,
                false,
                Recovery::VerifiedSucceeded,
                "the lookup confirms it was performed",
            );
        }
        if before == State::Failed {
            return Ok(Settlement {
                before,
                after: before,
                recovery: Recovery::RetryAllowed,
                detail: "already recorded as failed".into(),
            });
        }
        let age = now().saturating_sub(rec.started_at);
        if age < stale_after_s {
            return Ok(Settlement {
                before,
                after: before,
                recovery: Recovery::Escalate,
                detail: format!("started {age} s ago, under stale_after_s {stale_after_s}: it may still be running"),
            });
        }
        match found {
            Lookup::Failed => settle(
                State::Failed,
                false,
                Recovery::VerifiedFailed,
                "the lookup confirms it was not performed",
            ),
            _ => settle(
                State::Unknown,
                true,
                Recovery::Escalate,
                "stale, and the lookup cannot tell: a person must resolve it",
            ),
        }
    }

    /// A person settles an action. FAILED on an action that is executing
    /// or stale also needs their statement that the original process has
    /// stopped (`process_stopped`), or a late success could follow.
    pub fn resolve(
        &self,
        action: &str,
        action_key: &str,
        outcome: State,
        process_stopped: bool,
    ) -> Result<Settlement, RecoveryError> {
        let s = self.resolve_inner(action, action_key, outcome, process_stopped);
        trace("resolve", action, &s);
        s
    }

    fn resolve_inner(
        &self,
        action: &str,
        action_key: &str,
        outcome: State,
        process_stopped: bool,
    ) -> Result<Settlement, RecoveryError> {
        if !matches!(outcome, State::Succeeded | State::Failed) {
            return Err(RecoveryError::Refused(
                "resolve to SUCCEEDED or FAILED".into(),
            ));
        }
        let rec = self.record(action, action_key)?;
        let before = rec.state;
        if before == State::Succeeded && outcome == State::Failed {
            return Err(RecoveryError::Refused(
                "the action is recorded as succeeded; it cannot be resolved as failed".into(),
            ));
        }
        let running = before == State::Executing || rec.stale;
        if outcome == State::Failed && running && !process_stopped {
            return Err(RecoveryError::Refused(
                "resolving an executing or stale action as FAILED needs the statement that the original process has stopped (--process-stopped)".into(),
            ));
        }
        self.set(&rec, outcome, false)?;
        Ok(Settlement {
            before,
            after: outcome,
            recovery: if outcome == State::Failed {
                Recovery::RetryAllowed
            } else {
                Recovery::None
            },
            detail: "resolved by a person".into(),
        })
    }
}
