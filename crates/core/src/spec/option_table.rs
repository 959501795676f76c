//! The options of a spec, packed so that they are read in place.
//!
//! A spec's options are most of what it holds (git log has two hundred),
//! and a command reads only the few it gives. Decoded into a `Vec` of
//! [`Opt`]s, every spec a process touched cost it a decode and a heap
//! block per option: a corpus scan decoded 13 000 options into 730 kB,
//! which was a tenth of what it spent on specs. Packed, an option is a
//! fixed record and its words are slices of one text, so a spec's options
//! decode as two borrowed slices and an option is built, from borrowed
//! parts, only when it is asked for.
//!
//! Included by `build.rs` with `format.rs` (std and serde only).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Arity, Effect, Opt, Role, WordList, Words};

/// The bytes of one option's record: where its names and its note start
/// in the text (`u32` each), their lengths (`u16` each), its arity, role
/// and effect (a byte each), and its flags (a byte).
const RECORD: usize = 16;

const PATTERN: u8 = 1;
const RECURSIVE: u8 = 2;
const LOOKUP: u8 = 4;

/// A spec's options: fixed records, then the text their words are in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionTable<'a> {
    #[serde(borrow, serialize_with = "super::as_bytes")]
    records: Cow<'a, [u8]>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

impl OptionTable<'static> {
    /// Packs `options`, or says why they do not fit a record (a word list
    /// or note longer than a record can measure, or a text past 4 GiB).
    pub fn pack(options: &[Opt<'_>]) -> Result<OptionTable<'static>, String> {
        let mut records = Vec::with_capacity(options.len() * RECORD);
        let mut text = String::new();
        for opt in options {
            let mut place = |s: &str| -> Result<(u32, u16), String> {
                let at =
                    u32::try_from(text.len()).map_err(|_| "the options' text is past 4 GiB")?;
                let len = u16::try_from(s.len()).map_err(|_| {
                    let head: String = s.chars().take(20).collect();
                    format!("`{head}…` is longer than 65535 bytes")
                })?;
                text.push_str(s);
                Ok((at, len))
            };
            let (names_at, names_len) = place(opt.names.joined())?;
            let (note_at, note_len) = place(&opt.note)?;
            records.extend_from_slice(&names_at.to_le_bytes());
            records.extend_from_slice(&note_at.to_le_bytes());
            records.extend_from_slice(&names_len.to_le_bytes());
            records.extend_from_slice(&note_len.to_le_bytes());
            records.push(arity_code(opt.arity));
            records.push(role_code(opt.role));
            records.push(effect_code(opt.effect));
            let flag = |on: bool, bit: u8| if on { bit } else { 0 };
            records.push(
                flag(opt.pattern, PATTERN)
                    | flag(opt.recursive, RECURSIVE)
                    | flag(opt.lookup, LOOKUP),
            );
        }
        let table = OptionTable {
            records: Cow::Owned(records),
            text: Cow::Owned(text),
        };
        // Every option reads back as it was written, or the codes below
        // have fallen behind the enums.
        for (i, opt) in options.iter().enumerate() {
            if table.get(i).as_ref() != Some(opt) {
                return Err(format!(
                    "option {} does not read back as packed",
                    opt.names.first().unwrap_or("?")
                ));
            }
        }
        Ok(table)
    }
}

impl<'a> OptionTable<'a> {
    /// How many options there are.
    pub fn len(&self) -> usize {
        self.records.len() / RECORD
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record of option `i`.
    fn record(&self, i: usize) -> Option<&[u8; RECORD]> {
        let at = i.checked_mul(RECORD)?;
        self.records
            .get(at..at.checked_add(RECORD)?)?
            .try_into()
            .ok()
    }

    /// The text at `at` of `len` bytes.
    fn slice(&self, at: [u8; 4], len: [u8; 2]) -> Option<&str> {
        let at = usize::try_from(u32::from_le_bytes(at)).ok()?;
        self.text
            .get(at..at.checked_add(usize::from(u16::from_le_bytes(len)))?)
    }

    /// The names of option `i`, joined as a [`WordList`] joins them: what
    /// a search by name reads, with nothing else of the option built.
    pub fn names_joined(&self, i: usize) -> Option<&str> {
        let r = self.record(i)?;
        self.slice([r[0], r[1], r[2], r[3]], [r[8], r[9]])
    }

    /// Option `i`, built from borrowed parts. `None` past the end, or for
    /// a record that is not one `pack` wrote (so the option is unknown,
    /// and nothing it spells is safe).
    pub fn get(&self, i: usize) -> Option<Opt<'_>> {
        let r = self.record(i)?;
        let names = self.slice([r[0], r[1], r[2], r[3]], [r[8], r[9]])?;
        let note = self.slice([r[4], r[5], r[6], r[7]], [r[10], r[11]])?;
        Some(Opt {
            names: WordList::borrowed(names),
            arity: arity_of(r[12])?,
            role: role_of_code(r[13])?,
            effect: effect_of_code(r[14])?,
            pattern: r[15] & PATTERN != 0,
            recursive: r[15] & RECURSIVE != 0,
            lookup: r[15] & LOOKUP != 0,
            note: Cow::Borrowed(note),
        })
    }

    /// Every option, in spec order.
    pub fn iter(&self) -> impl Iterator<Item = Opt<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Every name of every option, in spec order, with no option built.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        (0..self.len())
            .filter_map(|i| self.names_joined(i))
            .flat_map(Words::of)
    }
}

