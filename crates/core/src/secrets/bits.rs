//! A set of small numbers, a bit each, in place: the detectors a line
//! calls for, the secret-file tables a path matches, the bytes a suffix
//! list ends with.

/// The numbers below `64 * W`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bits<const W: usize>([u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Bits([0; W])
    }
}

impl<const W: usize> Bits<W> {
    pub(crate) fn add(&mut self, n: usize) {
        self.0[n / 64] |= 1 << (n % 64);
    }

    pub(crate) fn has(&self, n: usize) -> bool {
        self.0[n / 64] & (1 << (n % 64)) != 0
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The numbers in the set, smallest first: a step per number held,
    /// not per number that could be.
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(w, mut word)| {
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let n = word.trailing_zeros() as usize;
                    word &= word - 1;
                    64 * w + n
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn numbers_are_kept_each_in_its_own_bit() {
        let mut set = Bits::<2>::default();
        assert!(set.is_empty());
        for n in [0, 63, 64, 127, 5] {
            set.add(n);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 127]);
        assert!(set.has(64) && !set.has(65) && !set.is_empty());
    }
}
