//! Which automaton each taxonomy entry is searched in, and the form in which
//! `build.rs` ships those automata compiled.
//!
//! Standalone (only `generate` beside it) because `build.rs` includes it
//! too: the automata compiled at build time must hold exactly the entries,
//! in exactly the order, that the run-time matcher files in each group.

use std::collections::BTreeMap;

use super::generate::RuleKind;
use crate::le_words::{le_u32, push_words, u32_of};
use crate::word_hash::{tagged, word_hash};

/// The entries a word-scoped group holds. (Every entry is destructive:
/// rule files hold destructive shapes only.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Family {
    /// Structured entries, over canonical forms.
    Destructive,
    /// Raw-regex entries scoped to command words, over command lines.
    Line,
}

impl Family {
    /// Every family, each at the index of its code in the shipped index
    /// (its discriminant): what the index's writer and reader both count.
    pub const ALL: [Family; 2] = [Family::Destructive, Family::Line];
}

/// One automaton.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// Files each entry, given as (kind, command words) in rule order.
pub fn plan<'a, S: AsRef<str> + 'a>(rules: impl IntoIterator<Item = (RuleKind, &'a [S])>) -> Plan {
    let mut plan = Plan::default();
    for (i, (kind, commands)) in rules.into_iter().enumerate() {
        let family = match kind {
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
        for alt in commands.iter().flat_map(|c| c.as_ref().split('|')) {
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

/// `special` values of a group's key (see [`key_parts`]).
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

/// A hash of the entries' ids and command words, in order: cheap, stable
/// across builds and platforms, and only a consistency check, not a
/// security one.
pub fn fingerprint<'a, S: AsRef<str> + 'a>(
    rules: impl IntoIterator<Item = (&'a str, &'a [S])>,
) -> u64 {
    // Each word tagged with its place in its entry, each entry's end with
    // the count of its words: `a b` then `c` differs from `a` then `b c`.
    let mut h = 0;
    for (id, commands) in rules {
        let words = std::iter::once(id).chain(commands.iter().map(AsRef::as_ref));
        let mut place = 0;
        for word in words {
            h = tagged(h ^ word_hash(word.as_bytes()), place);
            place += 1;
        }
        h = tagged(h, u64::MAX - place);
    }
    h
}

/// Writes a group's DFAs: each part is the id of its first pattern and its
/// length (both little-endian `u32`) and then a table (see `crate::table`)
/// whose pattern ids count from that first one. A group ships as one part
/// unless its DFA would be too big.
#[allow(dead_code)] // only build.rs writes them
pub fn write_parts(parts: impl IntoIterator<Item = (usize, Vec<u8>)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (first, dfa) in parts {
        push_words(&mut out, &[u32_of(first), u32_of(dfa.len())]);
        out.extend_from_slice(&dfa);
    }
    out
}

/// Reads what [`write_parts`] wrote: (first pattern id, DFA bytes) per part,
/// or `None` if the bytes are cut short.
pub fn parts(mut bytes: &[u8]) -> Option<Vec<(usize, &[u8])>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let first = le_u32(bytes, 0)? as usize;
        let len = le_u32(bytes, 4)? as usize;
        let dfa = bytes.get(8..8usize.checked_add(len)?)?;
        out.push((first, dfa));
        bytes = &bytes[8 + len..];
    }
    Some(out)
}

/// A fixed-layout index of the shipped groups, read in place: looking a
/// group up costs a hash and a probe, and a process that needs two groups
/// decodes nothing else (a serde form of the same index cost a hook process
/// more than everything it classified).
///
/// Layout, all integers little-endian `u32`: a header of [`HEADER`] words
/// (group count, table size, glob count, entry count, rule count, the
/// fingerprint's low and high halves), then one record of [`GROUP_WORDS`]
/// words per group, the hash table (group index + 1 per slot, 0 for
/// empty), one record of [`GLOB_WORDS`] per glob, one record of
/// [`POST_WORDS`] per entry, then the text and rule lists the records point
/// into (by offset and length from the start of the index).
#[derive(Clone, Copy, Debug)]
pub struct FlatIndex<'a> {
    bytes: &'a [u8],
    groups: usize,
    table: usize,
    globs: usize,
    posts: usize,
}

/// Words in the header: seven counts and checks, then, from word
/// [`FILTERS_AT`], a filter of the command words of each family (see
/// [`word_filter_bit`]).
pub const HEADER: usize = FILTERS_AT + Family::ALL.len() * FILTER_WORDS;
/// Where in the header the families' filters start.
const FILTERS_AT: usize = 7;
/// Words of one family's filter: 1024 bits.
pub const FILTER_WORDS: usize = 32;
/// Words per group: special, family (255: none), anchored, word (offset,
/// length), rules (offset, count), DFA parts (offset, length).
pub const GROUP_WORDS: usize = 9;
/// Words per glob: family, glob (offset, length).
pub const GLOB_WORDS: usize = 3;
/// Words per entry: flags ([`POST_SHIPPED`], [`POST_FORBID`],
/// [`POST_MAX`], [`POST_MIN`]), subcommand length, max, min, forbid (text
/// offset, length, DFA offset, length).
pub const POST_WORDS: usize = 8;

/// A post record's flag: the entry's post-checks were shipped.
pub const POST_SHIPPED: u32 = 1;
/// A post record's flag: it has a forbidden-token check.
pub const POST_FORBID: u32 = 2;
/// A post record's flag: it has a maximum argument count.
pub const POST_MAX: u32 = 4;
/// A post record's flag: it has a minimum argument count.
pub const POST_MIN: u32 = 8;

/// One group as read from a [`FlatIndex`].
#[derive(Clone, Copy, Debug)]
pub struct FlatGroup<'a> {
    /// See [`key_parts`].
    pub special: u8,
    /// See [`key_parts`].
    pub family: Option<Family>,
    /// Every pattern starts with `^`.
    pub anchored: bool,
    /// Its command word (empty for none).
    pub word: &'a str,
    /// Its entries, as little-endian `u32` rule indices.
    pub rules: &'a [u8],
    /// Where its DFA parts are in the DFA blob (length 0: none shipped).
    pub dfa: (u32, u32),
}

/// A post-check's regex text and where its DFA is in the shipped tables.
pub type PostRegex<'a> = (&'a [u8], (u32, u32));

