//! The one hash of the compiled taxonomy's tables: the spec index (command
//! names and subcommand paths) and its filter, each spec's option index,
//! the matcher's group index, the tables of the taxonomy's word lists, and
//! the entries' fingerprint. `build.rs` includes this file too
//! (`crate::word_hash` in both), so what it files a word under is what the
//! library looks the word up by.
//!
//! The words hashed are short (`git`, `-r`, `docker compose`), so the hash
//! reads them a word of eight bytes at a time, the last few bytes in two
//! overlapping loads (or, when there are one to three, one at a time), and
//! mixes each in with one multiplication; a finishing step spreads every
//! input bit over the low bits (a table's first slot) and the high ones (a
//! slot's tag, a small table's slot, the spec index's filter bit). It is stable across builds and
//! platforms (little-endian loads), and not a defence against chosen
//! collisions: the tables are built from the taxonomy, and in a table a
//! collision costs a probe, never a wrong answer (each lookup compares
//! the word itself). The fingerprint is a consistency check only.

/// Odd, with its bits spread (the golden ratio's fraction): a multiplier
/// that carries each bit of a word into the higher ones.
const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;

/// The hash of `bytes`.
pub fn word_hash(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(SPREAD);
    let (words, tail) = bytes.as_chunks::<8>();
    for word in words {
        h = (h ^ u64::from_le_bytes(*word)).wrapping_mul(SPREAD);
    }
    let n = tail.len();
    // The last bytes, fewer than eight, as one word: two loads that
    // overlap when there are four to seven, the first, middle and last
    // byte when there are one to three. Either way every byte is read,
    // and the length (mixed in above) tells the cases apart.
    let last = if n >= 4 {
        let low = u32_at(tail, 0);
        let high = u32_at(tail, n - 4);
        u64::from(low) | (u64::from(high) << 32)
    } else if n > 0 {
        u64::from(tail[0]) | (u64::from(tail[n / 2]) << 8) | (u64::from(tail[n - 1]) << 16)
    } else {
        0
    };
    finish((h ^ last).wrapping_mul(SPREAD))
}

/// A hash combined with a small tag (a key's kind, a word's place), without
/// hashing the bytes again.
pub fn tagged(word_hash: u64, tag: u64) -> u64 {
    finish(word_hash ^ tag.wrapping_add(1).wrapping_mul(SPREAD))
}

/// Folds the high bits into the low ones and the low into the high.
fn finish(h: u64) -> u64 {
    let h = (h ^ (h >> 32)).wrapping_mul(SPREAD);
    h ^ (h >> 29)
}

/// The little-endian `u32` at byte `at` of `bytes` (in bounds: the caller
/// checked).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut le = [0u8; 4];
    le.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(le)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_and_the_length_count() {
        // Every string of up to 17 bytes over a few letters, and each with
        // one byte changed: no two of them hash alike (a collision is
        // allowed in principle, so this holds these inputs only, and shows
        // that no byte position is skipped).
        let mut seen = std::collections::HashMap::new();
        let alphabet = [b'a', b'b', 0u8];
        let mut strings: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=17usize {
            for base in 0..3u8 {
                for at in 0..len {
                    for &changed in &alphabet {
                        let mut s = vec![alphabet[usize::from(base)]; len];
                        s[at] = changed;
                        strings.push(s);
                    }
                }
            }
        }
        for s in strings {
            let h = word_hash(&s);
            if let Some(other) = seen.insert(h, s.clone()) {
                assert_eq!(other, s, "{other:?} and {s:?} hash alike");
            }
        }
    }

    #[test]
    fn the_tag_tells_the_same_word_apart() {
        let h = word_hash(b"rm");
        assert_ne!(tagged(h, 0), tagged(h, 1));
        assert_ne!(tagged(h, 0), h);
        assert_eq!(tagged(h, 3), tagged(word_hash(b"rm"), 3));
    }

    #[test]
    fn a_word_and_its_prefix_hash_apart() {
        for word in ["git", "git log", "abcdefgh", "abcdefghi", "docker compose"] {
            let bytes = word.as_bytes();
            for end in 0..bytes.len() {
                assert_ne!(
                    word_hash(bytes),
                    word_hash(&bytes[..end]),
                    "{word:?} at {end}"
                );
            }
        }
    }
}
