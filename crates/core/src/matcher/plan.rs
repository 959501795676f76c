//! Which automaton each taxonomy entry is searched in, and the form in which
//! `build.rs` ships those automata compiled.
//!
//! Standalone (only `generate` beside it) because `build.rs` includes it
//! too: the automata compiled at build time must hold exactly the entries,
//! in exactly the order, that the run-time matcher files in each group.

use std::collections::BTreeMap;

use super::generate::RuleKind;
use crate::le_words::{le_u32, part_range, push_words, u32_of};
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

/// The index of the shipped groups, as `build.rs` writes it: Rust statics
/// (records of numbers and one blob of bytes, so that loading the binary
/// relocates a few pointers), read in place. Looking a group up costs a
/// hash and a probe, and a process that needs two groups decodes nothing
/// else (a serde form of the same index cost a hook process more than
/// everything it classified).
#[derive(Clone, Copy, Debug)]
pub struct FlatIndex<'a> {
    /// How many entries the taxonomy had, and its fingerprint.
    pub(crate) taxonomy: (u32, u64),
    /// The groups that are not a command word's, by [`special_place`]:
    /// group number + 1, or 0 for none.
    pub(crate) specials: [u32; SPECIAL_PLACES],
    /// A filter of the command words of each family, [`FILTER_WORDS`]
    /// words each (see [`word_filter_bit`]).
    pub(crate) filters: &'a [u32],
    /// One record per group: special, family (255: none), anchored, word
    /// (offset, length), rules (offset, count), DFA parts (offset, length).
    pub(crate) groups: &'a [[u32; GROUP_WORDS]],
    /// The hash table of the command words' groups, a power of two of
    /// slots: group number + 1, or 0 for an empty slot.
    pub(crate) table: &'a [u32],
    /// One record per glob: family, glob (offset, length).
    pub(crate) globs: &'a [[u32; GLOB_WORDS]],
    /// One record per entry: flags ([`POST_SHIPPED`], [`POST_FORBID`],
    /// [`POST_MAX`], [`POST_MIN`]), subcommand length, max, min, forbid
    /// (text offset, length, DFA offset, length).
    pub(crate) posts: &'a [[u32; POST_WORDS]],
    /// The words, rule lists (little-endian `u32` each) and texts the
    /// records point into, by offset and length.
    pub(crate) data: &'a [u8],
}

/// Words of one family's filter: 1024 bits.
pub const FILTER_WORDS: usize = 32;
/// Words per group record.
pub const GROUP_WORDS: usize = 9;
/// Words per glob record.
pub const GLOB_WORDS: usize = 3;
/// Words per entry record.
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

/// The hash a command word's group is filed under: the word's
/// [`word_hash`], tagged with its family.
pub fn key_hash(family: Family, word_hash: u64) -> u64 {
    tagged(word_hash, family as u64)
}

/// How many groups are not a command word's: each family's glob group,
/// and the SQL, code and any-command line groups.
pub const SPECIAL_PLACES: usize = 5;