/// One entry's post-checks as read from a [`FlatIndex`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FlatPost<'a> {
    /// The forbidden-token regex and where its DFA is (length 0: none).
    /// The regex is needed only when its DFA did not ship, and is checked
    /// as UTF-8 then (a scan reads post-checks ten thousand times).
    pub forbid: Option<PostRegex<'a>>,
    /// At most this many positional arguments after the subcommand.
    pub max_args: Option<usize>,
    /// At least this many.
    pub min_args: Option<usize>,
    /// How many subcommand words precede the counted arguments.
    pub subcommand_len: usize,
}

fn family_code(f: Option<Family>) -> u32 {
    f.map_or(255, |f| f as u32)
}

fn family_of(code: u32) -> Option<Family> {
    Family::ALL.get(usize::try_from(code).ok()?).copied()
}

/// A command word's bit in a family's filter: from its length and three of
/// its bytes, so cheap that a word with no group of the family (most words,
/// for most families) is turned away before it is hashed.
pub fn word_filter_bit(word: &str) -> usize {
    let b = word.as_bytes();
    let at = |i: usize| b.get(i).map_or(0, |&c| usize::from(c));
    let last = at(b.len().wrapping_sub(1));
    (b.len().wrapping_mul(31)
        ^ at(0).wrapping_mul(7)
        ^ at(1).wrapping_mul(17)
        ^ last.wrapping_mul(131))
        % (FILTER_WORDS * 32)
}

/// The hash a group's key is filed under: its word's [`word_hash`], tagged
/// with the key's kind and family.
pub fn key_hash(special: u8, family: Option<Family>, word_hash: u64) -> u64 {
    tagged(
        word_hash,
        u64::from(special) << 8 | u64::from(family_code(family)),
    )
}

