//! `toolgate install`, `uninstall` and `doctor` over real-looking settings
//! files in a temporary home.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use crate::util::Home;

const CLAUDE: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --check",
            "timeout": 5
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "zeta": 1.5
}
"#;

const CODEX: &str = r#"# Codex settings, by hand.
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

[profiles.fast]
model = "o4-mini"

# A formatter hook of my own.
[[hooks.PreToolUse]]
matcher = "apply_patch"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "my-checker"
timeout = 3
"#;

/// Install twice, check, uninstall: the file's other content is exactly
/// as it was.
fn round_trip(home: &Home, client: &str, rel: &str, original: &str, must_contain: &[&str]) {
    home.write(rel, original);
    home.ok(&["install", client, "--mode", "balanced"]);
    let once = home.read(rel);
    for want in must_contain {
        assert!(once.contains(want), "{client}: {want:?} missing in\n{once}");
    }
    assert!(once.contains(" hook --protocol "), "{once}");
    assert_eq!(
        home.read(&format!("{rel}.toolgate-backup")),
        original,
        "{client}: backup"
    );
    home.ok(&["install", client, "--mode", "balanced"]);
    assert_eq!(
        home.read(rel),
        once,
        "{client}: installing twice is installing once"
    );
    home.ok(&["uninstall", client]);
    assert_eq!(
        home.read(rel),
        original,
        "{client}: uninstall restores the file"
    );
}

#[test]
fn claude_keeps_other_keys_and_hooks() {
    let home = Home::new("install", "claude");
    round_trip(
        &home,
        "claude",
        ".claude/settings.json",
        CLAUDE,
        &[
            "prettier --check",
            "notify-send done",
            "\"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\"",
            "\"timeout\": 30",
        ],
    );
    // Keys keep their order: `zeta` is still last.
    home.ok(&["install", "claude"]);
    let text = home.read(".claude/settings.json");
    assert!(text.trim_end().ends_with("\"zeta\": 1.5\n}"), "{text}");
}

#[test]
fn codex_keeps_comments() {
    let home = Home::new("install", "codex");
    round_trip(
        &home,
        "codex",
        ".codex/config.toml",
        CODEX,
        &[
            "# Codex settings, by hand.",
            "# the default model",
            "# A formatter hook of my own.",
            "command = \"my-checker\"",
            "timeout = 30",
            "matcher = \"apply_patch\"",
            "matcher = \"^(Bash|apply_patch)$\"",
        ],
    );
    let out = home.ok(&["install", "codex"]);
    assert!(out.contains("/hooks"), "{out}");
    assert!(
        out.contains("Do not use --dangerously-bypass-hook-trust"),
        "{out}"
    );
}