/// Where a group that is not a command word's is filed in
/// [`FlatIndex::specials`]; `None` for a command word's group (or a glob
/// group of no family, which no plan makes).
pub fn special_place(special: u8, family: Option<Family>) -> Option<usize> {
    match (special, family) {
        (SPECIAL_GLOB, Some(Family::Destructive)) => Some(0),
        (SPECIAL_GLOB, Some(Family::Line)) => Some(1),
        (SPECIAL_SQL, _) => Some(2),
        (SPECIAL_CODE, _) => Some(3),
        (SPECIAL_LINE_ANY, _) => Some(4),
        _ => None,
    }
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

/// A [`FlatIndex`] laid out and owned: what `build.rs` writes out as Rust
/// statics, and what tests read from.
#[derive(Clone, Debug, Default)]
pub struct FlatIndexParts {
    taxonomy: (u32, u64),
    specials: [u32; SPECIAL_PLACES],
    filters: Vec<u32>,
    groups: Vec<[u32; GROUP_WORDS]>,
    table: Vec<u32>,
    globs: Vec<[u32; GLOB_WORDS]>,
    posts: Vec<[u32; POST_WORDS]>,
    data: Vec<u8>,
}

/// Lays out a [`FlatIndex`].
#[allow(dead_code)] // only build.rs and tests write one
pub fn write_index(
    rule_count: usize,
    fingerprint: u64,
    groups: &[IndexGroup],
    globs: &[(Family, &str)],
    posts: &[Option<FlatPost>],
) -> FlatIndexParts {
    let u = u32_of;
    let table = (groups.len() * 2).next_power_of_two().max(2);
    let mut out = FlatIndexParts {
        taxonomy: (u(rule_count), fingerprint),
        filters: vec![0u32; Family::ALL.len() * FILTER_WORDS],
        table: vec![0u32; table],
        ..FlatIndexParts::default()
    };
    let put = |data: &mut Vec<u8>, bytes: &[u8]| -> (u32, u32) {
        let at = u(data.len());
        data.extend_from_slice(bytes);
        (at, u(bytes.len()))
    };
    for g in groups {
        if let (SPECIAL_WORD, Some(family)) = (g.special, g.family) {
            let bit = word_filter_bit(g.word);
            out.filters[family as usize * FILTER_WORDS + bit / 32] |= 1 << (bit % 32);
        }
    }
    for (i, g) in groups.iter().enumerate() {
        let word = put(&mut out.data, g.word.as_bytes());
        let rule_bytes: Vec<u8> = g.rules.iter().flat_map(|&r| u(r).to_le_bytes()).collect();
        let rules = put(&mut out.data, &rule_bytes);
        out.groups.push([
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
        let family = match (g.special, g.family) {
            (SPECIAL_WORD, Some(family)) => family,
            (special, family) => {
                // Only build.rs and tests lay an index out: a group that
                // could never be found fails them.
                let place = special_place(special, family)
                    .unwrap_or_else(|| panic!("group {i} ({special}, {family:?}) has no place"));
                assert_eq!(out.specials[place], 0, "two groups at place {place}");
                out.specials[place] = u(i + 1);
                continue;
            }
        };
        let mut slot = (key_hash(family, word_hash(g.word.as_bytes())) as usize) & (table - 1);
        while out.table[slot] != 0 {
            slot = (slot + 1) & (table - 1);
        }
        out.table[slot] = u(i + 1);
    }
    for (family, glob) in globs {
        let at = put(&mut out.data, glob.as_bytes());
        out.globs.push([*family as u32, at.0, at.1]);
    }
    for post in posts {
        let Some(p) = post else {
            out.posts.push([0u32; POST_WORDS]);
            continue;
        };
        let mut flags = POST_SHIPPED;
        let forbid = match p.forbid {
            Some((src, dfa)) => {
                flags |= POST_FORBID;
                let text = put(&mut out.data, src);
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
        out.posts.push([
            flags,
            u(p.subcommand_len),
            u(p.max_args.unwrap_or(0)),
            u(p.min_args.unwrap_or(0)),
            forbid[0],
            forbid[1],
            forbid[2],
            forbid[3],
        ]);
    }
    out
}

#[allow(dead_code)] // only build.rs and tests write one
impl FlatIndexParts {
    /// The index, read from these parts.
    pub fn index(&self) -> FlatIndex<'_> {
        FlatIndex {
            taxonomy: self.taxonomy,
            specials: self.specials,
            filters: &self.filters,
            groups: &self.groups,
            table: &self.table,
            globs: &self.globs,
            posts: &self.posts,
            data: &self.data,
        }
    }

    /// The bytes the records point into.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The index as a Rust expression of type `FlatIndex<'static>`, its
    /// bytes included from `data_file` in the build's `OUT_DIR`.
    pub fn to_rust(&self, data_file: &str) -> String {
        fn list<T>(items: &[T], each: impl Fn(&T) -> String) -> String {
            items.iter().map(each).collect::<Vec<_>>().join(",")
        }
        fn record<const N: usize>(r: &[u32; N]) -> String {
            format!("[{}]", list(r, u32::to_string))
        }
        format!(
            "crate::matcher::plan::FlatIndex {{\n    taxonomy: ({}, {}),\n    specials: {},\n    filters: &[{}],\n    groups: &[{}],\n    table: &[{}],\n    globs: &[{}],\n    posts: &[{}],\n    data: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{data_file}\")),\n}}\n",
            self.taxonomy.0,
            self.taxonomy.1,
            record(&self.specials),
            list(&self.filters, u32::to_string),
            list(&self.groups, record),
            list(&self.table, u32::to_string),
            list(&self.globs, record),
            list(&self.posts, record),
        )
    }
}

impl<'a> FlatIndex<'a> {
    /// How many entries the taxonomy had, and its fingerprint.
    pub fn taxonomy(&self) -> (usize, u64) {
        (self.taxonomy.0 as usize, self.taxonomy.1)
    }

    fn slice(&self, at: u32, len: u32) -> Option<&'a [u8]> {
        self.data.get(part_range((at, len))?)
    }

    /// How many groups it holds.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Group `i`.
    pub fn group(&self, i: usize) -> Option<FlatGroup<'a>> {
        let r = self.groups.get(i)?;
        let word = std::str::from_utf8(self.slice(r[3], r[4])?).ok()?;
        Some(FlatGroup {
            special: u8::try_from(r[0]).ok()?,
            family: family_of(r[1]),
            anchored: r[2] != 0,
            word,
            rules: self.slice(r[5], r[6].checked_mul(4)?)?,
            dfa: (r[7], r[8]),
        })
    }

    /// Each group that is not a command word's, with its number, in the
    /// order of their places ([`special_place`]): a place's group is kept
    /// only when its record is one filed there, as a word's group found by
    /// its hash is kept only when its record holds the word.
    pub fn special_groups(&self) -> impl Iterator<Item = (usize, FlatGroup<'a>)> + '_ {
        self.specials
            .iter()
            .enumerate()
            .filter_map(move |(place, &number)| {
                let number = (number as usize).checked_sub(1)?;
                let group = self.group(number)?;
                (special_place(group.special, group.family) == Some(place) && group.word.is_empty())
                    .then_some((number, group))
            })
    }

    /// The number of the group filed under any key: the tests' one way to
    /// ask. (The matcher asks [`FlatIndex::word_group_number`] on its hot
    /// path, its only caller there, which keeps it inlined.)
    #[cfg(test)]
    pub fn find_number(&self, special: u8, family: Option<Family>, word: &str) -> Option<usize> {
        match (special, family) {
            (SPECIAL_WORD, Some(family)) => self.word_group_number(family, word),
            _ if word.is_empty() => self
                .special_groups()
                .find(|(_, g)| g.special == special && g.family == family)
                .map(|(n, _)| n),
            _ => None,
        }
    }

    /// The number of the group of `family` filed under a command word: a
    /// hash and a probe. Most words have none, and the family's filter
    /// turns them away first, before the word is hashed.
    pub fn word_group_number(&self, family: Family, word: &str) -> Option<usize> {
        let bit = word_filter_bit(word);
        let filter = *self
            .filters
            .get(family as usize * FILTER_WORDS + bit / 32)?;
        if filter & (1 << (bit % 32)) == 0 {
            return None;
        }
        let mask = self.table.len().checked_sub(1)?;
        let mut slot = (key_hash(family, word_hash(word.as_bytes())) as usize) & mask;
        // Every slot at most once: a table with no empty slot still ends.
        for _ in 0..self.table.len() {
            let entry = (*self.table.get(slot)? as usize).checked_sub(1)?;
            // Compare the key's parts in place; decode only the match.
            let r = self.groups.get(entry)?;
            if r[0] == u32::from(SPECIAL_WORD)
                && r[1] == family as u32
                && r[4] as usize == word.len()
                && self.slice(r[3], r[4])? == word.as_bytes()
            {
                return Some(entry);
            }
            slot = (slot + 1) & mask;
        }
        None
    }

    /// Every glob word.
    pub fn globs(&self) -> impl Iterator<Item = (Family, &'a str)> + '_ {
        self.globs.iter().filter_map(move |r| {
            let family = family_of(r[0])?;
            let glob = std::str::from_utf8(self.slice(r[1], r[2])?).ok()?;
            Some((family, glob))
        })
    }

    /// Entry `rule`'s post-checks, when they were shipped.
    pub fn post(&self, rule: usize) -> Option<FlatPost<'a>> {
        let r = self.posts.get(rule)?;
        let flags = r[0];
        if flags & POST_SHIPPED == 0 {
            return None;
        }
        let forbid = match flags & POST_FORBID {
            0 => None,
            _ => Some((self.slice(r[4], r[5])?, (r[6], r[7]))),
        };
        Some(FlatPost {
            subcommand_len: r[1] as usize,
            max_args: (flags & POST_MAX != 0).then_some(r[2] as usize),
            min_args: (flags & POST_MIN != 0).then_some(r[3] as usize),
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
        let parts = write_index(posts.len(), 7, &[], &[], &posts);
        let index = parts.index();
        assert_eq!(index.taxonomy(), (posts.len(), 7));
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

    /// Each kind of group is found under its key, a command word's
    /// through the hash table and the others by their place; an index
    /// whose numbers point outside itself finds nothing there and never
    /// panics.
    #[test]
    fn groups_are_found_by_key_and_a_damaged_index_finds_nothing() {
        let rules = [0usize, 1];
        let group = |special, family, word| IndexGroup {
            special,
            family,
            word,
            anchored: true,
            rules: &rules,
            dfa: (0, 0),
        };
        let groups = [
            group(SPECIAL_WORD, Some(Family::Destructive), "rm"),
            group(SPECIAL_WORD, Some(Family::Line), "rm"),
            group(SPECIAL_GLOB, Some(Family::Destructive), ""),
            group(SPECIAL_SQL, None, ""),
            group(SPECIAL_WORD, Some(Family::Destructive), "git"),
        ];
        let parts = write_index(2, 9, &groups, &[(Family::Destructive, "mkfs.*")], &[]);
        let index = parts.index();
        for (i, g) in groups.iter().enumerate() {
            assert_eq!(
                index.find_number(g.special, g.family, g.word),
                Some(i),
                "{i}"
            );
            let read = index.group(i).unwrap_or_else(|| panic!("group {i}"));
            assert_eq!(
                (read.special, read.family, read.word),
                (g.special, g.family, g.word)
            );
        }
        for (special, family, word) in [
            (SPECIAL_WORD, Some(Family::Line), "git"),
            (SPECIAL_WORD, Some(Family::Destructive), "r"),
            (SPECIAL_GLOB, Some(Family::Line), ""),
            (SPECIAL_CODE, None, ""),
        ] {
            assert_eq!(index.find_number(special, family, word), None, "{word:?}");
        }
        assert_eq!(
            index.globs().collect::<Vec<_>>(),
            [(Family::Destructive, "mkfs.*")]
        );
        let wild_table = vec![u32::MAX; index.table.len()];
        let wild_groups = vec![[u32::MAX; GROUP_WORDS]; 2];
        let wild = FlatIndex {
            specials: [u32::MAX; SPECIAL_PLACES],
            filters: &[u32::MAX; Family::ALL.len() * FILTER_WORDS],
            table: &wild_table,
            groups: &wild_groups,
            globs: &[[u32::MAX; GLOB_WORDS]],
            data: &[],
            ..index
        };
        assert_eq!(
            wild.find_number(SPECIAL_WORD, Some(Family::Destructive), "rm"),
            None
        );
        assert_eq!(wild.find_number(SPECIAL_SQL, None, ""), None);
        assert!(wild.group(0).is_none() && wild.group(7).is_none());
        // A special place pointing at another group finds nothing, and a
        // special key is matched whole.
        let mut misfiled = index;
        misfiled.specials[special_place(SPECIAL_SQL, None).unwrap_or(0)] = 1;
        assert_eq!(misfiled.find_number(SPECIAL_SQL, None, ""), None);
        assert_eq!(index.find_number(SPECIAL_SQL, Some(Family::Line), ""), None);
        assert_eq!(index.find_number(SPECIAL_SQL, None, "rm"), None);
        assert_eq!(wild.globs().count(), 0);
        let empty = FlatIndexParts::default();
        assert_eq!(
            empty
                .index()
                .find_number(SPECIAL_WORD, Some(Family::Line), "rm"),
            None
        );
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
