//! The gating table, mode names, permission rules.

use serde_json::json;
use toolgate::gate::{CompoundPolicy, Decision, Gate, GateConfig, Mode, ModeSetting, Rules};
use toolgate::{BlastRadius, Class, Classifier, Label, Origin};

fn label(class: Class, origin: Origin) -> Label {
    Label {
        class,
        origin,
        blast_radius: BlastRadius::Unknown,
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

/// A gate whose mode is read from a name as the hook reads it (fail-closed).
fn gate(mode: Option<&str>, allow: &[&str], ask: &[&str], deny: &[&str]) -> Gate<'static> {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let rules = Rules::parse(&s(allow), &s(ask), &s(deny)).unwrap_or_else(|e| panic!("{e}"));
    Gate::new(
        classifier,
        GateConfig {
            mode: ModeSetting::from_name(mode),
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

fn compound_gate(mode: Mode, compound: CompoundPolicy) -> Gate<'static> {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    Gate::new(
        classifier,
        GateConfig {
            mode: mode.into(),
            compound,
            ..GateConfig::default()
        },
    )
}

#[test]
fn compound_of_safe_parts_is_let_through_only_by_choice() {
    let every = compound_gate(Mode::Balanced, CompoundPolicy::EveryPartSafe);
    let refuse = compound_gate(Mode::Balanced, CompoundPolicy::Refuse);
    let restricted = compound_gate(Mode::Restricted, CompoundPolicy::EveryPartSafe);
    let strict = compound_gate(Mode::Strict, CompoundPolicy::EveryPartSafe);
    let call = |cmd: &str| json!({ "command": cmd });
    for cmd in [
        "ls -la && git status",
        "nl -ba src/app.py | sed -n '1,120p'",
        "grep -rn 'def handle' src || true",
        "git status; git diff --stat",
        "ls 2>&1 | head -5",
        "cat README.md 2>/dev/null; wc -l src/main.rs",
        "git log --oneline -5\ngit status",
    ] {
        let v = every.decide("Bash", &call(cmd), None);
        assert_eq!(
            (v.decision, v.source.as_str(), v.label.class),
            (Decision::Allow, "compound_every_part_safe", Class::Unknown),
            "{cmd}"
        );
        assert!(v.reason.contains("every-part-safe"), "{cmd}: {}", v.reason);
        let v = restricted.decide("Bash", &call(cmd), None);
        assert_eq!(v.decision, Decision::Allow, "{cmd}");
        // Strict asks for safe calls too; the default refuses compounds.
        assert_eq!(
            strict.decide("Bash", &call(cmd), None).decision,
            Decision::Ask
        );
        let v = refuse.decide("Bash", &call(cmd), None);
        assert_eq!(
            (v.decision, v.source.as_str()),
            (Decision::Ask, "mode_balanced"),
            "{cmd}"
        );
    }
    // Near misses: a part that is not safe, a backgrounded part, a writing
    // redirection, a nested command, a substitution, control flow, a
    // directory change, a destructive part, an environment assignment.
    for cmd in [
        "ls -la && npm test",
        "ls & git status",
        "git status > status.txt && ls",
        "ls >> log; ls",
        "git diff | sh",
        "ls | xargs cat",
        "cat $(ls) | head",
        "(ls) && ls",
        "{ ls; } | head",
        "if true; then ls; fi",
        "for f in *; do cat x; done",
        "cd /etc && cat passwd",
        "ls; rm -rf build",
        "FOO=1 ls | head",
        "cat .env | head",
        "ls && cat /etc/passwd",
        "ls; cat ../secret.txt",
        "ls | tee out.txt",
    ] {
        let v = every.decide("Bash", &call(cmd), None);
        assert_ne!(v.decision, Decision::Allow, "{cmd}: {}", v.reason);
        assert_ne!(v.source, "compound_every_part_safe", "{cmd}");
        let v = restricted.decide("Bash", &call(cmd), None);
        assert_eq!(v.decision, Decision::Deny, "{cmd}");
    }
    // The guard mode lets such a list through whatever the setting, and
    // its reason does not credit an operator who chose nothing.
    let guard = compound_gate(Mode::Guard, CompoundPolicy::Refuse);
    let v = guard.decide("Bash", &call("ls -la && git status"), None);
    assert_eq!(
        (v.decision, v.source.as_str(), v.reason.as_str()),
        (
            Decision::Allow,
            "compound_every_part_safe",
            "compound shell whose every part is safe on its own, let through as safe \
             (compound = every-part-safe, always on) in guard mode"
        )
    );
    let v = every.decide("Bash", &call("ls -la && git status"), None);
    assert!(
        v.reason.contains("by the operator's choice"),
        "{}",
        v.reason
    );
    // A simple safe command is decided by its own label as before.
    let v = every.decide("Bash", &call("git status"), None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Allow, "mode_balanced")
    );
}

#[test]
fn compound_parts_are_judged_in_the_call_working_directory() {
    let every = compound_gate(Mode::Balanced, CompoundPolicy::EveryPartSafe);
    let call = json!({"command": "cat /app/src/main.py | head -20 && ls /app/tests"});
    let here = toolgate::Context { cwd: Some("/app") };
    assert_eq!(
        every.decide_in("Bash", &call, None, &here).decision,
        Decision::Allow
    );
    assert_eq!(every.decide("Bash", &call, None).decision, Decision::Ask);
    let out = json!({"command": "cat /app/src/main.py && cat /app/../etc/passwd"});
    assert_eq!(
        every.decide_in("Bash", &out, None, &here).decision,
        Decision::Ask
    );
}

#[test]
fn compound_directory_changes_and_globs() {
    let every = compound_gate(Mode::Balanced, CompoundPolicy::EveryPartSafe);
    let here = toolgate::Context {
        cwd: Some("/testbed"),
    };
    let decide = |cmd: &str| {
        every
            .decide_in("Bash", &json!({ "command": cmd }), None, &here)
            .decision
    };
    for cmd in [
        "cd /testbed && git diff",
        "cd /testbed && git log --oneline -5",
        "cd src && ls -la && wc -l ./*.py",
        "cd . && git status",
        "wc -l django/db/models/*.py | tail -1",
        "cd /testbed/src && cat ./*.py | head",
    ] {
        assert_eq!(decide(cmd), Decision::Allow, "{cmd}");
    }
    // git in a subdirectory could find a bare repository committed there;
    // hidden and outside directories; a glob that could be an option or a
    // secret; cd with no directory goes home.
    for cmd in [
        "cd src && git log",
        "cd src; cd /testbed; git status",
        "cd src && nice git log -p",
        "cd src && timeout 5 git status",
        "cd src && command git status",
        "cd .git && cat config",
        "cd /testbed/.git && cat config",
        "cd /etc && cat hosts",
        "cd && cat .bashrc",
        "cd - && ls",
        "cd .. && ls",
        "cd src && cat ../.env",
        "ls -la *.sh",
        "cat logs/*.txt | head",
        "cat src/*/x.py",
        "grep -rn foo src/*.py",
    ] {
        assert_ne!(decide(cmd), Decision::Allow, "{cmd}");
    }
}

/// A library names the mode as a `Mode`; only a `ModeSetting::Unrecognised`
/// (what the hook makes of a bad name) is strict with a reason.
#[test]
fn a_typed_mode_decides_and_an_unrecognised_one_is_strict_and_named() {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let with = |mode: ModeSetting| {
        Gate::new(
            classifier,
            GateConfig {
                mode,
                ..GateConfig::default()
            },
        )
    };
    let call = json!({"cmd": "git status"});
    let v = with(Mode::Balanced.into()).decide("shell", &call, None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Allow, "mode_balanced")
    );
    assert!(!v.reason.contains("unrecognised"), "{}", v.reason);
    let v = with(ModeSetting::default()).decide("shell", &call, None);
    assert_eq!(v.source, "mode_legacy");
    let g = with(ModeSetting::Unrecognised("balancd".into()));
    assert_eq!(
        (g.mode(), g.unrecognised()),
        (Mode::Strict, Some("mode `balancd`"))
    );
    let v = g.decide("shell", &call, None);
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Ask, "mode_strict")
    );
    assert!(
        v.reason
            .ends_with("(unrecognised mode `balancd`: using strict)"),
        "{}",
        v.reason
    );
    // The name as the hook gets it: aliases are modes, the rest is not.
    for (name, want) in [
        (None, ModeSetting::Known(Mode::Legacy)),
        (Some("  "), ModeSetting::Known(Mode::Legacy)),
        (Some(" Safe-Auto "), ModeSetting::Known(Mode::Balanced)),
        (Some("unsafe"), ModeSetting::Known(Mode::Autonomous)),
        (Some(" yolo "), ModeSetting::Unrecognised("yolo".into())),
        (Some("legacy"), ModeSetting::Unrecognised("legacy".into())),
    ] {
        assert_eq!(ModeSetting::from_name(name), want, "{name:?}");
    }
}