#[test]
fn gemini_qwen_copilot_cursor_windsurf_round_trip() {
    let home = Home::new("install", "json");
    let other = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"AfterTool\": []\n  }\n}\n";
    round_trip(
        &home,
        "gemini",
        ".gemini/settings.json",
        other,
        &[
            "\"matcher\": \"^(run_shell_command|read_file|read_many_files|glob|grep_search|\
             search_file_content|list_directory|write_file|replace)$\"",
            "BeforeTool",
            "30000",
        ],
    );
    round_trip(
        &home,
        "qwen",
        ".qwen/settings.json",
        other,
        &[
            "\"matcher\": \"^(run_shell_command|read_file|glob|grep_search|list_directory|\
             write_file|edit)$\"",
            "PreToolUse",
            "30000",
        ],
    );
    let copilot = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./audit.sh\"\n      }\n    ]\n  }\n}\n";
    round_trip(
        &home,
        "copilot",
        ".copilot/hooks/toolgate.json",
        copilot,
        &["\"bash\": \"", "\"timeoutSec\": 30", "./audit.sh"],
    );
    let cursor = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      {\n        \"command\": \"fmt\"\n      }\n    ]\n  }\n}\n";
    round_trip(
        &home,
        "cursor",
        ".cursor/hooks.json",
        cursor,
        &["beforeShellExecution", "\"fmt\""],
    );
    round_trip(
        &home,
        "windsurf",
        ".codeium/windsurf/hooks.json",
        other,
        &["pre_run_command", "\"show_output\": true"],
    );
}

#[test]
fn a_new_file_is_created_and_removed_again() {
    let home = Home::new("install", "fresh");
    home.ok(&["install", "copilot", "--mode", "restricted"]);
    let text = home.read(".copilot/hooks/toolgate.json");
    assert!(
        text.starts_with("{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": ["),
        "{text}"
    );
    assert!(text.contains("--mode restricted"), "{text}");
    home.ok(&["uninstall", "copilot"]);
    assert!(!home.path(".copilot/hooks/toolgate.json").exists());
}

#[test]
fn a_changed_mode_replaces_the_entry_in_place() {
    let home = Home::new("install", "mode");
    home.ok(&["install", "gemini", "--mode", "balanced"]);
    home.ok(&["install", "gemini", "--mode", "strict"]);
    let text = home.read(".gemini/settings.json");
    assert_eq!(text.matches(" hook --protocol gemini").count(), 1, "{text}");
    assert!(text.contains("--mode strict"), "{text}");
}

#[test]
fn project_scope_and_dry_run() {
    let home = Home::new("install", "project");
    let project = home.path("work/app");
    fs::create_dir_all(&project).unwrap_or_else(|e| panic!("{e}"));
    let dir = project.to_string_lossy().into_owned();
    let out = home.ok(&["install", "claude", "--project", &dir, "--dry-run"]);
    assert!(
        out.contains("+++ ")
            && out.contains(
                "+        \"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\","
            ),
        "{out}"
    );
    assert!(
        !project.join(".claude").exists(),
        "a dry run writes nothing"
    );
    home.ok(&["install", "copilot", "--project", &dir]);
    assert!(project.join(".github/hooks/toolgate.json").is_file());
    home.ok(&["install", "cline", "--project", &dir]);
    assert!(project.join(".clinerules/hooks/PreToolUse").is_file());
    home.ok(&["install", "opencode", "--project", &dir]);
    assert!(project.join(".opencode/plugins/toolgate.js").is_file());
    // Uninstall's dry run leaves the file.
    let out = home.ok(&["uninstall", "copilot", "--project", &dir, "--dry-run"]);
    assert!(out.contains("+++ /dev/null"), "{out}");
    assert!(project.join(".github/hooks/toolgate.json").is_file());
}

#[test]
fn cline_and_opencode_files_are_toolgates_own() {
    let home = Home::new("install", "scripts");
    home.ok(&["install", "cline", "--mode", "balanced"]);
    let script = home.read(".cline/hooks/PreToolUse");
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(
        script.contains("exec ") && script.contains(" hook --protocol cline --mode balanced"),
        "{script}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(home.path(".cline/hooks/PreToolUse"))
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        assert_eq!(mode & 0o111, 0o111, "the script is executable");
    }
    home.ok(&["install", "opencode", "--mode", "balanced"]);
    let plugin = home.read(".config/opencode/plugins/toolgate.js");
    assert!(plugin.contains("\"--mode\", \"balanced\""), "{plugin}");
    home.ok(&["uninstall", "cline"]);
    home.ok(&["uninstall", "opencode"]);
    assert!(!home.path(".cline/hooks/PreToolUse").exists());
    assert!(!home.path(".config/opencode/plugins/toolgate.js").exists());
    // Someone else's script is neither overwritten nor removed.
    home.write(
        ".cline/hooks/PreToolUse",
        "#!/bin/sh\necho '{\"cancel\": false}'\n",
    );
    let out = home.run(&["install", "cline"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not toolgate's"));
    home.ok(&["uninstall", "cline"]);
    assert!(home.path(".cline/hooks/PreToolUse").exists());
}

#[test]
fn unreadable_settings_are_left_alone() {
    let home = Home::new("install", "bad");
    // JSONC that lacks its last `}`: the one there closes `hooks`, so the
    // parser names the first line, where the unclosed `{` is.
    let text = "{\n  // a comment\n  \"a\": 1,\n  \"hooks\": {\n    \"AfterTool\": [],\n}\n";
    for (client, rel) in [
        ("gemini", ".gemini/settings.json"),
        ("copilot", ".copilot/hooks/toolgate.json"),
    ] {
        home.write(rel, text);
        for args in [
            &["install", client][..],
            &["install", client, "--dry-run"],
            &["uninstall", client],
        ] {
            let out = home.run(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            let want = format!(
                "{}: not valid JSON or JSONC (line 1, column 1: this `{{` is never closed): \
                 toolgate did not touch it",
                home.path(rel).display()
            );
            assert!(
                err.contains(&want) && err.contains("add the hook by hand"),
                "{args:?}: {err}"
            );
            assert_eq!(home.read(rel), text, "{args:?}");
            assert!(!home.path(&format!("{rel}.toolgate-backup")).exists());
        }
    }
    // doctor names the file and the line too, and goes on.
    let out = home.run(&["doctor"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("line 1, column 1: this `{` is never closed"),
        "{report}"
    );
    // Single quotes are JSON5, which no client reads: refused, with the
    // line.
    let text = "{\n  \"a\": 1,\n  'b': 2\n}\n";
    home.write(".gemini/settings.json", text);
    let out = home.run(&["install", "gemini"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(line 3, column 3: "), "{err}");
    assert_eq!(home.read(".gemini/settings.json"), text);
    let out = home.run(&["install", "claude", "--mode", "balanced-ish"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("balanced-ish"));
}

#[test]
fn doctor_on_live_broken_and_missing_hooks() {
    let home = Home::new("install", "doctor");
    // Nothing installed: healthy, and it says how to install.
    let out = home.ok(&["doctor"]);
    assert!(out.contains("no client settings found"), "{out}");
    // A client file with no toolgate hook is reported, not a failure.
    home.write(".qwen/settings.json", "{\n  \"theme\": \"dark\"\n}\n");
    for client in [
        "claude", "codex", "gemini", "copilot", "cline", "opencode", "cursor", "windsurf",
    ] {
        home.ok(&["install", client, "--mode", "balanced"]);
    }
    let out = home.ok(&["doctor"]);
    assert!(
        out.contains("no toolgate hook (`toolgate install qwen`"),
        "{out}"
    );
    assert_eq!(out.matches("  live").count(), 8, "{out}");
    assert!(out.contains("all installed hooks are live"), "{out}");

    // A hook whose binary is gone.
    let settings = home.read(".claude/settings.json");
    let exe = env!("CARGO_BIN_EXE_toolgate");
    home.write(
        ".claude/settings.json",
        &settings.replace(exe, "/nonexistent/bin/toolgate"),
    );
    let out = home.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("/nonexistent/bin/toolgate` does not exist"),
        "{text}"
    );

    // A hook that answers, but not as toolgate would (it allows all).
    home.write(".claude/settings.json", &settings);
    let gemini = home.read(".gemini/settings.json");
    let fake = home.path("bin/toolgate");
    home.write(
        "bin/toolgate",
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"allow\"}'\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(&fake, fs::Permissions::from_mode(0o755));
    }
    home.write(
        ".gemini/settings.json",
        &gemini.replace(exe, &fake.to_string_lossy()),
    );
    let out = home.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("BROKEN") && text.contains("WRONG, should be: asks"),
        "{text}"
    );
    home.write(".gemini/settings.json", &gemini);
    home.ok(&["doctor"]);
}

#[test]
fn doctor_names_a_config_typo_with_file_and_line() {
    let home = Home::new("install", "config");
    home.write(
        ".config/toolgate/config.toml",
        "# toolgate\nmod = \"balanced\"\n",
    );
    let out = home.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("config.toml") && text.contains("line 2") && text.contains("`mod`"),
        "{text}"
    );
    home.write(
        ".config/toolgate/config.toml",
        "\nmode = \"balanced-ish\"\n",
    );
    let out = home.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("config.toml: line 2: mode `balanced-ish`"),
        "{text}"
    );
    home.write(".config/toolgate/config.toml", "mode = \"balanced\"\n");
    home.ok(&["doctor"]);
}

#[test]
fn doctor_reports_a_project_policy_and_what_it_ignores() {
    let home = Home::new("install", "policy");
    home.write(
        "proj/.toolgate.toml",
        "mode = \"autonomous\"\n[rules]\nallow = [\"Bash\"]\ndeny = [\"shell:cmd=rm *\"]\n",
    );
    let project = home.path("proj");
    let project = project.to_string_lossy();
    let text = home.ok(&["doctor", "--project", &project]);
    assert!(
        text.contains(".toolgate.toml  ok (it can only tighten)"),
        "{text}"
    );
    assert!(text.contains("ignored: mode = autonomous"), "{text}");
    assert!(text.contains("ignored: rules.allow = Bash"), "{text}");
    assert!(!text.contains("ignored: rules.deny"), "{text}");
    // A broken one is a problem: the hook would answer fail-closed there.
    home.write("proj/.toolgate.toml", "mode = \n");
    let out = home.run(&["doctor", "--project", &project]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("BROKEN") && text.contains(".toolgate.toml:1"),
        "{text}"
    );
}

/// Settings files as people keep them by hand (or as a JSONC editor writes
/// them): line and block comments, trailing commas, blank lines, other
/// hooks and keys. For each: (client, file, before, after install) where
/// `"CMD"` stands for toolgate's command as a JSON string.
const JSONC: &[(&str, &str, &str, &str)] = &[
    (
        "claude",
        ".claude/settings.json",
        r#"// Claude Code settings, kept by hand.
{
  "model": "opus", // the default
  /* reviewed by hand */
  "permissions": {
    "allow": [
      "Bash(npm test)",
    ],
  },

  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "prettier --check", "timeout": 5 },
        ],
      }, // formatting
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }],
  },
}
"#,
        r#"// Claude Code settings, kept by hand.
{
  "model": "opus", // the default
  /* reviewed by hand */
  "permissions": {
    "allow": [
      "Bash(npm test)",
    ],
  },

  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "prettier --check", "timeout": 5 },
        ],
      }, // formatting
      {
        "matcher": "Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "CMD",
            "timeout": 30
          }
        ]
      },
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }],
  },
}
"#,
    ),
    (
        "gemini",
        ".gemini/settings.json",
        r#"{
  /* Gemini CLI strips comments before it parses this file. */
  "theme": "GitHub",
  "hooks": {
    // log every tool call
    "AfterTool": [
      {
        "matcher": "*",
        "hooks": [{"type": "command", "command": "logger -t gemini"}],
      },
    ],
  },

  "general": {"vimMode": true}, // a trailing comma
}
"#,
        r#"{
  /* Gemini CLI strips comments before it parses this file. */
  "theme": "GitHub",
  "hooks": {
    // log every tool call
    "AfterTool": [
      {
        "matcher": "*",
        "hooks": [{"type": "command", "command": "logger -t gemini"}],
      },
    ],
    "BeforeTool": [
      {
        "matcher": "^(run_shell_command|read_file|read_many_files|glob|grep_search|search_file_content|list_directory|write_file|replace)$",
        "hooks": [
          {
            "type": "command",
            "command": "CMD",
            "timeout": 30000
          }
        ]
      }
    ],
  },

  "general": {"vimMode": true}, // a trailing comma
}
"#,
    ),
    (
        "qwen",
        ".qwen/settings.json",
        r#"{
  // Qwen Code: comments are fine here.
  "model": {"name": "qwen3-coder-plus"},
  "tools": {
    "sandbox": false,
  },
  "ui": {"theme": "Default"} /* last */
}
"#,
        r#"{
  // Qwen Code: comments are fine here.
  "model": {"name": "qwen3-coder-plus"},
  "tools": {
    "sandbox": false,
  },
  "ui": {"theme": "Default"}, /* last */
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^(run_shell_command|read_file|glob|grep_search|list_directory|write_file|edit)$",
        "hooks": [
          {
            "type": "command",
            "command": "CMD",
            "timeout": 30000
          }
        ]
      }
    ]
  }
}
"#,
    ),
    (
        "copilot",
        ".copilot/hooks/toolgate.json",
        r#"{
  "version": 1,
  /* audit every call */
  "hooks": {
    "preToolUse": [
      {"type": "command", "bash": "./audit.sh", "timeoutSec": 5}, // the team's
    ],
    "postToolUse": [],
  },
}
"#,
        r#"{
  "version": 1,
  /* audit every call */
  "hooks": {
    "preToolUse": [
      {"type": "command", "bash": "./audit.sh", "timeoutSec": 5}, // the team's
      {
        "type": "command",
        "bash": "CMD",
        "timeoutSec": 30
      },
    ],
    "postToolUse": [],
  },
}
"#,
    ),
    (
        // `hooks` on one line: toolgate's list joins that line.
        "cursor",
        ".cursor/hooks.json",
        r#"{
  // Cursor hooks
  "version": 1,
  "hooks": {"afterFileEdit": [{"command": "fmt"}]},
}
"#,
        r#"{
  // Cursor hooks
  "version": 1,
  "hooks": {"afterFileEdit": [{"command": "fmt"}], "beforeShellExecution": [{"command": "CMD"}]},
}
"#,
    ),
    (
        // CRLF line endings and four-space indentation, as on Windows.
        "windsurf",
        ".codeium/windsurf/hooks.json",
        "{\r\n    \"hooks\": {\r\n        \"post_write_code\": [\r\n            { \"command\": \"git add -N .\" }\r\n        ]\r\n    },\r\n    // kept\r\n    \"other\": true\r\n}\r\n",
        "{\r\n    \"hooks\": {\r\n        \"post_write_code\": [\r\n            { \"command\": \"git add -N .\" }\r\n        ],\r\n        \"pre_run_command\": [\r\n            {\r\n                \"command\": \"CMD\",\r\n                \"show_output\": true\r\n            }\r\n        ]\r\n    },\r\n    // kept\r\n    \"other\": true\r\n}\r\n",
    ),
];

