//! The `toolgate` binary as a user runs it.

use std::process::Output;

use serde_json::Value;

use crate::util;

fn toolgate(args: &[&str], stdin: Option<&str>) -> Output {
    util::run(args, stdin.unwrap_or_default().as_bytes(), &[])
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn classify_json() {
    let o = toolgate(&["classify", "rm -rf /tmp/build"], None);
    assert!(o.status.success());
    // Below the temporary directory: low.
    assert_eq!(
        stdout(&o),
        "{\"blast_radius\":\"low\",\"category\":\"fs-delete\",\"origin\":\"classifier\",\
\"reason\":\"recursive delete: whole directory trees are removed with no undo\",\
\"safety_label\":\"destructive\"}\n"
    );
    let o = toolgate(&["classify", "npm", "run", "dev"], None);
    assert_eq!(
        stdout(&o),
        "{\"blast_radius\":\"unknown\",\"origin\":\"classifier\",\"safety_label\":\"unknown\"}\n"
    );
}

#[test]
fn classify_text_and_stdin() {
    let o = toolgate(
        &["classify", "--format", "text", "--", "git", "status"],
        None,
    );
    assert_eq!(
        stdout(&o),
        "safe (safe) git-read: shows the working tree status\n"
    );
    let o = toolgate(
        &["classify", "--format", "text", "-"],
        Some("bash <<EOF\ngit reset --hard\nEOF\n"),
    );
    assert_eq!(
        stdout(&o),
        "destructive (high) git-discard: git reset --hard discards uncommitted changes for good\n"
    );
}

#[test]
fn bad_taxonomy_names_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("toolgate-cli-tax-{}", std::process::id()));
    let rules = dir.join("rules");
    std::fs::create_dir_all(&rules).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("commands.toml"), "").unwrap_or_else(|e| panic!("{e}"));
    // An empty spec file: a taxonomy directory needs one to be one.
    std::fs::create_dir_all(dir.join("specs")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("specs/none.toml"), "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        rules.join("mine.toml"),
        "[[destructive]]\nid = \"x\"\ncategory = \"c\"\nblast_radius = \"huge\"\nreason = \"r\"\ncommand = [\"x\"]\nexamples = [\"x\"]\nnear_misses = [\"y\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = toolgate(
        &[
            "--taxonomy",
            dir.to_str().unwrap_or_default(),
            "classify",
            "x",
        ],
        None,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("rules/mine.toml:2: entry `x`: field `blast_radius`: `huge` is not one of"),
        "{err}"
    );
}

#[test]
fn scan_keeps_order_across_worker_tasks() {
    // Tasks of one line finish out of order all the time; tasks that do not
    // divide the input end mid-way.
    let input: String = (0..3000).map(|i| format!("ls dir{i}\n")).collect();
    let want: Vec<String> = (0..3000).map(|i| format!("ls dir{i}")).collect();
    // One thread alone; two, three and eight that each read, classify and
    // write tasks (eight on fewer cores, with one-line tasks, often fill the
    // tasks that may wait and must stop reading until they are written).
    for (chunk, threads) in [
        ("1", "2"),
        ("7", "2"),
        ("700", "2"),
        ("7", "1"),
        ("7", "3"),
        ("1", "8"),
    ] {
        let o = toolgate(
            &[
                "scan",
                "--format",
                "jsonl",
                "--chunk",
                chunk,
                "--threads",
                threads,
            ],
            Some(&input),
        );
        assert!(o.status.success());
        let got = stdout(&o);
        let commands: Vec<String> = got
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
                v["command"].as_str().unwrap_or("").to_string()
            })
            .collect();
        assert_eq!(commands, want, "--chunk {chunk} --threads {threads}");
    }
}

