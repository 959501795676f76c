//! `toolgate action`: run a side-effecting command at most once under an
//! action-guard policy, and inspect, reconcile or resolve what happened.
//!
//! Exit codes of `action run`: 0 the command ran and succeeded; 1 not run
//! (denied, duplicate, conflict); 2 usage, policy, secret or store error;
//! 3 approval required (not run); 4 the command definitely did not act
//! (FAILED); 5 the outcome is unknown (UNKNOWN: do not retry, reconcile).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};

use toolgate::action_guard::{
    ActionGuard, Approver, GuardVerdict, Lookup, Outcome, Policy, Secret, SqliteStore, State,
    ToolResult, DEFAULT_STALE_AFTER_S,
};

/// The exit status by which a command says it definitely did not act.
pub const NOT_PERFORMED_STATUS: i32 = 100;

/// Arguments of `toolgate action`.
#[derive(Debug, Args)]
pub struct ActionArgs {
    #[command(subcommand)]
    cmd: ActionCmd,
}

/// Where the store is and which secrets open it.
#[derive(Debug, Args)]
struct StoreArgs {
    /// The SQLite store file (created 0600 when absent).
    #[arg(long, value_name = "FILE")]
    store: PathBuf,
    /// The service and environment (`payments/prod`); identifiers and
    /// idempotency keys differ per namespace.
    #[arg(long, value_name = "NS", default_value = "default")]
    namespace: String,
    /// A file holding the store secret in hex (else TOOLGATE_STORE_SECRET).
    #[arg(long, value_name = "FILE")]
    store_secret_file: Option<PathBuf>,
    /// The action's name in the policy.
    #[arg(long, value_name = "NAME")]
    action: String,
    /// The action key: the same key on every attempt of one action.
    #[arg(long, value_name = "KEY")]
    key: String,
}

#[derive(Debug, Subcommand)]
enum ActionCmd {
    /// Decide and run COMMAND at most once (exit 0 succeeded, 100 = it
    /// definitely did not act, anything else or a signal = unknown).
    Run {
        #[command(flatten)]
        at: StoreArgs,
        /// The policy file (TOML).
        #[arg(long, value_name = "FILE")]
        policy: PathBuf,
        /// The request, as JSON (what the model asked for).
        #[arg(long, value_name = "JSON")]
        request: String,
        /// The trusted evidence, as JSON or `@FILE`.
        #[arg(long, value_name = "JSON|@FILE")]
        evidence: String,
        /// The operator approves an amount above approval_above.
        #[arg(long)]
        approve: bool,
        /// A file holding the idempotency secret in hex (else
        /// TOOLGATE_IDEMPOTENCY_SECRET); the command gets its key in
        /// TOOLGATE_IDEMPOTENCY_KEY.
        #[arg(long, value_name = "FILE")]
        idempotency_secret_file: Option<PathBuf>,
        /// The command and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Show the stored state of an action.
    Inspect {
        #[command(flatten)]
        at: StoreArgs,
    },
    /// Settle an action with a read-only status lookup COMMAND (exit 0
    /// performed, 100 not performed, else unknown).
    Reconcile {
        #[command(flatten)]
        at: StoreArgs,
        /// Seconds after which an execution counts as stale.
        #[arg(long, default_value_t = DEFAULT_STALE_AFTER_S)]
        stale_after_s: u64,
        /// The lookup command.
        #[arg(last = true, required = true)]
        lookup: Vec<String>,
    },
    /// Settle an action by a person's word.
    Resolve {
        #[command(flatten)]
        at: StoreArgs,
        /// What happened.
        #[arg(long, value_enum)]
        outcome: Settled,
        /// The original process has stopped (needed to resolve an
        /// executing or stale action as failed).
        #[arg(long)]
        process_stopped: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Settled {
    Succeeded,
    Failed,
}

fn secret(file: Option<&Path>, env: &str) -> anyhow::Result<Option<Secret>> {
    let text = match file {
        Some(f) => Some(
            std::fs::read_to_string(f)
                .with_context(|| format!("{}: cannot read the secret", f.display()))?,
        ),
        None => std::env::var(env).ok().filter(|s| !s.trim().is_empty()),
    };
    text.map(|t| {
        Secret::from_hex(&t).with_context(|| match file {
            Some(f) => format!("{}", f.display()),
            None => env.to_string(),
        })
    })
    .transpose()
}

fn store_secret(at: &StoreArgs) -> anyhow::Result<Secret> {
    secret(at.store_secret_file.as_deref(), "TOOLGATE_STORE_SECRET")?
        .context("no store secret: set TOOLGATE_STORE_SECRET (hex, e.g. `openssl rand -hex 32`) or pass --store-secret-file")
}

fn open(at: &StoreArgs, secret: &Secret) -> anyhow::Result<SqliteStore> {
    let store = SqliteStore::open(&at.store, secret)?;
    for w in store.warnings() {
        eprintln!("toolgate: warning: {w}");
    }
    Ok(store)
}

/// The store of a recovery command (inspect, reconcile, resolve) and the
/// secret that opened it.
fn recovery_store(at: &StoreArgs) -> anyhow::Result<(SqliteStore, Secret)> {
    let secret = store_secret(at)?;
    Ok((open(at, &secret)?, secret))
}

/// A guard for recovery: it never decides, so it needs no policy.
fn recovery_guard<'s>(at: &StoreArgs, store: &'s SqliteStore, secret: Secret) -> ActionGuard<'s> {
    let policy = Policy {
        actions: BTreeMap::new(),
    };
    ActionGuard::new(policy, store, secret, &at.namespace)
}

struct Yes;
impl Approver for Yes {
    fn answer(&self, _: &str, _: &Value) -> String {
        "yes".into()
    }
}

fn status_of(result: std::io::Result<std::process::ExitStatus>) -> ToolResult {
    match result {
        Ok(s) if s.code() == Some(0) => ToolResult::Succeeded,
        Ok(s) if s.code() == Some(NOT_PERFORMED_STATUS) => ToolResult::NotPerformed,
        // A command that could not be started did not act.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ToolResult::NotPerformed,
        _ => ToolResult::Unknown,
    }
}

fn parse_json(what: &str, text: &str) -> anyhow::Result<Value> {
    let text = match text.strip_prefix('@') {
        Some(f) => {
            std::fs::read_to_string(f).with_context(|| format!("{f}: cannot read the {what}"))?
        }
        None => text.to_string(),
    };
    // The error names the position, never the content.
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "--{what} is not JSON (line {}, column {})",
            e.line(),
            e.column()
        )
    })
}

