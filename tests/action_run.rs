//! Record before acting, with the in-memory store: the tool runs at most
//! once per key, duplicates and conflicts are refused, an unknown outcome
//! is never retried, and secrets are checked.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};
use toolgate::action_guard::{
    ActionGuard, ActionStore, GuardVerdict, IdKind, MemoryStore, Outcome, Policy, ReasonCode,
    Record, Recovery, Reservation, Secret, SecretError, State, StoreError, ToolResult,
};

const POLICY: &str = r#"
version = 1
[actions.refund]
required_evidence = ["order_id"]
must_match = ["order_id"]
amount = "amount"
max_amount = "500"
once_per = ["order_id"]
[actions.email]
required_evidence = ["ticket"]
must_match = ["ticket"]
"#;

const STORE_HEX: &str = "3f9a0c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f13";
const IDEM_HEX: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff01";

fn secret(h: &str) -> Secret {
    Secret::from_hex(h).unwrap_or_else(|e| panic!("{e}"))
}

fn guard(store: &dyn ActionStore) -> ActionGuard<'_> {
    let p = Policy::parse("p.toml", POLICY).unwrap_or_else(|e| panic!("{e}"));
    ActionGuard::new(p, store, secret(STORE_HEX), "shop/test").with_idempotency(secret(IDEM_HEX))
}

fn ev() -> Value {
    json!({"order_id": "A-1"})
}

fn req(amount: &str) -> Value {
    json!({"order_id": "A-1", "amount": amount})
}

/// Runs the refund under `key`; the tool answers `result` and counts calls.
fn refund(
    g: &ActionGuard<'_>,
    key: &str,
    request: Value,
    result: ToolResult,
    calls: &Cell<u32>,
) -> (Outcome, Vec<ReasonCode>, Option<Outcome>, Recovery) {
    let r = g.run("refund", Some(key), &request, &ev(), None, |_, _| {
        calls.set(calls.get() + 1);
        result
    });
    (r.final_outcome, r.reasons, r.previous_outcome, r.recovery)
}

#[test]
fn succeeded_once_then_duplicate() {
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = Cell::new(0);
    assert_eq!(
        refund(&g, "k1", req("10"), ToolResult::Succeeded, &calls),
        (
            Outcome::Succeeded,
            vec![ReasonCode::AllChecksPassed],
            None,
            Recovery::None
        )
    );
    assert_eq!(
        refund(&g, "k1", req("10"), ToolResult::Succeeded, &calls),
        (
            Outcome::NotExecuted,
            vec![ReasonCode::DuplicateAction],
            Some(Outcome::Succeeded),
            Recovery::None
        )
    );
    // The same key with another request is a conflict, not a duplicate.
    assert_eq!(
        refund(&g, "k1", req("11"), ToolResult::Succeeded, &calls).1,
        vec![ReasonCode::ActionKeyConflict]
    );
    // Another key on the same order is a duplicate through once_per.
    assert_eq!(
        refund(&g, "k2", req("10"), ToolResult::Succeeded, &calls).1,
        vec![ReasonCode::DuplicateAction]
    );
    assert_eq!(calls.get(), 1);
}

#[test]
fn failed_allows_a_new_attempt_unknown_does_not() {
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = Cell::new(0);
    assert_eq!(
        refund(&g, "k", req("10"), ToolResult::NotPerformed, &calls),
        (
            Outcome::Failed,
            vec![ReasonCode::AllChecksPassed],
            None,
            Recovery::RetryAllowed
        )
    );
    assert_eq!(
        refund(&g, "k", req("12"), ToolResult::Succeeded, &calls).1,
        vec![ReasonCode::RequestChanged]
    );
    let r = g.run("refund", Some("k"), &req("10"), &ev(), None, |_, _| {
        calls.set(calls.get() + 1);
        ToolResult::Unknown
    });
    assert_eq!(
        (r.final_outcome, r.attempt, r.recovery),
        (Outcome::Unknown, Some(2), Recovery::Escalate)
    );
    // Never retried: the next run is refused and escalates.
    assert_eq!(
        refund(&g, "k", req("10"), ToolResult::Succeeded, &calls),
        (
            Outcome::NotExecuted,
            vec![ReasonCode::DuplicateAction],
            Some(Outcome::Unknown),
            Recovery::Escalate
        )
    );
    assert_eq!(calls.get(), 2);
}

