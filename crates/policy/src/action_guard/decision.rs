//! Deciding one action against its policy and the caller's trusted
//! evidence. Messages name fields, never their values: evidence can hold
//! order ids, addresses and amounts that do not belong in logs.

use serde::Serialize;
use serde_json::{Map, Value};

use super::amount::{above, Amount};
use super::policy::{ActionPolicy, Policy};

/// What the guard says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GuardVerdict {
    /// Run it.
    Allow,
    /// Do not run it.
    Deny,
    /// Run it only with a person's yes.
    RequireApproval,
}

/// Why. The codes of the store and execution (`duplicate_action`,
/// `action_key_conflict`, …) are part of the same vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// Every check passed.
    AllChecksPassed,
    /// The amount is above `approval_above` and no yes was given.
    ApprovalRequired,
    /// The policy does not list the action.
    ActionNotPermitted,
    /// The request is not a JSON object.
    InvalidInput,
    /// A required evidence field is missing or empty.
    EvidenceMissing,
    /// A field the checks need is missing from the request.
    RequestMissing,
    /// A request field differs from the evidence.
    EvidenceMismatch,
    /// The request's amount is not a decimal amount.
    AmountInvalid,
    /// The evidence is not an object, or a field in it cannot be compared.
    EvidenceInvalid,
    /// The request's amount is above the evidence's.
    AmountExceedsEvidence,
    /// The request's amount is above `max_amount`.
    AmountExceedsLimit,
    /// The action already ran for this key.
    DuplicateAction,
    /// The action key was used with a different request.
    ActionKeyConflict,
    /// The store needs an action key.
    ActionKeyRequired,
    /// The action key is malformed.
    ActionKeyInvalid,
    /// Idempotency keys were asked for without a secret.
    IdempotencyUnconfigured,
    /// The idempotency configuration changed for an unsettled action.
    IdempotencyConfigChanged,
    /// The request changed between attempts.
    RequestChanged,
    /// The store cannot be used.
    StoreUnavailable,
    /// The stored action was decided under another policy.
    PolicyMismatch,
}

/// Someone who approves or refuses an action; only the exact answer `yes`
/// approves.
pub trait Approver {
    /// Asks about `action` with `request`.
    fn answer(&self, action: &str, request: &Value) -> String;
}

/// The guard's decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GuardDecision {
    /// Allow, deny or require approval.
    pub decision: GuardVerdict,
    /// Every reason that applies, the deciding one first.
    pub reasons: Vec<ReasonCode>,
    /// The policy rule that decided (`actions`, `required_evidence.order_id`,
    /// `max_amount`, …).
    pub rule: String,
    /// For a person: which fields, never their values.
    pub detail: String,
}

impl GuardDecision {
    fn new(
        decision: GuardVerdict,
        reason: ReasonCode,
        rule: &str,
        detail: String,
    ) -> GuardDecision {
        GuardDecision {
            decision,
            reasons: vec![reason],
            rule: rule.to_string(),
            detail,
        }
    }
}

fn is_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        Some(_) => false,
    }
}

/// A scalar as trimmed text; `None` for values that cannot be compared.
/// `must_match` compares fields by it, and `once_per` keys actions by it.
pub(crate) fn field_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

struct Failures {
    found: Vec<(ReasonCode, String, String)>,
}

impl Failures {
    fn add(&mut self, code: ReasonCode, rule: String, detail: String) {
        self.found.push((code, rule, detail));
    }
}

