//! `toolgate scan` over the files CI lives in: kinds recognised without
//! flags, records with file, line and column, SARIF and annotations, the
//! `--fail-on` report, `--git-diff`.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::util;

fn toolgate(args: &[&str], stdin: Option<&str>) -> Output {
    util::run(args, stdin.unwrap_or_default().as_bytes(), &[])
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-ci-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn write(dir: &Path, rel: &str, text: &str) -> String {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path.display().to_string()
}

/// (file name, line, column, safety label, command) of each record.
fn records(out: &str) -> Vec<(String, u64, u64, String, String)> {
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
            let file = v["file"].as_str().unwrap_or_default();
            let name = Path::new(file)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            (
                name.to_string(),
                v["line"].as_u64().unwrap_or_default(),
                v["column"].as_u64().unwrap_or_default(),
                v["safety_label"].as_str().unwrap_or_default().to_string(),
                v["command"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

const SCRIPT: &str = "#!/usr/bin/env bash\n# rm -rf / is never run\nset -euo pipefail\ncat <<'EOF'\nrm -rf / is what we never do\nEOF\nrm -rf build \\\n  dist\n";

const WORKFLOW: &str = "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Greet\n        run: echo '${{ github.event.head_commit.message }}'\n      - run: |\n          git status\n          git reset --hard\n";

#[test]
fn kinds_are_recognised_without_flags_and_records_say_where() {
    let dir = scratch("kinds");
    let script = write(&dir, "deploy", SCRIPT);
    let workflow = write(&dir, ".github/workflows/ci.yml", WORKFLOW);
    let dockerfile = write(
        &dir,
        "Dockerfile",
        "FROM debian\nRUN apt-get update \\\n && rm -rf /var/lib/apt/lists/*\n",
    );
    let lines = write(&dir, "commands.txt", "ls\n  git status\n");
    let o = toolgate(
        &[
            "scan",
            "--format",
            "jsonl",
            &script,
            &workflow,
            &dockerfile,
            &lines,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = |f: &str, l: u64, c: u64, s: &str, cmd: &str| {
        (f.to_string(), l, c, s.to_string(), cmd.to_string())
    };
    assert_eq!(
        records(&stdout(&o)),
        [
            r("deploy", 3, 1, "unknown", "set -euo pipefail"),
            // The here-document's text is the data of `cat`.
            r(
                "deploy",
                4,
                1,
                "safe",
                "cat <<'EOF'\nrm -rf / is what we never do\nEOF\n"
            ),
            r("deploy", 7, 1, "destructive", "rm -rf build \\\n  dist"),
            r(
                "ci.yml",
                7,
                14,
                "unknown",
                "echo '${{ github.event.head_commit.message }}'"
            ),
            r("ci.yml", 9, 11, "safe", "git status"),
            r("ci.yml", 10, 11, "destructive", "git reset --hard"),
            r("Dockerfile", 2, 5, "unknown", "apt-get update"),
            r(
                "Dockerfile",
                3,
                5,
                "destructive",
                "rm -rf /var/lib/apt/lists/*"
            ),
            r("commands.txt", 1, 1, "safe", "ls"),
            r("commands.txt", 2, 3, "safe", "  git status"),
        ]
    );
    // The workflow's records name their job and step.
    let out = stdout(&o);
    let greet = out.lines().nth(3).unwrap_or_default();
    assert!(
        greet.contains("\"job\":\"build\"") && greet.contains("\"step\":\"Greet\""),
        "{greet}"
    );
    // Unknown only for the expression: the same echo, literal, is safe.
    let o = toolgate(&["classify", "echo 'Hello'"], None);
    assert!(
        stdout(&o).contains("\"safety_label\":\"safe\""),
        "{}",
        stdout(&o)
    );
    // `--input` forces a kind: the script as plain lines counts its
    // comment and here-document text as commands.
    let o = toolgate(
        &["scan", "--format", "jsonl", "--input", "lines", &script],
        None,
    );
    assert_eq!(records(&stdout(&o)).len(), 8);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fail_on_reports_file_line_and_column_on_stderr() {
    let dir = scratch("failon");
    let workflow = write(&dir, ".github/workflows/ci.yml", WORKFLOW);
    let o = toolgate(
        &[
            "scan",
            "--format",
            "summary",
            "--fail-on",
            "destructive",
            &workflow,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "toolgate scan: --fail-on destructive: 1 command failed\n  \
             {workflow}:10:11: destructive (high, git-discard): {}: git reset --hard\n",
            "git reset --hard discards uncommitted changes for good"
        )
    );
    // Nothing destructive: status 0, nothing on stderr.
    let clean = write(&dir, "ok.sh", "ls\ngit status\n");
    let o = toolgate(
        &[
            "scan",
            "--format",
            "jsonl",
            "--fail-on",
            "destructive",
            &clean,
        ],
        None,
    );
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    // A script that cannot be read to its end fails, where it stops.
    let broken = write(&dir, "broken.sh", "ls\necho 'open\n");
    let o = toolgate(
        &[
            "scan",
            "--format",
            "jsonl",
            "--fail-on",
            "destructive",
            &broken,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("{broken}:2:")),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn github_annotations_and_sarif() {
    let dir = scratch("formats");
    let workflow = write(&dir, ".github/workflows/ci.yml", WORKFLOW);
    let o = toolgate(&["scan", "--format", "github", &workflow], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!(
            "::error file={workflow},line=10,col=11,title=toolgate%3A git-discard::\
             destructive (high, git-discard): git reset --hard discards uncommitted changes for good: git reset --hard\n"
        )
    );
    let o = toolgate(
        &[
            "scan",
            "--format",
            "sarif",
            "--fail-on",
            "unknown",
            &workflow,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rules: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(rules, ["unknown", "git-discard"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn git_diff_scans_only_changed_files_of_known_kinds() {
    let dir = scratch("gitdiff");
    let git = |args: &[&str]| {
        let o = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output();
        o.is_ok_and(|o| o.status.success())
    };
    if !git(&["init", "-q"]) {
        eprintln!("no git here: skipped");
        return;
    }
    write(&dir, "old.sh", "rm -rf /tmp/old\n");
    write(&dir, "notes.txt", "rm -rf /\n");
    assert!(git(&["add", "."]) && git(&["commit", "-qm", "base"]));
    write(&dir, "new.sh", "rm -rf /tmp/new\n");
    write(&dir, "notes.txt", "rm -rf / changed\n");
    write(&dir, "Makefile", "clean:\n\trm -rf out\n");
    assert!(git(&["add", "."]));
    let mut cmd = util::isolated(env!("CARGO_BIN_EXE_toolgate"));
    let o = cmd
        .args(["scan", "--format", "jsonl", "--git-diff", "HEAD"])
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let files: Vec<(String, u64, u64)> = records(&stdout(&o))
        .into_iter()
        .map(|(f, l, c, _, _)| (f, l, c))
        .collect();
    assert_eq!(
        files,
        [("Makefile".to_string(), 2, 2), ("new.sh".to_string(), 1, 1)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn agent_transcripts_are_read_with_their_cwd() {
    let dir = scratch("transcripts");
    let claude = write(
        &dir,
        "session.jsonl",
        "{\"type\":\"assistant\",\"cwd\":\"/home/u/app\",\"sessionId\":\"s\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Bash\",\"input\":{\"command\":\"cat src/main.rs\"}}]}}\n",
    );
    let o = toolgate(&["scan", "--format", "jsonl", &claude], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap_or_default();
    assert_eq!(v["cwd"], "/home/u/app");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(v["safety_label"], "safe");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lines_column_counts_characters_not_bytes() {
    // U+00A0 and U+3000 are blanks of two and three bytes.
    let o = toolgate(
        &["scan", "--format", "jsonl", "-"],
        Some("\u{a0}\u{3000}ls\n\tgit status\nrm -rf build\n"),
    );
    let got: Vec<(u64, u64, String)> = records(&stdout(&o))
        .into_iter()
        .map(|(_, line, column, _, command)| (line, column, command))
        .collect();
    assert_eq!(
        got,
        [
            (1, 3, "\u{a0}\u{3000}ls".to_string()),
            (2, 2, "\tgit status".to_string()),
            (3, 1, "rm -rf build".to_string()),
        ]
    );
}
