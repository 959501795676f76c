//! Guards and guardrails at each boundary, the audit trail, and restarts.

use std::collections::BTreeMap;

use toolgate::profile::{
    parse_iso8601, ActorLimits, AuditEvent, GuardInput, GuardrailConfig, Guardrails, Guards,
};

fn input(tool: &str) -> GuardInput {
    GuardInput {
        tool: tool.into(),
        ..GuardInput::default()
    }
}

#[test]
fn guards_in_order_with_each_boundary() {
    let g = Guards {
        deny: vec!["rm_*".into()],
        allow: vec![
            "rm_*".into(),
            "read_*".into(),
            "write_*".into(),
            "__apply__".into(),
        ],
        max_tool_calls_per_step: Some(3),
        cost_budget: Some(5.0),
        require_write_approval: true,
        require_apply_approval: true,
    };
    // Deny beats allow.
    let d = g.check(&input("rm_all"));
    assert_eq!(
        (d.allowed, d.reason.as_str()),
        (false, "`rm_all` is on the deny list (`rm_*`)")
    );
    let d = g.check(&input("shell"));
    assert_eq!(
        (d.allowed, d.reason.as_str()),
        (false, "`shell` is not on the allow list")
    );
    // Calls per step: equal to the limit blocks, one under passes.
    let at = GuardInput {
        calls_this_step: 3,
        ..input("read_file")
    };
    assert!(!g.check(&at).allowed);
    let under = GuardInput {
        calls_this_step: 2,
        ..input("read_file")
    };
    assert!(g.check(&under).allowed);
    // Budget: reached at equality; the tighter of guard and safety budgets.
    let spent = GuardInput {
        cost_spent: 5.0,
        ..input("read_file")
    };
    assert!(!g.check(&spent).allowed);
    let tighter = GuardInput {
        cost_spent: 4.0,
        safety_cost_limit: Some(4.0),
        ..input("read_file")
    };
    assert!(!g.check(&tighter).allowed);
    let looser = GuardInput {
        cost_spent: 4.0,
        safety_cost_limit: Some(40.0),
        ..input("read_file")
    };
    assert!(g.check(&looser).allowed);
    // Writes, then apply, need approval.
    let w = g.check(&GuardInput {
        writes: true,
        ..input("write_file")
    });
    assert_eq!((w.allowed, w.requires_approval), (true, true));
    let a = g.check(&input("__apply__"));
    assert_eq!(
        (a.allowed, a.requires_approval, a.reason.as_str()),
        (true, true, "applying the plan needs approval")
    );
    let r = g.check(&input("read_file"));
    assert_eq!((r.allowed, r.requires_approval), (true, false));
}

fn config() -> GuardrailConfig {
    GuardrailConfig {
        max_steps: 2,
        tool_budget: 3,
        max_wall_clock_seconds: Some(60),
        actors: BTreeMap::from([(
            "planner".to_string(),
            ActorLimits {
                max_tool_calls_per_invocation: 2,
                max_retries_per_failure: 1,
            },
        )]),
        required_confirmations: vec!["Deploy".into()],
        start_time: Some("2026-11-30T09:40:00Z".into()),
    }
}

const T0: i64 = 1_796_031_600; // 2026-11-30T09:40:00Z

#[test]
fn iso8601_times() {
    assert_eq!(parse_iso8601("2026-11-30T09:40:00Z"), Some(T0));
    assert_eq!(parse_iso8601("2026-11-30T10:40:00+01:00"), Some(T0));
    assert_eq!(parse_iso8601("2026-11-30T09:40:00.250Z"), Some(T0));
    assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0));
    for bad in [
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-11-30 09:40",
        "yesterday",
        "2026-11-30T09:40:00",
    ] {
        assert_eq!(parse_iso8601(bad), None, "{bad}");
    }
}