/// toolgate's command for `client` with `--mode balanced`, as the binary
/// under test writes it, as a JSON string.
fn command_json(client: &str) -> String {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_toolgate"));
    let spec = toolgate::install::HookSpec {
        binary: exe.canonicalize().unwrap_or(exe),
        mode: Some("balanced".into()),
        profile: None,
    };
    let client =
        toolgate::install::client(client).unwrap_or_else(|| panic!("{client}: not a client"));
    serde_json::Value::String(spec.command(client)).to_string()
}

/// What `--dry-run` prints for a change of `rel` from `old` to `new`.
fn dry_run_diff(home: &Home, rel: &str, old: &str, new: &str) -> String {
    let name = home.path(rel).display().to_string();
    format!(
        "--- {name}\n+++ {name}\n{}",
        toolgate::install::diff(old, new)
    )
}

/// Install keeps every byte it did not write, exactly; installing again
/// changes nothing; doctor reads the files; uninstall gives back the
/// original bytes; the dry runs show those very changes.
#[test]
fn jsonc_settings_keep_everything_toolgate_did_not_write() {
    let home = Home::new("install", "jsonc");
    let mut installed = Vec::new();
    for &(client, rel, before, after) in JSONC {
        let after = after.replace("\"CMD\"", &command_json(client));
        home.write(rel, before);
        let install = ["install", client, "--mode", "balanced"];
        let out = home.ok(&[&install[..], &["--dry-run"][..]].concat());
        assert_eq!(out, dry_run_diff(&home, rel, before, &after), "{client}");
        assert_eq!(home.read(rel), before, "{client}: a dry run writes nothing");

        home.ok(&install);
        assert_eq!(home.read(rel), after, "{client}: install");
        assert_eq!(home.read(&format!("{rel}.toolgate-backup")), before);
        let out = home.ok(&install);
        assert!(out.contains("already as it should be"), "{client}: {out}");
        assert_eq!(home.read(rel), after, "{client}: installing twice");
        let out = home.ok(&[&install[..], &["--dry-run"][..]].concat());
        assert!(out.contains("nothing to change"), "{client}: {out}");
        installed.push((client, rel, before, after));
    }

    let report = home.ok(&["doctor"]);
    assert_eq!(report.matches("  live").count(), JSONC.len(), "{report}");
    for &(client, ..) in JSONC {
        assert!(
            report.contains(&format!(" hook --protocol {client} --mode balanced")),
            "{client}: {report}"
        );
    }

    for (client, rel, before, after) in installed {
        let out = home.ok(&["uninstall", client, "--dry-run"]);
        assert_eq!(out, dry_run_diff(&home, rel, &after, before), "{client}");
        assert_eq!(home.read(rel), after);
        home.ok(&["uninstall", client]);
        assert_eq!(home.read(rel), before, "{client}: uninstall");
    }
}