/// Runs an action subcommand; returns the exit status.
pub fn run(args: ActionArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    match args.cmd {
        ActionCmd::Run {
            at,
            policy,
            request,
            evidence,
            approve,
            idempotency_secret_file,
            command,
        } => {
            let policy = Policy::load(&policy)?;
            let request = parse_json("request", &request)?;
            let evidence = parse_json("evidence", &evidence)?;
            let ss = store_secret(&at)?;
            let idem = secret(
                idempotency_secret_file.as_deref(),
                "TOOLGATE_IDEMPOTENCY_SECRET",
            )?;
            let store = open(&at, &ss)?;
            let mut guard = ActionGuard::new(policy, &store, ss, &at.namespace);
            if let Some(s) = idem {
                guard = guard.with_idempotency(s);
            }
            let approver: Option<&dyn Approver> = if approve { Some(&Yes) } else { None };
            let report = guard.run(
                &at.action,
                Some(&at.key),
                &request,
                &evidence,
                approver,
                |req, key| {
                    let mut p = Process::new(&command[0]);
                    p.args(&command[1..])
                        .env("TOOLGATE_REQUEST", req.to_string());
                    match key {
                        Some(k) => p.env("TOOLGATE_IDEMPOTENCY_KEY", k),
                        None => p.env_remove("TOOLGATE_IDEMPOTENCY_KEY"),
                    };
                    status_of(p.status())
                },
            );
            writeln!(out, "{}", serde_json::to_string(&report)?)?;
            Ok(match (report.decision, report.final_outcome) {
                (_, Outcome::Succeeded) => 0,
                (_, Outcome::Failed) => 4,
                (_, Outcome::Unknown) => 5,
                (GuardVerdict::RequireApproval, _) => 3,
                _ => 1,
            })
        }
        ActionCmd::Inspect { at } => {
            let (store, secret) = recovery_store(&at)?;
            let guard = recovery_guard(&at, &store, secret);
            match guard.inspect(&at.action, &at.key)? {
                Some(r) => writeln!(
                    out,
                    "{}",
                    json!({"action": r.action, "state": r.state, "attempt": r.attempt, "stale": r.stale,
                           "started_at": r.started_at, "updated_at": r.updated_at})
                )?,
                None => bail!("no action `{}` is recorded under this key", at.action),
            }
            Ok(0)
        }
        ActionCmd::Reconcile {
            at,
            stale_after_s,
            lookup,
        } => {
            let (store, secret) = recovery_store(&at)?;
            let guard = recovery_guard(&at, &store, secret);
            let s = guard.reconcile(&at.action, &at.key, stale_after_s, || {
                match status_of(Process::new(&lookup[0]).args(&lookup[1..]).status()) {
                    ToolResult::Succeeded => Lookup::Succeeded,
                    ToolResult::NotPerformed => Lookup::Failed,
                    ToolResult::Unknown => Lookup::Unknown,
                }
            })?;
            writeln!(out, "{}", serde_json::to_string(&s)?)?;
            Ok(0)
        }
        ActionCmd::Resolve {
            at,
            outcome,
            process_stopped,
        } => {
            let (store, secret) = recovery_store(&at)?;
            let guard = recovery_guard(&at, &store, secret);
            let state = match outcome {
                Settled::Succeeded => State::Succeeded,
                Settled::Failed => State::Failed,
            };
            let s = guard.resolve(&at.action, &at.key, state, process_stopped)?;
            writeln!(out, "{}", serde_json::to_string(&s)?)?;
            Ok(0)
        }
    }
}
