//! Which automaton each taxonomy entry is searched in, and the form in which
//! `build.rs` ships those automata compiled.
//!
//! Standalone (only `generate` beside it) because `build.rs` includes it
//! too: the automata compiled at build time must hold exactly the entries,
//! in exactly the order, that the run-time matcher files in each group.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::generate::RuleKind;

/// The entries a word-scoped group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Family {
    /// Destructive structured entries, over canonical forms.
    Destructive,
    /// Safe structured entries, over canonical forms.
    Safe,
    /// Raw-regex entries scoped to command words, over command lines.
    Line,
}

/// One automaton.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum GroupKey {
    /// A family's entries for one command word.
    Word(Family, String),
    /// A family's entries whose command word is a glob (`mkfs.*`).
    Glob(Family),
    /// SQL entries.
    Sql,
    /// Interpreter-code entries.
    Code,
    /// Raw-regex entries for any command.
    LineAny,
}

/// Every group, with its entries (indices into the taxonomy's rules, in
/// rule order), and the glob words of each family.
#[derive(Debug, Default)]
pub struct Plan {
    /// The groups, ordered by key.
    pub groups: BTreeMap<GroupKey, Vec<usize>>,
    /// Per family, each glob command word.
    pub globs: Vec<(Family, String)>,
}

/// Files each entry, given as (kind, safe, command words) in rule order.
pub fn plan<'a>(rules: impl IntoIterator<Item = (RuleKind, bool, &'a [String])>) -> Plan {
    let mut plan = Plan::default();
    for (i, (kind, safe, commands)) in rules.into_iter().enumerate() {
        let family = match kind {
            RuleKind::Command if safe => Family::Safe,
            RuleKind::Command => Family::Destructive,
            RuleKind::Sql => {
                plan.groups.entry(GroupKey::Sql).or_default().push(i);
                continue;
            }
            RuleKind::Code => {
                plan.groups.entry(GroupKey::Code).or_default().push(i);
                continue;
            }
            RuleKind::Regex if commands.is_empty() => {
                plan.groups.entry(GroupKey::LineAny).or_default().push(i);
                continue;
            }
            RuleKind::Regex => Family::Line,
        };
        for alt in commands.iter().flat_map(|c| c.split('|')) {
            let key = if alt.contains('*') {
                plan.globs.push((family, alt.to_string()));
                GroupKey::Glob(family)
            } else {
                GroupKey::Word(family, alt.to_string())
            };
            let rules = plan.groups.entry(key).or_default();
            // Entries arrive in order: one already filed here is the last.
            if rules.last() != Some(&i) {
                rules.push(i);
            }
        }
    }
    plan
}

/// The compiled automata `build.rs` ships with the embedded taxonomy, in
/// postcard form, borrowed from the binary at run time.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Shipped<'a> {
    /// How many entries the taxonomy had, and a hash of their ids and
    /// command words in order: the run-time taxonomy must agree before any
    /// automaton is used.
    pub rule_count: usize,
    /// See [`fingerprint`].
    pub fingerprint: u64,
    /// Every group of the plan, ordered by key.
    #[serde(borrow)]
    pub groups: Vec<ShippedGroup<'a>>,
    /// The glob words, as in [`Plan::globs`].
    #[serde(borrow)]
    pub globs: Vec<(Family, &'a str)>,
    /// Per entry, in rule order: the checks applied after its pattern
    /// matched, so that a process need not generate the pattern to learn
    /// them (none when its pattern did not generate at build time).
    #[serde(borrow)]
    pub posts: Vec<Option<ShippedPost<'a>>>,
}

/// An entry's post-checks as shipped (see `PostCheck`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ShippedPost<'a> {
    /// The forbidden-token regex, and where its DFA is in the DFA blob
    /// (length 0: compile the regex on first use).
    #[serde(borrow)]
    pub forbid: Option<(&'a str, (u32, u32))>,
    /// The required-token regex, likewise.
    #[serde(borrow)]
    pub require: Option<(&'a str, (u32, u32))>,
    /// At most this many positional arguments after the subcommand.
    pub max_args: Option<usize>,
    /// At least this many.
    pub min_args: Option<usize>,
    /// How many subcommand words precede the counted arguments.
    pub subcommand_len: usize,
}

/// One group as shipped.
#[derive(Debug, Serialize, Deserialize)]
pub struct ShippedGroup<'a> {
    /// Which group.
    pub family: Option<Family>,
    /// Its command word; empty for groups without one.
    pub word: &'a str,
    /// Which of `Sql`, `Code`, `LineAny`, `Glob` it is when `word` is empty.
    pub special: u8,
    /// The entries, as little-endian `u32` rule indices.
    pub rules: &'a [u8],
    /// Every pattern starts with `^`: search anchored.
    pub anchored: bool,
    /// Where its DFAs are in the blob shipped beside this index: (offset,
    /// length) of its [`parts`]; length 0 when they were too big to ship
    /// and the group is compiled on first use instead. The DFAs are kept
    /// apart so that reading the index touches a few pages of the binary,
    /// not every DFA's.
    pub dfa: (u32, u32),
}

