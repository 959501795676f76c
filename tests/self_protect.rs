//! Self-protection (issue 19 item 6): a call that would disable or weaken
//! the guard is denied in every mode but autonomous, whatever the rules
//! say; file edits elsewhere get no opinion from the hook.

use serde_json::{json, Value};
use toolgate::gate::{Decision, Gate, GateConfig, Mode, Rules};
use toolgate::guard_paths::{GuardPaths, GUARD_TAMPER};
use toolgate::{Class, Classifier};

use crate::util::run;

const MODES: [&str; 4] = ["strict", "balanced", "restricted", "autonomous"];

/// Shell commands that tamper with the guard.
const TAMPER: &[&str] = &[
    "rm ~/.claude/settings.json",
    "rm -rf ~/.claude",
    "mv .claude/settings.local.json /tmp/",
    "echo '{}' > ~/.claude/settings.json",
    "sed -i '/toolgate/d' ~/.codex/config.toml",
    "cp /tmp/x.json ~/.gemini/settings.json",
    "printf '{}' | tee ~/.qwen/settings.json",
    "rm ~/.copilot/hooks/toolgate.json",
    "rm -rf .github/hooks",
    "rm -r ~/.cline/hooks",
    "rm .clinerules/hooks/PreToolUse",
    "rm ~/.config/opencode/plugin/toolgate.js",
    "rm -rf .opencode/plugin",
    "truncate -s 0 ~/.cursor/hooks.json",
    "rm .windsurf/hooks.json",
    "rm ~/.codeium/windsurf/hooks.json",
    "chmod 000 ~/.config/toolgate/config.toml",
    "echo 'mode = \"autonomous\"' >> $XDG_CONFIG_HOME/toolgate/config.toml",
    "rm .toolgate.toml",
    "rm -rf ~/.local/state/toolgate",
    "toolgate uninstall",
    "toolgate install",
    "git status && rm ~/.claude/settings.json",
    // Reached after a `cd`, or spelled so the name is hidden.
    "cd ~/.claude && rm settings.json",
    "cd .claude; rm settings.json",
    "cd ~ && cd .claude && echo {} > settings.json",
    "cd .claude/agents && rm ../settings.json",
    "pushd ~/.config/toolgate && rm config.toml",
    "cd ~/.claude && sed -i /toolgate/d settings.json",
    "rm .claude/agents/../settings.json",
    "rm .claude//settings.json",
    "rm ~/.claude/./settings.json",
    "rm -rf ./build/../.claude/",
    // git's own ways of deleting or overwriting a file.
    "git rm .claude/settings.json",
    "git checkout -- .claude/settings.json",
    "git restore .codex/config.toml",
    "cd project && git rm .toolgate.toml",
];

/// Near misses: reads, and writes elsewhere.
const NOT_TAMPER: &[&str] = &[
    "cat ~/.claude/settings.json",
    "grep hooks ~/.codex/config.toml",
    "sed -n 1,5p ~/.gemini/settings.json",
    "rm ~/.claude/agents/old.md",
    "rm .github/workflows/old.yml",
    "echo hi > notes.txt",
    "toolgate classify ls",
    "cd /tmp && rm settings.json",
    "cd .claude && rm agents/old.md",
    "cd src && rm -rf build",
    "cd ~ && rm -rf .config/nvim",
    "git rm --cached .claude/settings.json",
    "git diff .claude/settings.json",
    "rm build/../notes.txt",
];

fn gate(mode: &str, allow: &[&str]) -> Gate<'static> {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
    let rules = Rules::parse(&allow, &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    Gate::new(
        classifier,
        GateConfig {
            // A library user's way: a name is parsed, a typo is an error.
            mode: mode
                .parse::<Mode>()
                .unwrap_or_else(|e| panic!("{e}"))
                .into(),
            rules,
            ..GateConfig::default()
        },
    )
}

#[test]
fn shell_tampering_is_labelled_guard_tamper() {
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    for cmd in TAMPER {
        let l = c.classify(cmd);
        assert_eq!(
            (l.class, l.category.as_ref()),
            (Class::Destructive, GUARD_TAMPER),
            "{cmd:?}: {l:?}"
        );
    }
    for cmd in NOT_TAMPER {
        let l = c.classify(cmd);
        assert_ne!(l.category.as_ref(), GUARD_TAMPER, "{cmd:?}: {l:?}");
    }
    for cmd in [
        "cat ~/.claude/settings.json",
        "grep hooks ~/.codex/config.toml",
    ] {
        assert_ne!(c.classify(cmd).class, Class::Destructive, "{cmd:?}");
    }
}

#[test]
fn shell_tampering_is_denied_in_every_mode_but_autonomous() {
    for mode in MODES {
        // An allow rule for the very command cannot grant it.
        let g = gate(mode, &["shell", "Bash"]);
        for cmd in TAMPER {
            let v = g.decide("Bash", &json!({ "command": cmd }), None);
            if mode == "autonomous" {
                assert_eq!(v.decision, Decision::Allow, "{mode} {cmd:?}: {v:?}");
            } else {
                assert_eq!(
                    (v.decision, v.source.as_str()),
                    (Decision::Deny, "self_protection"),
                    "{mode} {cmd:?}: {v:?}"
                );
                assert!(v.reason.starts_with("self-protection: "), "{}", v.reason);
            }
        }
    }
}

