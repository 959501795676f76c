//! A shipped group's DFA as a table: one 16-bit next state per state and
//! byte class, read in place.
//!
//! regex-automata's sparse DFAs, which the binary used to carry, keep each
//! state's transitions as byte ranges, searched one by one, and decode the
//! state's layout on every byte: most of a scan's matching time went there.
//! `build.rs` therefore writes each group's DFA (and each post-check's) out
//! as this table instead, from the dense DFA it built, through
//! regex-automata's public API; a search reads one entry per byte.
//!
//! `build.rs` includes this file to write tables; the `u32`s are
//! [`crate::le_words`]'s.
//! Layout, integers little-endian:
//!
//! * [`MAGIC`] (8 bytes), then six `u32`: columns (byte classes and the
//!   end of input), states, the start state, the first match state, the
//!   number of patterns, and the bytes of one entry (2 or 4);
//! * 256 bytes: each byte's column;
//! * states × columns entries: the next states (the last column: at the
//!   end of the input). State 0 is the dead state; match states are
//!   numbered last, from the first match state on. A next state is written
//!   as the index of its row's first entry (its number times the columns),
//!   so that each byte of a search costs an addition and a load, no
//!   multiplication: the search is a chain of dependent loads, and the
//!   multiply lengthened every link. Entries are 16-bit where every such
//!   index fits ([`premultiplied`]); a bigger table has 16-bit state
//!   numbers (the small binary wins) or, written [`Width::Wide`], 32-bit
//!   indices (the search wins: the secret keywords' table, which a look
//!   runs over every byte it reads);
//! * match states + 1 `u32`: where each match state's patterns start in
//!   the list that follows (and where the last one's end);
//! * the pattern ids, `u32` each.
//!
//! As in regex-automata, a match is seen one byte late: entering a match
//! state after a byte (or at the end of the input) means its patterns
//! matched before it.

use crate::le_words::{le_u32, push_words, u32_of};

/// The first bytes of a table.
pub const MAGIC: &[u8; 8] = b"tgtable3";

const HEADER: usize = 8 + 6 * 4;

/// How a table that does not fit 16-bit indices is written.
#[allow(dead_code)] // only build.rs writes tables
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 16-bit state numbers: half the bytes of [`Width::Wide`].
    Narrow,
    /// 32-bit entry indices: no multiplication in a search.
    Wide,
}

/// How a table's entries are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// 16-bit state numbers.
    Numbers,
    /// 16-bit entry indices.
    Premultiplied,
    /// 32-bit entry indices.
    Wide,
}

impl Layout {
    fn of(states: usize, columns: usize, width: Width) -> Layout {
        if premultiplied(states, columns) {
            Layout::Premultiplied
        } else if width == Width::Wide {
            Layout::Wide
        } else {
            Layout::Numbers
        }
    }

    /// Handles per state number: a state is named by its row's first
    /// entry, or by its number where entries are state numbers.
    fn unit(self, columns: usize) -> usize {
        if self == Layout::Numbers {
            1
        } else {
            columns
        }
    }

    /// The bytes of one entry.
    fn entry_bytes(self) -> usize {
        if self == Layout::Wide {
            4
        } else {
            2
        }
    }
}

/// One state as `build.rs` writes it: its next states by column, and the
/// patterns it matches (empty for a state that is not a match state).
#[allow(dead_code)] // only build.rs writes tables
pub struct WrittenState {
    pub next: Vec<u16>,
    pub patterns: Vec<u32>,
}

/// Writes a table. `states[0]` must be the dead state, `start` an index
/// into `states`, and the match states (those with patterns) must come
/// last, from `first_match` on.
#[allow(dead_code)] // only build.rs writes tables
pub fn write(
    columns: &[u8; 256],
    column_count: usize,
    start: usize,
    first_match: usize,
    pattern_count: usize,
    states: &[WrittenState],
    width: Width,
) -> Vec<u8> {
    let layout = Layout::of(states.len(), column_count, width);
    let entry = layout.entry_bytes();
    let mut out = Vec::with_capacity(HEADER + 256 + states.len() * column_count * entry);
    let unit = layout.unit(column_count);
    out.extend_from_slice(MAGIC);
    let header = [
        column_count,
        states.len(),
        start,
        first_match,
        pattern_count,
        entry,
    ];
    push_words(&mut out, &header.map(u32_of));
    out.extend_from_slice(columns);
    for s in states {
        for &next in &s.next {
            let written = usize::from(next) * unit;
            if entry == 4 {
                out.extend_from_slice(&u32_of(written).to_le_bytes());
            } else {
                let narrow = u16::try_from(written).unwrap_or(u16::MAX);
                out.extend_from_slice(&narrow.to_le_bytes());
            }
        }
    }
    let mut at = 0;
    for s in &states[first_match..] {
        push_words(&mut out, &[u32_of(at)]);
        at += s.patterns.len();
    }
    push_words(&mut out, &[u32_of(at)]);
    for s in &states[first_match..] {
        push_words(&mut out, &s.patterns);
    }
    out
}