/// `special` values of [`ShippedGroup`].
pub const SPECIAL_WORD: u8 = 0;
/// See [`SPECIAL_WORD`].
pub const SPECIAL_GLOB: u8 = 1;
/// See [`SPECIAL_WORD`].
pub const SPECIAL_SQL: u8 = 2;
/// See [`SPECIAL_WORD`].
pub const SPECIAL_CODE: u8 = 3;
/// See [`SPECIAL_WORD`].
pub const SPECIAL_LINE_ANY: u8 = 4;

/// The `special` value and family of a key, and its word: what `build.rs`
/// writes for each group.
pub fn key_parts(key: &GroupKey) -> (u8, Option<Family>, &str) {
    match key {
        GroupKey::Word(f, w) => (SPECIAL_WORD, Some(*f), w.as_str()),
        GroupKey::Glob(f) => (SPECIAL_GLOB, Some(*f), ""),
        GroupKey::Sql => (SPECIAL_SQL, None, ""),
        GroupKey::Code => (SPECIAL_CODE, None, ""),
        GroupKey::LineAny => (SPECIAL_LINE_ANY, None, ""),
    }
}

/// A hash of the entries' ids and command words, in order (FNV-1a, 64-bit):
/// cheap, stable across builds and platforms, and only a consistency check,
/// not a security one.
pub fn fingerprint<'a>(rules: impl IntoIterator<Item = (&'a str, &'a [String])>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (id, commands) in rules {
        let words = std::iter::once(id).chain(commands.iter().map(String::as_str));
        for word in words {
            for b in word.bytes().chain([0u8]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Writes a group's DFAs: each part is the id of its first pattern and its
/// length (both little-endian `u32`) and then a sparse DFA
/// (`to_bytes_little_endian`) whose pattern ids count from that first one.
/// A group ships as one part unless its DFA would be too big.
#[allow(dead_code)] // only build.rs writes them
pub fn write_parts(parts: impl IntoIterator<Item = (usize, Vec<u8>)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (first, dfa) in parts {
        let first = u32::try_from(first).unwrap_or(u32::MAX);
        let len = u32::try_from(dfa.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&dfa);
    }
    out
}

/// Reads what [`write_parts`] wrote: (first pattern id, DFA bytes) per part,
/// or `None` if the bytes are cut short.
pub fn parts(mut bytes: &[u8]) -> Option<Vec<(usize, &[u8])>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let word = |b: &[u8]| -> Option<usize> {
            let mut le = [0u8; 4];
            le.copy_from_slice(b.get(..4)?);
            usize::try_from(u32::from_le_bytes(le)).ok()
        };
        let first = word(bytes)?;
        let len = word(bytes.get(4..)?)?;
        let dfa = bytes.get(8..8usize.checked_add(len)?)?;
        out.push((first, dfa));
        bytes = &bytes[8 + len..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_and_cut_bytes_are_refused() {
        let bytes = write_parts([(0, vec![1, 2, 3]), (2, vec![]), (3, vec![9])]);
        let parts = parts(&bytes);
        let expected: Vec<(usize, &[u8])> = vec![(0, &[1, 2, 3]), (2, &[]), (3, &[9])];
        assert_eq!(parts, Some(expected));
        assert_eq!(super::parts(&bytes[..bytes.len() - 1]), None);
        assert_eq!(super::parts(&bytes[..5]), None);
    }

    #[test]
    fn entries_are_filed_by_kind_family_and_word() {
        let rm = vec!["rm|unlink".to_string()];
        let mkfs = vec!["mkfs.*".to_string()];
        let none: Vec<String> = Vec::new();
        let p = plan([
            (RuleKind::Command, false, rm.as_slice()),
            (RuleKind::Command, true, rm.as_slice()),
            (RuleKind::Command, false, mkfs.as_slice()),
            (RuleKind::Sql, false, none.as_slice()),
            (RuleKind::Regex, false, none.as_slice()),
            (RuleKind::Regex, false, rm.as_slice()),
            (RuleKind::Command, false, rm.as_slice()),
        ]);
        let word = |f, w: &str| GroupKey::Word(f, w.to_string());
        assert_eq!(
            p.groups.get(&word(Family::Destructive, "rm")),
            Some(&vec![0, 6])
        );
        assert_eq!(
            p.groups.get(&word(Family::Destructive, "unlink")),
            Some(&vec![0, 6])
        );
        assert_eq!(p.groups.get(&word(Family::Safe, "rm")), Some(&vec![1]));
        assert_eq!(
            p.groups.get(&GroupKey::Glob(Family::Destructive)),
            Some(&vec![2])
        );
        assert_eq!(p.groups.get(&GroupKey::Sql), Some(&vec![3]));
        assert_eq!(p.groups.get(&GroupKey::LineAny), Some(&vec![4]));
        assert_eq!(p.groups.get(&word(Family::Line, "rm")), Some(&vec![5]));
        assert_eq!(p.globs, vec![(Family::Destructive, "mkfs.*".to_string())]);
    }
}