#[test]
fn scan_stops_cleanly_when_its_reader_goes_away() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    // Like `toolgate scan big.txt | head -1`: every thread must stop, those
    // waiting for room too, and a closed pipe is not an error.
    let input: String = (0..20_000).map(|i| format!("ls dir{i}\n")).collect();
    for threads in ["1", "2", "8"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args([
                "scan",
                "--format",
                "jsonl",
                "--chunk",
                "1",
                "--threads",
                threads,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawning toolgate: {e}"));
        let stdin = child.stdin.take();
        let feeder = std::thread::spawn({
            let input = input.clone();
            move || {
                if let Some(mut pipe) = stdin {
                    // The scan may stop reading before the end.
                    let _ = pipe.write_all(input.as_bytes());
                }
            }
        });
        // Time to fill the pipe, so that the thread writing is blocked and
        // the others have filled the tasks that may wait, and sleep.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let mut first = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut first);
        }
        assert!(first.contains("\"command\":\"ls dir0\""), "{first}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => {
                    let _ = child.kill();
                    panic!("--threads {threads}: the scan did not stop: {other:?}");
                }
            }
        };
        let _ = feeder.join();
        let mut err = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut err);
        }
        assert_eq!(status.code(), Some(0), "--threads {threads}: {err}");
        assert_eq!(err, "", "--threads {threads}");
    }
}

