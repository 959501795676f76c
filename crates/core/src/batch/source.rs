//! Where a batch's items come from: a chunk at a time, into the caller's
//! own chunk type.

use std::ops::Range;

/// What a batch reads its items from, a chunk at a time.
///
/// A chunk is whatever suits the items: a `Vec` of them ([`IterSource`]), a
/// range of indices into a slice, or raw bytes read straight from a file
/// with the positions of their lines (`toolgate scan`'s), so that nothing
/// is copied per item. Each thread keeps its own chunk and hands it back to
/// be refilled, so its buffers are reused. One thread at a time fills; a
/// source needs to be [`Send`] only.
pub trait Source: Send {
    /// A chunk of items, as [`Source::fill`] leaves it for the work.
    type Chunk: Default;

    /// Replaces what `chunk` holds with the next items, at most `max`
    /// (which is at least one); `false` when no item is left, and then
    /// the chunk is not looked at and the source is not asked again.
    fn fill(&mut self, max: usize, chunk: &mut Self::Chunk) -> bool;

    /// At most how many items are left, if known: a batch starts no more
    /// threads than there are chunks.
    fn size_hint(&self) -> Option<usize> {
        None
    }
}

/// A source lent: the caller keeps it, and whatever it noted while read
/// (an input that failed, how far it got).
impl<S: Source + ?Sized> Source for &mut S {
    type Chunk = S::Chunk;

    fn fill(&mut self, max: usize, chunk: &mut S::Chunk) -> bool {
        (**self).fill(max, chunk)
    }

    fn size_hint(&self) -> Option<usize> {
        (**self).size_hint()
    }
}

/// The items of an iterator, in chunks of `Vec`s: items are moved, not
/// copied, and owned (`String`) or borrowed (`&str`) alike.
#[derive(Clone, Debug)]
pub struct IterSource<I>(I);

impl<I: Iterator> IterSource<I> {
    /// The items `items` yields, in order.
    pub fn new(items: impl IntoIterator<IntoIter = I>) -> IterSource<I> {
        IterSource(items.into_iter())
    }
}

impl<I: Iterator + Send> Source for IterSource<I> {
    type Chunk = Vec<I::Item>;

    fn fill(&mut self, max: usize, chunk: &mut Vec<I::Item>) -> bool {
        chunk.clear();
        chunk.extend(self.0.by_ref().take(max));
        !chunk.is_empty()
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint().1
    }
}

/// The indices `0..n`, in chunks of ranges: for items in a slice, which
/// the work reads in place.
pub(super) struct Indices {
    pub(super) next: usize,
    pub(super) end: usize,
}

impl Source for Indices {
    type Chunk = Range<usize>;

    fn fill(&mut self, max: usize, chunk: &mut Range<usize>) -> bool {
        let start = self.next;
        self.next = start.saturating_add(max).min(self.end);
        *chunk = start..self.next;
        start < self.next
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.end - self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_iterator_is_cut_into_chunks_of_at_most_max() {
        let mut source = IterSource::new(0..7);
        assert_eq!(source.size_hint(), Some(7));
        let mut chunk = vec![99];
        let mut got = Vec::new();
        while source.fill(3, &mut chunk) {
            got.push(chunk.clone());
        }
        assert_eq!(got, [vec![0, 1, 2], vec![3, 4, 5], vec![6]]);
    }

    #[test]
    fn indices_are_cut_into_ranges() {
        let mut source = Indices { next: 0, end: 5 };
        let mut chunk = 0..0;
        let mut got = Vec::new();
        while source.fill(2, &mut chunk) {
            got.push(chunk.clone());
        }
        assert_eq!(got, [0..2, 2..4, 4..5]);
        assert_eq!(source.size_hint(), Some(0));
        let mut empty = Indices { next: 0, end: 0 };
        assert!(!empty.fill(1, &mut chunk));
    }
}