fn check(
    p: &ActionPolicy,
    request: &Map<String, Value>,
    evidence: &Map<String, Value>,
    f: &mut Failures,
) {
    for field in &p.required_evidence {
        if is_empty(evidence.get(field)) {
            f.add(
                ReasonCode::EvidenceMissing,
                format!("required_evidence.{field}"),
                format!("evidence field `{field}` is missing or empty"),
            );
        }
    }
    for field in &p.must_match {
        let req = request.get(field);
        if is_empty(req) {
            f.add(
                ReasonCode::RequestMissing,
                format!("must_match.{field}"),
                format!("request field `{field}` is missing or empty"),
            );
            continue;
        }
        let Some(ev) = evidence.get(field).filter(|v| !is_empty(Some(v))) else {
            continue; // reported as evidence_missing
        };
        match (req.and_then(field_text), field_text(ev)) {
            (_, None) => f.add(
                ReasonCode::EvidenceInvalid,
                format!("must_match.{field}"),
                format!("evidence field `{field}` is not a string, number or boolean"),
            ),
            (None, _) => f.add(
                ReasonCode::InvalidInput,
                format!("must_match.{field}"),
                format!("request field `{field}` is not a string, number or boolean"),
            ),
            (Some(a), Some(b)) if a != b => f.add(
                ReasonCode::EvidenceMismatch,
                format!("must_match.{field}"),
                format!("request field `{field}` does not match the evidence"),
            ),
            _ => {}
        }
    }
    let Some(field) = &p.amount else { return };
    let amount = match request.get(field) {
        v if is_empty(v) => {
            f.add(
                ReasonCode::RequestMissing,
                "amount".into(),
                format!("request field `{field}` (the amount) is missing"),
            );
            return;
        }
        Some(v) => match Amount::from_json(v) {
            Some(a) => a,
            None => {
                f.add(
                    ReasonCode::AmountInvalid,
                    "amount".into(),
                    format!("request field `{field}` is not a decimal amount such as \"250.00\""),
                );
                return;
            }
        },
        None => return,
    };
    if p.amount_at_most_evidence {
        if let Some(ev) = evidence.get(field).filter(|v| !is_empty(Some(v))) {
            match Amount::from_json(ev) {
                None => f.add(
                    ReasonCode::EvidenceInvalid,
                    "amount_at_most_evidence".into(),
                    format!("evidence field `{field}` is not a decimal amount"),
                ),
                Some(limit) if above(amount, limit) => f.add(
                    ReasonCode::AmountExceedsEvidence,
                    "amount_at_most_evidence".into(),
                    format!("request field `{field}` is above the evidence's amount"),
                ),
                Some(_) => {}
            }
        }
    }
    if let Some(max) = p.max_amount {
        if above(amount, max) {
            f.add(
                ReasonCode::AmountExceedsLimit,
                "max_amount".into(),
                format!("request field `{field}` is above max_amount {max}"),
            );
        }
    }
}

/// Decides `action` with the model's `request` against the caller's
/// trusted `evidence`. Above `approval_above` the `approver` must answer
/// exactly `yes`; without one the decision is `REQUIRE_APPROVAL`.
pub fn evaluate(
    policy: &Policy,
    action: &str,
    request: &Value,
    evidence: &Value,
    approver: Option<&dyn Approver>,
) -> GuardDecision {
    let Some(p) = policy.actions.get(action) else {
        return GuardDecision::new(
            GuardVerdict::Deny,
            ReasonCode::ActionNotPermitted,
            "actions",
            format!("the policy does not list action `{action}`"),
        );
    };
    let Some(request_map) = request.as_object() else {
        return GuardDecision::new(
            GuardVerdict::Deny,
            ReasonCode::InvalidInput,
            "request",
            "the request is not a JSON object".into(),
        );
    };
    let Some(evidence_map) = evidence.as_object() else {
        return GuardDecision::new(
            GuardVerdict::Deny,
            ReasonCode::EvidenceInvalid,
            "evidence",
            "the evidence is not a JSON object".into(),
        );
    };
    let mut failures = Failures { found: Vec::new() };
    check(p, request_map, evidence_map, &mut failures);
    if let Some((code, rule, detail)) = failures.found.first().cloned() {
        let mut reasons: Vec<ReasonCode> = failures.found.iter().map(|f| f.0).collect();
        reasons.dedup();
        return GuardDecision {
            decision: GuardVerdict::Deny,
            reasons: {
                // The deciding reason first, the rest in order of discovery.
                let mut r = vec![code];
                r.extend(reasons.into_iter().filter(|c| *c != code));
                r
            },
            rule,
            detail,
        };
    }
    let amount = p
        .amount
        .as_ref()
        .and_then(|f| request_map.get(f))
        .and_then(Amount::from_json);
    let needs_approval = if p.require_approval {
        Some((
            "require_approval",
            "the policy asks for approval of every call".to_string(),
        ))
    } else {
        match (p.approval_above, amount) {
            (Some(limit), Some(amount)) if above(amount, limit) => Some((
                "approval_above",
                format!("the amount is above approval_above {limit}"),
            )),
            _ => None,
        }
    };
    if let Some((rule, why)) = needs_approval {
        return match approver.map(|a| a.answer(action, request)) {
            None => GuardDecision::new(
                GuardVerdict::RequireApproval,
                ReasonCode::ApprovalRequired,
                rule,
                why,
            ),
            Some(answer) if answer == "yes" => GuardDecision::new(
                GuardVerdict::Allow,
                ReasonCode::AllChecksPassed,
                rule,
                "approved: the approver answered yes".into(),
            ),
            Some(_) => GuardDecision::new(
                GuardVerdict::Deny,
                ReasonCode::ApprovalRequired,
                rule,
                "the approver did not answer exactly `yes`".into(),
            ),
        };
    }
    GuardDecision::new(
        GuardVerdict::Allow,
        ReasonCode::AllChecksPassed,
        "all",
        "every check passed".into(),
    )
}
