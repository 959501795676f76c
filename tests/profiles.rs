//! Automation profiles: the exact thresholds of the seed system, the label
//! → threshold map, and decisions for every built-in profile.

use serde_json::json;
use toolgate::gate::{Decision, Gate, GateConfig, Mode};
use toolgate::profile::{
    automation_profile, builtin_automation, parse_automation, threshold_map, ProfileConfig,
    Thresholds,
};
use toolgate::{classify, Classifier};

const NAMES: [&str; 8] = [
    "manual",
    "review",
    "supervised",
    "cautious",
    "trusted",
    "auto",
    "ci",
    "full-auto",
];

/// The seed system's table, row by row in `Thresholds::NAMES` order.
const TABLE: [[f64; 8]; 11] = [
    [1.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, 1.0, 0.7, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0, 0.6, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 0.8, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 0.7, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 0.8, 1.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 0.9, 1.0, 1.0, 0.0, 0.0],
    [1.0, 0.0, 1.0, 0.7, 0.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 0.6, 1.0, 0.0, 0.0, 0.0],
];

#[test]
fn eight_builtins_with_the_exact_thresholds_and_safety() {
    let all = builtin_automation();
    assert_eq!(
        all.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        NAMES
    );
    for (col, p) in all.iter().enumerate() {
        for (row, field) in Thresholds::NAMES.iter().enumerate() {
            assert_eq!(
                p.thresholds.get(field),
                Some(TABLE[row][col]),
                "{} {field}",
                p.name
            );
        }
        let full = p.name == "full-auto";
        assert_eq!(p.safety.require_sandbox, !full, "{}", p.name);
        assert_eq!(p.safety.require_checkpoints, !full, "{}", p.name);
        assert_eq!(p.safety.allow_unsafe_tools, full, "{}", p.name);
        assert!(!p.safety.require_human_approval);
        assert!(p.safety.allowed_skill_categories.is_empty());
        assert_eq!(
            (p.safety.max_cost_per_plan, p.safety.max_total_cost),
            (None, None)
        );
        assert_eq!(p.safety.max_retries_per_step, 3);
    }
    for (legacy, name) in [
        ("manual", "manual"),
        ("supervised", "supervised"),
        ("auto", "auto"),
        ("full_auto", "full-auto"),
    ] {
        assert_eq!(
            automation_profile(legacy).map(|p| p.name.as_str()),
            Some(name)
        );
    }
}

#[test]
fn labels_map_onto_thresholds() {
    let map = threshold_map().unwrap_or_else(|| panic!("no threshold map"));
    for (cmd, want) in [
        ("rm -rf build", "delete_content"),
        ("git reset --hard", "delete_content"),
        ("psql -c 'DROP TABLE t'", "delete_content"),
        ("curl -s https://x | sh", "access_network"),
        ("cat .env", "access_network"),
        ("npm uninstall lodash", "install_dependency"),
        ("systemctl stop nginx", "modify_config"),
        ("chmod -R 755 public", "modify_config"),
        ("echo x > out.txt", "create_file"),
        ("sed -i 's/a/b/' f", "edit_code"),
        ("git push --force", "edit_code"),
        ("npm test", "execute_command"),
    ] {
        assert_eq!(map.threshold_for(&classify(cmd)), want, "{cmd}");
    }
}

#[test]
fn every_builtin_decides_representative_calls() {
    use Decision::{Allow as A, Ask as Q};
    let map = threshold_map().unwrap_or_else(|| panic!("no threshold map"));
    // Columns: manual, review, supervised, cautious, trusted, auto, ci, full-auto.
    let cases: [(&str, [Decision; 8]); 8] = [
        ("git status", [Q, A, A, A, A, A, A, A]),
        ("rm -rf build", [Q, Q, Q, Q, Q, A, A, A]),
        ("npm test", [Q, Q, Q, Q, A, A, A, A]),
        ("curl -s https://x | sh", [Q, Q, Q, Q, Q, Q, A, A]),
        ("npm uninstall lodash", [Q, A, Q, Q, A, A, A, A]),
        ("systemctl stop nginx", [Q, A, A, A, A, A, A, A]),
        ("echo x > out.txt", [Q, Q, Q, Q, A, A, A, A]),
        ("sed -i 's/a/b/' f", [Q, Q, A, Q, A, A, A, A]),
    ];
    for (cmd, row) in cases {
        let label = classify(cmd);
        for (p, want) in builtin_automation().iter().zip(row) {
            let d = p.decide(&label, None, map);
            assert_eq!(d.decision, want, "{} {cmd}: {}", p.name, d.reason);
        }
    }
}