/// True when a table of `states` × `columns` entries writes its next
/// states as entry indices: every index, and one past the last row (the
/// first match state of a table with none), must fit in 16 bits.
pub fn premultiplied(states: usize, columns: usize) -> bool {
    states.saturating_mul(columns) < 1 << 16
}

/// A table read in place. Its sizes are checked once; each next state and
/// pattern list is checked as it is read (a wide table's next state by the
/// read of the entry it leads to), so a damaged table fails a search (and
/// the group is compiled at run time) rather than reading out of it.
///
/// A state is named by what its table writes for it: its number, or for a
/// [`premultiplied`] or wide table its row's first entry index (a
/// "handle").
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    columns: &'a [u8; 256],
    column_count: usize,
    /// Handles per state number: the columns, or 1 for state numbers.
    unit: usize,
    layout: Layout,
    /// One past the last state's handle.
    handles: usize,
    start: u32,
    first_match: u32,
    pattern_count: usize,
    next: &'a [u8],
    match_at: &'a [u8],
    ids: &'a [u8],
}

/// A table entry that does not fit the table: only a damaged binary could
/// hold one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Damaged;

/// The layouts as constants, for the searches compiled once per layout.
const NUMBERS: u8 = 0;
const PREMULTIPLIED: u8 = 1;
const WIDE: u8 = 2;

