//! The bytes of a short line sorted into the classes the plain-line reader
//! asks about, sixty-four at a time: one bit per byte for each class.
//!
//! The plain-line reader looked at a line byte by byte, and for a line that
//! turned out not to be plain (a third of the corpus) it built every word
//! before the first special byte only to throw them away: 650 instructions
//! per such line. With the masks, a line that holds a special byte before
//! any quote is turned away at once, and a line of plain words is cut into
//! words at its blanks without looking at a byte twice.

use super::bytes::PLAIN_RUN;

/// The longest line the masks describe.
pub(super) const MAX_LEN: usize = 64;

/// Bit `i` of each mask describes byte `i` of the line; bits past its end
/// are clear in every mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LineMasks {
    /// Bytes a word made only of them means literally ([`PLAIN_RUN`]).
    pub plain: u64,
    /// Spaces and tabs.
    pub blank: u64,
    /// Single and double quotes.
    pub quote: u64,
    /// Every byte of the line.
    pub all: u64,
}

impl LineMasks {
    /// The masks of `line`, or `None` when it is longer than [`MAX_LEN`].
    pub fn of(line: &[u8]) -> Option<LineMasks> {
        if line.len() > MAX_LEN {
            return None;
        }
        let mut padded = [0u8; MAX_LEN];
        padded[..line.len()].copy_from_slice(line);
        let all = match line.len() {
            MAX_LEN => u64::MAX,
            n => (1u64 << n) - 1,
        };
        // Padding is a zero byte, in no class: it sets no bit. Only the
        // sixteen-byte chunks the line reaches into are looked at.
        let (plain, blank, quote) = classify(&padded, line.len().div_ceil(16));
        Some(LineMasks {
            plain,
            blank,
            quote,
            all,
        })
    }

    /// Bytes that are neither plain nor blank.
    pub fn other(&self) -> u64 {
        self.all & !(self.plain | self.blank)
    }
}

/// The plain, blank and quote masks of 64 bytes, sixteen at a time with
/// SSE2: plain bytes are the ranges `,` to `:` (with the digits), the
/// letters (`A`-`Z` folded onto `a`-`z`), `^` and `_`, and `#`, `%`, `=`
/// and `~` (a test holds this to [`PLAIN_RUN`]).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn classify(bytes: &[u8; MAX_LEN], chunks: usize) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_sub_epi8,
    };
    let (mut plain, mut blank, mut quote) = (0u64, 0u64, 0u64);
    for (k, chunk) in bytes.chunks_exact(16).take(chunks).enumerate() {
        // SAFETY: SSE2 is enabled for this target (the cfg above), and the
        // load reads exactly the sixteen bytes of `chunk` (unaligned loads
        // are allowed).
        let (p, b, q) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let set = |b: u8| _mm_set1_epi8(b as i8);
            // `lo <= x <= hi` for unsigned bytes: `x - lo`, wrapped, is at
            // most `hi - lo`.
            let within = |x: __m128i, lo: u8, hi: u8| {
                let d = _mm_sub_epi8(x, set(lo));
                _mm_cmpeq_epi8(_mm_min_epu8(d, set(hi - lo)), d)
            };
            let is = |b: u8| _mm_cmpeq_epi8(v, set(b));
            let letters = within(_mm_or_si128(v, set(0x20)), b'a', b'z');
            let plain = _mm_or_si128(
                _mm_or_si128(within(v, b',', b':'), letters),
                _mm_or_si128(
                    _mm_or_si128(within(v, b'^', b'_'), is(b'#')),
                    _mm_or_si128(_mm_or_si128(is(b'%'), is(b'=')), is(b'~')),
                ),
            );
            let blank = _mm_or_si128(is(b' '), is(b'\t'));
            let quote = _mm_or_si128(is(b'\''), is(b'"'));
            (
                _mm_movemask_epi8(plain) as u16,
                _mm_movemask_epi8(blank) as u16,
                _mm_movemask_epi8(quote) as u16,
            )
        };
        let shift = 16 * k;
        plain |= u64::from(p) << shift;
        blank |= u64::from(b) << shift;
        quote |= u64::from(q) << shift;
    }
    (plain, blank, quote)
}

/// [`classify`] a byte at a time.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn classify_bytes(bytes: &[u8; MAX_LEN]) -> (u64, u64, u64) {
    let (mut plain, mut blank, mut quote) = (0u64, 0u64, 0u64);
    for (i, &b) in bytes.iter().enumerate() {
        let bit = 1u64 << i;
        if PLAIN_RUN[usize::from(b)] {
            plain |= bit;
        }
        if matches!(b, b' ' | b'\t') {
            blank |= bit;
        }
        if matches!(b, b'\'' | b'"') {
            quote |= bit;
        }
    }
    (plain, blank, quote)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn classify(bytes: &[u8; MAX_LEN], _chunks: usize) -> (u64, u64, u64) {
    classify_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_value_at_every_position_is_classed_as_the_tables_class_it() {
        for b in 0..=255u8 {
            for at in 0..MAX_LEN {
                let mut bytes = [b'a'; MAX_LEN];
                bytes[at] = b;
                let all = classify(&bytes, MAX_LEN / 16);
                assert_eq!(all, classify_bytes(&bytes), "byte {b:#x} at {at}");
                // Chunks past the one holding the byte are left out.
                let (plain, blank, quote) = classify(&bytes, at / 16 + 1);
                let below = u64::MAX >> (MAX_LEN - 16 * (at / 16 + 1));
                assert_eq!(
                    (plain, blank, quote),
                    (all.0 & below, all.1 & below, all.2 & below)
                );
            }
        }
    }

    #[test]
    fn masks_cover_the_line_and_nothing_past_it() {
        let m = LineMasks::of(b"git  'x'\tmv\x01").unwrap_or_else(|| panic!("short"));
        assert_eq!(m.all, 0b1111_1111_1111);
        assert_eq!(m.plain, 0b0110_0100_0111);
        assert_eq!(m.blank, 0b0001_0001_1000);
        assert_eq!(m.quote, 0b0000_1010_0000);
        assert_eq!(m.other(), 0b1000_1010_0000);
        let long = [b'a'; MAX_LEN];
        assert_eq!(LineMasks::of(&long).map(|m| m.all), Some(u64::MAX));
        assert_eq!(LineMasks::of(&[b'a'; MAX_LEN + 1]), None);
        assert_eq!(LineMasks::of(b"").map(|m| m.all), Some(0));
    }
}
