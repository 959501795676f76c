//! Record before acting: decide, reserve the action in the store, mark it
//! EXECUTING, call the tool at most once with exactly the checked request,
//! record what happened. The guard never retries; an outcome nobody knows
//! stays UNKNOWN until reconcile or a person settles it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;

use super::decision::{evaluate, field_text, Approver, GuardVerdict, ReasonCode};
use super::keys::Secret;
use super::policy::Policy;
use super::store::{ActionStore, IdKind, Record, Reservation, State};

/// The final outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    /// The tool was not called.
    NotExecuted,
    /// The tool performed the action.
    Succeeded,
    /// The tool definitely did not perform it.
    Failed,
    /// Nobody knows.
    Unknown,
}

impl From<State> for Outcome {
    fn from(s: State) -> Outcome {
        match s {
            State::Succeeded => Outcome::Succeeded,
            State::Failed => Outcome::Failed,
            State::Executing | State::Unknown => Outcome::Unknown,
        }
    }
}

/// What to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Nothing.
    None,
    /// A new attempt may start.
    RetryAllowed,
    /// Reconcile found it performed.
    VerifiedSucceeded,
    /// Reconcile found it not performed.
    VerifiedFailed,
    /// A person (or reconcile) must find out what happened.
    Escalate,
}

/// What the tool reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolResult {
    /// It performed the action.
    Succeeded,
    /// It definitely did not perform it (validated and refused, say).
    NotPerformed,
    /// Anything else: an error, a timeout.
    Unknown,
}

/// The report of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunReport {
    /// Allow, deny or require approval.
    pub decision: GuardVerdict,
    /// Every reason, the deciding one first.
    pub reasons: Vec<ReasonCode>,
    /// The rule that decided.
    pub rule: String,
    /// For a person: fields, never values.
    pub detail: String,
    /// What happened this time.
    pub final_outcome: Outcome,
    /// For a duplicate: what happened before.
    pub previous_outcome: Option<Outcome>,
    /// What to do next.
    pub recovery: Recovery,
    /// The attempt number, when the tool was called.
    pub attempt: Option<u32>,
}

impl RunReport {
    fn refused(
        decision: GuardVerdict,
        reasons: Vec<ReasonCode>,
        rule: &str,
        detail: String,
    ) -> RunReport {
        RunReport {
            decision,
            reasons,
            rule: rule.into(),
            detail,
            final_outcome: Outcome::NotExecuted,
            previous_outcome: None,
            recovery: Recovery::None,
            attempt: None,
        }
    }
}

/// The action guard: a policy, a store and the secrets.
pub struct ActionGuard<'s> {
    policy: Policy,
    store: &'s dyn ActionStore,
    store_secret: Secret,
    idempotency_secret: Option<Secret>,
    namespace: String,
    require_idempotency: bool,
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn valid_key(k: &str) -> bool {
    !k.trim().is_empty() && k.len() <= 256 && !k.chars().any(char::is_control)
}

