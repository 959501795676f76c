//! toolgate in agent clients: each client's hook protocol (one payload in
//! on stdin, one answer out), `install`/`uninstall`/`doctor` of the hook in
//! the client's settings, and the decision log every answer is written to.
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod decision_log;
pub mod hook;
pub mod install;
