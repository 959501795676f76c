//! Issue 34: `toolgate doctor`, client by client: the effective row of
//! each installed hook, a legacy install (a hook with no mode) reported
//! with what installing again would change, and a strict `.toolgate.toml`
//! in the project obeyed rather than called WRONG.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util;

/// A temporary `$HOME` with a project in it.
struct Home(util::Home);

impl Home {
    fn new(name: &str) -> Home {
        let home = util::Home::new("doctor", name);
        let git = home.path("work/app/.git");
        fs::create_dir_all(&git).unwrap_or_else(|e| panic!("{}: {e}", git.display()));
        Home(home)
    }

    fn path(&self) -> &Path {
        self.0.root()
    }

    fn project(&self) -> PathBuf {
        self.0.path("work/app")
    }

    /// `toolgate ARGS` with this home, run from `/`.
    fn run(&self, args: &[&str]) -> Output {
        let mut cmd = self.0.command(args);
        cmd.current_dir("/");
        util::output_of(args, cmd)
    }

    /// Its stdout, which must be a success.
    fn ok(&self, args: &[&str]) -> String {
        util::stdout_of_success(args, self.run(args))
    }

    /// Every file under the home that holds `needle`.
    fn files_with(&self, needle: &str) -> Vec<PathBuf> {
        fn walk(dir: &Path, needle: &str, out: &mut Vec<PathBuf>) {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, needle, out);
                } else if fs::read_to_string(&p).is_ok_and(|t| t.contains(needle))
                    && !p.to_string_lossy().ends_with(".toolgate-backup")
                {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        walk(self.path(), needle, &mut out);
        out
    }
}

/// Per client: where its user settings live (under the home), and what it
/// does with the answer of each canary column under the guard mode, under
/// the legacy row (no mode), and under strict (the project's policy).
struct Expect {
    client: &'static str,
    file: &'static str,
    guard: [&'static str; 3],
    legacy: [&'static str; 3],
    strict: [&'static str; 3],
    /// `toolgate install CLIENT` again, over a legacy hook.
    reinstall: &'static str,
}

const ASKS: &str = "asks";
const RUNS: &str = "runs";
const BLOCKED: &str = "blocked";
const LEFT: &str = "left";

#[rustfmt::skip]
const EXPECT: &[Expect] = &[
    Expect { client: "claude", file: ".claude/settings.json",
             guard: [RUNS, ASKS, LEFT], legacy: [ASKS, ASKS, ASKS], strict: [ASKS, ASKS, ASKS],
             reinstall: "safe: Claude Code asks you → runs; unknown: Claude Code asks you → left to Claude Code's own permissions" },
    Expect { client: "codex", file: ".codex/config.toml",
             guard: [RUNS, BLOCKED, LEFT], legacy: [BLOCKED, BLOCKED, BLOCKED], strict: [BLOCKED, BLOCKED, BLOCKED],
             reinstall: "safe: blocked → runs; unknown: blocked → left to Codex CLI's own permissions" },
    Expect { client: "gemini", file: ".gemini/settings.json",
             guard: [RUNS, ASKS, LEFT], legacy: [ASKS, ASKS, ASKS], strict: [ASKS, ASKS, ASKS],
             reinstall: "safe: Gemini CLI asks you → runs; unknown: Gemini CLI asks you → left to Gemini CLI's own permissions" },
    Expect { client: "copilot", file: ".copilot/hooks/toolgate.json",
             guard: [RUNS, ASKS, LEFT], legacy: [ASKS, ASKS, ASKS], strict: [ASKS, ASKS, ASKS],
             reinstall: "safe: GitHub Copilot CLI asks you → runs; unknown: GitHub Copilot CLI asks you → left to GitHub Copilot CLI's own permissions" },
    Expect { client: "qwen", file: ".qwen/settings.json",
             guard: [RUNS, ASKS, LEFT], legacy: [ASKS, ASKS, ASKS], strict: [ASKS, ASKS, ASKS],
             reinstall: "safe: Qwen Code asks you → runs; unknown: Qwen Code asks you → left to Qwen Code's own permissions" },
    Expect { client: "cline", file: ".cline/hooks/PreToolUse",
             guard: [RUNS, BLOCKED, RUNS], legacy: [BLOCKED, BLOCKED, BLOCKED], strict: [BLOCKED, BLOCKED, BLOCKED],
             reinstall: "safe: blocked → runs; unknown: blocked → runs" },
    Expect { client: "opencode", file: ".config/opencode/plugins/toolgate.js",
             guard: [RUNS, BLOCKED, LEFT], legacy: [BLOCKED, BLOCKED, BLOCKED], strict: [BLOCKED, BLOCKED, BLOCKED],
             reinstall: "safe: blocked → runs; unknown: blocked → left to OpenCode's own permissions" },
    Expect { client: "cursor", file: ".cursor/hooks.json",
             guard: [RUNS, BLOCKED, BLOCKED], legacy: [BLOCKED, BLOCKED, BLOCKED], strict: [BLOCKED, BLOCKED, BLOCKED],
             reinstall: "safe: blocked → runs" },
    Expect { client: "windsurf", file: ".codeium/windsurf/hooks.json",
             guard: [RUNS, BLOCKED, BLOCKED], legacy: [BLOCKED, BLOCKED, BLOCKED], strict: [BLOCKED, BLOCKED, BLOCKED],
             reinstall: "safe: blocked → runs" },
];

/// The client's title, as doctor names it.
fn title(client: &str) -> &'static str {
    toolgate::install::client(client)
        .map(|c| c.title())
        .unwrap_or_else(|| panic!("{client}: not a client"))
}

/// The `row:` line for outcomes [safe, destructive, unknown].
fn row_line(client: &str, row: [&str; 3]) -> String {
    let word = |o: &str| match o {
        ASKS => format!("{} asks you", title(client)),
        LEFT => format!("left to {}'s own permissions", title(client)),
        other => other.to_string(),
    };
    format!(
        "    row: safe → {}; destructive → {}; unknown → {}\n",
        word(row[0]),
        word(row[1]),
        word(row[2])
    )
}

/// The canary lines for outcomes [safe, destructive, unknown], each `ok`.
fn canary_lines(row: [&str; 3]) -> String {
    fn shown(o: &str) -> &str {
        match o {
            LEFT => "no decision the client reads",
            other => other,
        }
    }
    format!(
        "    {:<12}{:<32}ok\n    {:<12}{:<32}ok\n    {:<12}{:<32}ok\n",
        "rm -rf ~",
        shown(row[1]),
        "git status",
        shown(row[0]),
        "npm test",
        shown(row[2])
    )
}

/// The report's block for the one client: its header line and what
/// follows up to the next header.
fn block<'a>(report: &'a str, client: &str, scope: &str) -> &'a str {
    let head = format!("{client:<9}{scope:<8}");
    let start = report
        .find(&head)
        .unwrap_or_else(|| panic!("{client}: no {scope} line in\n{report}"));
    let rest = &report[start..];
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| !rest[i..].starts_with(' '))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Installed with no mode (the guard default): the guard row, live, no
/// legacy note; each client's canaries exact.
#[test]
fn doctor_prints_each_clients_guard_row() {
    let bin = env!("CARGO_BIN_EXE_toolgate");
    for e in EXPECT {
        let home = Home::new(&format!("guard-{}", e.client));
        home.ok(&["install", e.client]);
        let report = home.ok(&["doctor"]);
        let got = block(&report, e.client, "user");
        let head = format!(
            "{:<9}{:<8}{}  live\n",
            e.client,
            "user",
            home.path().join(e.file).display()
        );
        let hook = format!(
            "    hook: {bin} hook --protocol {} --mode guard\n",
            e.client
        );
        let want = format!(
            "{head}{hook}{}{}",
            canary_lines(e.guard),
            row_line(e.client, e.guard)
        );
        assert!(
            got.starts_with(&want),
            "{}:\n{got}\nwant:\n{want}",
            e.client
        );
        assert!(!got.contains("legacy:"), "{}: {got}", e.client);
        assert!(!got.contains("WRONG"), "{}: {got}", e.client);
        assert!(
            report.ends_with("all installed hooks are live\n"),
            "{report}"
        );
    }
}