/// Uninstall's one departure from "the original bytes": a list (or
/// `hooks`) that toolgate's removal leaves empty goes, as it always has,
/// even when it was there, empty, before toolgate's entry came; with a
/// comment in it, it is someone's, and stays.
#[test]
fn an_emptied_list_goes_unless_it_holds_a_comment() {
    let home = Home::new("install", "emptied");
    let rel = ".claude/settings.json";
    let before = "{\n  \"hooks\": {\n    \"PreToolUse\": [],\n    \"Stop\": []\n  }\n}\n";
    let cmd = command_json("claude");
    home.write(rel, before);
    home.ok(&["install", "claude", "--mode", "balanced"]);
    assert_eq!(
        home.read(rel),
        format!(
            "{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {{\n        \"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": {cmd},\n            \"timeout\": 30\n          }}\n        ]\n      }}\n    ],\n    \"Stop\": []\n  }}\n}}\n"
        )
    );
    home.ok(&["uninstall", "claude"]);
    assert_eq!(
        home.read(rel),
        "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n"
    );

    let before =
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      // toolgate goes here\n    ]\n  }\n}\n";
    home.write(rel, before);
    home.ok(&["install", "claude", "--mode", "balanced"]);
    let text = home.read(rel);
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      // toolgate goes here\n      {\n        \"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\","),
        "{text}"
    );
    home.ok(&["uninstall", "claude"]);
    assert_eq!(home.read(rel), before);

    // A file of only toolgate's hook and a comment is kept, comment and
    // all: only a file with nothing of anyone else's is removed.
    let before = "// mine\n{}\n";
    home.write(rel, before);
    home.ok(&["install", "claude"]);
    home.ok(&["uninstall", "claude"]);
    assert_eq!(home.read(rel), before);
}