impl<'s> ActionGuard<'s> {
    /// A guard over `store`; `namespace` names the service and environment
    /// (`payments/prod`), so two services never share identifiers.
    pub fn new(
        policy: Policy,
        store: &'s dyn ActionStore,
        store_secret: Secret,
        namespace: &str,
    ) -> ActionGuard<'s> {
        ActionGuard {
            policy,
            store,
            store_secret,
            idempotency_secret: None,
            namespace: namespace.to_string(),
            require_idempotency: false,
        }
    }

    /// Hands the tool an idempotency key derived with `secret`.
    pub fn with_idempotency(mut self, secret: Secret) -> Self {
        self.idempotency_secret = Some(secret);
        self
    }

    /// Refuses to run (`idempotency_unconfigured`) without an idempotency
    /// secret: for tools whose provider deduplicates by key.
    pub fn require_idempotency(mut self, yes: bool) -> Self {
        self.require_idempotency = yes;
        self
    }

    pub(crate) fn store(&self) -> &dyn ActionStore {
        self.store
    }

    /// The idempotency key of an action key, if a secret is configured.
    pub fn idempotency_key(&self, action: &str, action_key: &str) -> Option<String> {
        let s = self.idempotency_secret.as_ref()?;
        Some(s.mac(&[
            b"idempotency",
            self.namespace.as_bytes(),
            action.as_bytes(),
            action_key.as_bytes(),
        ]))
    }

    /// The keyed identifier under which an action key is stored.
    pub fn record_id(&self, action: &str, action_key: &str) -> String {
        self.store_secret.mac(&[
            b"key",
            self.namespace.as_bytes(),
            action.as_bytes(),
            action_key.as_bytes(),
        ])
    }

    fn once_id(&self, action: &str, values: &[String]) -> String {
        let mut parts: Vec<&[u8]> = vec![b"once", self.namespace.as_bytes(), action.as_bytes()];
        parts.extend(values.iter().map(|v| v.as_bytes()));
        self.store_secret.mac(&parts)
    }

    /// Decides and, when allowed, runs `tool` at most once. `tool` gets the
    /// checked request and the idempotency key.
    pub fn run(
        &self,
        action: &str,
        action_key: Option<&str>,
        request: &Value,
        evidence: &Value,
        approver: Option<&dyn Approver>,
        tool: impl FnOnce(&Value, Option<&str>) -> ToolResult,
    ) -> RunReport {
        // Spans carry names, codes and outcomes only: never request or
        // evidence values, keys or secrets. Enforcement does not read them.
        let span = tracing::info_span!("toolgate.action", action, namespace = %self.namespace);
        let _entered = span.enter();
        let report = self.run_inner(action, action_key, request, evidence, approver, tool);
        tracing::info!(
            decision = ?report.decision,
            reasons = ?report.reasons,
            rule = %report.rule,
            final_outcome = ?report.final_outcome,
            previous_outcome = ?report.previous_outcome,
            recovery = ?report.recovery,
            attempt = report.attempt,
            "action guard"
        );
        report
    }

    fn run_inner(
        &self,
        action: &str,
        action_key: Option<&str>,
        request: &Value,
        evidence: &Value,
        approver: Option<&dyn Approver>,
        tool: impl FnOnce(&Value, Option<&str>) -> ToolResult,
    ) -> RunReport {
        let d = evaluate(&self.policy, action, request, evidence, approver);
        if d.decision != GuardVerdict::Allow {
            return RunReport::refused(d.decision, d.reasons, &d.rule, d.detail);
        }
        let deny = |code: ReasonCode, rule: &str, detail: &str| {
            RunReport::refused(GuardVerdict::Deny, vec![code], rule, detail.into())
        };
        if let Some(k) = action_key {
            if !valid_key(k) {
                return deny(
                    ReasonCode::ActionKeyInvalid,
                    "action_key",
                    "the action key is empty, longer than 256 bytes or holds control characters",
                );
            }
        }
        if action_key.is_none() && self.store.requires_action_keys() {
            return deny(
                ReasonCode::ActionKeyRequired,
                "action_key",
                "this store needs an action key for every action",
            );
        }
        if self.require_idempotency && self.idempotency_secret.is_none() {
            return deny(
                ReasonCode::IdempotencyUnconfigured,
                "idempotency",
                "the tool needs an idempotency key and no idempotency secret is set",
            );
        }
        let Some(policy) = self.policy.actions.get(action) else {
            return deny(
                ReasonCode::ActionNotPermitted,
                "actions",
                "the policy does not list the action",
            );
        };
        let mut ids: Vec<(String, IdKind)> = Vec::new();
        if let Some(k) = action_key {
            ids.push((self.record_id(action, k), IdKind::ActionKey));
        }
        if !policy.once_per.is_empty() {
            let values: Vec<String> = policy
                .once_per
                .iter()
                // Every once_per field passed must_match, so it is a
                // scalar the decision already compared by this same text.
                .map(|f| request.get(f).and_then(field_text).unwrap_or_default())
                .collect();
            ids.push((self.once_id(action, &values), IdKind::OncePer));
        }
        let idem_key = action_key.and_then(|k| self.idempotency_key(action, k));
        let t = now();
        let record = Record {
            id: String::new(),
            action: action.to_string(),
            state: State::Executing,
            attempt: 1,
            request_mac: self
                .store_secret
                .mac(&[b"request", request.to_string().as_bytes()]),
            policy_mac: self
                .store_secret
                .mac(&[b"policy", policy.fingerprint().as_bytes()]),
            idempotency_mac: self
                .idempotency_secret
                .as_ref()
                .map(|s| {
                    self.store_secret
                        .mac(&[b"idempotency-config", s.mac(&[b"fingerprint"]).as_bytes()])
                })
                .unwrap_or_default(),
            group: ids
                .iter()
                .map(|(id, _)| id.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            started_at: t,
            updated_at: t,
            stale: false,
        };
        let attempt = match self.store.reserve(&ids, &record) {
            Err(e) => return deny(ReasonCode::StoreUnavailable, "store", &e.to_string()),
            Ok(Reservation::Refused { reason, previous }) => {
                let prev = Outcome::from(previous);
                return RunReport {
                    previous_outcome: Some(prev),
                    recovery: match prev {
                        Outcome::Unknown => Recovery::Escalate,
                        Outcome::Failed => Recovery::RetryAllowed,
                        _ => Recovery::None,
                    },
                    ..deny(reason, "store", "an earlier attempt holds this action")
                };
            }
            Ok(Reservation::Started { attempt }) => attempt,
        };
        let result = catch_unwind(AssertUnwindSafe(|| tool(request, idem_key.as_deref())))
            .unwrap_or(ToolResult::Unknown);
        let (state, outcome, recovery) = match result {
            ToolResult::Succeeded => (State::Succeeded, Outcome::Succeeded, Recovery::None),
            ToolResult::NotPerformed => (State::Failed, Outcome::Failed, Recovery::RetryAllowed),
            ToolResult::Unknown => (State::Unknown, Outcome::Unknown, Recovery::Escalate),
        };
        let id_list: Vec<String> = ids.into_iter().map(|(id, _)| id).collect();
        let mut report = RunReport {
            decision: GuardVerdict::Allow,
            reasons: d.reasons,
            rule: d.rule,
            detail: d.detail,
            final_outcome: outcome,
            previous_outcome: None,
            recovery,
            attempt: Some(attempt),
        };
        if let Err(e) = self.store.settle(&id_list, state, now(), false) {
            // The tool ran; its outcome is known here but not recorded: the
            // record stays EXECUTING, which reconcile or a person settles.
            report.reasons.push(ReasonCode::StoreUnavailable);
            report.recovery = Recovery::Escalate;
            report.detail = format!("{}; recording the outcome failed: {e}", report.detail);
        }
        report
    }
}
