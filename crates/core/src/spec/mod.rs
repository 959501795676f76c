//! Command specs: the allow-list that safe verdicts come from.
//!
//! A command is safe only when a spec of that command explains every word
//! of its argv: each option is one the spec knows (parsed with the real
//! tool's conventions: abbreviations, bundles, attached values, `--`) and
//! declares harmless, and each argument has a role that is checked (files
//! through [`paths::check`], patterns through
//! [`content::hunts_credentials`], …). Anything the spec does not explain
//! is not safe, and [`Refusal`] says which word and why.
//!
//! Specs are data in `taxonomy/specs/*.toml` (format: [`format`](mod@format)), compiled
//! at build time for the embedded taxonomy and decoded one at a time, on
//! first use.

mod argv;
mod cases;
pub mod content;
pub mod format;
pub mod paths;

use std::borrow::Cow;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

pub use argv::{check, check_args, help_form, ReachNotes, Reading, Refusal, Verdict};
pub use cases::oracle_cases;
pub use format::{Arity, Effect, Opt, Role, Spec, Syntax};
pub use paths::Context;

use crate::error::TaxonomyError;
use format::SpecIndex;

/// Whether a word could be a help or version form of some spec (`--help`,
/// `-h`, `-V`, `version`, …): only then is a help request looked for.
pub fn could_be_help(word: &str) -> bool {
    // (Asked of the last word of most commands: every form starts, after
    // its dashes, with one of five bytes, which settles nearly all words.)
    let dashes = word.bytes().take_while(|&b| b == b'-').count();
    let bare = &word[dashes..];
    if !matches!(
        bare.as_bytes().first(),
        Some(b'h' | b'v' | b'V' | b'?' | b'u')
    ) {
        return false;
    }
    matches!(
        bare,
        "h" | "help" | "v" | "V" | "version" | "?" | "usage" | "help-all"
    ) || (bare.len() < word.len() && (bare.starts_with("help") || bare.starts_with("vers")))
}

/// The folder of spec files under the taxonomy root.
pub const SPECS_DIR: &str = "specs/";

/// Every spec of a taxonomy, found by command name or subcommand path.
///
/// One form whatever the specs came from: an index of names ([`SpecIndex`])
/// and a slot per spec. The embedded specs' index is the statics `build.rs`
/// wrote, and a slot is filled by decoding its spec on first use (boxed,
/// so that the slots of the specs a process never uses cost it a few bytes
/// each); specs loaded from files have their index laid out as `build.rs`
/// lays it out, and every slot filled at once.
#[derive(Debug, Default)]
pub struct Specs {
    names: Names,
    specs: Box<[OnceLock<Option<Box<Spec<'static>>>>]>,
}

/// Where a [`Specs`]' index of names lives: the only thing that differs
/// with where the specs came from.
#[derive(Debug)]
enum Names {
    /// In the binary, written by `build.rs`.
    Embedded(SpecIndex<'static>),
    /// Laid out when the spec files were loaded.
    Loaded(format::SpecIndexParts),
}

impl Default for Names {
    /// No names: nothing is safe.
    fn default() -> Self {
        Names::Loaded(format::SpecIndexParts::default())
    }
}

impl Names {
    fn index(&self) -> SpecIndex<'_> {
        match self {
            Names::Embedded(index) => *index,
            Names::Loaded(parts) => parts.index(),
        }
    }
}

impl Specs {
    /// Reads the specs `build.rs` compiled in place (each spec is decoded
    /// when first asked for).
    pub fn from_index(index: SpecIndex<'static>) -> Specs {
        Specs {
            specs: (0..index.spec_count()).map(|_| OnceLock::new()).collect(),
            names: Names::Embedded(index),
        }
    }

