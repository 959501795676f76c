//! Guardrails: limits over a whole run — steps, a tool budget, wall-clock
//! time, per-actor call and retry limits, and tools that need a
//! confirmation — with a bounded audit trail. State and trail persist to a
//! file, written atomically (temporary file, fsync, rename), so they survive
//! a restart and a process killed between two writes loses nothing.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many audit entries are kept by default (the oldest are evicted).
pub const DEFAULT_AUDIT_CAPACITY: usize = 10_000;

/// Per-actor limits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorLimits {
    /// Tool calls one invocation of the actor may make.
    pub max_tool_calls_per_invocation: u32,
    /// Retries allowed after one failure.
    pub max_retries_per_failure: u32,
}

/// A run's guardrails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardrailConfig {
    /// Steps allowed (at least 1).
    pub max_steps: u32,
    /// Tool calls allowed in the whole run.
    pub tool_budget: u32,
    /// Seconds the run may take, from `start_time` (or its first step).
    pub max_wall_clock_seconds: Option<u64>,
    /// Limits per actor name.
    #[serde(default)]
    pub actors: BTreeMap<String, ActorLimits>,
    /// Tools (names, case-insensitive) that need a recorded confirmation.
    #[serde(default)]
    pub required_confirmations: Vec<String>,
    /// When the run started, ISO-8601 (`2026-11-30T09:40:00Z`). A malformed
    /// value blocks every call until fixed.
    pub start_time: Option<String>,
}

/// The twelve kinds of audit event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditEvent {
    /// A run began (first step).
    RunStarted,
    /// A step began.
    StepStarted,
    /// A step was refused: the step limit is reached.
    StepLimitReached,
    /// A tool call passed the guardrails.
    ToolCallAllowed,
    /// A tool call was refused.
    ToolCallBlocked,
    /// The tool budget is spent.
    ToolBudgetExhausted,
    /// The run took longer than allowed.
    WallClockExceeded,
    /// An actor made as many calls as one invocation may.
    ActorCallLimitReached,
    /// An actor retried more than allowed.
    RetryLimitReached,
    /// A tool needs a confirmation that is not recorded.
    ConfirmationRequired,
    /// A confirmation was recorded.
    ConfirmationReceived,
    /// The guardrail configuration is invalid; everything is blocked.
    ConfigInvalid,
}

/// One audit entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Sequence number, increasing over the run's life.
    pub seq: u64,
    /// Unix seconds.
    pub at: i64,
    /// What happened.
    pub event: AuditEvent,
    /// The actor, if any.
    pub actor: Option<String>,
    /// The tool, if any.
    pub tool: Option<String>,
    /// Details for a person.
    pub detail: String,
}

/// What survives a restart.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardrailState {
    /// Steps started.
    pub steps: u32,
    /// Tool calls allowed.
    pub tool_calls: u32,
    /// When the run started (unix seconds), once known.
    pub started_at: Option<i64>,
    /// Calls in the current invocation, per actor.
    pub actor_calls: BTreeMap<String, u32>,
    /// Retries since the last failure, per actor.
    pub actor_retries: BTreeMap<String, u32>,
    /// Confirmed tools (lowercase).
    pub confirmations: BTreeSet<String>,
    /// The audit trail, oldest first.
    pub audit: VecDeque<AuditEntry>,
    /// The next audit sequence number.
    pub next_seq: u64,
}

/// A guardrail's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GuardrailDecision {
    /// The call (or step) may go ahead.
    pub allowed: bool,
    /// Why, for a person.
    pub reason: String,
    /// A confirmation must be recorded first.
    pub requires_confirmation: bool,
}

/// Guardrails with their state, optionally persisted to a file.
#[derive(Debug)]
pub struct Guardrails {
    config: GuardrailConfig,
    /// Why the configuration is invalid, if it is.
    invalid: Option<String>,
    start: Option<i64>,
    state: GuardrailState,
    path: Option<PathBuf>,
    capacity: usize,
}

