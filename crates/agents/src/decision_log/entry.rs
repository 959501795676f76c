//! One line of the decision log.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mask::{mask_secrets, mask_value};
use super::time::{format_rfc3339, parse_rfc3339};
use crate::client::Client;
use toolgate_core::gate::Decision;
use toolgate_core::label::Class;

/// The longest command (or argument text) written, in bytes: a line stays
/// small, so a 1 MiB payload cannot fill the log in one call.
const MAX_COMMAND: usize = 4096;

/// The longest reason written, in bytes.
const MAX_REASON: usize = 1024;

/// What an answer decided and about which call: the facts the decision
/// log records ([`Entry::new`] masks them). Fields
/// the answer did not get as far as knowing stay empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The client, when known.
    pub client: Option<&'static dyn Client>,
    /// The client's session id ([`session_id`](crate::client::session_id)).
    pub session: Option<String>,
    /// The call's working directory.
    pub cwd: Option<String>,
    /// The tool called.
    pub tool: Option<String>,
    /// A shell call's command (several: one a line), unmasked.
    pub command: Option<String>,
    /// A non-shell call's arguments, unmasked.
    pub args: Option<Value>,
    /// The call's label class.
    pub label: Option<Class>,
    /// The label's taxonomy category (`fs-delete`, `git-read`), when it
    /// has one.
    pub category: Option<String>,
    /// What the answer said, after `--headless`; `None` when it left the
    /// call to the client or only labelled it.
    pub decision: Option<Decision>,
    /// What decided: a verdict's source, `fail_closed` or `no_opinion`.
    pub source: String,
    /// The answer's reason.
    pub reason: String,
}

/// One hook answer as logged.
///
/// ```json
/// {"time":"2025-01-02T03:04:05.678Z","client":"claude","session":"s1","cwd":"/p",
///  "tool":"Bash","command":"rm -rf build","label":"destructive","decision":"ask",
///  "source":"mode_balanced","reason":"destructive (low, fs-delete) in balanced mode: …"}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// When the answer was given, RFC 3339 in UTC.
    pub time: String,
    /// The client's protocol name (`claude`, `codex`, …), `unknown` when it
    /// was not known.
    pub client: String,
    /// The client's session (or conversation, trajectory) id, when the
    /// payload has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The call's working directory, when the payload names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The tool, by the client's name for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The shell command (several: one a line), or a non-shell call's
    /// arguments as JSON; secrets masked, cut at 4 KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The call's label class (`safe`, `destructive`, `unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The label's taxonomy category (`fs-delete`, `guard-tamper`), when
    /// it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// What the answer said; `None` when it left the call to the client
    /// (a tool toolgate knows nothing about, or `--label-only`).
    pub decision: Option<Decision>,
    /// What decided (a verdict's source, `fail_closed`, `no_opinion`).
    pub source: String,
    /// Why, as the answer said it (secrets masked).
    pub reason: String,
}

impl Entry {
    /// The entry for an answer given at `time`, with every secret masked.
    pub fn new(time: SystemTime, trace: &Trace) -> Entry {
        let command = match (&trace.command, &trace.args) {
            (Some(c), _) => Some(mask_secrets(c)),
            (None, Some(args)) => Some(mask_value(args).to_string()),
            (None, None) => None,
        };
        Entry {
            time: format_rfc3339(time),
            client: trace
                .client
                .map_or_else(|| "unknown".to_string(), |p| p.name().to_string()),
            session: trace.session.clone(),
            cwd: trace.cwd.clone(),
            tool: trace.tool.clone(),
            command: command.map(|c| truncate(c, MAX_COMMAND)),
            label: trace.label.map(|c| c.as_str().to_string()),
            category: trace.category.clone(),
            decision: trace.decision,
            source: trace.source.clone(),
            reason: truncate(mask_secrets(&trace.reason), MAX_REASON),
        }
    }

    /// The entry's time, if it reads as one.
    pub fn system_time(&self) -> Option<SystemTime> {
        parse_rfc3339(&self.time)
    }
}

/// Cuts `text` to at most `max` bytes on a character boundary, marking the
/// cut with `…`.
fn truncate(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.truncate(at);
    text.push('…');
    text
}

/// Which entries to show (`toolgate log --since … --decision …`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only entries at or after this time (an entry whose time cannot be
    /// read is then left out).
    pub since: Option<SystemTime>,
    /// Only entries with this decision.
    pub decision: Option<Decision>,
}

impl Filter {
    /// Does `entry` pass?
    pub fn matches(&self, entry: &Entry) -> bool {
        let recent = self
            .since
            .is_none_or(|since| entry.system_time().is_some_and(|t| t >= since));
        let decided = self.decision.is_none_or(|d| entry.decision == Some(d));
        recent && decided
    }
}
