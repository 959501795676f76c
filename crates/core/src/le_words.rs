//! Little-endian `u32` words: the unit of every packed form `build.rs`
//! writes and the library reads (the taxonomy's word lists, the DFA
//! tables and their parts, a group's rule list, a spec's option table),
//! and the (offset, length) pairs by which its records name their parts.
//! One writer and one reader, which `build.rs` includes too
//! (`crate::le_words` in both).

/// A length or offset as the `u32` the packed forms store.
pub fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Appends words as little-endian `u32`s: the one writer of the packed
/// forms, as [`le_u32`] is their one reader.
pub fn push_words(out: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// The range of the part a record names by its offset and length, for
/// `get` on the bytes or text it lies in (which refuses a range outside
/// them); `None` only if its end overflows.
pub fn part_range((at, len): (u32, u32)) -> Option<std::ops::Range<usize>> {
    let at = at as usize;
    Some(at..at.checked_add(len as usize)?)
}

/// The little-endian `u32` at byte `at` of a packed form; `None` past its
/// end: the one reader of every packed table.
pub fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let mut le = [0u8; 4];
    le.copy_from_slice(bytes.get(at..at.checked_add(4)?)?);
    Some(u32::from_le_bytes(le))
}