#[test]
fn scan_jsonl_keeps_input_order_and_reports_bad_lines() {
    let input = "git status\nrm -rf /tmp/x\n\nnpm run dev\n";
    let o = toolgate(&["scan", "--format", "jsonl", "--chunk", "1"], Some(input));
    assert!(o.status.success());
    let got = stdout(&o);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 3, "{got}");
    assert!(lines[0].starts_with(
        "{\"blast_radius\":\"safe\",\"category\":\"git-read\",\"column\":1,\"command\":\"git status\",\"line\":1,"
    ));
    assert!(
        lines[1].contains("\"command\":\"rm -rf /tmp/x\"")
            && lines[1].contains("\"safety_label\":\"destructive\"")
    );
    assert_eq!(
        lines[2],
        "{\"blast_radius\":\"unknown\",\"column\":1,\"command\":\"npm run dev\",\"line\":4,\"safety_label\":\"unknown\"}"
    );

    let bad = "{\"command\": \"ls\"}\nnot json\n{\"cmd\": \"x\"}\n{\"command\": \"rm -rf /\"}\n";
    let o = toolgate(
        &["scan", "--input", "jsonl", "--format", "jsonl"],
        Some(bad),
    );
    let got = stdout(&o);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 4, "{got}");
    assert!(
        lines[1].contains("\"line\":2") && lines[1].contains("invalid JSON"),
        "{}",
        lines[1]
    );
    assert!(lines[2].contains("\"line\":3") && lines[2].contains("no string `command` field"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 2: invalid JSON"), "{err}");
}

#[test]
fn scan_invalid_utf8_is_reported_and_never_safe() {
    let o = util::run(
        &["scan", "--format", "jsonl", "--fail-on", "destructive"],
        b"ls src\nls \xff\n",
        &[],
    );
    let got = stdout(&o);
    let lines: Vec<&str> = got.lines().collect();
    assert!(lines[0].contains("\"safety_label\":\"safe\""));
    assert!(lines[1].contains("\"safety_label\":\"unknown\"") && lines[1].contains("\"line\":2"));
    assert_eq!(o.status.code(), Some(1), "invalid UTF-8 trips --fail-on");
}

#[test]
fn scan_names_the_file_of_a_bad_line_and_keeps_what_came_before_a_failing_input() {
    let dir = std::env::temp_dir().join(format!("toolgate-scan-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&a, "ls\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&b, b"pwd\nls \xff\n").unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let o = toolgate(&["scan", "--format", "jsonl", &a, &b], None);
    assert_eq!(o.status.code(), Some(0));
    let got = stdout(&o);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 3, "{got}");
    // Line numbers count within each file.
    let want = format!(
        "\"error\":\"invalid UTF-8 (read lossily)\",\"file\":{},\"line\":2,",
        serde_json::Value::String(b.clone())
    );
    assert!(lines[2].contains(&want), "{}", lines[2]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        format!("toolgate scan: {b}:2: invalid UTF-8 (read lossily)\n")
    );

    // A directory cannot be read: what came before it is still written,
    // then the error names it.
    let d = dir.display().to_string();
    let o = toolgate(&["scan", "--format", "jsonl", &a, &d], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).starts_with(
        "{\"blast_radius\":\"safe\",\"category\":\"fs-read\",\"column\":1,\"command\":\"ls\""
    ));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!("toolgate: reading {d}: ")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_fail_on_and_summary() {
    let o = toolgate(
        &["scan", "--fail-on", "destructive", "--format", "jsonl"],
        Some("ls\ngit status\n"),
    );
    assert_eq!(o.status.code(), Some(0));
    let o = toolgate(
        &["scan", "--fail-on", "unknown", "--format", "jsonl"],
        Some("ls\nmake\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    let o = toolgate(
        &["scan", "--fail-on", "destructive", "--format", "summary"],
        Some("ls\nmake\nmake\nrm -rf x\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    let got = stdout(&o);
    assert!(
        got.starts_with("4 commands, 0 unreadable lines, 0 not valid UTF-8\n"),
        "{got}"
    );
    assert!(
        got.contains("  safe: 1 (25.0%)\n  destructive: 1 (25.0%)\n  unknown: 2 (50.0%)\n"),
        "{got}"
    );
    assert!(
        got.contains("most frequent unknown commands (taxonomy gaps):\n  make: 2 (50.0%)\n"),
        "{got}"
    );
}

#[test]
fn check_reports_failures_and_exits_non_zero() {
    let dir = std::env::temp_dir().join(format!("toolgate-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("c.jsonl");
    std::fs::write(
        &file,
        "{\"command\": \"rm -rf x\", \"expect\": \"destructive\", \"blast_radius\": \"high\"}\n\
         {\"command\": \"ls\", \"expect\": \"destructive\"}\n\
         {\"command\": \"ls\", \"expect\": \"maybe\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_string_lossy().into_owned();
    let o = toolgate(&["check", &path], None);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1));
    let got = stdout(&o);
    assert!(got.contains(&format!("FAIL {path}:2: ls\n  expected destructive, got safe (safe) fs-read\n  why: lists directory entries\n")), "{got}");
    assert!(
        got.contains(&format!("FAIL {path}:3: `expect` is \"maybe\"")),
        "{got}"
    );
    assert!(got.ends_with("1 passed, 2 failed\n"), "{got}");
}

#[test]
fn explain_shows_commands_matches_and_verdict() {
    let o = toolgate(&["explain", "sudo rm -rf ~/x && ls"], None);
    assert!(o.status.success());
    let got = stdout(&o);
    for want in [
        "label:   destructive (medium) fs-delete",
        "1. rm -rf ~/x   [bytes 0..15]",
        "wrappers peeled: sudo",
        "tokens: rm -r -f ~/x",
        "destructive: rm-recursive (fs-delete, high) rules/filesystem.toml:15",
        "2. ls   [bytes 19..21]",
        "explained by spec: ls (fs-read) specs/coreutils.toml:",
        "destructive: `rm-recursive` matched; the worst blast radius wins (medium)",
        "not safe: compound shell",
    ] {
        assert!(got.contains(want), "missing {want:?} in:\n{got}");
    }
    let o = toolgate(&["explain", "--format", "json", "git status"], None);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    assert_eq!(v["label"]["class"], "safe");
    let spec = v["commands"][0]["safe"][0].as_str().unwrap_or_default();
    assert!(
        spec.starts_with("git status (git-read) specs/git.toml:"),
        "{spec}"
    );
}

#[test]
fn classify_and_explain_take_the_working_directory() {
    let label = |args: &[&str]| {
        let o = toolgate(args, None);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap_or_default();
        v["safety_label"].as_str().unwrap_or("?").to_string()
    };
    assert_eq!(
        label(&["classify", "--cwd", "/app", "cat /app/src/main.py"]),
        "safe"
    );
    assert_eq!(label(&["classify", "cat /app/src/main.py"]), "unknown");
    assert_eq!(
        label(&["classify", "--cwd", "/app", "cat /app/../etc/hosts"]),
        "unknown"
    );
    assert_eq!(
        label(&["classify", "--cwd", "/app", "cat /application/x"]),
        "unknown"
    );
    // `git -C DIR` is refused even inside: a bare repository committed
    // there brings its own config, which can name programs to run.
    assert_eq!(
        label(&["classify", "--cwd", "/app", "git -C /app/lib status"]),
        "unknown"
    );
    assert_eq!(
        label(&["classify", "--cwd", "/app", "git -C /tmp status"]),
        "unknown"
    );
    let o = toolgate(&["classify", "--cwd", "app", "ls"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("absolute path"));
    let o = toolgate(&["explain", "--cwd", "/app", "ls /app && git status"], None);
    let text = stdout(&o);
    assert!(text.contains("cwd:     /app"), "{text}");
    assert!(text.contains("every part safe"), "{text}");
    let o = toolgate(&["explain", "ls /app && git status"], None);
    assert!(!stdout(&o).contains("every part safe"));
}

#[test]
fn scan_decides_with_each_lines_working_directory() {
    let input = concat!(
        "{\"command\": \"cat /app/a.py\", \"cwd\": \"/app\"}\n",
        "{\"command\": \"cat /app/a.py\"}\n",
        "{\"command\": \"ls && git status\", \"cwd\": \"/app\"}\n",
        "{\"command\": \"rm -rf build\"}\n",
        "{\"command\": \"ls\", \"cwd\": \"app\"}\n",
    );
    let o = toolgate(
        &[
            "scan",
            "--input",
            "jsonl",
            "--decide",
            "--mode",
            "balanced",
            "--compound",
            "every-part-safe",
        ],
        Some(input),
    );
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["safety_label"].as_str().unwrap_or("-"),
                r["decision"].as_str().unwrap_or("-"),
                r["source"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("safe", "allow", "mode_balanced"),
            ("unknown", "ask", "mode_balanced"),
            ("unknown", "allow", "compound_every_part_safe"),
            ("destructive", "ask", "mode_balanced"),
            ("-", "-", "-"),
        ]
    );
    assert_eq!(rows[0]["cwd"], "/app");
    assert!(rows[1].get("cwd").is_none());
    assert_eq!(rows[4]["error"], "`cwd` `app` is not an absolute path");
    // The same lines under the default compound policy, as a summary.
    let o = toolgate(
        &[
            "scan",
            "--input",
            "jsonl",
            "--decide",
            "--mode",
            "restricted",
            "--format",
            "summary",
        ],
        Some(input),
    );
    let text = stdout(&o);
    assert!(
        text.contains("decision:\n  allow: 1 (20.0%)\n  ask: 0 (0.0%)\n  deny: 3 (60.0%)"),
        "{text}"
    );
    assert!(
        text.contains("decided by:\n  mode_restricted: 4 (80.0%)"),
        "{text}"
    );
    // Plain lines take --cwd; without --decide no decision is written.
    let o = toolgate(&["scan", "--cwd", "/app"], Some("cat /app/a.py\n"));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap_or_default();
    assert_eq!(
        (v["safety_label"].as_str(), v.get("decision")),
        (Some("safe"), None)
    );
    // A mistyped mode is an error here, not a silent strict.
    let o = toolgate(&["scan", "--decide", "--mode", "balancd"], Some("ls\n"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown mode `balancd`"));
    let o = toolgate(&["scan", "--decide", "--compound", "yes"], Some("ls\n"));
    assert_eq!(o.status.code(), Some(2));
    let o = toolgate(&["scan", "--mode", "balanced"], Some("ls\n"));
    assert_eq!(o.status.code(), Some(2), "--mode without --decide");
}

/// Issue 19 item 7: options and command words of `classify` and `explain`.
#[test]
fn r19_options_are_not_command_words() {
    for (args, code, stdout, stderr) in [
        (
            &["classify", "--fromat", "text", "ls"][..],
            2,
            "",
            "toolgate: unknown option `--fromat` (to label a command that starts with `-`, put `--` before it)\n",
        ),
        (
            &["classify", "rm -rf /", "--format", "text"][..],
            2,
            "",
            "toolgate: `--format` after the command words: put toolgate's options before the command, or `--` before a command that takes `--format` itself\n",
        ),
        (
            &["explain", "ls", "--cwd=/tmp"][..],
            2,
            "",
            "toolgate: `--cwd` after the command words: put toolgate's options before the command, or `--` before a command that takes `--cwd` itself\n",
        ),
        (
            &["classify", "--format", "text", "--", "git", "log", "--format=%H"][..],
            0,
            "safe (safe) git-read: git log only reads the repository\n",
            "",
        ),
    ] {
        let out = crate::util::run(args, b"", &[]);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let (o, e) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if code == 0 {
            assert!(o.starts_with("safe"), "{args:?}: {o}");
        } else {
            assert_eq!((o.as_ref(), e.as_ref()), (stdout, stderr), "{args:?}");
        }
    }
}

/// A mistyped `--mode` for the hook stays fail-closed strict, and says so.
#[test]
fn r19_hook_bad_mode_says_strict() {
    let payload = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}"#;
    let out = crate::util::run(
        &["hook", "--protocol", "claude", "--mode", "balanced!"],
        payload,
        &[],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"ask\""), "{text}");
    assert!(
        text.contains("unrecognised mode `balanced!`: using strict"),
        "{text}"
    );
}

/// On glibc Linux toolgate starts without Rust's runtime start-up
/// (src/main.rs) and does its part itself: a standard stream the caller
/// closed is opened on `/dev/null`, so that no file toolgate opens can take
/// its number and receive what it prints.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn closed_standard_streams_are_opened_on_dev_null() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let exe = env!("CARGO_BIN_EXE_toolgate");
    let exe_path = std::fs::canonicalize(exe).unwrap_or_else(|e| panic!("{exe}: {e}"));
    // The environment `toolgate()` below runs in, so that the two answers
    // compare.
    let mut child = util::isolated("sh")
        .args([
            "-c",
            r#"exec >&- 2>&-; exec "$0" hook --protocol claude"#,
            exe,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning sh: {e}"));
    let proc = format!("/proc/{}", child.id());
    let deadline = Instant::now() + Duration::from_secs(30);
    // The shell becomes toolgate, which then waits for its payload on stdin
    // (held open here) with its streams as its start-up left them.
    let (out, err) = loop {
        let running = std::fs::read_link(format!("{proc}/exe")).is_ok_and(|p| p == exe_path);
        let out = std::fs::read_link(format!("{proc}/fd/1"));
        let err = std::fs::read_link(format!("{proc}/fd/2"));
        if let (true, Ok(out), Ok(err)) = (running, out, err) {
            break (out, err);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("toolgate's stdout and stderr stayed closed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    drop(child.stdin.take());
    let status = child
        .wait()
        .unwrap_or_else(|e| panic!("waiting for toolgate: {e}"));
    assert_eq!(out.to_str(), Some("/dev/null"));
    assert_eq!(err.to_str(), Some("/dev/null"));
    // An empty payload, answered as it is with the streams open.
    let open = toolgate(&["hook", "--protocol", "claude"], Some(""));
    assert_eq!(status.code(), open.status.code());
}