/// Issue 34: `install CLIENT` with no mode or profile installs the guard
/// mode and says what it does in that client; a config file that names a
/// mode keeps the hook on it.
#[test]
fn the_default_install_is_the_guard_mode() {
    let home = Home::new("install", "guard-default");
    let out = home.ok(&["install", "claude"]);
    let text = home.read(".claude/settings.json");
    assert!(
        text.contains(" hook --protocol claude --mode guard\""),
        "{text}"
    );
    assert!(
        text.contains("\"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\""),
        "{text}"
    );
    assert!(
        out.contains(
            "Claude Code under mode guard: safe → runs; destructive → Claude Code asks you; \
             unknown → left to Claude Code's own permissions\n"
        ),
        "{out}"
    );
    // Cline has no permission flow of its own that stops an unknown
    // command under auto-approve: install says so, and the stricter choice.
    let out = home.ok(&["install", "cline"]);
    assert!(
        out.contains(
            "Cline under mode guard: safe → runs; destructive → blocked; unknown → runs\n"
        ) || out.contains("unknown → left to Cline's own permissions"),
        "{out}"
    );
    assert!(out.contains("with auto-approve on"), "{out}");
    assert!(out.contains("--mode balanced"), "{out}");
    let out = home.ok(&["install", "opencode"]);
    assert!(out.contains("`permission.bash`"), "{out}");
    // A mode in the config file is the hook's: no --mode is written.
    let home = Home::new("install", "guard-config");
    home.write(".config/toolgate/config.toml", "mode = \"strict\"\n");
    let out = home.ok(&["install", "gemini"]);
    let text = home.read(".gemini/settings.json");
    assert!(text.contains(" hook --protocol gemini\""), "{text}");
    assert!(out.contains("under the mode or profile of "), "{out}");
}

/// `doctor` finds a hook with no mode (the legacy row), says what
/// installing again would change, and prints each hook's row.
#[test]
fn doctor_finds_legacy_installs_and_prints_the_row() {
    let home = Home::new("install", "legacy");
    let bin = env!("CARGO_BIN_EXE_toolgate");
    home.write(
        ".claude/settings.json",
        &format!(
            "{{\"hooks\": {{\"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{bin} hook --protocol claude\"}}]}}]}}}}\n"
        ),
    );
    let report = home.ok(&["doctor"]);
    assert!(
        report.contains(
            "    row: safe → Claude Code asks you; destructive → Claude Code asks you; unknown → Claude Code asks you\n"
        ),
        "{report}"
    );
    assert!(
        report.contains("    legacy: this hook has no mode"),
        "{report}"
    );
    assert!(
        report.contains(
            "`toolgate install claude` again would install mode guard: safe: Claude Code asks you → runs; \
             unknown: Claude Code asks you → left to Claude Code's own permissions\n"
        ),
        "{report}"
    );
    // Reinstalled: the guard row, no legacy note, the file tools routed.
    home.ok(&["install", "claude"]);
    let report = home.ok(&["doctor"]);
    assert!(!report.contains("legacy:"), "{report}");
    assert!(
        report.contains(
            "    row: safe → runs; destructive → Claude Code asks you; unknown → left to Claude Code's own permissions\n"
        ),
        "{report}"
    );
    assert!(
        home.read(".claude/settings.json")
            .contains("\"matcher\": \"Bash|Read|Grep|Glob|Edit|Write|MultiEdit|NotebookEdit\""),
        "{}",
        home.read(".claude/settings.json")
    );
}