fn arity_code(a: Arity) -> u8 {
    match a {
        Arity::None => 0,
        Arity::Required => 1,
        Arity::Optional => 2,
        Arity::Pair => 3,
    }
}

fn arity_of(code: u8) -> Option<Arity> {
    Some(match code {
        0 => Arity::None,
        1 => Arity::Required,
        2 => Arity::Optional,
        3 => Arity::Pair,
        _ => return None,
    })
}

fn role_code(r: Role) -> u8 {
    match r {
        Role::Text => 0,
        Role::Number => 1,
        Role::Pattern => 2,
        Role::File => 3,
        Role::Dir => 4,
        Role::Rev => 5,
        Role::RevOrPath => 6,
        Role::CommandName => 7,
        Role::SedScript => 8,
        Role::JqFilter => 9,
        Role::Subcommand => 10,
        Role::Pathspec => 11,
        Role::PlusFormat => 12,
        Role::GitFormat => 13,
        Role::LocalFile => 14,
        Role::Key => 15,
        Role::Workdir => 16,
        Role::Meta => 17,
        Role::EnvName => 18,
        Role::Printed => 19,
    }
}

fn role_of_code(code: u8) -> Option<Role> {
    Some(match code {
        0 => Role::Text,
        1 => Role::Number,
        2 => Role::Pattern,
        3 => Role::File,
        4 => Role::Dir,
        5 => Role::Rev,
        6 => Role::RevOrPath,
        7 => Role::CommandName,
        8 => Role::SedScript,
        9 => Role::JqFilter,
        10 => Role::Subcommand,
        11 => Role::Pathspec,
        12 => Role::PlusFormat,
        13 => Role::GitFormat,
        14 => Role::LocalFile,
        15 => Role::Key,
        16 => Role::Workdir,
        17 => Role::Meta,
        18 => Role::EnvName,
        19 => Role::Printed,
        _ => return None,
    })
}

fn effect_code(e: Effect) -> u8 {
    match e {
        Effect::Harmless => 0,
        Effect::Writes => 1,
        Effect::Executes => 2,
        Effect::Network => 3,
        Effect::Secrets => 4,
        Effect::Waits => 5,
        Effect::Changes => 6,
        Effect::Interactive => 7,
    }
}

