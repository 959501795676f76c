//! Normalisation: from a simple command as written to what actually runs.
//!
//! * [`peel`] removes wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, …)
//!   with their own options and normalises the command word
//!   (`/usr/bin/rm` → `rm`).
//! * [`nested`] finds what the command runs in turn: shell strings, argument
//!   vectors, interpreter code, SQL.
//! * [`canonical`] renders an invocation in the token form the taxonomy's
//!   patterns match.
//! * [`executable_sql`] masks the SQL a database only carries as data
//!   (literals, comments) before the SQL entries search it.

mod canonical;
mod code_strings;
mod invocation;
mod runners;
mod sql_text;

pub use crate::shell::command_name;
pub use canonical::{asks_for_help, canonical_with, command_spec, matched_name, Canonical};
pub use code_strings::shell_strings;
pub use invocation::{peel, Invocation};
pub use runners::{nested, Nested, DOWNLOADERS};
pub use sql_text::executable_sql;