/// A hook with no mode anywhere (an install that predates the guard mode)
/// is the legacy row: doctor says so, in the client's own terms (a client
/// that cannot ask blocks), and what installing again would change; it is
/// still live (it answers as its row says). Installing again clears it.
#[test]
fn doctor_finds_each_clients_legacy_install() {
    for e in EXPECT {
        let home = Home::new(&format!("legacy-{}", e.client));
        home.ok(&["install", e.client]);
        let files = home.files_with(" --mode guard");
        assert_eq!(files.len(), 1, "{}: {files:?}", e.client);
        let text = fs::read_to_string(&files[0]).unwrap_or_else(|err| panic!("{err}"));
        fs::write(&files[0], text.replace(" --mode guard", ""))
            .unwrap_or_else(|err| panic!("{err}"));
        let report = home.ok(&["doctor"]);
        let got = block(&report, e.client, "user");
        let every = if e.legacy[0] == BLOCKED {
            format!("blocks every call ({} cannot ask)", title(e.client))
        } else {
            "asks for every call".to_string()
        };
        let want = format!(
            "{}{}    legacy: this hook has no mode, so it {every} and overrides {}'s own permission \
             rules\n    `toolgate install {}` again would install mode guard: {}\n",
            canary_lines(e.legacy),
            row_line(e.client, e.legacy),
            title(e.client),
            e.client,
            e.reinstall
        );
        assert!(got.ends_with(&want), "{}:\n{got}\nwant:\n{want}", e.client);
        assert!(got.contains("  live\n"), "{}: {got}", e.client);

        home.ok(&["install", e.client]);
        let report = home.ok(&["doctor"]);
        let got = block(&report, e.client, "user");
        assert!(!got.contains("legacy:"), "{}: {got}", e.client);
        assert!(
            got.contains(&row_line(e.client, e.guard)),
            "{}: {got}",
            e.client
        );
    }
}

/// A project's strict `.toolgate.toml` is what the project's hook must
/// obey: its canaries ask (or block) and are `ok`, never WRONG, the
/// policy is reported sound, and doctor is healthy.
#[test]
fn doctor_obeys_a_strict_project_policy_for_each_client() {
    for e in EXPECT {
        let home = Home::new(&format!("strict-{}", e.client));
        let project = home.project();
        let dir = project.display().to_string();
        home.ok(&["install", e.client, "--project", &dir]);
        fs::write(project.join(".toolgate.toml"), "mode = \"strict\"\n")
            .unwrap_or_else(|err| panic!("{err}"));
        let out = home.run(&["doctor", "--project", &dir]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {report}", e.client);
        let got = block(&report, e.client, "project");
        assert!(got.contains("  live\n"), "{}: {got}", e.client);
        assert!(
            got.contains(&format!(
                "{}{}",
                canary_lines(e.strict),
                row_line(e.client, e.strict)
            )),
            "{}: {got}",
            e.client
        );
        assert!(!report.contains("WRONG"), "{}: {report}", e.client);
        assert!(
            report.contains(&format!(
                "policy   {}/.toolgate.toml  ok (it can only tighten)\n",
                project.display()
            )),
            "{}: {report}",
            e.client
        );
    }
}