impl<'a> Table<'a> {
    /// Reads a table's header; `None` if `bytes` is not a table or its
    /// sizes do not add up.
    pub fn new(bytes: &'a [u8]) -> Option<Table<'a>> {
        if bytes.get(..8)? != MAGIC {
            return None;
        }
        let word = |k: usize| le_u32(bytes, 8 + k * 4).map(|w| w as usize);
        let (column_count, state_count) = (word(0)?, word(1)?);
        let (start, first_match, pattern_count) = (word(2)?, word(3)?, word(4)?);
        let entry = word(5)?;
        if column_count < 2 || start >= state_count || first_match > state_count {
            return None;
        }
        let width = if entry == 4 {
            Width::Wide
        } else {
            Width::Narrow
        };
        let layout = Layout::of(state_count, column_count, width);
        if layout.entry_bytes() != entry {
            return None;
        }
        let next_len = state_count.checked_mul(column_count)?.checked_mul(entry)?;
        let columns: &[u8; 256] = bytes.get(HEADER..HEADER + 256)?.try_into().ok()?;
        let next_at = HEADER + 256;
        let next = bytes.get(next_at..next_at.checked_add(next_len)?)?;
        let match_at_len = (state_count - first_match + 1) * 4;
        let match_at = bytes.get(next_at + next_len..)?.get(..match_at_len)?;
        let ids = bytes.get(next_at + next_len + match_at_len..)?;
        // Every column a byte names, and the end of input's, must exist.
        if columns.iter().any(|&c| usize::from(c) + 1 >= column_count) {
            return None;
        }
        let unit = layout.unit(column_count);
        let handle = |number: usize| u32::try_from(number.checked_mul(unit)?).ok();
        Some(Table {
            columns,
            column_count,
            unit,
            layout,
            handles: state_count.checked_mul(unit)?,
            start: handle(start)?,
            first_match: handle(first_match)?,
            pattern_count,
            next,
            match_at,
            ids,
        })
    }

    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// How many patterns the table's DFA was built from.
    pub fn pattern_count(&self) -> usize {
        self.pattern_count
    }

    /// The entry of `state` for `column`; `L` is the layout, so that the
    /// searches below are compiled once for each and the premultiplied
    /// ones have no multiplication.
    #[inline(always)]
    fn entry_in<const L: u8>(&self, state: u32, column: usize) -> Result<u32, Damaged> {
        let row = if L == NUMBERS {
            state as usize * self.column_count
        } else {
            state as usize
        };
        let next = if L == WIDE {
            let i = (row + column) * 4;
            let bytes = self.next.get(i..i + 4).ok_or(Damaged)?;
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        } else {
            let i = (row + column) * 2;
            let bytes = self.next.get(i..i + 2).ok_or(Damaged)?;
            u32::from(u16::from_le_bytes([bytes[0], bytes[1]]))
        };
        // A wide table's next state is checked only by the bounds check of
        // the entry it leads to: a damaged one could mislead a search,
        // never read out of the table, and the wide table's searches are
        // the look's hottest loop (the check took a register there).
        if L == WIDE || (next as usize) < self.handles {
            Ok(next)
        } else {
            Err(Damaged)
        }
    }

    fn entry(&self, state: u32, column: usize) -> Result<u32, Damaged> {
        match self.layout {
            Layout::Numbers => self.entry_in::<NUMBERS>(state, column),
            Layout::Premultiplied => self.entry_in::<PREMULTIPLIED>(state, column),
            Layout::Wide => self.entry_in::<WIDE>(state, column),
        }
    }

    #[inline(always)]
    fn next_in<const L: u8>(&self, state: u32, byte: u8) -> Result<u32, Damaged> {
        self.entry_in::<L>(state, usize::from(self.columns[usize::from(byte)]))
    }

    /// The state after `byte`.
    #[inline]
    pub fn next(&self, state: u32, byte: u8) -> Result<u32, Damaged> {
        self.entry(state, usize::from(self.columns[usize::from(byte)]))
    }

    /// The state at the end of the input.
    pub fn next_eoi(&self, state: u32) -> Result<u32, Damaged> {
        self.entry(state, self.column_count - 1)
    }

    /// True for a match state.
    #[inline]
    pub fn is_match_state(&self, state: u32) -> bool {
        state >= self.first_match
    }

    /// True for the dead state, which no input leaves.
    #[inline]
    pub fn is_dead(&self, state: u32) -> bool {
        state == 0
    }

    /// The patterns a match state matches.
    pub fn patterns(&self, state: u32) -> Result<impl Iterator<Item = usize> + 'a, Damaged> {
        let k = (state.checked_sub(self.first_match).ok_or(Damaged)? as usize) / self.unit;
        let from = le_u32(self.match_at, k * 4).ok_or(Damaged)? as usize;
        let to = le_u32(self.match_at, k * 4 + 4).ok_or(Damaged)? as usize;
        let ids = self
            .ids
            .get(from.checked_mul(4).ok_or(Damaged)?..to.checked_mul(4).ok_or(Damaged)?)
            .ok_or(Damaged)?;
        let ids = ids
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize);
        // A pattern the DFA was not built from fails the search rather than
        // being left out.
        if ids.clone().any(|p| p >= self.pattern_count) {
            return Err(Damaged);
        }
        Ok(ids)
    }

    /// Reads every entry of the table: the test suite's check that the
    /// shipped tables are whole (searches check only what they read).
    #[cfg(test)]
    pub fn check(&self) -> Result<(), Damaged> {
        for number in 0..self.handles / self.unit {
            let state = u32::try_from(number * self.unit).map_err(|_| Damaged)?;
            for column in 0..self.column_count {
                if !(self.entry(state, column)? as usize).is_multiple_of(self.unit) {
                    return Err(Damaged);
                }
            }
            if self.is_match_state(state) {
                self.patterns(state)?.for_each(drop);
            }
        }
        Ok(())
    }

    /// The state after reading `prefix` from the start, when no state on
    /// the way is a match or the dead state.
    pub fn state_after(&self, prefix: &[u8]) -> Option<u32> {
        let mut state = self.start;
        for &b in prefix {
            state = self.next(state, b).ok()?;
            if self.is_match_state(state) || self.is_dead(state) {
                return None;
            }
        }
        Some(state)
    }

    /// True when some pattern matches somewhere in `haystack` (the table
    /// of an unanchored DFA): the search stops at the first match state.
    pub fn is_match(&self, haystack: &[u8]) -> Result<bool, Damaged> {
        match self.layout {
            Layout::Numbers => self.is_match_in::<NUMBERS>(haystack),
            Layout::Premultiplied => self.is_match_in::<PREMULTIPLIED>(haystack),
            Layout::Wide => self.is_match_in::<WIDE>(haystack),
        }
    }

    fn is_match_in<const L: u8>(&self, haystack: &[u8]) -> Result<bool, Damaged> {
        let mut state = self.start;
        for &b in haystack {
            state = self.next_in::<L>(state, b)?;
            if self.is_match_state(state) {
                return Ok(true);
            } else if self.is_dead(state) {
                return Ok(false);
            }
        }
        Ok(self.is_match_state(self.next_eoi(state)?))
    }

    /// Calls `found` with every pattern that matches when the DFA, in
    /// `state`, reads `rest` and then the end of the input.
    pub fn which_matches_from(
        &self,
        state: u32,
        rest: &[u8],
        found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        match self.layout {
            Layout::Numbers => self.which_matches_in::<NUMBERS>(state, rest, found),
            Layout::Premultiplied => self.which_matches_in::<PREMULTIPLIED>(state, rest, found),
            Layout::Wide => self.which_matches_in::<WIDE>(state, rest, found),
        }
    }

    fn which_matches_in<const L: u8>(
        &self,
        mut state: u32,
        rest: &[u8],
        mut found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        for &b in rest {
            state = self.next_in::<L>(state, b)?;
            if self.is_match_state(state) {
                self.patterns(state)?.for_each(&mut found);
            } else if self.is_dead(state) {
                return Ok(());
            }
        }
        state = self.next_eoi(state)?;
        if self.is_match_state(state) {
            self.patterns(state)?.for_each(&mut found);
        }
        Ok(())
    }

    /// Calls `found(end)` for every offset `end` of `haystack` at which
    /// some pattern's match ends (an unanchored table), in no particular
    /// order and some more than once, where no pattern is longer than
    /// `longest` bytes.
    ///
    /// A long haystack is searched as four quarters at once, each read
    /// `longest - 1` bytes into the next so that a match across a boundary
    /// is found: the four chains of dependent loads overlap in the
    /// processor, where one chain waits on each load in turn (about three
    /// times the speed on the secret keywords' table; see BENCHMARKS.md).
    pub fn match_ends(
        &self,
        haystack: &[u8],
        longest: usize,
        found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        match self.layout {
            Layout::Numbers => self.match_ends_in::<NUMBERS>(haystack, longest, found),
            Layout::Premultiplied => self.match_ends_in::<PREMULTIPLIED>(haystack, longest, found),
            Layout::Wide => self.match_ends_in::<WIDE>(haystack, longest, found),
        }
    }

    fn match_ends_in<const L: u8>(
        &self,
        haystack: &[u8],
        longest: usize,
        mut found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        const STREAMS: usize = 4;
        let quarter = haystack.len() / STREAMS;
        let overlap = longest.saturating_sub(1);
        // Each stream's first byte, and one past its last.
        let from: [usize; STREAMS] = std::array::from_fn(|k| k * quarter);
        let to: [usize; STREAMS] = std::array::from_fn(|k| {
            if k + 1 == STREAMS {
                haystack.len()
            } else {
                ((k + 1) * quarter + overlap).min(haystack.len())
            }
        });
        // In step while every stream has bytes left, the four states in
        // four variables (registers, not memory).
        let together = (0..STREAMS).map(|k| to[k] - from[k]).min().unwrap_or(0);
        let part = |k: usize| &haystack[from[k]..from[k] + together];
        let (mut s0, mut s1, mut s2, mut s3) = (self.start, self.start, self.start, self.start);
        let bytes = part(0).iter().zip(part(1)).zip(part(2)).zip(part(3));
        for (i, (((&b0, &b1), &b2), &b3)) in bytes.enumerate() {
            s0 = self.next_in::<L>(s0, b0)?;
            s1 = self.next_in::<L>(s1, b1)?;
            s2 = self.next_in::<L>(s2, b2)?;
            s3 = self.next_in::<L>(s3, b3)?;
            if self.is_match_state(s0.max(s1).max(s2).max(s3)) {
                // Seen one byte late: a match ended before this byte.
                for (k, s) in [s0, s1, s2, s3].into_iter().enumerate() {
                    if self.is_match_state(s) {
                        found(from[k] + i);
                    }
                }
            }
        }
        let mut state = [s0, s1, s2, s3];
        // Then each stream's rest on its own.
        for k in 0..STREAMS {
            for (i, &b) in haystack[from[k] + together..to[k]].iter().enumerate() {
                state[k] = self.next_in::<L>(state[k], b)?;
                if self.is_match_state(state[k]) {
                    found(from[k] + together + i);
                }
            }
        }
        if self.is_match_state(self.next_eoi(state[STREAMS - 1])?) {
            found(haystack.len());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table for `ab` (anchored), by hand: columns a, b, other, end.
    fn ab() -> Vec<u8> {
        ab_with(0, Width::Narrow)
    }

    /// [`ab`] with `filler` states no input reaches before its match state,
    /// to make a table too big to be premultiplied.
    fn ab_with(filler: usize, width: Width) -> Vec<u8> {
        let mut columns = [2u8; 256];
        columns[usize::from(b'a')] = 0;
        columns[usize::from(b'b')] = 1;
        let state = |next: [u16; 4], patterns: Vec<u32>| WrittenState {
            next: next.to_vec(),
            patterns,
        };
        let matched = u16::try_from(3 + filler).unwrap_or(u16::MAX);
        let mut states = vec![
            state([0, 0, 0, 0], vec![]),
            // start: `a` goes on
            state([2, 0, 0, 0], vec![]),
            // after `a`: `b` completes, seen one byte late
            state([0, matched, 0, 0], vec![]),
        ];
        states.extend((0..filler).map(|_| state([0, 0, 0, 0], vec![])));
        // after `ab`: whatever comes next, pattern 0 matched
        states.push(state([matched; 4], vec![0]));
        write(&columns, 4, 1, usize::from(matched), 1, &states, width)
    }

    #[test]
    fn a_written_table_reads_back_and_finds_its_pattern() {
        // Premultiplied (4 states of 4 columns), and too big for that
        // (16,400 states): numbered, or wide.
        for (filler, width, layout, after_a) in [
            (0, Width::Narrow, Layout::Premultiplied, 8),
            (0, Width::Wide, Layout::Premultiplied, 8),
            (16_396, Width::Narrow, Layout::Numbers, 2),
            (16_396, Width::Wide, Layout::Wide, 8),
        ] {
            let bytes = ab_with(filler, width);
            let table = Table::new(&bytes).unwrap_or_else(|| panic!("not a table"));
            assert_eq!(table.layout, layout);
            for (hay, want) in [
                ("ab", vec![0]),
                ("abc", vec![0]),
                ("a", vec![]),
                ("ba", vec![]),
            ] {
                let mut got = Vec::new();
                let r = table.which_matches_from(table.start(), hay.as_bytes(), |p| got.push(p));
                assert_eq!(r, Ok(()));
                got.dedup();
                assert_eq!(got, want, "{hay}");
                assert_eq!(
                    table.is_match(hay.as_bytes()),
                    Ok(!want.is_empty()),
                    "{hay}"
                );
            }
            // A premultiplied or wide table names state 2 by its row's
            // first entry, 2 × 4 columns.
            assert_eq!(table.state_after(b"a"), Some(after_a));
            assert_eq!(table.state_after(b"ab"), None);
            assert_eq!(table.check(), Ok(()));
        }
    }

    #[test]
    fn damaged_tables_are_refused_or_fail_their_searches() {
        let bytes = ab();
        assert!(Table::new(&bytes[..bytes.len() - 1])
            .is_some_and(|t| { t.which_matches_from(t.start(), b"ab", |_| {}) == Err(Damaged) }));
        assert!(Table::new(&bytes[..100]).is_none());
        let mut wrong = bytes.clone();
        wrong[0] = b'x';
        assert!(Table::new(&wrong).is_none());
        // A next state past the last one (4 states of 4 columns).
        let mut out_of_range = bytes.clone();
        // State 1 (the start), column 0.
        let at = HEADER + 256 + 4 * 2;
        out_of_range[at..at + 2].copy_from_slice(&16u16.to_le_bytes());
        let t = Table::new(&out_of_range).unwrap_or_else(|| panic!("header"));
        assert_eq!(t.which_matches_from(t.start(), b"a", |_| {}), Err(Damaged));
        // A premultiplied next state between two rows: searches read only
        // inside the table, and the test suite's check finds it.
        let mut between = bytes.clone();
        between[at..at + 2].copy_from_slice(&5u16.to_le_bytes());
        let t = Table::new(&between).unwrap_or_else(|| panic!("header"));
        assert_eq!(t.check(), Err(Damaged));
        // A pattern the DFA was not built from.
        let mut unknown_pattern = bytes.clone();
        let end = unknown_pattern.len();
        unknown_pattern[end - 4..].copy_from_slice(&5u32.to_le_bytes());
        let t = Table::new(&unknown_pattern).unwrap_or_else(|| panic!("header"));
        assert_eq!(t.which_matches_from(t.start(), b"ab", |_| {}), Err(Damaged));
        assert_eq!(t.check(), Err(Damaged));
    }
}