/// What [`write_index`] files for one group.
pub struct IndexGroup<'a> {
    /// See [`key_parts`].
    pub special: u8,
    /// See [`key_parts`].
    pub family: Option<Family>,
    /// Its command word (empty for none).
    pub word: &'a str,
    /// Every pattern starts with `^`.
    pub anchored: bool,
    /// Its rule indices.
    pub rules: &'a [usize],
    /// Where its DFA parts are in the DFA blob.
    pub dfa: (u32, u32),
}

/// Writes a [`FlatIndex`].
#[allow(dead_code)] // only build.rs writes one
pub fn write_index(
    rule_count: usize,
    fingerprint: u64,
    groups: &[IndexGroup],
    globs: &[(Family, &str)],
    posts: &[Option<FlatPost>],
) -> Vec<u8> {
    let u = u32_of;
    let table = (groups.len() * 2).next_power_of_two().max(2);
    let words = HEADER
        + groups.len() * GROUP_WORDS
        + table
        + globs.len() * GLOB_WORDS
        + posts.len() * POST_WORDS;
    let mut head: Vec<u32> = Vec::with_capacity(words);
    let mut data: Vec<u8> = Vec::new();
    let base = words * 4;
    let put = |data: &mut Vec<u8>, bytes: &[u8]| -> (u32, u32) {
        let at = u(base + data.len());
        data.extend_from_slice(bytes);
        (at, u(bytes.len()))
    };
    head.extend([
        u(groups.len()),
        u(table),
        u(globs.len()),
        u(posts.len()),
        u(rule_count),
        fingerprint as u32,
        (fingerprint >> 32) as u32,
    ]);
    debug_assert_eq!(head.len(), FILTERS_AT);
    let mut filters = [0u32; Family::ALL.len() * FILTER_WORDS];
    for g in groups {
        if let (SPECIAL_WORD, Some(family)) = (g.special, g.family) {
            let bit = word_filter_bit(g.word);
            filters[family as usize * FILTER_WORDS + bit / 32] |= 1 << (bit % 32);
        }
    }
    head.extend(filters);
    let mut slots = vec![0u32; table];
    for (i, g) in groups.iter().enumerate() {
        let word = put(&mut data, g.word.as_bytes());
        let rule_bytes: Vec<u8> = g.rules.iter().flat_map(|&r| u(r).to_le_bytes()).collect();
        let rules = put(&mut data, &rule_bytes);
        head.extend([
            u32::from(g.special),
            family_code(g.family),
            u32::from(g.anchored),
            word.0,
            word.1,
            rules.0,
            u(g.rules.len()),
            g.dfa.0,
            g.dfa.1,
        ]);
        let mut slot =
            (key_hash(g.special, g.family, word_hash(g.word.as_bytes())) as usize) & (table - 1);
        while slots[slot] != 0 {
            slot = (slot + 1) & (table - 1);
        }
        slots[slot] = u(i + 1);
    }
    head.extend(slots);
    for (family, glob) in globs {
        let at = put(&mut data, glob.as_bytes());
        head.extend([*family as u32, at.0, at.1]);
    }
    for post in posts {
        let Some(p) = post else {
            head.extend([0u32; POST_WORDS]);
            continue;
        };
        let mut flags = POST_SHIPPED;
        let forbid = match p.forbid {
            Some((src, dfa)) => {
                flags |= POST_FORBID;
                let text = put(&mut data, src);
                [text.0, text.1, dfa.0, dfa.1]
            }
            None => [0u32; 4],
        };
        if p.max_args.is_some() {
            flags |= POST_MAX;
        }
        if p.min_args.is_some() {
            flags |= POST_MIN;
        }
        head.extend([
            flags,
            u(p.subcommand_len),
            u(p.max_args.unwrap_or(0)),
            u(p.min_args.unwrap_or(0)),
        ]);
        head.extend(forbid);
    }
    let mut out = Vec::with_capacity(head.len() * 4 + data.len());
    push_words(&mut out, &head);
    out.extend(data);
    out
}

