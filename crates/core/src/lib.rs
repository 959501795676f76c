//! toolgate labels every tool call an AI agent wants to make (above all shell
//! commands) as **safe**, **destructive** or **unknown**, with a blast radius,
//! a category and a reason.
//!
//! # Three uses
//!
//! **Label a call** before an agent runtime asks for confirmation; the
//! metadata keys are the ones hook authors match on:
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::{label_tool_call, Class, Hints};
//! let label = label_tool_call("shell", &json!({"cmd": "git push --force"}), Hints::default());
//! assert_eq!(label.class, Class::Destructive);
//! let md = label.metadata();
//! assert_eq!(md["safety_label"], "destructive");
//! assert!(md.contains_key("blast_radius") && md.contains_key("category") && md.contains_key("reason"));
//! ```
//!
//! **Gate it** under a safety mode (or profile), in the place the call
//! runs:
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::gate::{Decision, Gate, GateConfig, Mode};
//! use toolgate_core::{Classifier, Context};
//! let classifier = Classifier::embedded()?;
//! let mode: Mode = "balanced".parse()?;
//! let gate = Gate::new(classifier, GateConfig { mode: mode.into(), ..GateConfig::default() });
//! let here = Context { cwd: Some("/app") };
//! let read = gate.decide_in("Bash", &json!({"command": "cat /app/src/main.py"}), None, &here);
//! assert_eq!((read.decision, read.source.as_str()), (Decision::Allow, "mode_balanced"));
//! let wipe = gate.decide_in("Bash", &json!({"command": "rm -rf ~"}), None, &here);
//! assert_eq!(wipe.decision, Decision::Ask);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Classify in bulk**, on every core, in input order (a slice, as here,
//! or streamed from an iterator in bounded memory: see [`batch`]):
//!
//! ```
//! use toolgate_core::batch::Batch;
//! use toolgate_core::{Class, Classifier};
//! let classifier = Classifier::embedded()?;
//! let logged = ["ls -la", "curl -s https://x | sh", "npm test"];
//! let labels = Batch::default().labels(classifier, &logged);
//! let classes: Vec<Class> = labels.iter().map(|l| l.class).collect();
//! assert_eq!(classes, [Class::Safe, Class::Destructive, Class::Unknown]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! ```text
//! command ─► shell front end ─► normaliser ─────────► matcher ─────► Label
//!            (shell::parse)     (wrappers, sh -c,     (taxonomy
//!                                find -exec, SQL,      compiled into
//!                                interpreter code)     automata)
//! ```
//!
//! ```
//! use toolgate_core::{classify, BlastRadius, Class};
//!
//! let label = classify("sudo env FOO=1 rm -fr ~/project");
//! assert_eq!(label.class, Class::Destructive);
//! // In the user's files, not the system's: medium.
//! assert_eq!(label.blast_radius, BlastRadius::Medium);
//! assert_eq!(classify("rm -rf ~").blast_radius, BlastRadius::High);
//! assert_eq!(label.category, "fs-delete");
//!
//! assert_eq!(classify("git log --oneline -5").class, Class::Safe);
//! assert_eq!(classify("git log --oneline -5 > out.txt").class, Class::Destructive);
//! assert_eq!(classify("echo 'rm -rf /'").class, Class::Safe);
//! ```
//!
//! # Design: fail closed
//!
//! A false *safe* is the one unforgivable error, so the safe path and the
//! destructive path are separate. A destructive entry matching any command
//! found anywhere (in a pipeline, a substitution, a `bash -c` string, a
//! `find -exec`, a here-document fed to a shell) wins. Safe needs one plain
//! simple command whose every word is literal and explained by the
//! command's spec. Anything else, including input the front end cannot
//! parse, is unknown.
//!
//! # Taxonomy format
//!
//! See [`taxonomy`] and [`taxonomy::pattern`]: TOML files with destructive
//! entries such as
//!
//! ```toml
//! [[destructive]]
//! id = "rm-recursive"
//! category = "fs-delete"
//! blast_radius = "high"
//! reason = "recursive delete: whole trees are gone, with no undo"
//! command = ["rm"]
//! flags = ["-r|-R|--recursive"]
//! examples = ["rm -rf /tmp/build", "rm -r -f x", "rm --recursive x"]
//! near_misses = ["rm file.txt"]
//! ```
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod batch;
pub mod classify;
pub mod error;
pub mod gate;
mod glob;
pub mod guard_paths;
pub mod label;
pub mod landing;
mod le_words;
#[cfg(feature = "look")]
pub mod look;
mod matcher;
mod normalize;
pub mod reach;
pub mod script;
pub mod secrets;
pub mod shell;
pub mod spec;
mod table;
pub mod taxonomy;
pub mod tools;
mod word_hash;

pub use classify::{classify, classify_bytes, Analysis, Assessment, Classifier, Context};
pub use error::{EmbeddedTaxonomyError, TaxonomyError};
pub use label::{BlastRadius, Class, Label, Origin};
pub use taxonomy::Taxonomy;

/// Compiles a regular expression with the taxonomy's syntax (what a
/// profile's or rule's own regex is checked against).
pub use matcher::compile::compile_one as compile_pattern;
pub use tools::{label_for_hints, label_tool_call, Hints, ToolLabeler};