/// A profile that lets destructive calls run unasked is named with its
/// categories and needs `--yes`.
#[test]
fn a_risky_profile_needs_yes() {
    let home = Home::new("install", "risky");
    let out = home.run(&["install", "claude", "--profile", "auto"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.starts_with("auto lets these destructive categories run with nobody asked:\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  fs-delete (high"), "{stdout}");
    assert!(
        stderr.contains("pass --yes to install it anyway"),
        "{stderr}"
    );
    assert!(!home.path(".claude/settings.json").exists());
    home.ok(&["install", "claude", "--profile", "auto", "--yes"]);
    assert!(home
        .read(".claude/settings.json")
        .contains("--profile auto"));
    // manual lets nothing run unasked: no --yes needed.
    let home = Home::new("install", "manual");
    let out = home.ok(&["install", "claude", "--profile", "manual"]);
    assert!(!out.contains("nobody asked"), "{out}");
}

#[cfg(unix)]
fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(unix)]
fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// A private settings file's backup is as private; the owner is kept;
/// uninstall removes the backup once the file is restored.
#[cfg(unix)]
#[test]
fn backups_keep_mode_and_owner_and_uninstall_removes_them() {
    use std::os::unix::fs::MetadataExt;
    let home = Home::new("install", "backup-mode");
    let rel = ".claude/settings.json";
    home.write(rel, CLAUDE);
    set_mode(&home.path(rel), 0o600);
    // As root, give the file to someone else: install must not take it.
    let other = 4242;
    let owned = std::os::unix::fs::chown(home.path(rel), Some(other), Some(other)).is_ok();
    home.ok(&["install", "claude"]);
    let backup = home.path(&format!("{rel}.toolgate-backup"));
    assert_eq!(mode_of(&backup), 0o600);
    assert_eq!(mode_of(&home.path(rel)), 0o600);
    if owned {
        for p in [home.path(rel), backup.clone()] {
            let m = fs::metadata(&p).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((m.uid(), m.gid()), (other, other), "{}", p.display());
        }
    }
    let out = home.ok(&["uninstall", "claude"]);
    assert!(!out.contains("previous file"), "{out}");
    assert!(!backup.exists(), "uninstall leaves no backup behind");
    assert_eq!(home.read(rel), CLAUDE);
    assert_eq!(mode_of(&home.path(rel)), 0o600);
}

