//! Where actions are recorded before they run. A store reserves an action
//! atomically (exactly one caller wins a key), so the tool runs at most
//! once per key; [`MemoryStore`] serves one process and tests.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::decision::ReasonCode;

/// The stored state of an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// Reserved and handed to the tool; the result is not recorded yet.
    Executing,
    /// The tool performed it.
    Succeeded,
    /// The tool definitely did not perform it; a new attempt may start.
    Failed,
    /// Nobody knows whether it happened (error, timeout, crash).
    Unknown,
}

impl State {
    /// The name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Executing => "EXECUTING",
            State::Succeeded => "SUCCEEDED",
            State::Failed => "FAILED",
            State::Unknown => "UNKNOWN",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<State> {
        Some(match s {
            "EXECUTING" => State::Executing,
            "SUCCEEDED" => State::Succeeded,
            "FAILED" => State::Failed,
            "UNKNOWN" => State::Unknown,
            _ => return None,
        })
    }
}

/// One recorded action. Identifiers are HMACs; no request or evidence
/// value is stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The keyed identifier.
    pub id: String,
    /// The action's name in the policy.
    pub action: String,
    /// Its state.
    pub state: State,
    /// Attempts started (a new one only after FAILED).
    pub attempt: u32,
    /// HMAC of the request.
    pub request_mac: String,
    /// HMAC of the action's policy.
    pub policy_mac: String,
    /// HMAC fingerprint of the idempotency configuration (empty: none).
    pub idempotency_mac: String,
    /// Every identifier reserved with this one (the action key's and the
    /// `once_per` one), space-separated, so recovery settles them together.
    pub group: String,
    /// When the current attempt started (Unix seconds).
    pub started_at: u64,
    /// When the record last changed (Unix seconds).
    pub updated_at: u64,
    /// Marked UNKNOWN by reconcile because it went stale.
    pub stale: bool,
}

/// The store could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// What a reservation found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// Reserved: the tool may run as this attempt.
    Started {
        /// The attempt number.
        attempt: u32,
    },
    /// Refused because of an existing record.
    Refused {
        /// Why.
        reason: ReasonCode,
        /// Its state.
        previous: State,
    },
}

/// How a reservation identifier relates to the action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    /// The action key: another request under it is a conflict.
    ActionKey,
    /// A `once_per` value: another request on it is a duplicate.
    OncePer,
}

/// Decides what an existing record means for a new attempt; both stores
/// call this inside their atomic section.
pub fn judge(existing: &Record, new: &Record, kind: IdKind) -> Result<u32, (ReasonCode, State)> {
    let prev = existing.state;
    let same_request = existing.request_mac == new.request_mac;
    match prev {
        State::Succeeded if kind == IdKind::ActionKey && !same_request => {
            Err((ReasonCode::ActionKeyConflict, prev))
        }
        State::Succeeded => Err((ReasonCode::DuplicateAction, prev)),
        State::Executing | State::Unknown => {
            if kind == IdKind::ActionKey && !same_request {
                Err((ReasonCode::ActionKeyConflict, prev))
            } else if existing.policy_mac != new.policy_mac {
                Err((ReasonCode::PolicyMismatch, prev))
            } else if existing.idempotency_mac != new.idempotency_mac {
                Err((ReasonCode::IdempotencyConfigChanged, prev))
            } else {
                Err((ReasonCode::DuplicateAction, prev))
            }
        }
        State::Failed => {
            if kind == IdKind::ActionKey && !same_request {
                Err((ReasonCode::RequestChanged, prev))
            } else {
                Ok(existing.attempt + 1)
            }
        }
    }
}

/// Checks every identifier of a reservation against its existing record
/// (`existing` reads one, inside the store's atomic section) and gives the
/// attempt to record, or the refusal. Both stores call this, so they agree
/// on what a record means.
pub fn check_reservation(
    ids: &[(String, IdKind)],
    new: &Record,
    mut existing: impl FnMut(&str) -> Result<Option<Record>, StoreError>,
) -> Result<Reservation, StoreError> {
    let mut attempt = 1;
    for (id, kind) in ids {
        if let Some(record) = existing(id)? {
            match judge(&record, new, *kind) {
                Ok(a) => attempt = attempt.max(a),
                Err((reason, previous)) => return Ok(Reservation::Refused { reason, previous }),
            }
        }
    }
    Ok(Reservation::Started { attempt })
}

/// A durable or in-memory action store.
pub trait ActionStore: Send + Sync {
    /// Whether every action needs an action key (durable stores).
    fn requires_action_keys(&self) -> bool;
    /// Atomically checks every identifier and, when none refuses, records
    /// `new` as EXECUTING under each.
    fn reserve(&self, ids: &[(String, IdKind)], new: &Record) -> Result<Reservation, StoreError>;
    /// Records the state of an attempt under every identifier.
    fn settle(&self, ids: &[String], state: State, now: u64, stale: bool)
        -> Result<(), StoreError>;
    /// The record under an identifier.
    fn get(&self, id: &str) -> Result<Option<Record>, StoreError>;
}

/// A store in memory: one process, for tests and short-lived agents.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, Record>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, Record>>, StoreError> {
        self.records
            .lock()
            .map_err(|_| StoreError("the in-memory store is poisoned by a panic".into()))
    }
}

impl ActionStore for MemoryStore {
    fn requires_action_keys(&self) -> bool {
        false
    }

    fn reserve(&self, ids: &[(String, IdKind)], new: &Record) -> Result<Reservation, StoreError> {
        let mut records = self.lock()?;
        let attempt = match check_reservation(ids, new, |id| Ok(records.get(id).cloned()))? {
            Reservation::Started { attempt } => attempt,
            refused => return Ok(refused),
        };
        for (id, _) in ids {
            records.insert(
                id.clone(),
                Record {
                    id: id.clone(),
                    attempt,
                    ..new.clone()
                },
            );
        }
        Ok(Reservation::Started { attempt })
    }

    fn settle(
        &self,
        ids: &[String],
        state: State,
        now: u64,
        stale: bool,
    ) -> Result<(), StoreError> {
        let mut records = self.lock()?;
        for id in ids {
            if let Some(r) = records.get_mut(id) {
                r.state = state;
                r.updated_at = now;
                r.stale = stale;
            }
        }
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        Ok(self.lock()?.get(id).cloned())
    }
}