    /// Loads and validates the spec files among `sources` (paths relative
    /// to the taxonomy root; those under `specs/` are read). Every error
    /// names the file, the line of its `[[command]]` and the field.
    pub fn load(sources: &[(String, String)]) -> Result<Specs, TaxonomyError> {
        let mut specs = Vec::new();
        let mut names: Vec<(String, u32)> = Vec::new();
        let mut first: FxHashMap<String, String> = FxHashMap::default();
        for (file, text) in sources {
            if !file.starts_with(SPECS_DIR) {
                continue;
            }
            let parsed: format::SpecFile =
                toml::from_str(text).map_err(|e| TaxonomyError::Syntax {
                    file: file.clone(),
                    message: e.to_string(),
                })?;
            let lines = format::table_lines(text, "command");
            for (k, raw) in parsed.command.iter().enumerate() {
                let line = lines.get(k).copied().unwrap_or(0);
                let id = raw.names.first().cloned().unwrap_or_default();
                let spec = format::compile(raw, file, line).map_err(|e| TaxonomyError::Entry {
                    file: file.clone(),
                    line: line as usize,
                    id: id.clone(),
                    field: e.field.into(),
                    message: e.message,
                })?;
                let number = crate::le_words::u32_of(specs.len());
                for name in spec.names.iter() {
                    if names.len() == format::MAX_NAMES {
                        return Err(TaxonomyError::Entry {
                            file: file.clone(),
                            line: line as usize,
                            id: id.clone(),
                            field: "names".into(),
                            message: format!(
                                "with this entry the spec files name more than {} commands \
                                 and subcommand paths (each abbreviation counted), more than \
                                 their index can number: remove names from any spec file",
                                format::MAX_NAMES
                            ),
                        });
                    }
                    let name = name.to_string();
                    let here = format!("{file}:{line}");
                    if let Some(prev) = first.insert(name.clone(), here) {
                        return Err(TaxonomyError::DuplicateId {
                            file: file.clone(),
                            line: line as usize,
                            id: name.clone(),
                            first: prev,
                        });
                    }
                    names.push((name, number));
                }
                specs.push(spec);
            }
        }
        // The specs are built already: the index needs no bodies.
        let parts = format::SpecIndexParts::lay_out(&names, &vec![Vec::new(); specs.len()]);
        Ok(Specs {
            names: Names::Loaded(parts),
            specs: specs
                .into_iter()
                .map(|spec| OnceLock::from(Some(Box::new(spec))))
                .collect(),
        })
    }

    /// The spec of a command name or subcommand path (`git log`).
    pub fn get(&self, path: &str) -> Option<&Spec<'static>> {
        let index = self.names.index();
        let i = index.find(path.as_bytes())?;
        self.specs
            .get(i)?
            .get_or_init(|| {
                // (Only an embedded spec is still to decode.)
                let Names::Embedded(index) = &self.names else {
                    return None;
                };
                let bytes = index.spec(i)?;
                postcard::from_bytes::<Spec<'static>>(bytes)
                    .ok()
                    .map(Box::new)
            })
            .as_deref()
    }

    /// Whether any spec's path starts with `path` and a space (`git` has
    /// `git log`).
    pub fn has_subcommands(&self, path: &str) -> bool {
        self.get(path).is_some_and(|s| s.subcommands)
    }

