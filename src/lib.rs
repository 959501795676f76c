//! toolgate labels the tool calls an AI agent wants to make as safe,
//! destructive or unknown.
#![deny(missing_docs)]

pub mod label;
pub mod shell;

pub use label::{BlastRadius, Class, Label, Origin};

/// Placeholder until the classifier lands.
pub fn classify(_command: &str) -> Label {
    Label::unknown("")
}
