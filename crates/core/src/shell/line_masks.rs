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
        let all = match line.len() {
            MAX_LEN => u64::MAX,
            n => (1u64 << n) - 1,
        };
        let (plain, blank, quote) = classify(line);
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

/// Each byte's class as two bits, the three classes being disjoint: bit 0
/// set for a plain byte or a quote, bit 32 for a blank or a quote. Shifted
/// by the byte's place in a run of 32 bytes, the two bits land in the two
/// halves of one word.
const CLASS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b' ' | b'\t' => 1 << 32,
            b'\'' | b'"' => 1 | 1 << 32,
            _ if PLAIN_RUN[b] => 1,
            _ => 0,
        };
        b += 1;
    }
    table
};

/// The plain, blank and quote masks of a line's bytes, a byte at a time:
/// one lookup of the byte's class bits and one shift, thirty-two bytes to
/// a word. (SSE2, sixteen bytes at a time, saved 7% of a scan's
/// instructions and no measurable time; packing eight classes into a word
/// and gathering each bit by multiplication, 1.3%: BENCHMARKS.md,
/// "Tricks".)
fn classify(bytes: &[u8]) -> (u64, u64, u64) {
    // (Two runs of 32 at most: [`LineMasks::of`] asks of short lines.)
    debug_assert!(bytes.len() <= MAX_LEN);
    let (mut low, mut high) = (0u64, 0u64);
    for (half, run) in bytes.chunks(32).enumerate() {
        let mut bits = 0u64;
        for (i, &b) in run.iter().enumerate() {
            bits |= CLASS[usize::from(b)] << i;
        }
        low |= (bits & 0xffff_ffff) << (32 * half);
        high |= (bits >> 32) << (32 * half);
    }
    (low & !high, high & !low, low & high)
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
                let (plain, blank, quote) = classify(&bytes);
                let bit = 1u64 << at;
                assert_eq!(plain & bit != 0, PLAIN_RUN[usize::from(b)], "{b:#x}");
                assert_eq!(blank & bit != 0, matches!(b, b' ' | b'\t'), "{b:#x}");
                assert_eq!(quote & bit != 0, matches!(b, b'\'' | b'"'), "{b:#x}");
                // Every other byte is the plain `a`.
                assert_eq!(plain | bit, u64::MAX, "{b:#x} at {at}");
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