    /// Every name and subcommand path that has a spec, sorted.
    pub fn names(&self) -> Vec<Cow<'_, str>> {
        let index = self.names.index();
        // (The index keeps them sorted.)
        (0..index.name_count())
            .filter_map(|i| index.name(i))
            .filter_map(|(n, _)| std::str::from_utf8(n).ok().map(Cow::Borrowed))
            .collect()
    }

    /// How many specs there are (one per `[[command]]` table).
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// True when there are no specs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word list's `contains` answers what a search of its words in
    /// turn does: for every list of every embedded spec, with its words,
    /// their prefixes and extensions, and words of other lists.
    #[test]
    fn word_lists_contain_what_their_words_are() {
        let specs = match crate::Taxonomy::embedded() {
            Ok(tax) => tax.specs.clone(),
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let variants = |w: &str| {
            [
                w.to_string(),
                format!("{w}x"),
                w.chars().skip(1).collect(),
                w.chars()
                    .take(w.chars().count().saturating_sub(1))
                    .collect(),
            ]
        };
        let (mut lists, mut found) = (0, 0);
        let mut others: Vec<String> = ["", "\n", "-", "--", "help", "log"]
            .map(String::from)
            .to_vec();
        for path in specs.names() {
            let Some(spec) = specs.get(&path) else {
                continue;
            };
            let mut all = vec![
                spec.names.clone(),
                spec.help.clone(),
                spec.help_subcommands.clone(),
                spec.subcommand_help.clone(),
                spec.operators.clone(),
                spec.docs.clone(),
                spec.requires.clone(),
                spec.operands_require.clone(),
                spec.secret_operands.clone(),
                spec.helpers.clone(),
            ];
            all.extend(spec.options.iter().map(|o| o.names));
            // This spec's words and near misses, and a few of other specs'.
            let mut probes: Vec<String> = all
                .iter()
                .flat_map(|l| l.iter())
                .flat_map(variants)
                .collect();
            probes.extend(others.iter().cloned());
            for list in &all {
                lists += 1;
                for p in &probes {
                    let plain = list.iter().any(|w| w == p);
                    assert_eq!(list.contains(p), plain, "{path}: {p:?}");
                    found += usize::from(plain);
                }
            }
            others.extend(spec.names.iter().take(1).flat_map(variants));
            if others.len() > 60 {
                others.drain(6..10);
            }
        }
        assert!(lists > 1000 && found > 1000, "{lists} lists, {found} found");
    }

    /// The first-byte check answers what the plain test does, for the
    /// help forms of every spec and for words that are not.
    #[test]
    fn could_be_help_is_the_plain_test() {
        let plain = |word: &str| {
            let bare = word.trim_start_matches('-');
            matches!(
                bare,
                "h" | "help" | "v" | "V" | "version" | "?" | "usage" | "help-all"
            ) || (bare.len() < word.len() && (bare.starts_with("help") || bare.starts_with("vers")))
        };
        let specs = match crate::Taxonomy::embedded() {
            Ok(tax) => tax.specs.clone(),
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let mut words: Vec<String> = ["", "-", "--", "---h", "-x", "hel", "--helpme", "u", "-V"]
            .map(String::from)
            .to_vec();
        for path in specs.names() {
            let Some(spec) = specs.get(&path) else {
                continue;
            };
            for w in spec
                .help
                .iter()
                .chain(&spec.docs)
                .chain(&spec.subcommand_help)
            {
                words.push(w.to_string());
                words.push(format!("-{w}"));
                words.push(w.chars().skip(1).collect());
            }
        }
        assert!(words.len() > 100);
        for w in &words {
            assert_eq!(could_be_help(w), plain(w), "{w:?}");
        }
        assert!(words.iter().filter(|w| could_be_help(w)).count() > 50);
    }

    /// The embedded specs, read in place, are the specs the loader builds
    /// from the TOML files: every name finds the same spec, and words that
    /// are not names (prefixes, longer words, near spellings) find none in
    /// either.
    #[test]
    fn the_packed_index_finds_what_the_loaded_specs_do() {
        let sources = crate::taxonomy::embedded_sources();
        let loaded = match Specs::load(&sources) {
            Ok(s) => s,
            Err(e) => panic!("the embedded specs load: {e}"),
        };
        let packed = match crate::Taxonomy::embedded() {
            Ok(tax) => tax.specs.clone(),
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let names = loaded.names();
        assert!(names.len() > 700, "{}", names.len());
        assert_eq!(packed.names(), names);
        assert_eq!(packed.len(), loaded.len());
        for name in &names {
            // (Equal down to the option index, which the packed spec reads
            // in place and the loaded one builds.)
            assert_eq!(packed.get(name), loaded.get(name), "{name}");
            assert!(
                packed.get(name).is_some_and(|s| s.option_index_in_place()),
                "{name}"
            );
            assert!(
                loaded.get(name).is_some_and(|s| !s.option_index_in_place()),
                "{name}"
            );
            let mut longer = name.to_string();
            longer.push('x');
            let shorter = name.get(..name.len() - 1).unwrap_or("");
            let upper = name.to_ascii_uppercase();
            for other in [longer.as_str(), shorter, upper.as_str(), "", " "] {
                assert_eq!(
                    packed.get(other).is_some(),
                    loaded.get(other).is_some(),
                    "{other:?}"
                );
            }
        }
    }

    /// Specs loaded from files are found through the index `build.rs`
    /// lays out: by every name, and not by a near one; an index of more
    /// names than a slot numbers is refused with the entry named.
    #[test]
    fn loaded_specs_are_found_by_name_up_to_the_index_limit() {
        let file = |names: &[String]| {
            let list = names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(",");
            let text = format!(
                "[[command]]\nnames = [\"first\"]\ncategory = \"fs-read\"\nreason = \"reads\"\n\n\
                 [[command]]\nnames = [{list}]\ncategory = \"fs-read\"\nreason = \"reads\"\n"
            );
            vec![("specs/many.toml".to_string(), text)]
        };
        let names: Vec<String> = (1..format::MAX_NAMES).map(|i| format!("c{i}")).collect();
        let specs = match Specs::load(&file(&names)) {
            Ok(s) => s,
            Err(e) => panic!("{} names load: {e}", names.len() + 1),
        };
        assert_eq!((specs.len(), specs.names().len()), (2, format::MAX_NAMES));
        let first = specs
            .get("first")
            .map(|s| s.names.iter().next().map(str::to_string));
        assert_eq!(first, Some(Some("first".to_string())));
        for name in [&names[0], &names[4_000], &names[names.len() - 1]] {
            let found = specs.get(name).map(|s| s.names.len());
            assert_eq!(found, Some(names.len()), "{name}");
        }
        for near in ["c0", "c", "C1", "firs", "firstx", ""] {
            assert!(specs.get(near).is_none(), "{near}");
        }
        let mut more = names.clone();
        more.push("one_too_many".into());
        match Specs::load(&file(&more)) {
            Err(TaxonomyError::Entry {
                file,
                line,
                id,
                field,
                message,
            }) => {
                assert_eq!(
                    (file.as_str(), line, id.as_str(), field.as_str()),
                    ("specs/many.toml", 6, "c1", "names")
                );
                assert!(message.contains("65534"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // One name whose abbreviations multiply past the limit is refused
        // as it is spelt out, not after.
        let word = "a[bcdefghijklmnop]";
        let name = format!("zzq {}", [word; 7].join(" "));
        let text = format!(
            "[[command]]\nnames = [{name:?}]\ncategory = \"fs-read\"\nreason = \"reads\"\n"
        );
        match Specs::load(&[("specs/wide.toml".to_string(), text)]) {
            Err(TaxonomyError::Entry {
                file,
                line,
                field,
                message,
                ..
            }) => {
                assert_eq!(
                    (file.as_str(), line, field.as_str()),
                    ("specs/wide.toml", 1, "names")
                );
                assert!(
                    message.contains("spells more than 65534 names"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// An index whose numbers point outside itself finds nothing there,
    /// and never panics.
    #[test]
    fn a_damaged_index_finds_nothing() {
        let names = vec![("ls".to_string(), 0), ("git log".to_string(), 1)];
        let specs = vec![b"ab".to_vec(), b"cde".to_vec()];
        let parts = format::SpecIndexParts::lay_out(&names, &specs);
        let index = parts.index();
        assert_eq!(index.find(b"ls"), Some(0));
        assert_eq!(index.find(b"git log"), Some(1));
        assert_eq!(index.find(b"git"), None);
        assert_eq!(index.spec(1), Some(&b"cde"[..]));
        assert_eq!(index.spec(2), None);
        assert_eq!((index.name_count(), index.spec_count()), (2, 2));
        fn all_names(i: SpecIndex<'_>) -> usize {
            (0..3).filter_map(|k| i.name(k)).count()
        }
        // Each part cut short, or emptied.
        for cut in 0..8 {
            let short = SpecIndex {
                slots: &index.slots[..cut.min(index.slots.len())],
                ..index
            };
            let _ = (short.find(b"ls"), short.find(b"git log"));
            let short = SpecIndex {
                names: &index.names[..cut.min(index.names.len())],
                ..index
            };
            let _ = (short.find(b"ls"), short.find(b"git log"), all_names(short));
            let short = SpecIndex {
                text: &index.text[..cut.min(index.text.len())],
                ..index
            };
            let _ = (short.find(b"ls"), short.find(b"git log"), all_names(short));
            let short = SpecIndex {
                offsets: &index.offsets[..cut.min(index.offsets.len())],
                bodies: &index.bodies[..cut.min(index.bodies.len())],
                ..index
            };
            let _ = (short.spec(0), short.spec(1), short.spec(2));
        }
        // Every number pointing far away: a full table with no empty slot
        // still ends its probe.
        let wild_slots = vec![0xffff_ffff; index.slots.len()];
        let wild_names = vec![[u32::MAX; 3]; 2];
        let wild_offsets = vec![u32::MAX; 3];
        let wild = SpecIndex {
            slots: &wild_slots,
            names: &wild_names,
            offsets: &wild_offsets,
            ..index
        };
        assert_eq!(wild.find(b"ls"), None);
        assert_eq!(wild.name(0), None);
        assert_eq!(wild.spec(0), None);
        // Without its filter, an index finds nothing at all.
        let unfiltered = SpecIndex {
            filter: &[],
            ..index
        };
        assert_eq!(unfiltered.find(b"ls"), None);
    }
}
