//! The matcher: the taxonomy compiled into multi-pattern automata.
//!
//! Each kind of haystack (canonical commands, SQL text, interpreter code, the
//! plain command line, and each command word) gets one lazy DFA built from
//! all the patterns of that kind, searched once with overlapping semantics so
//! that every entry that applies is found in a single pass.

mod build;
pub mod compile;
mod plan;

// `plan` names its sibling `generate`, as in `build.rs`.
use crate::taxonomy::generate;

pub use build::{Applicable, Matcher};
