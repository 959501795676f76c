//! The durable store: one SQLite file on one host, shared by every thread
//! and process that opens it. It runs in WAL mode with full fsync, is
//! created 0600, refuses symbolic links, and keys every identifier with
//! the store secret; a check value in the file makes a missing or different
//! secret fail at open, before anything runs.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::keys::Secret;
use super::store::{
    check_reservation, ActionStore, IdKind, Record, Reservation, State, StoreError,
};

/// A SQLite action store.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    warnings: Vec<String>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

fn err(path: &Path, what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("{}: {what}: {e}", path.display()))
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    id TEXT PRIMARY KEY,
    action TEXT NOT NULL,
    state TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    request_mac TEXT NOT NULL,
    policy_mac TEXT NOT NULL,
    idempotency_mac TEXT NOT NULL,
    grp TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    stale INTEGER NOT NULL
);";

/// How long a process waits for another one holding the store.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Puts the store in WAL mode. Changing the journal mode needs the file to
/// itself, and SQLite answers "database is locked" at once, without
/// waiting on the busy handler, while another process holds it (several
/// processes opening a new store together do); the mode persists in the
/// file, so asking again shortly finds it set.
fn enable_wal(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(StoreError(format!(
                    "{}: the store needs WAL mode and SQLite gave `{mode}` (is the file on a network or read-only file system?)",
                    path.display()
                )))
            }
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(err(path, "cannot enable WAL", e)),
        }
    }
}

/// True for SQLite's "busy" and "locked" answers.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

impl SqliteStore {
    /// Opens (creating when absent) the store at `path` with `secret`.
    pub fn open(path: &Path, secret: &Secret) -> Result<SqliteStore, StoreError> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(StoreError(format!(
                    "{}: is a symbolic link; give the store's real path",
                    path.display()
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_private(path)?,
            Err(e) => return Err(err(path, "cannot read", e)),
        }
        let mut warnings = Vec::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)
                .map_err(|e| err(path, "cannot read", e))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                warnings.push(format!(
                    "{}: readable or writable by others (mode {:o}); run `chmod 600` on it",
                    path.display(),
                    mode & 0o777
                ));
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| err(path, "cannot open", e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| err(path, "cannot set busy timeout", e))?;
        enable_wal(&conn, path)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(|e| err(path, "cannot set synchronous", e))?;
        conn.execute_batch(SCHEMA)
            .map_err(|e| err(path, "cannot create tables", e))?;
        let check = secret.mac(&[b"toolgate-store-check"]);
        // INSERT OR IGNORE then read back: two processes creating the
        // store at once agree on the first secret written.
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('secret_check', ?1)",
            params![check],
        )
        .map_err(|e| err(path, "cannot write", e))?;
        let stored: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'secret_check'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| err(path, "cannot read", e))?;
        if stored != check {
            return Err(StoreError(format!(
                "{}: the store secret is not the one this store was created with",
                path.display()
            )));
        }
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            warnings,
        })
    }

    /// Problems found at open that do not stop it (a file readable by
    /// others).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError(format!("{}: poisoned by a panic", self.path.display())))
    }

    fn e(&self, what: &str, e: rusqlite::Error) -> StoreError {
        err(&self.path, what, e)
    }
}

#[cfg(unix)]
fn create_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map(|_| ())
        .or_else(|e| {
            // Another process created it first: fine.
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Ok(())
            } else {
                Err(err(path, "cannot create", e))
            }
        })
}

#[cfg(not(unix))]
fn create_private(path: &Path) -> Result<(), StoreError> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .open(path)
        .map(|_| ())
        .map_err(|e| err(path, "cannot create", e))
}

fn row_to_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<Record> {
    let state: String = r.get(2)?;
    Ok(Record {
        id: r.get(0)?,
        action: r.get(1)?,
        // An unreadable state is treated as unknown: never as settled.
        state: State::parse(&state).unwrap_or(State::Unknown),
        attempt: r.get(3)?,
        request_mac: r.get(4)?,
        policy_mac: r.get(5)?,
        idempotency_mac: r.get(6)?,
        started_at: r.get::<_, i64>(7)?.max(0) as u64,
        updated_at: r.get::<_, i64>(8)?.max(0) as u64,
        stale: r.get::<_, i64>(9)? != 0,
        group: r.get(10)?,
    })
}

const SELECT: &str = "SELECT id, action, state, attempt, request_mac, policy_mac, idempotency_mac, started_at, updated_at, stale, grp FROM actions WHERE id = ?1";

impl ActionStore for SqliteStore {
    fn requires_action_keys(&self) -> bool {
        true
    }

    fn reserve(&self, ids: &[(String, IdKind)], new: &Record) -> Result<Reservation, StoreError> {
        let mut conn = self.lock()?;
        // IMMEDIATE takes the write lock first, so two processes cannot
        // both see "absent" and both reserve.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.e("cannot begin", e))?;
        let read = |id: &str| {
            tx.query_row(SELECT, params![id], row_to_record)
                .optional()
                .map_err(|e| self.e("cannot read", e))
        };
        let attempt = match check_reservation(ids, new, read)? {
            Reservation::Started { attempt } => attempt,
            refused => return Ok(refused),
        };
        for (id, _) in ids {
            tx.execute(
                "INSERT OR REPLACE INTO actions (id, action, state, attempt, request_mac, policy_mac, idempotency_mac, started_at, updated_at, stale, grp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10)",
                params![
                    id,
                    new.action,
                    State::Executing.as_str(),
                    attempt,
                    new.request_mac,
                    new.policy_mac,
                    new.idempotency_mac,
                    new.started_at as i64,
                    new.updated_at as i64,
                    new.group
                ],
            )
            .map_err(|e| self.e("cannot write", e))?;
        }
        tx.commit().map_err(|e| self.e("cannot commit", e))?;
        Ok(Reservation::Started { attempt })
    }

    fn settle(
        &self,
        ids: &[String],
        state: State,
        now: u64,
        stale: bool,
    ) -> Result<(), StoreError> {
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.e("cannot begin", e))?;
        for id in ids {
            tx.execute(
                "UPDATE actions SET state = ?2, updated_at = ?3, stale = ?4 WHERE id = ?1",
                params![id, state.as_str(), now as i64, stale as i64],
            )
            .map_err(|e| self.e("cannot write", e))?;
        }
        tx.commit().map_err(|e| self.e("cannot commit", e))
    }

    fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let conn = self.lock()?;
        conn.query_row(SELECT, params![id], row_to_record)
            .optional()
            .map_err(|e| self.e("cannot read", e))
    }
}
