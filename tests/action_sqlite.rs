//! The SQLite store: file mode, refusals (wrong secret, symbolic link),
//! durability across reopen, and one execution per key across
//! connections racing on the same file.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolgate::action_guard::{
    ActionGuard, ActionStore, Outcome, Policy, ReasonCode, Secret, SqliteStore, ToolResult,
};

const POLICY: &str =
    "version = 1\n[actions.email]\nrequired_evidence = [\"ticket\"]\nmust_match = [\"ticket\"]\n";
const STORE_HEX: &str = "3f9a0c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f13";
const OTHER_HEX: &str = "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b";

fn secret(h: &str) -> Secret {
    Secret::from_hex(h).unwrap_or_else(|e| panic!("{e}"))
}

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolgate-sqlite-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

fn open(path: &std::path::Path) -> SqliteStore {
    SqliteStore::open(path, &secret(STORE_HEX)).unwrap_or_else(|e| panic!("{e}"))
}

fn send(store: &dyn ActionStore, key: &str, calls: &AtomicUsize) -> (Outcome, Vec<ReasonCode>) {
    let p = Policy::parse("p.toml", POLICY).unwrap_or_else(|e| panic!("{e}"));
    let g = ActionGuard::new(p, store, secret(STORE_HEX), "support/prod");
    let r = g.run(
        "email",
        Some(key),
        &json!({"ticket": 5}),
        &json!({"ticket": 5}),
        None,
        |_, _| {
            calls.fetch_add(1, Ordering::SeqCst);
            ToolResult::Succeeded
        },
    );
    (r.final_outcome, r.reasons)
}

#[cfg(unix)]
#[test]
fn created_private_and_others_reported() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir("mode");
    let path = d.join("actions.db");
    let store = open(&path);
    let mode = std::fs::metadata(&path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    assert_eq!(mode, 0o600);
    assert!(store.warnings().is_empty());
    drop(store);
    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644));
    let store = open(&path);
    assert_eq!(
        store.warnings(),
        [format!(
            "{}: readable or writable by others (mode 644); run `chmod 600` on it",
            path.display()
        )]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_different_secret_or_a_symlink_is_refused() {
    let d = dir("refuse");
    let path = d.join("actions.db");
    drop(open(&path));
    let e = SqliteStore::open(&path, &secret(OTHER_HEX))
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert_eq!(
        e,
        Err(format!(
            "{}: the store secret is not the one this store was created with",
            path.display()
        ))
    );
    #[cfg(unix)]
    {
        let link = d.join("link.db");
        let _ = std::os::unix::fs::symlink(&path, &link);
        let e = SqliteStore::open(&link, &secret(STORE_HEX))
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err(format!(
                "{}: is a symbolic link; give the store's real path",
                link.display()
            ))
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_succeeded_action_is_a_duplicate_after_reopening() {
    let d = dir("restart");
    let path = d.join("actions.db");
    let calls = AtomicUsize::new(0);
    {
        let store = open(&path);
        assert_eq!(
            send(&store, "t-5", &calls),
            (Outcome::Succeeded, vec![ReasonCode::AllChecksPassed])
        );
    }
    let store = open(&path);
    assert_eq!(
        send(&store, "t-5", &calls),
        (Outcome::NotExecuted, vec![ReasonCode::DuplicateAction])
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // Nothing readable is stored: the key and ticket appear only as MACs.
    drop(store);
    let bytes = std::fs::read(&path).unwrap_or_default();
    let wal = std::fs::read(d.join("actions.db-wal")).unwrap_or_default();
    for hay in [&bytes, &wal] {
        assert!(!hay.windows(3).any(|w| w == b"t-5"));
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn action_keys_are_required() {
    let d = dir("keys");
    let store = open(&d.join("actions.db"));
    let p = Policy::parse("p.toml", POLICY).unwrap_or_else(|e| panic!("{e}"));
    let g = ActionGuard::new(p, &store, secret(STORE_HEX), "support/prod");
    let r = g.run(
        "email",
        None,
        &json!({"ticket": 5}),
        &json!({"ticket": 5}),
        None,
        |_, _| ToolResult::Succeeded,
    );
    assert_eq!(r.reasons, vec![ReasonCode::ActionKeyRequired]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn racing_connections_execute_a_key_once() {
    let d = dir("race");
    let path = d.join("actions.db");
    drop(open(&path));
    let calls = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                // Each thread its own connection, as separate processes.
                let store = open(&path);
                send(&store, "race", &calls)
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let _ = std::fs::remove_dir_all(&d);
}