#[test]
fn a_panicking_tool_is_unknown() {
    let store = MemoryStore::new();
    let g = guard(&store);
    let r = g.run("refund", Some("p"), &req("1"), &ev(), None, |_, _| {
        panic!("tool crashed")
    });
    assert_eq!(r.final_outcome, Outcome::Unknown);
    let id = g.record_id("refund", "p");
    let rec = store.get(&id).ok().flatten().map(|r| r.state);
    assert_eq!(rec, Some(State::Unknown));
}

#[test]
fn denied_actions_never_reach_the_tool_or_the_store() {
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = Cell::new(0);
    let (o, reasons, _, _) = refund(&g, "k", req("501"), ToolResult::Succeeded, &calls);
    assert_eq!(
        (o, reasons),
        (Outcome::NotExecuted, vec![ReasonCode::AmountExceedsLimit])
    );
    assert_eq!(store.get(&g.record_id("refund", "k")).ok().flatten(), None);
    for bad in ["", "  ", "a\nb", &"x".repeat(257)] {
        assert_eq!(
            refund(&g, bad, req("1"), ToolResult::Succeeded, &calls).1,
            vec![ReasonCode::ActionKeyInvalid]
        );
    }
    assert_eq!(calls.get(), 0);
}

#[test]
fn the_tool_gets_the_checked_request_and_a_stable_idempotency_key() {
    let store = MemoryStore::new();
    let seen = std::cell::RefCell::new(Vec::new());
    for key in ["t-1", "t-1", "t-2"] {
        let other = MemoryStore::new();
        // A fresh guard (and store) each time: the key depends only on the
        // secret, namespace, action and action key.
        let g = guard(if key == "t-2" { &store } else { &other });
        g.run(
            "email",
            Some(key),
            &json!({"ticket": 7}),
            &json!({"ticket": "7"}),
            None,
            |r, k| {
                seen.borrow_mut().push((r.clone(), k.map(String::from)));
                ToolResult::Succeeded
            },
        );
    }
    let seen = seen.into_inner();
    assert_eq!(seen[0].0, json!({"ticket": 7}));
    assert_eq!(seen[0].1, seen[1].1);
    assert_ne!(seen[0].1, seen[2].1);
    assert_eq!(seen[0].1.as_ref().map(String::len), Some(64));
    // Without a secret there is no key, and a guard that needs one refuses.
    let p = Policy::parse("p.toml", POLICY).unwrap_or_else(|e| panic!("{e}"));
    let g = ActionGuard::new(p, &store, secret(STORE_HEX), "shop/test").require_idempotency(true);
    let r = g.run(
        "email",
        Some("t-3"),
        &json!({"ticket": 7}),
        &json!({"ticket": 7}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(
        (r.final_outcome, r.reasons),
        (
            Outcome::NotExecuted,
            vec![ReasonCode::IdempotencyUnconfigured]
        )
    );
}

#[test]
fn changed_configuration_for_an_unsettled_action_is_refused() {
    let store = MemoryStore::new();
    let g = guard(&store);
    g.run(
        "email",
        Some("e"),
        &json!({"ticket": 1}),
        &json!({"ticket": 1}),
        None,
        |_, _| ToolResult::Unknown,
    );
    let other_idem = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0";
    let p = Policy::parse("p.toml", POLICY).unwrap_or_else(|e| panic!("{e}"));
    let g2 = ActionGuard::new(p, &store, secret(STORE_HEX), "shop/test")
        .with_idempotency(secret(other_idem));
    let r = g2.run(
        "email",
        Some("e"),
        &json!({"ticket": 1}),
        &json!({"ticket": 1}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(r.reasons, vec![ReasonCode::IdempotencyConfigChanged]);
    let p = Policy::parse(
        "p.toml",
        &POLICY.replace(
            "must_match = [\"ticket\"]\n",
            "must_match = [\"ticket\"]\nonce_per = [\"ticket\"]\n",
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let g3 = ActionGuard::new(p, &store, secret(STORE_HEX), "shop/test")
        .with_idempotency(secret(IDEM_HEX));
    let r = g3.run(
        "email",
        Some("e"),
        &json!({"ticket": 1}),
        &json!({"ticket": 1}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(r.reasons, vec![ReasonCode::PolicyMismatch]);
}

/// A store that needs keys, or that fails.
struct Strict<'a>(&'a MemoryStore, bool);
impl ActionStore for Strict<'_> {
    fn requires_action_keys(&self) -> bool {
        true
    }
    fn reserve(&self, ids: &[(String, IdKind)], new: &Record) -> Result<Reservation, StoreError> {
        if self.1 {
            return Err(StoreError("disk full".into()));
        }
        self.0.reserve(ids, new)
    }
    fn settle(&self, ids: &[String], s: State, now: u64, stale: bool) -> Result<(), StoreError> {
        self.0.settle(ids, s, now, stale)
    }
    fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        self.0.get(id)
    }
}

#[test]
fn keys_required_and_store_failures_block() {
    let mem = MemoryStore::new();
    let strict = Strict(&mem, false);
    let g = guard(&strict);
    let r = g.run(
        "email",
        None,
        &json!({"ticket": 1}),
        &json!({"ticket": 1}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(
        (r.final_outcome, r.reasons),
        (Outcome::NotExecuted, vec![ReasonCode::ActionKeyRequired])
    );
    let broken = Strict(&mem, true);
    let g = guard(&broken);
    let r = g.run(
        "email",
        Some("x"),
        &json!({"ticket": 1}),
        &json!({"ticket": 1}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(
        (r.decision, r.final_outcome, r.reasons),
        (
            GuardVerdict::Deny,
            Outcome::NotExecuted,
            vec![ReasonCode::StoreUnavailable]
        )
    );
}

#[test]
fn racing_threads_execute_a_key_once() {
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..16 {
            s.spawn(|| {
                g.run("refund", Some("race"), &req("5"), &ev(), None, |_, _| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    ToolResult::Succeeded
                })
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn secrets_are_checked_and_never_printed() {
    assert_eq!(Secret::from_hex("zz").map(|_| ()), Err(SecretError::NotHex));
    assert_eq!(
        Secret::from_hex("00ff").map(|_| ()),
        Err(SecretError::TooShort(2))
    );
    assert_eq!(
        Secret::from_hex(&"00".repeat(32)).map(|_| ()),
        Err(SecretError::NotRandom)
    );
    assert_eq!(
        Secret::from_hex(&"abcd".repeat(16)).map(|_| ()),
        Err(SecretError::NotRandom)
    );
    let ascending: String = (0u8..32).map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        Secret::from_hex(&ascending).map(|_| ()),
        Err(SecretError::NotRandom)
    );
    let s = secret(STORE_HEX);
    assert_eq!(format!("{s:?}"), "Secret(..)");
    // Different part boundaries give different MACs.
    assert_ne!(s.mac(&[b"ab", b"c"]), s.mac(&[b"a", b"bc"]));
}

#[test]
fn reconcile_and_resolve_settle_an_unknown_action() {
    use toolgate::action_guard::{Lookup, RecoveryError};
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = Cell::new(0);
    refund(&g, "k", req("10"), ToolResult::Unknown, &calls);
    // Young: only a confirmed success would change it.
    let s = g
        .reconcile("refund", "k", 900, || Lookup::Failed)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (s.before, s.after, s.recovery),
        (State::Unknown, State::Unknown, Recovery::Escalate)
    );
    // Stale, and the lookup cannot tell: UNKNOWN, stale, escalate.
    let s = g
        .reconcile("refund", "k", 0, || Lookup::Unknown)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.after, s.recovery), (State::Unknown, Recovery::Escalate));
    assert_eq!(
        g.inspect("refund", "k").ok().flatten().map(|r| r.stale),
        Some(true)
    );
    // A person: FAILED on a stale action needs the statement.
    let e = g.resolve("refund", "k", State::Failed, false).map(|_| ());
    assert!(matches!(e, Err(RecoveryError::Refused(_))));
    let s = g
        .resolve("refund", "k", State::Failed, true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (s.after, s.recovery),
        (State::Failed, Recovery::RetryAllowed)
    );
    // The once_per record was settled with it: another key on the same
    // order may now run, and the original key starts attempt 2.
    let r = g.run("refund", Some("k"), &req("10"), &ev(), None, |_, _| {
        ToolResult::Succeeded
    });
    assert_eq!((r.final_outcome, r.attempt), (Outcome::Succeeded, Some(2)));
    // Succeeded cannot be resolved as failed.
    assert!(matches!(
        g.resolve("refund", "k", State::Failed, true),
        Err(RecoveryError::Refused(_))
    ));
    assert!(matches!(
        g.reconcile("refund", "nope", 0, || Lookup::Succeeded),
        Err(RecoveryError::NotFound(_))
    ));
}

#[test]
fn reconcile_records_a_confirmed_success_at_any_time_and_a_stale_failure() {
    use toolgate::action_guard::Lookup;
    let store = MemoryStore::new();
    let g = guard(&store);
    let calls = Cell::new(0);
    refund(&g, "a", req("10"), ToolResult::Unknown, &calls);
    let s = g
        .reconcile("refund", "a", 900, || Lookup::Succeeded)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (s.after, s.recovery),
        (State::Succeeded, Recovery::VerifiedSucceeded)
    );
    assert_eq!(
        refund(&g, "a", req("10"), ToolResult::Succeeded, &calls).1,
        vec![ReasonCode::DuplicateAction]
    );

    let store = MemoryStore::new();
    let g = guard(&store);
    refund(&g, "b", req("10"), ToolResult::Unknown, &calls);
    let s = g
        .reconcile("refund", "b", 0, || Lookup::Failed)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (s.after, s.recovery),
        (State::Failed, Recovery::VerifiedFailed)
    );
    assert_eq!(
        refund(&g, "b", req("10"), ToolResult::Succeeded, &calls).0,
        Outcome::Succeeded
    );
    assert_eq!(calls.get(), 3);
}

#[test]
fn traces_carry_codes_and_outcomes_never_values() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut v) = self.0.lock() {
                v.extend_from_slice(b);
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // A process-wide subscriber, not a scoped one: with a scoped
    // subscriber, callsites first reached by tests on other threads can
    // keep a cached "never" interest and this test then sees nothing. The
    // other tests' events land here too, which the assertions allow: none
    // may carry a value either.
    static BUF: std::sync::OnceLock<Buf> = std::sync::OnceLock::new();
    let buf = BUF.get_or_init(|| {
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .unwrap_or_else(|e| panic!("no other test sets a subscriber: {e}"));
        buf
    });
    {
        let store = MemoryStore::new();
        let g = guard(&store);
        let calls = Cell::new(0);
        refund(
            &g,
            "KEY-SECRET-9",
            json!({"order_id": "A-1", "amount": "77.70"}),
            ToolResult::Succeeded,
            &calls,
        );
        refund(
            &g,
            "KEY-SECRET-9",
            json!({"order_id": "WRONG-ORDER", "amount": "1"}),
            ToolResult::Succeeded,
            &calls,
        );
    }
    let text =
        String::from_utf8(buf.0.lock().map(|v| v.clone()).unwrap_or_default()).unwrap_or_default();
    assert!(
        text.contains("toolgate.action") && text.contains("final_outcome=Succeeded"),
        "{text}"
    );
    assert!(text.contains("EvidenceMismatch"), "{text}");
    for secret in [
        "KEY-SECRET-9",
        "A-1",
        "77.70",
        "WRONG-ORDER",
        STORE_HEX,
        IDEM_HEX,
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}