impl GuardrailConfig {
    /// Checks the values the schema cannot; the error names the field.
    pub fn validate(&self) -> Result<Option<i64>, String> {
        if self.max_steps < 1 {
            return Err("field `max_steps`: must be at least 1".into());
        }
        match &self.start_time {
            None => Ok(None),
            Some(t) => parse_iso8601(t)
                .map(Some)
                .ok_or_else(|| format!("field `start_time`: `{t}` is not an ISO-8601 time such as 2026-11-30T09:40:00Z")),
        }
    }
}

impl Guardrails {
    /// Guardrails kept in memory only.
    pub fn in_memory(config: GuardrailConfig) -> Guardrails {
        let (invalid, start) = match config.validate() {
            Ok(start) => (None, start),
            Err(e) => (Some(e), None),
        };
        Guardrails {
            config,
            invalid,
            start,
            state: GuardrailState::default(),
            path: None,
            capacity: DEFAULT_AUDIT_CAPACITY,
        }
    }

    /// Guardrails persisted to `path`, resuming the state found there.
    pub fn open(config: GuardrailConfig, path: &Path) -> io::Result<Guardrails> {
        let mut g = Guardrails::in_memory(config);
        g.path = Some(path.to_path_buf());
        match fs::read(path) {
            Ok(bytes) => {
                g.state = serde_json::from_slice(&bytes).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{}: {e}", path.display()),
                    )
                })?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(g)
    }

    /// Keeps at most `capacity` audit entries (default 10,000).
    pub fn with_audit_capacity(mut self, capacity: usize) -> Guardrails {
        self.capacity = capacity.max(1);
        self
    }

    /// The persisted state (counters and the audit trail).
    pub fn state(&self) -> &GuardrailState {
        &self.state
    }

    fn audit(
        &mut self,
        now: i64,
        event: AuditEvent,
        actor: Option<&str>,
        tool: Option<&str>,
        detail: &str,
    ) {
        while self.state.audit.len() >= self.capacity {
            self.state.audit.pop_front();
        }
        self.state.audit.push_back(AuditEntry {
            seq: self.state.next_seq,
            at: now,
            event,
            actor: actor.map(String::from),
            tool: tool.map(String::from),
            detail: detail.to_string(),
        });
        self.state.next_seq += 1;
    }

    fn decide(
        &mut self,
        now: i64,
        event: AuditEvent,
        actor: Option<&str>,
        tool: Option<&str>,
        allowed: bool,
        reason: String,
    ) -> io::Result<GuardrailDecision> {
        self.audit(now, event, actor, tool, &reason);
        self.persist()?;
        Ok(GuardrailDecision {
            allowed,
            reason,
            requires_confirmation: event == AuditEvent::ConfirmationRequired,
        })
    }

    fn blocked_by_config(
        &mut self,
        now: i64,
        actor: Option<&str>,
        tool: Option<&str>,
    ) -> Option<io::Result<GuardrailDecision>> {
        let why = self.invalid.clone()?;
        Some(self.decide(
            now,
            AuditEvent::ConfigInvalid,
            actor,
            tool,
            false,
            format!("invalid guardrails: {why}"),
        ))
    }

    fn wall_clock_exceeded(&self, now: i64) -> Option<String> {
        let max = self.config.max_wall_clock_seconds?;
        let start = self.start.or(self.state.started_at)?;
        let elapsed = now.saturating_sub(start);
        (elapsed > i64::try_from(max).unwrap_or(i64::MAX))
            .then(|| format!("the run has taken {elapsed} s, more than {max} s"))
    }

    /// Starts a step at `now` (unix seconds).
    pub fn start_step(&mut self, now: i64) -> io::Result<GuardrailDecision> {
        if let Some(d) = self.blocked_by_config(now, None, None) {
            return d;
        }
        if self.state.started_at.is_none() {
            self.state.started_at = Some(now);
            self.audit(now, AuditEvent::RunStarted, None, None, "run started");
        }
        if let Some(why) = self.wall_clock_exceeded(now) {
            return self.decide(now, AuditEvent::WallClockExceeded, None, None, false, why);
        }
        if self.state.steps >= self.config.max_steps {
            let why = format!(
                "{} steps taken, the limit is {}",
                self.state.steps, self.config.max_steps
            );
            return self.decide(now, AuditEvent::StepLimitReached, None, None, false, why);
        }
        self.state.steps += 1;
        let why = format!("step {} of {}", self.state.steps, self.config.max_steps);
        self.decide(now, AuditEvent::StepStarted, None, None, true, why)
    }

    /// Checks (and, when allowed, counts) a tool call by `actor`.
    pub fn check_tool_call(
        &mut self,
        actor: &str,
        tool: &str,
        now: i64,
    ) -> io::Result<GuardrailDecision> {
        let (a, t) = (Some(actor), Some(tool));
        if let Some(d) = self.blocked_by_config(now, a, t) {
            return d;
        }
        if let Some(why) = self.wall_clock_exceeded(now) {
            return self.decide(now, AuditEvent::WallClockExceeded, a, t, false, why);
        }
        if self.state.tool_calls >= self.config.tool_budget {
            let why = format!(
                "the tool budget of {} calls is spent",
                self.config.tool_budget
            );
            return self.decide(now, AuditEvent::ToolBudgetExhausted, a, t, false, why);
        }
        if let Some(limits) = self.config.actors.get(actor) {
            let used = self.state.actor_calls.get(actor).copied().unwrap_or(0);
            if used >= limits.max_tool_calls_per_invocation {
                let why = format!(
                    "`{actor}` made {used} calls in this invocation (limit {})",
                    limits.max_tool_calls_per_invocation
                );
                return self.decide(now, AuditEvent::ActorCallLimitReached, a, t, false, why);
            }
        }
        let lower = tool.to_lowercase();
        let needs_confirmation = self
            .config
            .required_confirmations
            .iter()
            .any(|c| c.to_lowercase() == lower);
        if needs_confirmation && !self.state.confirmations.contains(&lower) {
            let why = format!("`{tool}` needs a confirmation");
            return self.decide(now, AuditEvent::ConfirmationRequired, a, t, false, why);
        }
        self.state.tool_calls += 1;
        *self.state.actor_calls.entry(actor.to_string()).or_default() += 1;
        let why = format!(
            "call {} of {}",
            self.state.tool_calls, self.config.tool_budget
        );
        self.decide(now, AuditEvent::ToolCallAllowed, a, t, true, why)
    }

    /// Records a confirmation for a tool (case-insensitive).
    pub fn confirm(&mut self, tool: &str, now: i64) -> io::Result<()> {
        self.state.confirmations.insert(tool.to_lowercase());
        self.audit(
            now,
            AuditEvent::ConfirmationReceived,
            None,
            Some(tool),
            "confirmed",
        );
        self.persist()
    }

    /// Records a retry by `actor` after a failure; refused past the limit.
    pub fn record_retry(&mut self, actor: &str, now: i64) -> io::Result<GuardrailDecision> {
        let max = self
            .config
            .actors
            .get(actor)
            .map(|l| l.max_retries_per_failure);
        let used = self.state.actor_retries.get(actor).copied().unwrap_or(0);
        if let Some(max) = max {
            if used >= max {
                let why =
                    format!("`{actor}` retried {used} times after this failure (limit {max})");
                return self.decide(
                    now,
                    AuditEvent::RetryLimitReached,
                    Some(actor),
                    None,
                    false,
                    why,
                );
            }
        }
        self.state.actor_retries.insert(actor.to_string(), used + 1);
        self.persist()?;
        Ok(GuardrailDecision {
            allowed: true,
            reason: format!("retry {} for `{actor}`", used + 1),
            requires_confirmation: false,
        })
    }

    /// Ends an actor's invocation (its call count starts over) or clears
    /// its retries after a success.
    pub fn end_invocation(&mut self, actor: &str) -> io::Result<()> {
        self.state.actor_calls.remove(actor);
        self.state.actor_retries.remove(actor);
        self.persist()
    }

    /// Writes the state atomically: a temporary file, fsync, rename, fsync
    /// of the directory.
    fn persist(&self) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let tmp = path.with_extension("tmp");
        {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&serde_json::to_vec(&self.state).map_err(io::Error::other)?)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` into unix seconds.
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d, h, mi, sec) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in[usize::try_from(mo - 1).ok()?]
        || h > 23
        || mi > 59
        || sec > 60
    {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    // Days from the civil date (proleptic Gregorian).
    let (y2, m2) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}