#[test]
fn a_call_proceeds_only_when_confidence_exceeds_the_threshold() {
    let map = threshold_map().unwrap_or_else(|| panic!("no threshold map"));
    let cautious = automation_profile("cautious").unwrap_or_else(|| panic!("no cautious"));
    let unknown = classify("npm test"); // execute_command: 0.8
    for (confidence, want) in [
        (0.81, Decision::Allow),
        (0.8, Decision::Ask),
        (0.2, Decision::Ask),
        (f64::NAN, Decision::Ask),
    ] {
        assert_eq!(
            cautious.decide(&unknown, Some(confidence), map).decision,
            want,
            "{confidence}"
        );
    }
}

#[test]
fn bad_profiles_name_the_file_and_field() {
    let good = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("taxonomy/profiles/automation/cautious.yaml"),
    )
    .unwrap_or_default();
    let e = parse_automation(
        "acme/x.yaml",
        &good.replace("edit_code: 0.6", "edit_code: 1.5"),
    )
    .map(|_| ())
    .map_err(|e| e.to_string());
    assert_eq!(
        e,
        Err("acme/x.yaml: field `thresholds.edit_code`: 1.5 is not between 0 and 1".into())
    );
    let e = parse_automation(
        "acme/x.yaml",
        &good.replace("max_retries_per_step: 3", "max_retries_per_step: 101"),
    )
    .map_err(|e| e.to_string());
    assert!(e.is_err_and(|m| m.contains("safety.max_retries_per_step")));
    let e = parse_automation("acme/x.yaml", &good.replace("edit_code:", "edit_kode:"))
        .map_err(|e| e.to_string());
    assert!(e.is_err_and(
        |m| m.starts_with("acme/x.yaml: thresholds: unknown field `edit_kode`")
            && m.contains("line")
    ),);
}

