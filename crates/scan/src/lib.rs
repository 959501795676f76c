//! toolgate in bulk: what a scan reads and what it writes.
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod findings;
pub mod input;
pub mod report;
