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
//! `build.rs` includes this file to write tables; like `plan`, it names its
//! sibling `schema` for the packed forms' one writer and reader of `u32`s.
//! Layout, integers little-endian:
//!
//! * [`MAGIC`] (8 bytes), then five `u32`: columns (byte classes and the
//!   end of input), states, the start state, the first match state, and the
//!   number of patterns;
//! * 256 bytes: each byte's column;
//! * states × columns `u16`: the next states (the last column: at the end
//!   of the input). State 0 is the dead state; match states are numbered
//!   last, from the first match state on. When states × columns fits in
//!   16 bits ([`premultiplied`]), a next state is written as the index of
//!   its row's first entry (its number times the columns), so that each
//!   byte of a search costs an addition and a load, no multiplication: the
//!   search is a chain of dependent loads, and the multiply lengthened
//!   every link;
//! * match states + 1 `u32`: where each match state's patterns start in
//!   the list that follows (and where the last one's end);
//! * the pattern ids, `u32` each.
//!
//! As in regex-automata, a match is seen one byte late: entering a match
//! state after a byte (or at the end of the input) means its patterns
//! matched before it.

use super::schema::{le_u32, push_words, u32_of};

/// The first bytes of a table.
pub const MAGIC: &[u8; 8] = b"tgtable2";

const HEADER: usize = 8 + 5 * 4;

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
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 256 + states.len() * column_count * 2);
    let unit = if premultiplied(states.len(), column_count) {
        column_count
    } else {
        1
    };
    out.extend_from_slice(MAGIC);
    let header = [
        column_count,
        states.len(),
        start,
        first_match,
        pattern_count,
    ];
    push_words(&mut out, &header.map(u32_of));
    out.extend_from_slice(columns);
    for s in states {
        for &next in &s.next {
            let written = u16::try_from(usize::from(next) * unit).unwrap_or(u16::MAX);
            out.extend_from_slice(&written.to_le_bytes());
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
/// pattern list is checked as it is read, so a damaged table fails a search
/// (and the group is compiled at run time) rather than reading out of it.
///
/// A state is named by what its table writes for it: its number, or for a
/// [`premultiplied`] table its row's first entry index (a "handle").
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    columns: &'a [u8; 256],
    column_count: usize,
    /// Handles per state number: the columns for a premultiplied table,
    /// else 1.
    unit: usize,
    /// True for a premultiplied table.
    premultiplied: bool,
    /// One past the last state's handle.
    handles: usize,
    start: u16,
    first_match: u16,
    pattern_count: usize,
    next: &'a [u8],
    match_at: &'a [u8],
    ids: &'a [u8],
}

/// A table entry that does not fit the table: only a damaged binary could
/// hold one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Damaged;

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
        if column_count < 2 || start >= state_count || first_match > state_count {
            return None;
        }
        let next_len = state_count.checked_mul(column_count)?.checked_mul(2)?;
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
        let premultiplied = premultiplied(state_count, column_count);
        let unit = if premultiplied { column_count } else { 1 };
        let handle = |number: usize| u16::try_from(number * unit).ok();
        Some(Table {
            columns,
            column_count,
            unit,
            premultiplied,
            handles: state_count * unit,
            start: handle(start)?,
            first_match: handle(first_match)?,
            pattern_count,
            next,
            match_at,
            ids,
        })
    }

    /// The start state.
    pub fn start(&self) -> u16 {
        self.start
    }

    /// How many patterns the table's DFA was built from.
    pub fn pattern_count(&self) -> usize {
        self.pattern_count
    }

    /// The entry of `state` for `column`; `P` says whether the table is
    /// premultiplied, so that the searches below are compiled once for
    /// each layout and the premultiplied one has no multiplication.
    #[inline(always)]
    fn entry_in<const P: bool>(&self, state: u16, column: usize) -> Result<u16, Damaged> {
        let row = if P {
            usize::from(state)
        } else {
            usize::from(state) * self.column_count
        };
        let i = (row + column) * 2;
        let bytes = self.next.get(i..i + 2).ok_or(Damaged)?;
        let next = u16::from_le_bytes([bytes[0], bytes[1]]);
        if usize::from(next) < self.handles {
            Ok(next)
        } else {
            Err(Damaged)
        }
    }

    fn entry(&self, state: u16, column: usize) -> Result<u16, Damaged> {
        if self.premultiplied {
            self.entry_in::<true>(state, column)
        } else {
            self.entry_in::<false>(state, column)
        }
    }

    #[inline(always)]
    fn next_in<const P: bool>(&self, state: u16, byte: u8) -> Result<u16, Damaged> {
        self.entry_in::<P>(state, usize::from(self.columns[usize::from(byte)]))
    }

    /// The state after `byte`.
    #[inline]
    pub fn next(&self, state: u16, byte: u8) -> Result<u16, Damaged> {
        self.entry(state, usize::from(self.columns[usize::from(byte)]))
    }

    /// The state at the end of the input.
    pub fn next_eoi(&self, state: u16) -> Result<u16, Damaged> {
        self.entry(state, self.column_count - 1)
    }

    /// True for a match state.
    #[inline]
    pub fn is_match_state(&self, state: u16) -> bool {
        state >= self.first_match
    }

    /// True for the dead state, which no input leaves.
    #[inline]
    pub fn is_dead(&self, state: u16) -> bool {
        state == 0
    }

    /// The patterns a match state matches.
    pub fn patterns(&self, state: u16) -> Result<impl Iterator<Item = usize> + 'a, Damaged> {
        let k = usize::from(state.checked_sub(self.first_match).ok_or(Damaged)?) / self.unit;
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
            let state = u16::try_from(number * self.unit).map_err(|_| Damaged)?;
            for column in 0..self.column_count {
                if usize::from(self.entry(state, column)?) % self.unit != 0 {
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
    pub fn state_after(&self, prefix: &[u8]) -> Option<u16> {
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
        if self.premultiplied {
            self.is_match_in::<true>(haystack)
        } else {
            self.is_match_in::<false>(haystack)
        }
    }

    fn is_match_in<const P: bool>(&self, haystack: &[u8]) -> Result<bool, Damaged> {
        let mut state = self.start;
        for &b in haystack {
            state = self.next_in::<P>(state, b)?;
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
        state: u16,
        rest: &[u8],
        found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        if self.premultiplied {
            self.which_matches_in::<true>(state, rest, found)
        } else {
            self.which_matches_in::<false>(state, rest, found)
        }
    }

    fn which_matches_in<const P: bool>(
        &self,
        mut state: u16,
        rest: &[u8],
        mut found: impl FnMut(usize),
    ) -> Result<(), Damaged> {
        for &b in rest {
            state = self.next_in::<P>(state, b)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table for `ab` (anchored), by hand: columns a, b, other, end.
    fn ab() -> Vec<u8> {
        ab_with(0)
    }

    /// [`ab`] with `filler` states no input reaches before its match state,
    /// to make a table too big to be premultiplied.
    fn ab_with(filler: usize) -> Vec<u8> {
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
        write(&columns, 4, 1, usize::from(matched), 1, &states)
    }

    #[test]
    fn a_written_table_reads_back_and_finds_its_pattern() {
        // Premultiplied (4 states of 4 columns), and not (16,400 states).
        for (filler, premultiplied, after_a) in [(0, true, 8), (16_396, false, 2)] {
            let bytes = ab_with(filler);
            let table = Table::new(&bytes).unwrap_or_else(|| panic!("not a table"));
            assert_eq!(table.premultiplied, premultiplied);
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
            // A premultiplied table names state 2 by its row's first entry,
            // 2 × 4 columns.
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
