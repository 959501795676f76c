//! The decision log: every hook answer, one JSON object a line, in a
//! small private file the user can read back with `toolgate log`.
//!
//! A hook decides in a process that is gone a millisecond later, and the
//! client may show its reason briefly or not at all; the log is what lets a
//! person see afterwards what was allowed, asked and denied, and why. It is
//! local only, bounded (rotated at [`DEFAULT_MAX_BYTES`], one older file
//! kept) and private (directory 0700, files 0600), and every command is
//! passed through [`mask_secrets`] first.
//!
//! Where: `$TOOLGATE_STATE_DIR`, else `$XDG_STATE_HOME/toolgate`, else
//! `~/.local/state/toolgate` ([`state_dir`]); the file is
//! `decisions.jsonl`, rotated to `decisions.jsonl.1`.
//!
//! Logging comes after the answer and never changes it: a write that fails
//! is dropped ([`DecisionLog::append`] returns the error for the caller to
//! ignore), so a read-only home or a full disk costs the log, not the call.

mod entry;
mod learn;
mod mask;
mod store;
mod time;

pub use entry::{Entry, Filter, Trace};
pub use learn::{stats, suggest, Stats, Suggestion};
pub use mask::{mask_secrets, mask_value, MASK};
pub use store::{state_dir, DecisionLog, LogError, DEFAULT_MAX_BYTES, FILE_NAME};
pub use time::{format_rfc3339, parse_duration, parse_rfc3339, parse_since};