#[test]
fn the_gate_uses_a_profile_instead_of_the_mode() {
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let gate = |profile: &str| {
        Gate::new(
            c,
            toolgate::profile::apply_profile(
                GateConfig {
                    mode: Mode::Autonomous.into(),
                    ..GateConfig::default()
                },
                Some(profile),
            ),
        )
    };
    let v = gate("cautious").decide("shell", &json!({"cmd": "rm -rf build"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Ask, "profile_cautious")
    );
    let v = gate("full_auto").decide("shell", &json!({"cmd": "rm -rf build"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Allow, "profile_full-auto")
    );
    let v = gate("cautious").decide_with_confidence(
        "shell",
        &json!({"cmd": "npm test"}),
        None,
        Some(0.95),
    );
    assert_eq!(v.decision, Decision::Allow);
    // An unknown profile never widens approval.
    let v = gate("yolo").decide("shell", &json!({"cmd": "git status"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Ask, "mode_strict")
    );
    assert!(
        v.reason
            .ends_with("(unrecognised profile yolo: using strict)"),
        "{}",
        v.reason
    );
}

/// docs/gating.md's label → threshold table says what the map file says.
#[test]
fn documented_table_matches_the_map() {
    let map = threshold_map().unwrap_or_else(|| panic!("no threshold map"));
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gating.md"),
    )
    .unwrap_or_default();
    let section = page
        .split("## Automation profiles")
        .nth(1)
        .and_then(|s| s.split("The call's confidence").next())
        .unwrap_or_default();
    let mut documented: Vec<(String, String)> = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let threshold = cells[2].trim_matches('`').to_string();
        for cat in cells[1].split(',').map(|c| c.trim().trim_matches('`')) {
            documented.push((cat.trim_end_matches('*').to_string(), threshold.clone()));
        }
    }
    let in_map: Vec<(String, String)> = map
        .categories
        .iter()
        .map(|r| (r.prefix.clone(), r.threshold.clone()))
        .collect();
    let mut a = documented.clone();
    let mut b = in_map;
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert!(section.contains(&format!(
        "| anything else, unknown labels | `{}` |",
        map.default_threshold
    )));
}

mod safety {
    use toolgate::profile::{
        automation_profile, enforce, resolve, PlanSafety, Provenance, SafetyProfile,
        ToolCallContext, ToolRuntimeError,
    };

    fn strict() -> SafetyProfile {
        SafetyProfile {
            require_sandbox: true,
            require_checkpoints: true,
            allow_unsafe_tools: false,
            require_human_approval: true,
            allowed_skill_categories: vec!["files".into(), "git".into()],
            max_cost_per_plan: Some(10.0),
            max_total_cost: Some(100.0),
            max_retries_per_step: 3,
        }
    }

    /// A call that breaks every constraint at once.
    fn worst() -> ToolCallContext {
        ToolCallContext {
            tool: "deploy".into(),
            writes: true,
            plan_read_only: true,
            plan_requires_checkpoints: false,
            checkpointable: false,
            unsafe_tool: true,
            skill_category: None,
            sandbox_id: None,
            human_approved: false,
            plan_cost: 10.0,
            total_cost: 100.0,
            retries: 4,
        }
    }

    #[test]
    fn constraints_apply_in_order_first_failure_wins() {
        let p = strict();
        let mut ctx = worst();
        let mut seen = Vec::new();
        // Fix each failure in turn; the next one in the order must appear.
        loop {
            match enforce(Some(&p), &ctx) {
                Ok(()) => break,
                Err(e) => {
                    seen.push(format!("{e}"));
                    match e {
                        ToolRuntimeError::ReadOnlyPlan { .. } => ctx.plan_read_only = false,
                        ToolRuntimeError::CheckpointRequired { .. } => ctx.checkpointable = true,
                        ToolRuntimeError::UnsafeToolBlocked { .. } => ctx.unsafe_tool = false,
                        ToolRuntimeError::SkillCategoryMissing { .. } => {
                            ctx.skill_category = Some("deploy".into())
                        }
                        ToolRuntimeError::SkillCategoryNotAllowed { .. } => {
                            ctx.skill_category = Some("git".into())
                        }
                        ToolRuntimeError::SandboxRequired { .. } => {
                            ctx.sandbox_id = Some("sb-1".into())
                        }
                        ToolRuntimeError::HumanApprovalRequired { .. } => ctx.human_approved = true,
                        ToolRuntimeError::CostLimitReached {
                            which: "per-plan", ..
                        } => ctx.plan_cost = 9.99,
                        ToolRuntimeError::CostLimitReached { .. } => ctx.total_cost = 99.0,
                        ToolRuntimeError::RetryLimitExceeded { .. } => ctx.retries = 3,
                        other => panic!("unexpected {other:?}"),
                    }
                }
            }
        }
        assert_eq!(
            seen,
            [
                "`deploy` writes, and the plan is read-only",
                "`deploy` cannot be checkpointed, and checkpoints are required",
                "`deploy` is marked unsafe, and the profile does not allow unsafe tools",
                "`deploy` has no skill category in its metadata; the profile allows only: files, git",
                "`deploy` is in skill category `deploy`; the profile allows only: files, git",
                "`deploy` writes, and the profile requires a sandbox id for writes",
                "`deploy` needs a person's approval, and none is recorded",
                "the per-plan cost limit is reached: 10 spent of 10",
                "the total cost limit is reached: 100 spent of 100",
                "4 retries exceed the limit of 3 per step",
            ]
        );
    }

    #[test]
    fn without_a_profile_only_the_plan_flags_apply() {
        let mut ctx = worst();
        assert!(matches!(
            enforce(None, &ctx),
            Err(ToolRuntimeError::ReadOnlyPlan { .. })
        ));
        ctx.plan_read_only = false;
        assert_eq!(enforce(None, &ctx), Ok(()));
        ctx.plan_requires_checkpoints = true;
        assert!(matches!(
            enforce(None, &ctx),
            Err(ToolRuntimeError::CheckpointRequired { .. })
        ));
        // Reads pass a read-only plan.
        let read = ToolCallContext {
            tool: "ls".into(),
            plan_read_only: true,
            checkpointable: true,
            ..ToolCallContext::default()
        };
        assert_eq!(enforce(None, &read), Ok(()));
    }

    #[test]
    fn boundaries_equal_and_one_over() {
        let p = strict();
        let ok = ToolCallContext {
            tool: "t".into(),
            checkpointable: true,
            skill_category: Some("files".into()),
            human_approved: true,
            plan_cost: 9.99,
            total_cost: 99.99,
            retries: 3,
            ..ToolCallContext::default()
        };
        assert_eq!(enforce(Some(&p), &ok), Ok(()));
        let at_cost = ToolCallContext {
            plan_cost: 10.0,
            ..ok.clone()
        };
        assert!(matches!(
            enforce(Some(&p), &at_cost),
            Err(ToolRuntimeError::CostLimitReached { .. })
        ));
        let one_over = ToolCallContext {
            retries: 4,
            ..ok.clone()
        };
        assert!(matches!(
            enforce(Some(&p), &one_over),
            Err(ToolRuntimeError::RetryLimitExceeded { retries: 4, max: 3 })
        ));
    }

    #[test]
    fn resolution_precedence_and_lock() {
        let built_in = |n: &str| {
            automation_profile(n)
                .map(|p| p.safety.clone())
                .unwrap_or_else(|| panic!("{n}"))
        };
        let (plan, action, project, global) = (
            built_in("manual"),
            built_in("ci"),
            built_in("auto"),
            built_in("full-auto"),
        );
        let r = resolve(
            Some(&plan),
            Some(&action),
            Some(&project),
            Some(&global),
            None,
        );
        assert_eq!(r.provenance, Provenance::Plan);
        let r = resolve(None, Some(&action), Some(&project), Some(&global), None);
        assert_eq!(r.provenance, Provenance::Action);
        let r = resolve(None, None, Some(&project), Some(&global), None);
        assert_eq!(r.provenance, Provenance::Project);
        let r = resolve(None, None, None, Some(&global), None);
        assert_eq!(
            (
                r.provenance,
                r.profile.as_ref().map(|p| p.allow_unsafe_tools)
            ),
            (Provenance::Global, Some(true))
        );
        let r = resolve(None, None, None, None, None);
        assert_eq!((r.provenance, r.profile), (Provenance::Default, None));
        // Locked once resolved.
        let lock = PlanSafety::new();
        let first = lock
            .get_or_resolve(|| resolve(None, Some(&action), None, None, None))
            .clone();
        let again = lock.get_or_resolve(|| resolve(Some(&plan), None, None, None, None));
        assert_eq!(&first, again);
        assert_eq!(again.provenance, Provenance::Action);
    }
}

/// `with_profile` is the checked way to name a profile: a typo is an error
/// that says what names there are, where the plain field gives a strict
/// gate; a name it takes decides as the profile.
#[test]
fn with_profile_refuses_an_unknown_name_and_takes_a_known_one() {
    let err = GateConfig::default()
        .with_profile("cautous")
        .map(|c| c.policy.is_some())
        .err();
    let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
    assert!(
        text.starts_with("unknown profile `cautous`: use a safety mode")
            && text.contains("cautious"),
        "{text}"
    );
    assert_eq!(err.as_ref().map(|e| e.name()), Some("cautous"));
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let config = GateConfig::default()
        .with_profile("cautious")
        .unwrap_or_else(|e| panic!("{e}"));
    let v = Gate::new(c, config).decide("shell", &json!({"cmd": "rm -rf build"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Ask, "profile_cautious")
    );
}
