//! What a scan finds.

use std::ops::Range;

use serde::Serialize;

/// A secret found in a text: which detector, what kind of secret, where.
///
/// It says where the value is so that a caller can mask it, and never
/// holds the value itself, so that a reason built from a hit ("would print
/// a cloud access key: deploy/cluster.yaml line 12") cannot leak it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SecretHit {
    /// The detector's id in `taxonomy/secrets/` (`aws-access-key-id`).
    pub detector: &'static str,
    /// What the secret is, as a noun phrase (`a cloud access key`).
    pub kind: &'static str,
    /// The 1-based line of the text it is on.
    pub line: usize,
    /// The value's byte range in the scanned text.
    pub range: Range<usize>,
}
