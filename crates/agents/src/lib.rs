//! toolgate in agent clients: each client's hook protocol (one payload in
//! on stdin, one answer out), `install`/`uninstall`/`doctor` of the hook in
//! the client's settings, and the decision log every answer is written to.
//!
//! [`client`] holds one file per client and the list of them all; the
//! [`hook`], [`install`] and [`decision_log`] read that list.
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod client;
pub mod decision_log;
pub mod hook;
pub mod install;
pub mod place;
pub mod rule_line;