#[test]
fn profiles_do_not_lift_self_protection() {
    let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let g = Gate::new(
        classifier,
        toolgate::profile::apply_profile(GateConfig::default(), Some("full-auto")),
    );
    let v = g.decide(
        "Bash",
        &json!({"command": "rm ~/.claude/settings.json"}),
        None,
    );
    assert_eq!(
        (v.decision, v.source.as_str()),
        (Decision::Deny, "self_protection")
    );
}

/// File-edit tool payloads writing a protected path, per tool.
fn protected_edits() -> Vec<(&'static str, Value)> {
    vec![
        (
            "Write",
            json!({"file_path": "/home/me/.claude/settings.json", "content": "{}"}),
        ),
        (
            "Edit",
            json!({"file_path": "/p/.claude/settings.local.json", "old_string": "a", "new_string": "b"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": "/home/me/.codex/config.toml", "edits": []}),
        ),
        (
            "write_file",
            json!({"file_path": "/home/me/.gemini/settings.json", "content": "{}"}),
        ),
        (
            "replace",
            json!({"file_path": "/home/me/.qwen/settings.json", "old_string": "a", "new_string": "b"}),
        ),
        (
            "Write",
            json!({"file_path": "/p/.toolgate.toml", "content": ""}),
        ),
        (
            "Write",
            json!({"file_path": "/home/me/.config/toolgate/config.toml", "content": ""}),
        ),
        (
            "Write",
            json!({"file_path": "/p/.github/hooks/guard.json", "content": ""}),
        ),
    ]
}

#[test]
fn file_edits_of_guard_files_are_denied_and_others_untouched() {
    for mode in MODES {
        let g = gate(
            mode,
            &["Write", "Edit", "MultiEdit", "write_file", "replace"],
        );
        for (tool, args) in protected_edits() {
            let v = g.decide(tool, &args, None);
            assert_eq!(v.label.category, GUARD_TAMPER, "{tool} {args}");
            let expected = if mode == "autonomous" {
                Decision::Allow
            } else {
                Decision::Deny
            };
            assert_eq!(v.decision, expected, "{mode} {tool} {args}: {v:?}");
        }
        let v = g.decide("Write", &json!({"file_path": "/p/src/lib.rs"}), None);
        assert_ne!(v.label.category, GUARD_TAMPER);
    }
}

#[test]
fn gate_and_taxonomy_agree_on_guard_paths() {
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let g = GuardPaths::default();
    for path in [
        "~/.claude/settings.json",
        ".claude/settings.local.json",
        "/home/me/.claude",
        "~/.codex/config.toml",
        "~/.codex/hooks.json",
        "~/.gemini/settings.json",
        "~/.qwen/settings.json",
        "~/.copilot/hooks/a.json",
        "~/.copilot/settings.json",
        ".github/hooks/a.json",
        ".github",
        "~/.cline/hooks/PreToolUse",
        ".clinerules/hooks",
        "~/.config/opencode/plugins/toolgate.js",
        ".opencode/plugin/x.js",
        "~/.cursor/hooks.json",
        ".windsurf/hooks.json",
        "/etc/windsurf/hooks.json",
        "~/.config/toolgate/config.toml",
        "$XDG_CONFIG_HOME/toolgate/config.toml",
        "${XDG_STATE_HOME}/toolgate/log",
        ".toolgate.toml",
        "~/.local/state/toolgate/decisions.jsonl",
        "~/.claude/*",
        "~/.claude/./settings.json",
        ".claude//settings.json",
        "src/../.toolgate.toml",
        "~/.config/nvim/../toolgate/config.toml",
        "src/main.rs",
        "~/.claude/agents/x.md",
        "~/.claude/settings.json.bak",
        ".github/workflows/ci.yml",
        "~/.config/nvim/init.lua",
        "toolgate.toml",
        "/etc/hosts",
    ] {
        let shell = c.classify(&format!("touch {path}")).category == GUARD_TAMPER;
        assert_eq!(shell, g.protects(path).is_some(), "{path:?}");
    }
}

fn hook(protocol: &str, mode: &str, payload: &Value) -> std::process::Output {
    run(
        &["hook", "--protocol", protocol, "--mode", mode],
        payload.to_string().as_bytes(),
        &[],
    )
}

#[test]
fn hook_denies_guard_edits_and_has_no_opinion_on_others() {
    for protocol in ["claude", "gemini", "qwen", "codex"] {
        for mode in MODES {
            for (tool, args) in protected_edits() {
                let payload = json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args, "cwd": "/p"});
                let out = hook(protocol, mode, &payload);
                let stdout = String::from_utf8_lossy(&out.stdout);
                if mode == "autonomous" {
                    assert!(
                        stdout.trim().is_empty(),
                        "{protocol} {mode} {tool}: {stdout}"
                    );
                } else {
                    assert!(
                        stdout.contains("deny"),
                        "{protocol} {mode} {tool}: {stdout}"
                    );
                    assert!(stdout.contains("self-protection"), "{stdout}");
                }
            }
            let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Write",
                "tool_input": {"file_path": "/p/src/lib.rs", "content": "x"}, "cwd": "/p"});
            let out = hook(protocol, mode, &payload);
            assert_eq!(
                (out.status.code(), out.stdout.as_slice()),
                (Some(0), &b""[..]),
                "{protocol} {mode}: unrelated edit"
            );
        }
    }
}

#[test]
fn hook_denies_shell_tampering() {
    for mode in ["strict", "balanced", "restricted"] {
        let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "rm ~/.claude/settings.json"}});
        let out = hook("claude", mode, &payload);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], "deny",
            "{mode}"
        );
    }
}