impl<'a> FlatIndex<'a> {
    /// Reads the header; `None` if the bytes are too short for what it
    /// announces.
    pub fn new(bytes: &'a [u8]) -> Option<FlatIndex<'a>> {
        let word = |i: usize| le_u32(bytes, i * 4).map(|w| w as usize);
        let index = FlatIndex {
            bytes,
            groups: word(0)?,
            table: word(1)?,
            globs: word(2)?,
            posts: word(3)?,
        };
        let words = HEADER
            + index.groups * GROUP_WORDS
            + index.table
            + index.globs * GLOB_WORDS
            + index.posts * POST_WORDS;
        (bytes.len() >= words * 4 && index.table.is_power_of_two()).then_some(index)
    }

    /// How many entries the taxonomy had, and its fingerprint.
    pub fn taxonomy(&self) -> Option<(usize, u64)> {
        let count = self.word(4)? as usize;
        let fingerprint = u64::from(self.word(5)?) | (u64::from(self.word(6)?) << 32);
        Some((count, fingerprint))
    }

    fn word(&self, i: usize) -> Option<u32> {
        le_u32(self.bytes, i * 4)
    }

    fn slice(&self, at: u32, len: u32) -> Option<&'a [u8]> {
        let at = at as usize;
        self.bytes.get(at..at.checked_add(len as usize)?)
    }

    /// How many groups it holds.
    pub fn group_count(&self) -> usize {
        self.groups
    }

