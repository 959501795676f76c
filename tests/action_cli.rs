//! `toolgate action` as an operator runs it: at most once across
//! processes, a killed run never re-runs until it is settled, a new process
//! refuses a succeeded action, and the command's exit status becomes the
//! outcome.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const POLICY: &str = "version = 1\n[actions.deploy]\nrequired_evidence = [\"service\", \"commit\"]\nmust_match = [\"service\", \"commit\"]\nonce_per = [\"service\", \"commit\"]\n";
const SECRET: &str = "3f9a0c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f13";
const IDEM: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff01";

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolgate-action-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(d.join("policy.toml"), POLICY).unwrap_or_else(|e| panic!("{e}"));
    d
}

fn toolgate(d: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    c.current_dir(d)
        .args(args)
        .env("TOOLGATE_STORE_SECRET", SECRET)
        .env("TOOLGATE_IDEMPOTENCY_SECRET", IDEM)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

const AT: [&str; 8] = [
    "--store",
    "s.db",
    "--namespace",
    "web/prod",
    "--action",
    "deploy",
    "--key",
    "web-abc",
];

fn deploy(d: &Path, script: &str) -> Command {
    let mut args = vec!["action", "run", "--policy", "policy.toml"];
    args.extend(AT);
    args.extend([
        "--request",
        r#"{"service":"web","commit":"abc"}"#,
        "--evidence",
        r#"{"service":"web","commit":"abc"}"#,
        "--",
        "sh",
        "-c",
        script,
    ]);
    toolgate(d, &args)
}

fn output(mut c: Command) -> (i32, Value, String) {
    let o = c.output().unwrap_or_else(|e| panic!("{e}"));
    (
        o.status.code().unwrap_or(-1),
        serde_json::from_slice(&o.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p)
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

fn sub(d: &Path, cmd: &str, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["action", cmd];
    args.extend(AT);
    args.extend(extra);
    output(toolgate(d, &args))
}

#[test]
fn exit_status_becomes_the_outcome_and_a_new_process_refuses_a_duplicate() {
    let d = dir("status");
    let (code, v, _) = output(deploy(
        &d,
        "echo \"$TOOLGATE_IDEMPOTENCY_KEY\" >> keys; exit 100",
    ));
    assert_eq!((code, v["final_outcome"].as_str()), (4, Some("FAILED")));
    let (code, v, _) = output(deploy(&d, "echo \"$TOOLGATE_IDEMPOTENCY_KEY\" >> keys"));
    assert_eq!(
        (code, v["final_outcome"].as_str(), v["attempt"].as_u64()),
        (0, Some("SUCCEEDED"), Some(2))
    );
    let keys = std::fs::read_to_string(d.join("keys")).unwrap_or_default();
    let keys: Vec<&str> = keys.lines().collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0].len(), 64);
    let (code, v, _) = output(deploy(&d, "echo ran >> ran"));
    assert_eq!(code, 1);
    assert_eq!(v["reasons"], serde_json::json!(["duplicate_action"]));
    assert_eq!(v["previous_outcome"], "SUCCEEDED");
    assert_eq!(lines(&d.join("ran")), 0);
    let mut no_secret = deploy(&d, "exit 9");
    no_secret.env_remove("TOOLGATE_STORE_SECRET");
    let (code, v, err) = output(no_secret);
    assert!(
        err.starts_with("toolgate: no store secret: set TOOLGATE_STORE_SECRET"),
        "{err}"
    );
    assert_eq!(code, 2, "{v}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn racing_processes_run_the_command_once() {
    // Each round races eight processes on a new store: they create it, put
    // it in WAL mode and reserve the action together. Rounds, because a
    // lost race shows only now and then (one round in about forty, when
    // enabling WAL did not wait for the others).
    for round in 0..10 {
        let d = dir(&format!("race-{round}"));
        let children: Vec<_> = (0..8)
            .map(|_| {
                deploy(&d, "echo ran >> ran")
                    .spawn()
                    .unwrap_or_else(|e| panic!("{e}"))
            })
            .collect();
        let outputs: Vec<(i32, String)> = children
            .into_iter()
            .map(|c| {
                c.wait_with_output().map_or((-1, String::new()), |o| {
                    let err = String::from_utf8_lossy(&o.stderr).to_string();
                    (o.status.code().unwrap_or(-1), err)
                })
            })
            .collect();
        let mut codes: Vec<i32> = outputs.iter().map(|o| o.0).collect();
        codes.sort_unstable();
        assert_eq!(
            codes,
            [0, 1, 1, 1, 1, 1, 1, 1],
            "round {round}: {outputs:?}"
        );
        assert_eq!(lines(&d.join("ran")), 1);
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn a_killed_run_is_not_rerun_until_settled() {
    let d = dir("crash");
    let mut child = deploy(&d, "echo ran >> ran; exec sleep 5")
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    while lines(&d.join("ran")) == 0 && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The guard is killed while the command runs: the record says EXECUTING.
    let _ = child.kill();
    let _ = child.wait();
    let (_, v, _) = sub(&d, "inspect", &[]);
    assert_eq!(v["state"], "EXECUTING");
    let (code, v, _) = output(deploy(&d, "echo ran >> ran"));
    assert_eq!(
        (code, v["reasons"].clone(), v["recovery"].clone()),
        (
            1,
            serde_json::json!(["duplicate_action"]),
            serde_json::json!("escalate")
        )
    );
    assert_eq!(lines(&d.join("ran")), 1);
    // Young: a lookup that says "not performed" changes nothing yet.
    let (_, v, _) = sub(&d, "reconcile", &["--", "sh", "-c", "exit 100"]);
    assert_eq!(v["after"], "EXECUTING");
    // A person must state the process stopped to resolve it as failed.
    let (code, _, err) = sub(&d, "resolve", &["--outcome", "failed"]);
    assert_eq!(code, 2);
    assert!(err.contains("--process-stopped"), "{err}");
    let (code, v, _) = sub(&d, "resolve", &["--outcome", "failed", "--process-stopped"]);
    assert_eq!((code, v["after"].as_str()), (0, Some("FAILED")));
    let (code, v, _) = output(deploy(&d, "echo ran >> ran"));
    assert_eq!((code, v["attempt"].as_u64()), (0, Some(2)));
    assert_eq!(lines(&d.join("ran")), 2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_policy_and_secrets_are_clear_errors() {
    let d = dir("errors");
    std::fs::write(
        d.join("bad.toml"),
        "version = 1\n[actions.deploy]\nonce_per = [\"x\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut args = vec!["action", "run", "--policy", "bad.toml"];
    args.extend(AT);
    args.extend(["--request", "{}", "--evidence", "{}", "--", "true"]);
    let (code, _, err) = output(toolgate(&d, &args));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "toolgate: bad.toml: action `deploy`, key `once_per`: `x` must also be in must_match\n"
    );
    let (code, _, err) = output({
        let mut c = toolgate(
            &d,
            &[
                "action", "inspect", "--store", "s.db", "--action", "deploy", "--key", "k",
            ],
        );
        c.env("TOOLGATE_STORE_SECRET", "00".repeat(32));
        c
    });
    assert_eq!(code, 2);
    assert!(
        err.starts_with("toolgate: TOOLGATE_STORE_SECRET: the secret is not random"),
        "{err}"
    );
    assert!(!err.contains(&"00".repeat(8)));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_store_without_wal_is_refused() {
    // SQLite opens `:memory:` as an in-memory database, whose journal mode
    // cannot be WAL: the store must refuse it rather than run without.
    let d = dir("nowal");
    let (code, _, err) = output(toolgate(
        &d,
        &[
            "action", "inspect", "--store", ":memory:", "--action", "deploy", "--key", "k",
        ],
    ));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "toolgate: :memory:: the store needs WAL mode and SQLite gave `memory` (is the file on a network or read-only file system?)\n"
    );
    let _ = std::fs::remove_dir_all(&d);
}
