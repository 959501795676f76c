//! The action guard's policy validation and decisions: every reason code
//! the decision can give, exact decimal comparison, approval.

use serde_json::{json, Value};
use toolgate::action_guard::{evaluate, Amount, Approver, GuardVerdict, Policy, ReasonCode};

use ReasonCode::*;

const POLICY: &str = r#"
version = 1

[actions.refund]
required_evidence = ["order_id", "customer_id", "amount"]
must_match = ["order_id", "customer_id"]
amount = "amount"
amount_at_most_evidence = true
max_amount = "500.00"
approval_above = "100"
once_per = ["order_id"]

[actions.send_email]
required_evidence = ["ticket_id", "template"]
must_match = ["ticket_id", "template"]
once_per = ["ticket_id", "template"]
"#;

fn policy() -> Policy {
    Policy::parse("policy.toml", POLICY).unwrap_or_else(|e| panic!("{e}"))
}

struct Says(&'static str);
impl Approver for Says {
    fn answer(&self, _: &str, _: &Value) -> String {
        self.0.to_string()
    }
}

fn evidence() -> Value {
    json!({"order_id": "A-1", "customer_id": "C-9", "amount": "120.00"})
}

fn refund(
    request: Value,
    approver: Option<&dyn Approver>,
) -> (GuardVerdict, Vec<ReasonCode>, String) {
    let d = evaluate(&policy(), "refund", &request, &evidence(), approver);
    (d.decision, d.reasons, d.rule)
}

#[test]
fn all_checks_pass_and_text_is_trimmed() {
    let (d, r, _) = refund(
        json!({"order_id": " A-1 ", "customer_id": "C-9", "amount": "99.99"}),
        None,
    );
    assert_eq!((d, r), (GuardVerdict::Allow, vec![AllChecksPassed]));
    let d = evaluate(
        &policy(),
        "send_email",
        &json!({"ticket_id": 42, "template": "welcome"}),
        &json!({"ticket_id": "42", "template": "welcome"}),
        None,
    );
    assert_eq!(d.decision, GuardVerdict::Allow);
}

#[test]
fn approval_above_needs_exactly_yes() {
    let req = json!({"order_id": "A-1", "customer_id": "C-9", "amount": "100.01"});
    assert_eq!(
        refund(req.clone(), None),
        (
            GuardVerdict::RequireApproval,
            vec![ApprovalRequired],
            "approval_above".into()
        )
    );
    assert_eq!(
        refund(req.clone(), Some(&Says("yes"))).0,
        GuardVerdict::Allow
    );
    for answer in ["Yes", "yes ", "y", "ok", ""] {
        let got = evaluate(&policy(), "refund", &req, &evidence(), Some(&Says(answer)));
        assert_eq!(
            (got.decision, got.reasons),
            (GuardVerdict::Deny, vec![ApprovalRequired]),
            "{answer:?}"
        );
    }
    // Exactly at the limit is not above it: "100.00" == "100".
    let at = json!({"order_id": "A-1", "customer_id": "C-9", "amount": "100.00"});
    assert_eq!(refund(at, None).0, GuardVerdict::Allow);
}

#[test]
fn each_failure_has_its_reason_code() {
    let base = || json!({"order_id": "A-1", "customer_id": "C-9", "amount": "50"});
    let with = |k: &str, v: Value| {
        let mut r = base();
        r[k] = v;
        r
    };
    assert_eq!(
        refund(with("order_id", json!("A-2")), None),
        (
            GuardVerdict::Deny,
            vec![EvidenceMismatch],
            "must_match.order_id".into()
        )
    );
    assert_eq!(
        refund(with("order_id", json!("  ")), None),
        (
            GuardVerdict::Deny,
            vec![RequestMissing],
            "must_match.order_id".into()
        )
    );
    assert_eq!(
        refund(with("amount", json!("12,50")), None),
        (GuardVerdict::Deny, vec![AmountInvalid], "amount".into())
    );
    assert_eq!(
        refund(with("amount", json!("1e2")), None).1,
        vec![AmountInvalid]
    );
    assert_eq!(
        refund(with("amount", json!("-1")), None).1,
        vec![AmountInvalid]
    );
    assert_eq!(
        refund(with("amount", json!(null)), None).1,
        vec![RequestMissing]
    );
    assert_eq!(
        refund(with("amount", json!("120.01")), None),
        (
            GuardVerdict::Deny,
            vec![AmountExceedsEvidence],
            "amount_at_most_evidence".into()
        )
    );
    // Equal to the evidence passes the evidence check (then needs approval).
    assert_eq!(
        refund(with("amount", json!("120")), None).0,
        GuardVerdict::RequireApproval
    );
    assert_eq!(
        refund(with("customer_id", json!({"id": 1})), None),
        (
            GuardVerdict::Deny,
            vec![InvalidInput],
            "must_match.customer_id".into()
        )
    );

    let p = policy();
    let d = evaluate(&p, "wire_transfer", &base(), &evidence(), None);
    assert_eq!(
        (d.decision, d.reasons, d.rule.as_str()),
        (GuardVerdict::Deny, vec![ActionNotPermitted], "actions")
    );
    let d = evaluate(&p, "refund", &json!(["x"]), &evidence(), None);
    assert_eq!(d.reasons, vec![InvalidInput]);
    let d = evaluate(&p, "refund", &base(), &json!("A-1"), None);
    assert_eq!(d.reasons, vec![EvidenceInvalid]);
    let d = evaluate(
        &p,
        "refund",
        &base(),
        &json!({"order_id": "A-1", "amount": "120"}),
        None,
    );
    assert_eq!(
        (d.decision, d.reasons, d.rule.as_str()),
        (
            GuardVerdict::Deny,
            vec![EvidenceMissing],
            "required_evidence.customer_id"
        )
    );
    let d = evaluate(
        &p,
        "refund",
        &base(),
        &json!({"order_id": "A-1", "customer_id": ["C-9"], "amount": "120"}),
        None,
    );
    assert_eq!(d.reasons, vec![EvidenceInvalid]);
    let d = evaluate(
        &p,
        "refund",
        &base(),
        &json!({"order_id": "A-1", "customer_id": "C-9", "amount": "lots"}),
        None,
    );
    assert_eq!(d.reasons, vec![EvidenceInvalid]);
}

#[test]
fn max_amount_is_a_hard_limit() {
    let p = Policy::parse(
        "p.toml",
        "version = 1\n[actions.pay]\nrequired_evidence = [\"invoice\"]\nmust_match = [\"invoice\"]\namount = \"amount\"\nmax_amount = \"10000\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ev = json!({"invoice": "I-1"});
    let pay = |a: Value| {
        evaluate(
            &p,
            "pay",
            &json!({"invoice": "I-1", "amount": a}),
            &ev,
            None,
        )
    };
    assert_eq!(pay(json!("10000.00")).decision, GuardVerdict::Allow);
    assert_eq!(pay(json!(10000)).decision, GuardVerdict::Allow);
    let d = pay(json!("10000.000001"));
    assert_eq!(
        (d.decision, d.reasons, d.rule.as_str()),
        (GuardVerdict::Deny, vec![AmountExceedsLimit], "max_amount")
    );
    assert_eq!(pay(json!(10000.5)).reasons, vec![AmountExceedsLimit]);
}

#[test]
fn several_failures_are_all_reported_the_first_deciding() {
    let d = evaluate(
        &policy(),
        "refund",
        &json!({"order_id": "A-2", "customer_id": "C-8", "amount": "900"}),
        &evidence(),
        None,
    );
    assert_eq!(d.decision, GuardVerdict::Deny);
    assert_eq!(
        d.reasons,
        vec![EvidenceMismatch, AmountExceedsEvidence, AmountExceedsLimit]
    );
    assert_eq!(d.rule, "must_match.order_id");
}

#[test]
fn details_name_fields_never_values() {
    let d = evaluate(
        &policy(),
        "refund",
        &json!({"order_id": "SECRET-ORDER", "customer_id": "C-9", "amount": "50"}),
        &evidence(),
        None,
    );
    let text = serde_json::to_string(&d).unwrap_or_default();
    assert!(
        !text.contains("SECRET-ORDER") && !text.contains("A-1"),
        "{text}"
    );
    assert!(
        text.contains("\"decision\":\"DENY\"")
            && text.contains("\"reasons\":[\"evidence_mismatch\"]"),
        "{text}"
    );
}

#[test]
fn exact_decimals() {
    let a = |s: &str| Amount::parse(s);
    assert_eq!(a("0.30"), a("0.3"));
    assert!(a("0.1")
        .zip(a("0.10000000000000000001"))
        .is_some_and(|(x, y)| x < y));
    for bad in [
        "", ".5", "5.", "1 000", "+5", "0x10", "NaN", "inf", "1e3", "5.5.5",
    ] {
        assert_eq!(a(bad), None, "{bad:?}");
    }
}

#[test]
fn policy_errors_name_the_file_action_and_key() {
    let e = |text: &str| {
        Policy::parse("guard.toml", text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        e("version = 2\n"),
        Err("guard.toml: key `version`: 2 is not a known version (write `version = 1`)".into())
    );
    assert!(e("version = 1\n[actions.a]\nrequired_evidnce = [\"x\"]\n")
        .is_err_and(|m| m.starts_with("guard.toml: TOML parse error at line 3")
            && m.contains("unknown field `required_evidnce`")));
    assert!(e("version = 1\n[actions.a]\nmax_amount = 500\n")
        .is_err_and(|m| m.contains("line 3")
            && m.contains("invalid type: integer `500`, expected a string")));
    assert_eq!(
        e("version = 1\n[actions.a]\nrequired_evidence = [\"x\"]\nmust_match = [\"x\"]\nonce_per = [\"y\"]\n"),
        Err("guard.toml: action `a`, key `once_per`: `y` must also be in must_match".into())
    );
    assert_eq!(
        e("version = 1\n[actions.a]\nmax_amount = \"5\"\n"),
        Err(
            "guard.toml: action `a`, key `max_amount`: needs `amount`, the request's amount field"
                .into()
        )
    );
    assert_eq!(
        e("version = 1\n[actions.a]\namount = \"amt\"\nmax_amount = \"0\"\n"),
        Err("guard.toml: action `a`, key `max_amount`: `0` is not a positive decimal amount written as a string, such as \"250.00\"".into())
    );
    assert_eq!(
        e("version = 1\n[actions.a]\namount = \"amt\"\nmax_amount = \"100\"\napproval_above = \"100.0\"\n"),
        Err("guard.toml: action `a`, key `approval_above`: 100 is not below max_amount 100, so it could never apply".into())
    );
    assert_eq!(
        e("version = 1\n[actions.a]\namount = \"amt\"\namount_at_most_evidence = true\n"),
        Err("guard.toml: action `a`, key `amount_at_most_evidence`: the amount field `amt` must also be in required_evidence".into())
    );
    assert_eq!(
        e("version = 1\n[actions.a]\nrequired_evidence = [\"x\", \"x\"]\n"),
        Err("guard.toml: action `a`, key `required_evidence`: `x` is listed twice".into())
    );
    assert_eq!(e(POLICY), Ok(()));
}

#[test]
fn the_documented_policy_parses() {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/action-guard.md"),
    )
    .unwrap_or_default();
    let block = page
        .split("```toml\n")
        .find(|b| b.starts_with("# guard.toml"))
        .and_then(|b| b.split("```").next())
        .unwrap_or_default();
    let p = Policy::parse("docs/action-guard.md", block).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = p.actions.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["deploy", "deploy_production", "refund", "send_email"]
    );
    let prod = json!({"service": "web", "environment": "production", "commit": "abc"});
    let d = evaluate(&p, "deploy_production", &prod, &prod, None);
    assert_eq!(
        (d.decision, d.reasons, d.rule.as_str()),
        (
            GuardVerdict::RequireApproval,
            vec![ApprovalRequired],
            "require_approval"
        )
    );
    assert_eq!(
        evaluate(&p, "deploy_production", &prod, &prod, Some(&Says("yes"))).decision,
        GuardVerdict::Allow
    );
    assert_eq!(
        evaluate(&p, "deploy", &prod, &prod, None).decision,
        GuardVerdict::Allow
    );
    assert!(Policy::parse("p.toml", "version = 1\n[actions.a]\namount = \"x\"\napproval_above = \"5\"\nrequire_approval = true\n")
        .is_err_and(|e| e.to_string() == "p.toml: action `a`, key `approval_above`: has no effect with require_approval = true, which asks for every call"));
}

/// Policy fragments, so generated files reach validation, not only the
/// TOML parser.
fn policyish() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let atoms = prop::sample::select(vec![
        "version = 1\n",
        "version = 2\n",
        "[actions.a]\n",
        "[actions.b]\n",
        "required_evidence = [\"x\", \"amount\"]\n",
        "must_match = [\"x\"]\n",
        "must_match = [\"y\"]\n",
        "amount = \"amount\"\n",
        "amount_at_most_evidence = true\n",
        "max_amount = \"100\"\n",
        "max_amount = \"0.0\"\n",
        "approval_above = \"50.5\"\n",
        "approval_above = \"1e9\"\n",
        "require_approval = true\n",
        "once_per = [\"x\"]\n",
        "once_per = []\n",
        "= \"\n",
        "[",
        "\"",
    ]);
    prop::collection::vec(atoms, 0..12).prop_map(|v| v.concat())
}

fn jsonish() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[0-9a-zA-Z .,e+-]{0,12}".prop_map(Value::String),
    ];
    let field = prop::sample::select(vec!["x", "y", "amount"]);
    prop::collection::btree_map(field, leaf, 0..4)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// No policy text and no request or evidence panics; a policy that
    /// parses never allows an action it does not list, and never allows an
    /// amount its checks cannot read.
    #[test]
    fn no_policy_or_input_panics(text in policyish(), req in jsonish(), ev in jsonish()) {
        if let Ok(p) = Policy::parse("p.toml", &text) {
            for action in ["a", "b", "c"] {
                let d = evaluate(&p, action, &req, &ev, None);
                if !p.actions.contains_key(action) {
                    proptest::prop_assert_eq!(d.reasons, vec![ActionNotPermitted]);
                } else if d.decision == GuardVerdict::Allow {
                    let ap = &p.actions[action];
                    if ap.amount.is_some() {
                        proptest::prop_assert!(req.get("amount").and_then(Amount::from_json).is_some());
                    }
                    for f in &ap.must_match {
                        proptest::prop_assert!(req.get(f).is_some() && ev.get(f).is_some());
                    }
                }
            }
        }
    }
}