    /// Group `i`.
    pub fn group(&self, i: usize) -> Option<FlatGroup<'a>> {
        let w = |k: usize| self.word(HEADER + i * GROUP_WORDS + k);
        if i >= self.groups {
            return None;
        }
        let word = std::str::from_utf8(self.slice(w(3)?, w(4)?)?).ok()?;
        Some(FlatGroup {
            special: u8::try_from(w(0)?).ok()?,
            family: family_of(w(1)?),
            anchored: w(2)? != 0,
            word,
            rules: self.slice(w(5)?, w(6)?.checked_mul(4)?)?,
            dfa: (w(7)?, w(8)?),
        })
    }

    /// The group filed under a key, if any, with its number.
    pub fn find(
        &self,
        special: u8,
        family: Option<Family>,
        word: &str,
    ) -> Option<(usize, FlatGroup<'a>)> {
        let entry = self.find_number(special, family, word)?;
        Some((entry, self.group(entry)?))
    }

    /// The number of the group filed under a key, without decoding it.
    #[inline]
    pub fn find_number(&self, special: u8, family: Option<Family>, word: &str) -> Option<usize> {
        if let (SPECIAL_WORD, Some(f)) = (special, family) {
            let bit = word_filter_bit(word);
            let filter = self.word(FILTERS_AT + f as usize * FILTER_WORDS + bit / 32)?;
            if filter & (1 << (bit % 32)) == 0 {
                return None;
            }
        }
        let table = HEADER + self.groups * GROUP_WORDS;
        let mask = self.table - 1;
        let family = family_code(family);
        let mut slot =
            (key_hash(special, family_of(family), word_hash(word.as_bytes())) as usize) & mask;
        for _ in 0..self.table {
            let entry = (self.word(table + slot)? as usize).checked_sub(1)?;
            // Compare the key's parts in place; decode only the match.
            let at = (HEADER + entry * GROUP_WORDS) * 4;
            let record = self.bytes.get(at..at + 20)?;
            let w = |k: usize| le_u32(record, k * 4);
            if w(0)? == u32::from(special)
                && w(1)? == family
                && w(4)? as usize == word.len()
                && self.slice(w(3)?, w(4)?)? == word.as_bytes()
            {
                return Some(entry);
            }
            slot = (slot + 1) & mask;
        }
        None
    }

    /// Every glob word.
    pub fn globs(&self) -> impl Iterator<Item = (Family, &'a str)> + '_ {
        let start = HEADER + self.groups * GROUP_WORDS + self.table;
        (0..self.globs).filter_map(move |i| {
            let w = |k: usize| self.word(start + i * GLOB_WORDS + k);
            let family = family_of(w(0)?)?;
            let glob = std::str::from_utf8(self.slice(w(1)?, w(2)?)?).ok()?;
            Some((family, glob))
        })
    }

    /// Entry `rule`'s post-checks, when they were shipped.
    pub fn post(&self, rule: usize) -> Option<FlatPost<'a>> {
        if rule >= self.posts {
            return None;
        }
        let start = HEADER + self.groups * GROUP_WORDS + self.table + self.globs * GLOB_WORDS;
        let w = |k: usize| self.word(start + rule * POST_WORDS + k);
        let flags = w(0)?;
        if flags & POST_SHIPPED == 0 {
            return None;
        }
        let forbid = match flags & POST_FORBID {
            0 => None,
            _ => Some((self.slice(w(4)?, w(5)?)?, (w(6)?, w(7)?))),
        };
        Some(FlatPost {
            subcommand_len: w(1)? as usize,
            max_args: (flags & POST_MAX != 0).then_some(w(2)? as usize),
            min_args: (flags & POST_MIN != 0).then_some(w(3)? as usize),
            forbid,
        })
    }
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

    /// Each entry's post record reads back as written: which checks it has
    /// (an unshipped one reads as none at all), their values and where
    /// their texts and DFAs are.
    #[test]
    fn post_records_round_trip() {
        let forbid: &[u8] = b"\\x1f-n\\x1f";
        let posts = [
            Some(FlatPost {
                forbid: Some((forbid, (8, 16))),
                max_args: Some(2),
                min_args: None,
                subcommand_len: 1,
            }),
            None,
            Some(FlatPost {
                forbid: None,
                max_args: None,
                min_args: Some(0),
                subcommand_len: 0,
            }),
            Some(FlatPost::default()),
        ];
        let bytes = write_index(posts.len(), 7, &[], &[], &posts);
        let index = FlatIndex::new(&bytes).unwrap_or_else(|| panic!("no index"));
        assert_eq!(index.taxonomy(), Some((posts.len(), 7)));
        for (i, want) in posts.iter().enumerate() {
            let got = index.post(i);
            let view = |p: Option<FlatPost<'_>>| {
                p.map(|p| {
                    let forbid = p.forbid.map(|(src, at)| (src.to_vec(), at));
                    (forbid, p.max_args, p.min_args, p.subcommand_len)
                })
            };
            assert_eq!(view(got), view(*want), "entry {i}");
        }
        assert!(index.post(posts.len()).is_none());
    }

    /// The index files a family under its discriminant, and reads that
    /// code back as the family: both count `Family::ALL`.
    #[test]
    fn family_codes_round_trip() {
        for (i, family) in Family::ALL.into_iter().enumerate() {
            assert_eq!(family as usize, i);
            assert_eq!(family_of(family_code(Some(family))), Some(family));
        }
        assert_eq!(family_of(family_code(None)), None);
        assert_eq!(family_of(Family::ALL.len() as u32), None);
    }

    #[test]
    fn entries_are_filed_by_kind_family_and_word() {
        let rm = vec!["rm|unlink".to_string()];
        let mkfs = vec!["mkfs.*".to_string()];
        let none: Vec<String> = Vec::new();
        let p = plan([
            (RuleKind::Command, rm.as_slice()),
            (RuleKind::Command, mkfs.as_slice()),
            (RuleKind::Sql, none.as_slice()),
            (RuleKind::Regex, none.as_slice()),
            (RuleKind::Regex, rm.as_slice()),
            (RuleKind::Command, rm.as_slice()),
        ]);
        let word = |f, w: &str| GroupKey::Word(f, w.to_string());
        assert_eq!(
            p.groups.get(&word(Family::Destructive, "rm")),
            Some(&vec![0, 5])
        );
        assert_eq!(
            p.groups.get(&word(Family::Destructive, "unlink")),
            Some(&vec![0, 5])
        );
        assert_eq!(
            p.groups.get(&GroupKey::Glob(Family::Destructive)),
            Some(&vec![1])
        );
        assert_eq!(p.groups.get(&GroupKey::Sql), Some(&vec![2]));
        assert_eq!(p.groups.get(&GroupKey::LineAny), Some(&vec![3]));
        assert_eq!(p.groups.get(&word(Family::Line, "rm")), Some(&vec![4]));
        assert_eq!(p.globs, vec![(Family::Destructive, "mkfs.*".to_string())]);
    }
}
