//! Runs of equal keys in sorted lists: the lookup the secret tables and
//! keyword lists share.

use std::ops::Range;

/// Where the entries of `sorted` (sorted by `key`) whose key is `want`
/// lie.
pub(super) fn sorted_range<T, K: Ord>(
    sorted: &[T],
    key: impl Fn(&T) -> K,
    want: K,
) -> Range<usize> {
    let from = sorted.partition_point(|t| key(t) < want);
    let len = sorted[from..].partition_point(|t| key(t) == want);
    from..from + len
}

/// The entries of `sorted` (sorted by `key`) whose key is `want`.
pub(super) fn sorted_run<T, K: Ord>(sorted: &[T], key: impl Fn(&T) -> K, want: K) -> &[T] {
    &sorted[sorted_range(sorted, key, want)]
}