/// A symlinked settings file is edited where it points; the link stays.
#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_is_edited_at_its_target() {
    let home = Home::new("install", "symlink");
    home.write("dotfiles/claude.json", CLAUDE);
    fs::create_dir_all(home.path(".claude")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(
        home.path("dotfiles/claude.json"),
        home.path(".claude/settings.json"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    home.ok(&["install", "claude"]);
    let link =
        fs::symlink_metadata(home.path(".claude/settings.json")).unwrap_or_else(|e| panic!("{e}"));
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert!(home.read("dotfiles/claude.json").contains("--mode guard"));
    home.ok(&["uninstall", "claude"]);
    assert!(fs::symlink_metadata(home.path(".claude/settings.json"))
        .is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(home.read("dotfiles/claude.json"), CLAUDE);
}

/// A read-only settings file is refused with the reason, untouched.
#[cfg(unix)]
#[test]
fn a_read_only_settings_file_is_refused() {
    let home = Home::new("install", "read-only");
    let rel = ".claude/settings.json";
    home.write(rel, CLAUDE);
    set_mode(&home.path(rel), 0o444);
    let out = home.run(&["install", "claude"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: is read-only (mode 0444): toolgate does not override that; make it writable (`chmod u+w`) and run again",
            home.path(rel).display()
        )),
        "{err}"
    );
    assert_eq!(home.read(rel), CLAUDE);
    assert!(!home.path(&format!("{rel}.toolgate-backup")).exists());
}

/// `toolgate allow|ask|deny` write the rule where it takes effect, check
/// it first, and refuse a project allow.
#[test]
fn rules_are_written_checked_and_placed() {
    let home = Home::new("install", "rules");
    let out = home.ok(&["allow", "shell:cmd=npm test"]);
    let config = home.path(".config/toolgate/config.toml");
    assert!(
        out.starts_with(&format!(
            "{}: added `shell:cmd=npm test` to [rules] allow\n",
            config.display()
        )),
        "{out}"
    );
    assert_eq!(
        home.read(".config/toolgate/config.toml"),
        "[rules]\nallow = [\"shell:cmd=npm test\"]\n"
    );
    let out = home.ok(&["allow", "shell:cmd=npm test"]);
    assert!(out.contains("already has `shell:cmd=npm test`"), "{out}");
    // A `|` inside quotes is one command; deny takes a list, any part of
    // which it matches.
    home.ok(&["allow", "shell:cmd=grep 'a|b' *"]);
    home.ok(&["deny", "shell:cmd=make && make install"]);
    for (args, message) in [
        (
            &["allow", "Bash(git push)"][..],
            "toolgate: permission rule `Bash(git push)`: this is Claude Code's permission syntax, which toolgate does not read: write `shell:cmd=git push`\n",
        ),
        (
            &["ask", "git push*"][..],
            "toolgate: permission rule `git push*`: a bare command is not a rule: write `shell:cmd=git push*` (a shell command), or a tool name alone\n",
        ),
        (
            &["deny", "shell:cmnd=rm *"][..],
            "toolgate: permission rule `shell:cmnd=rm *`: unknown key `cmnd` for the shell tool: write `shell:cmd=rm *`\n",
        ),
        (
            &["allow", "shell:cmd=cat a.txt && git status"][..],
            "toolgate: `shell:cmd=cat a.txt && git status` names a list or pipeline (`&&`, `||`, `;`, `|`), \
             and an allow rule covers one plain command, so it would never match. Each part is judged \
             on its own: allow the parts themselves (`toolgate allow 'shell:cmd=cat a.txt'`, \
             `toolgate allow 'shell:cmd=git status'`), and let a list whose every part is safe through \
             with `compound = \"every-part-safe\"` in your config\n",
        ),
        (
            &["allow", "Bash"][..],
            "toolgate: `Bash` would allow every shell command, destructive ones too: name the command, e.g. `shell:cmd=npm test`\n",
        ),
    ] {
        let out = home.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), message, "{args:?}");
    }
    // A project can only tighten.
    let project = home.path("proj");
    fs::create_dir_all(project.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    let dir = format!("--project={}", project.display());
    let out = home.run(&["allow", &dir, "shell:cmd=make"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a project's allow rules have no effect"));
    home.ok(&["deny", &dir, "shell:cmd=terraform apply*"]);
    assert_eq!(
        home.read("proj/.toolgate.toml"),
        "[rules]\ndeny = [\"shell:cmd=terraform apply*\"]\n"
    );
}

/// `--project` takes its directory only after `=`: alone it means the
/// project the command runs in, so the rule written after it (as in the
/// README) stays the rule, for `deny` and `ask` alike; `install
/// --project DIR` keeps its separate value.
#[test]
fn project_alone_means_the_current_project() {
    let home = Home::new("install", "rules-project-here");
    let project = home.path("proj");
    fs::create_dir_all(project.join(".git/x")).unwrap_or_else(|e| panic!("{e}"));
    let in_project = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(args)
            .current_dir(project.join(".git/x"))
            .env("HOME", home.path(""))
            .env("XDG_CONFIG_HOME", home.path(".config"))
            .env_remove("TOOLGATE_CONFIG")
            .output()
            .unwrap_or_else(|e| panic!("running toolgate: {e}"))
    };
    for args in [
        &["deny", "--project", "shell:cmd=terraform apply*"][..],
        &["ask", "--project", "--dry-run", "shell:cmd=git push*"][..],
        &["ask", "--project", "shell:cmd=git push*"][..],
    ] {
        let out = in_project(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        home.read("proj/.toolgate.toml"),
        "[rules]\ndeny = [\"shell:cmd=terraform apply*\"]\nask = [\"shell:cmd=git push*\"]\n"
    );
    assert!(!home.path(".config/toolgate/config.toml").exists());
    // With `=`, DIR names another project; without it a directory is
    // taken for the rule, and the rule after it for an extra argument.
    let other = home.path("other");
    fs::create_dir_all(&other).unwrap_or_else(|e| panic!("{e}"));
    home.ok(&[
        "deny",
        &format!("--project={}", other.display()),
        "shell:cmd=rm *",
    ]);
    assert_eq!(
        home.read("other/.toolgate.toml"),
        "[rules]\ndeny = [\"shell:cmd=rm *\"]\n"
    );
    let out = home.run(&[
        "deny",
        "--project",
        &other.display().to_string(),
        "shell:cmd=rm *",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let missing = home.path("missing");
    let out = home.run(&[
        "deny",
        &format!("--project={}", missing.display()),
        "shell:cmd=rm *",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "toolgate: --project={}: not a directory: give a directory inside the project\n",
            missing.display()
        )
    );
    // install's --project still takes the next word as its directory.
    home.ok(&[
        "install",
        "claude",
        "--project",
        &project.display().to_string(),
    ]);
    assert!(home
        .read("proj/.claude/settings.json")
        .contains("--mode guard"));
}

/// Run inside a project, `doctor` checks its settings without
/// `--project`, and a valid strict `.toolgate.toml` there is what the
/// hook must obey, not a fault.
#[test]
fn doctor_finds_the_project_it_runs_in_and_obeys_its_policy() {
    let home = Home::new("install", "doctor-project");
    let project = home.path("work/app");
    fs::create_dir_all(project.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    let dir = project.display().to_string();
    home.ok(&["install", "claude", "--project", &dir]);
    home.write("work/app/.toolgate.toml", "mode = \"strict\"\n");
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("doctor")
        .current_dir(project.join(".git"))
        .env("HOME", home.path(""))
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env_remove("TOOLGATE_MODE")
        .env_remove("TOOLGATE_CONFIG")
        .env_remove("TOOLGATE_HEADLESS")
        .env_remove("TOOLGATE_PROFILE")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(
        report.contains(&format!(
            "claude   project {}/.claude/settings.json  live",
            project.display()
        )),
        "{report}"
    );
    // The project's strict mode asks for the safe canary too.
    assert!(
        report.contains(
            "    row: safe → Claude Code asks you; destructive → Claude Code asks you; unknown → Claude Code asks you\n"
        ),
        "{report}"
    );
    assert!(report.contains("ok (it can only tighten)"), "{report}");
}

/// Issue 34: Gemini CLI's, Qwen Code's and Codex's install routes their
/// file tools to the hook (an anchored matcher, so that no other tool
/// whose name holds one is sent); an older install's shell-only matcher
/// grows on reinstall when the group is toolgate's alone, while a group
/// the user shares with toolgate keeps the user's matcher, and the user's
/// own hooks stay exactly as they were.
#[test]
fn file_tools_are_routed_and_user_hooks_kept() {
    let home = Home::new("install", "file-tools");
    let bin = env!("CARGO_BIN_EXE_toolgate");
    use serde_json::json;
    let gemini = "^(run_shell_command|read_file|read_many_files|glob|grep_search|\
                  search_file_content|list_directory|write_file|replace)$";
    let qwen = "^(run_shell_command|read_file|glob|grep_search|list_directory|write_file|edit)$";
    for (client, rel, event, matcher) in [
        ("gemini", ".gemini/settings.json", "BeforeTool", gemini),
        ("qwen", ".qwen/settings.json", "PreToolUse", qwen),
    ] {
        // An older install (shell only) beside a hook of the user's.
        let user = json!({"matcher": "write_file|edit", "hooks": [
            {"type": "command", "command": "prettier --check", "timeout": 5000}]});
        let old = json!({"theme": "dark", "hooks": {event: [
            user.clone(),
            {"matcher": "run_shell_command", "hooks": [
                {"type": "command", "command": format!("{bin} hook --protocol {client}")}]},
        ]}});
        home.write(rel, &format!("{old:#}\n"));
        home.ok(&["install", client]);
        let v: serde_json::Value =
            serde_json::from_str(&home.read(rel)).unwrap_or_else(|e| panic!("{client}: {e}"));
        let list = v["hooks"][event].as_array().cloned().unwrap_or_default();
        assert_eq!(list.len(), 2, "{client}: {v:#}");
        assert_eq!(list[0], user, "{client}: the user's hook");
        assert_eq!(list[1]["matcher"], json!(matcher), "{client}: {v:#}");
        assert_eq!(v["theme"], json!("dark"), "{client}");
        let command = list[1]["hooks"][0]["command"].as_str().unwrap_or_default();
        assert!(
            command.ends_with(&format!(" hook --protocol {client} --mode guard")),
            "{client}: {command}"
        );
        // A group shared with a hook of the user's keeps its matcher.
        let shared = json!({"hooks": {event: [
            {"matcher": "run_shell_command", "hooks": [
                {"type": "command", "command": "audit.sh"},
                {"type": "command", "command": format!("{bin} hook --protocol {client}")}]},
        ]}});
        home.write(rel, &format!("{shared:#}\n"));
        home.ok(&["install", client]);
        let v: serde_json::Value =
            serde_json::from_str(&home.read(rel)).unwrap_or_else(|e| panic!("{client}: {e}"));
        assert_eq!(
            v["hooks"][event][0]["matcher"],
            json!("run_shell_command"),
            "{client}: {v:#}"
        );
        assert_eq!(
            v["hooks"][event][0]["hooks"][0]["command"],
            json!("audit.sh"),
            "{client}"
        );
    }

    // Codex: `Bash` grows to `apply_patch`; the user's own group with its
    // comment stays byte for byte.
    let user = "# my patch checker\n[[hooks.PreToolUse]]\nmatcher = \"apply_patch\"\n\n\
                [[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"my-checker\"\n";
    home.write(
        ".codex/config.toml",
        &format!(
            "{user}\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\n\
             type = \"command\"\ncommand = \"{bin} hook --protocol codex\"\ntimeout = 30\n"
        ),
    );
    home.ok(&["install", "codex"]);
    let text = home.read(".codex/config.toml");
    assert!(text.starts_with(user), "{text}");
    assert_eq!(text.matches("matcher = ").count(), 2, "{text}");
    assert!(
        text.contains("\n[[hooks.PreToolUse]]\nmatcher = \"^(Bash|apply_patch)$\"\n"),
        "{text}"
    );
    assert!(
        text.contains(" hook --protocol codex --mode guard\""),
        "{text}"
    );
    // A fresh Codex file gets the matcher too.
    let fresh = Home::new("install", "file-tools-fresh");
    fresh.ok(&["install", "codex"]);
    let text = fresh.read(".codex/config.toml");
    assert!(
        text.starts_with("[[hooks.PreToolUse]]\nmatcher = \"^(Bash|apply_patch)$\"\n"),
        "{text}"
    );
}