#[test]
fn guardrails_at_each_boundary() {
    let mut g = Guardrails::in_memory(config());
    let ok = |d: std::io::Result<toolgate::profile::GuardrailDecision>| {
        d.map(|d| d.allowed).unwrap_or(false)
    };
    assert!(ok(g.start_step(T0)));
    assert!(ok(g.start_step(T0 + 1)));
    assert!(
        !ok(g.start_step(T0 + 2)),
        "a third step is one over max_steps 2"
    );
    // Per-actor: 2 calls per invocation.
    assert!(ok(g.check_tool_call("planner", "read", T0)));
    assert!(ok(g.check_tool_call("planner", "read", T0)));
    assert!(
        !ok(g.check_tool_call("planner", "read", T0)),
        "third call of one invocation"
    );
    assert!(g.end_invocation("planner").is_ok());
    // Confirmation, case-insensitive.
    let d = g
        .check_tool_call("coder", "DEPLOY", T0)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.allowed, d.requires_confirmation), (false, true));
    assert!(g.confirm("deploy", T0).is_ok());
    assert!(
        ok(g.check_tool_call("coder", "Deploy", T0)),
        "third call of the budget of 3"
    );
    assert!(
        !ok(g.check_tool_call("coder", "read", T0)),
        "a fourth call is over the tool budget"
    );
    // Retries: one allowed per failure.
    assert!(ok(g.record_retry("planner", T0)));
    assert!(!ok(g.record_retry("planner", T0)));
    // Wall clock: 60 s from the start time; 60 passes, 61 does not.
    let mut w = Guardrails::in_memory(config());
    assert!(ok(w.start_step(T0 + 60)));
    assert!(!ok(w.start_step(T0 + 61)));
    let kinds: Vec<AuditEvent> = g.state().audit.iter().map(|e| e.event).collect();
    for kind in [
        AuditEvent::RunStarted,
        AuditEvent::StepStarted,
        AuditEvent::StepLimitReached,
        AuditEvent::ToolCallAllowed,
        AuditEvent::ActorCallLimitReached,
        AuditEvent::ConfirmationRequired,
        AuditEvent::ConfirmationReceived,
        AuditEvent::ToolBudgetExhausted,
        AuditEvent::RetryLimitReached,
    ] {
        assert!(kinds.contains(&kind), "{kind:?} missing from {kinds:?}");
    }
}

#[test]
fn a_malformed_start_time_blocks() {
    let mut g = Guardrails::in_memory(GuardrailConfig {
        start_time: Some("tuesday".into()),
        ..config()
    });
    let d = g.start_step(T0).unwrap_or_else(|e| panic!("{e}"));
    assert!(!d.allowed);
    assert!(d.reason.contains("field `start_time`"), "{}", d.reason);
    let d = g
        .check_tool_call("a", "read", T0)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!d.allowed);
    assert_eq!(
        g.state().audit.back().map(|e| e.event),
        Some(AuditEvent::ConfigInvalid)
    );
    let bad = GuardrailConfig {
        max_steps: 0,
        ..config()
    };
    assert!(bad.validate().is_err_and(|e| e.contains("max_steps")));
}

#[test]
fn the_audit_trail_is_bounded() {
    let mut g = Guardrails::in_memory(GuardrailConfig {
        max_steps: 1_000,
        tool_budget: 1_000,
        ..config()
    })
    .with_audit_capacity(5);
    for i in 0..20 {
        let _ = g.start_step(T0 + i % 50);
    }
    let audit = &g.state().audit;
    assert_eq!(audit.len(), 5);
    assert_eq!(
        audit.front().map(|e| e.seq),
        Some(16),
        "the oldest entries were evicted"
    );
}

#[test]
fn counters_and_audit_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("toolgate-guardrails-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("run.json");
    let _ = std::fs::remove_file(&path);
    {
        let mut g = Guardrails::open(config(), &path).unwrap_or_else(|e| panic!("{e}"));
        let _ = g.start_step(T0);
        let _ = g.check_tool_call("coder", "read", T0);
        let _ = g.confirm("deploy", T0);
    }
    let mut g = Guardrails::open(config(), &path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((g.state().steps, g.state().tool_calls), (1, 1));
    assert!(g.state().confirmations.contains("deploy"));
    let n = g.state().audit.len();
    let _ = g.start_step(T0 + 1);
    assert!(
        !g.start_step(T0 + 2).map(|d| d.allowed).unwrap_or(true),
        "the step count carried over"
    );
    assert_eq!(g.state().audit.len(), n + 2);
    assert!(
        !path.with_extension("tmp").exists(),
        "no temporary file left behind"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