fn effect_of_code(code: u8) -> Option<Effect> {
    Some(match code {
        0 => Effect::Harmless,
        1 => Effect::Writes,
        2 => Effect::Executes,
        3 => Effect::Network,
        4 => Effect::Secrets,
        5 => Effect::Waits,
        6 => Effect::Changes,
        7 => Effect::Interactive,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(names: &[&str], arity: Arity, role: Role, effect: Effect, note: &str) -> Opt<'static> {
        Opt {
            names: WordList::of(names),
            arity,
            role,
            effect,
            pattern: names.contains(&"-e"),
            recursive: names.contains(&"-r"),
            lookup: names.contains(&"-v"),
            note: Cow::Owned(note.to_string()),
        }
    }

    fn sample() -> Vec<Opt<'static>> {
        vec![
            opt(
                &["-e", "--regexp"],
                Arity::Required,
                Role::Pattern,
                Effect::Harmless,
                "",
            ),
            opt(&["-r"], Arity::None, Role::Text, Effect::Harmless, ""),
            opt(
                &["-o", "--output"],
                Arity::Required,
                Role::File,
                Effect::Writes,
                "writes it",
            ),
            opt(
                &["--color"],
                Arity::Optional,
                Role::Text,
                Effect::Harmless,
                "",
            ),
            opt(
                &["--arg"],
                Arity::Pair,
                Role::Workdir,
                Effect::Interactive,
                "ünïcode",
            ),
            opt(&["-v"], Arity::None, Role::CommandName, Effect::Secrets, ""),
        ]
    }

    #[test]
    fn every_option_reads_back_as_written() {
        let options = sample();
        let table = OptionTable::pack(&options).expect("packs");
        assert_eq!(table.len(), options.len());
        assert_eq!(table.iter().collect::<Vec<_>>(), options);
        assert_eq!(table.names_joined(2), Some("-o\n--output"));
        let names: Vec<&str> = table.names().collect();
        assert_eq!(names[..4], ["-e", "--regexp", "-r", "-o"]);
        assert_eq!(names.len(), 8);
        assert_eq!(table.get(6), None);
        assert_eq!(table.names_joined(6), None);
    }

    #[test]
    fn a_table_round_trips_through_postcard_borrowed() {
        let table = OptionTable::pack(&sample()).expect("packs");
        let bytes = postcard::to_allocvec(&table).expect("encodes");
        let back: OptionTable<'_> = postcard::from_bytes(&bytes).expect("decodes");
        assert!(matches!(back.records, Cow::Borrowed(_)));
        assert!(matches!(back.text, Cow::Borrowed(_)));
        assert_eq!(back, table);
    }

    #[test]
    fn each_code_reads_back_as_the_value_it_codes() {
        for code in 0..=u8::MAX {
            if let Some(a) = arity_of(code) {
                assert_eq!(arity_code(a), code);
            }
            if let Some(r) = role_of_code(code) {
                assert_eq!(role_code(r), code);
            }
            if let Some(e) = effect_of_code(code) {
                assert_eq!(effect_code(e), code);
            }
        }
        assert_eq!(arity_of(4), None);
        assert_eq!(role_of_code(20), None);
        assert_eq!(effect_of_code(8), None);
    }

    #[test]
    fn a_damaged_record_is_no_option() {
        let table = OptionTable::pack(&sample()).expect("packs");
        let damaged = |at: usize, byte: u8| {
            let mut records = table.records.to_vec();
            records[at] = byte;
            OptionTable {
                records: Cow::Owned(records),
                text: table.text.clone(),
            }
        };
        // A role no build writes; names past the text; a length past it.
        assert_eq!(damaged(13, 200).get(0), None);
        assert_eq!(damaged(3, 0x7f).get(0), None);
        assert_eq!(damaged(3, 0x7f).names_joined(0), None);
        assert_eq!(damaged(9, 0xff).get(0), None);
        // The others are untouched.
        assert_eq!(damaged(13, 200).get(1), table.get(1));
        // A record cut short is none.
        let cut = OptionTable {
            records: Cow::Owned(table.records[..RECORD + 5].to_vec()),
            text: table.text.clone(),
        };
        assert_eq!(cut.len(), 1);
        assert_eq!(cut.get(1), None);
    }

    #[test]
    fn a_note_too_long_for_a_record_is_refused() {
        let long = "x".repeat(70_000);
        let options = vec![opt(
            &["-x"],
            Arity::None,
            Role::Text,
            Effect::Harmless,
            &long,
        )];
        let why = OptionTable::pack(&options).expect_err("refused");
        assert!(why.contains("longer than 65535 bytes"), "{why}");
    }
}
