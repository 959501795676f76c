//! The gating table, mode names, permission rules.

use serde_json::json;
use toolgate::gate::{Decision, Gate, GateConfig, Mode, Rules};
use toolgate::{BlastRadius, Class, Classifier, Label, Origin};

fn label(class: Class, origin: Origin) -> Label {
    Label {
        class,
        origin,
        blast_radius: Some(BlastRadius::Unknown),
        category: "".into(),
        reason: "".into(),
    }
}

#[test]
fn every_mode_class_origin_cell() {
    use Class::{Destructive as D, Safe as S, Unknown as U};
    use Decision::{Allow as A, Ask as Q, Deny as N};
    use Origin::{Annotation as An, Classifier as Cl};
    let table = [
        (
            Mode::Strict,
            [(S, Q), (D, Q), (U, Q)],
            [(S, Q), (D, Q), (U, Q)],
        ),
        (
            Mode::Balanced,
            [(S, A), (D, Q), (U, Q)],
            [(S, A), (D, Q), (U, Q)],
        ),
        (
            Mode::Restricted,
            [(S, A), (D, N), (U, N)],
            [(S, A), (D, N), (U, N)],
        ),
        (
            Mode::Autonomous,
            [(S, A), (D, A), (U, A)],
            [(S, A), (D, A), (U, A)],
        ),
        // Legacy: only a read-only annotation is auto-approved.
        (
            Mode::Legacy,
            [(S, Q), (D, Q), (U, Q)],
            [(S, A), (D, Q), (U, Q)],
        ),
    ];
    for (mode, classifier_row, annotation_row) in table {
        for (origin, row) in [(Cl, classifier_row), (An, annotation_row)] {
            for (class, want) in row {
                assert_eq!(
                    mode.decide(&label(class, origin)),
                    want,
                    "{mode} {class} {origin:?}"
                );
            }
        }
    }
}

#[test]
fn mode_names_normalise_and_bad_names_are_strict() {
    for (name, want) in [
        (None, Mode::Legacy),
        (Some(""), Mode::Legacy),
        (Some("strict"), Mode::Strict),
        (Some(" Balanced "), Mode::Balanced),
        (Some("restricted"), Mode::Restricted),
        (Some("AUTONOMOUS"), Mode::Autonomous),
        (Some("unsafe"), Mode::Autonomous),
        (Some("safer"), Mode::Balanced),
        (Some("safe-auto"), Mode::Balanced),
        (Some("yolo"), Mode::Strict),
        (Some("permissive"), Mode::Strict),
        (Some("balanced;rm"), Mode::Strict),
    ] {
        assert_eq!(Mode::parse(name).mode, want, "{name:?}");
    }
    assert_eq!(
        Mode::parse(Some("nope")).unrecognised.as_deref(),
        Some("mode `nope`")
    );
}

fn gate(mode: Option<&str>, allow: &[&str], ask: &[&str], deny: &[&str]) -> Gate<'static> {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let rules = Rules::parse(&s(allow), &s(ask), &s(deny)).unwrap_or_else(|e| panic!("{e}"));
    Gate::new(
        classifier,
        GateConfig {
            mode: mode.map(String::from),
            rules,
            ..GateConfig::default()
        },
    )
}

#[test]
fn sources_are_stable_strings() {
    for (mode, cmd, decision, source) in [
        (Some("strict"), "git status", Decision::Ask, "mode_strict"),
        (
            Some("balanced"),
            "git status",
            Decision::Allow,
            "mode_balanced",
        ),
        (
            Some("restricted"),
            "rm -rf x",
            Decision::Deny,
            "mode_restricted",
        ),
        (Some("autonomous"), "rm -rf x", Decision::Allow, "yolo"),
        (None, "git status", Decision::Ask, "mode_legacy"),
        (Some("bogus"), "git status", Decision::Ask, "mode_strict"),
    ] {
        let v = gate(mode, &[], &[], &[]).decide("shell", &json!({ "cmd": cmd }), None);
        assert_eq!(
            (v.decision, v.source.as_str()),
            (decision, source),
            "{mode:?} {cmd}"
        );
    }
    let v = gate(Some("bogus"), &[], &[], &[]).decide("shell", &json!({"cmd": "ls"}), None);
    assert!(
        v.reason
            .ends_with("(unrecognised mode `bogus`: using strict)"),
        "{}",
        v.reason
    );
}

#[test]
fn rules_come_before_the_mode_deny_over_allow_over_ask() {
    let g = gate(
        Some("autonomous"),
        &["shell:cmd=git push*", "shell:cmd=make*"],
        &["shell:cmd=git*"],
        &["shell:cmd=git push --force*"],
    );
    let d = |cmd: &str| {
        let v = g.decide("shell", &json!({ "cmd": cmd }), None);
        (v.decision, v.source)
    };
    assert_eq!(
        d("git push --force origin main"),
        (Decision::Deny, "rule_deny".into())
    );
    assert_eq!(
        d("git push origin main"),
        (Decision::Allow, "rule_allow".into())
    );
    assert_eq!(d("git fetch"), (Decision::Ask, "rule_ask".into()));
    assert_eq!(d("ls"), (Decision::Allow, "yolo".into()));
    // The alias cannot sidestep the deny rule, nor can hiding it in a list.
    let v = g.decide("shell", &json!({"command": "git push --force"}), None);
    assert_eq!(v.source, "rule_deny");
    let v = g.decide(
        "shell",
        &json!({"cmd": "ls", "command": "git push --force"}),
        None,
    );
    assert_eq!(v.source, "rule_deny");
    let v = g.decide(
        "Bash",
        &json!({"command": "true && git push --force x"}),
        None,
    );
    assert_eq!(v.source, "rule_deny");
}

#[test]
fn a_prefix_grant_does_not_cover_compound_shell() {
    let g = gate(Some("strict"), &["shell:cmd=mkdir*"], &[], &[]);
    let v = g.decide("shell", &json!({"cmd": "mkdir x && rm -rf ~"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Ask, "mode_strict")
    );
    let v = g.decide("shell", &json!({"cmd": "mkdir -p out/dir"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Allow, "rule_allow")
    );
    let g = gate(Some("restricted"), &["shell:cmd=mkdir*"], &[], &[]);
    let v = g.decide("shell", &json!({"cmd": "mkdir x; rm -rf ~"}), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Deny, "mode_restricted")
    );
}

#[test]
fn non_shell_tools_use_hints() {
    let g = gate(None, &[], &[], &[]);
    let ro = toolgate::Hints {
        read_only: Some(true),
        destructive: None,
    };
    let v = g.decide("read_file", &json!({"path": "x"}), Some(ro));
    assert_eq!(
        (v.decision, v.label.origin),
        (Decision::Allow, Origin::Annotation)
    );
    let v = g.decide("read_file", &json!({"path": "x"}), None);
    assert_eq!((v.decision, v.label.class), (Decision::Ask, Class::Unknown));
    let g = gate(Some("restricted"), &[], &[], &["mcp__github__delete_*"]);
    let v = g.decide("mcp__github__delete_repository", &json!({}), Some(ro));
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Deny, "rule_deny")
    );
}
