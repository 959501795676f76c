//! The validated taxonomy: rules in a fixed order, and the command
//! conventions the normaliser needs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use rustc_hash::FxHashSet;

use super::generate::{Compiled, PostCheck, RuleKind};
use super::schema::{Bundle, List, Packer, RawRule, RuleRecord, ShapeLists, Span, Words};
use crate::error::TaxonomyError;
use crate::label::BlastRadius;

/// One validated taxonomy entry: a destructive shape (rule files hold no
/// other; safe verdicts come from command specs). Its text borrows from the
/// binary for the embedded taxonomy (nothing to copy when a hook process
/// starts) and is owned when loaded from files.
#[derive(Clone, Debug, Serialize)]
pub struct Rule {
    /// Unique id.
    pub id: Cow<'static, str>,
    /// Category tag.
    pub category: Cow<'static, str>,
    /// Low, medium or high.
    pub blast_radius: BlastRadius,
    /// Why.
    pub reason: Cow<'static, str>,
    /// The file it came from, relative to the taxonomy root.
    pub file: Cow<'static, str>,
    /// The 1-based line of its id.
    pub line: usize,
    /// What it looks at.
    pub kind: RuleKind,
    /// Command words the entry is scoped to (structured and scoped regex
    /// entries).
    pub commands: Vec<Cow<'static, str>>,
    /// Commands the rule must match.
    pub examples: Vec<String>,
    /// Commands the rule must not match.
    pub near_misses: Vec<String>,
    /// The regex and post-checks, generated on first use.
    #[serde(skip)]
    pub(crate) compiled: OnceLock<Result<Compiled, String>>,
    /// A structured entry's shape as written, which its pattern is
    /// generated from (on first use, unless the loader checked it).
    #[serde(skip)]
    pub(crate) shape: Option<RuleShape>,
}

impl Rule {
    /// The rule's regex and post-checks, generating them on first use.
    pub fn compiled(&self, shapes: &BTreeMap<String, String>) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| {
                let Some(RuleShape(raw)) = &self.shape else {
                    return Err(format!("entry `{}` has no pattern", self.id));
                };
                super::generate::structured(&self.commands, raw, shapes)
                    .map_err(|(field, m)| format!("entry `{}` field `{field}`: {m}", self.id))
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// A structured entry's shape: the fields of the entry as written that
/// its pattern and post-checks are generated from (the others, moved into
/// the rule, left empty).
#[derive(Clone, Debug)]
pub(crate) struct RuleShape(pub(crate) Box<RawRule>);

/// A command's or wrapper's options of one kind: a list of words packed
/// as `build.rs` packs the embedded taxonomy's, read in place:
/// the embedded taxonomy's in the binary, so that a hook process builds no
/// list of its own, and a loaded file's in the text and lists packed from
/// it when it was loaded.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    lists: PackedLists,
    list: List,
}

/// The text and lists a [`Flags`] is read from: the only thing that
/// differs with where the taxonomy came from.
#[derive(Clone, Debug)]
enum PackedLists {
    /// The binary's.
    Embedded {
        text: &'static str,
        lists: &'static [u8],
    },
    /// Packed from a file when it was loaded, shared by its lists.
    Loaded(Arc<LoadedLists>),
}

impl Default for PackedLists {
    fn default() -> Self {
        PackedLists::Embedded {
            text: "",
            lists: &[],
        }
    }
}

/// The text and lists a [`Packer`] filled from a file loaded at run time.
#[derive(Debug, Default)]
pub(crate) struct LoadedLists {
    pub(crate) text: String,
    pub(crate) lists: Vec<u8>,
}

impl From<Packer> for LoadedLists {
    /// The packer's text and lists (its records, if any, are dropped).
    fn from(packer: Packer) -> LoadedLists {
        LoadedLists {
            text: packer.text,
            lists: packer.lists,
        }
    }
}

impl Flags {
    /// A list of the embedded taxonomy's, read in place.
    pub(crate) fn embedded(words: Words<'static>) -> Flags {
        Flags {
            lists: PackedLists::Embedded {
                text: words.text,
                lists: words.lists,
            },
            list: words.list,
        }
    }

    /// List `list` of a loaded file's packed lists.
    pub(crate) fn loaded(lists: &Arc<LoadedLists>, list: List) -> Flags {
        Flags {
            lists: PackedLists::Loaded(Arc::clone(lists)),
            list,
        }
    }

    fn words(&self) -> Words<'_> {
        let (text, lists) = match &self.lists {
            PackedLists::Embedded { text, lists } => (*text, *lists),
            PackedLists::Loaded(l) => (l.text.as_str(), l.lists.as_slice()),
        };
        Words {
            text,
            lists,
            list: self.list,
        }
    }

    /// True when `flag` is one of them.
    pub fn contains(&self, flag: &str) -> bool {
        self.words().contains(flag)
    }

    /// Each of them.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.words().iter()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

/// The same words in the same order, wherever they are kept.
impl PartialEq for Flags {
    fn eq(&self, other: &Flags) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Flags {}

/// Words packed on their own, as a loaded file's are.
impl FromIterator<Cow<'static, str>> for Flags {
    fn from_iter<I: IntoIterator<Item = Cow<'static, str>>>(iter: I) -> Self {
        let words: Vec<Cow<'static, str>> = iter.into_iter().collect();
        let mut packer = Packer::default();
        let list = packer.list(&words);
        Flags::loaded(&Arc::new(LoadedLists::from(packer)), list)
    }
}

/// Argument conventions of one command path.
#[derive(Clone, Debug, Default)]
pub struct CommandSpec {
    /// Options taking a value.
    pub value_flags: Flags,
    /// Options are whole words (`-Recurse`), not letter bundles.
    pub long_single_dash: bool,
    /// The first operand is a search pattern (grep's), not a file, unless
    /// an option gives the pattern (see [`RawCommandSpec`](crate::taxonomy::RawCommandSpec)).
    pub pattern_operand: bool,
    /// Options dropped before matching because they cannot change what the
    /// command does (`git --no-pager`).
    pub ignore_flags: Flags,
    /// The command path this name stands for, if it is an alias.
    pub alias: Option<Vec<String>>,
    /// Words that ask for help or a version wherever an option may stand
    /// (see `help` in `commands.toml`).
    pub help: Flags,
}

/// A validated wrapper.
#[derive(Clone, Debug, Default)]
pub struct Wrapper {
    /// Its primary name (for reasons).
    pub name: Cow<'static, str>,
    /// Options taking a value.
    pub value_flags: Flags,
    /// Positionals consumed before the command.
    pub skip_positionals: usize,
    /// Accepts `NAME=value` words.
    pub assignments: bool,
    /// The wrapped command may still be safe.
    pub keeps_safe: bool,
    /// Joins its arguments and runs them with `sh -c`.
    pub joins: bool,
    /// Options that turn the call into a lookup.
    pub lookup_flags: Flags,
    /// Options that make the wrapper itself write or act.
    pub unsafe_flags: Flags,
    /// The option whose value is a shell string.
    pub string_flag: Option<Cow<'static, str>>,
    /// The option whose value is split into words.
    pub split_flag: Option<Cow<'static, str>>,
}

/// The whole taxonomy, validated and in a deterministic order (files by
/// name, entries in file order).
#[derive(Clone, Debug, Default)]
pub struct Taxonomy {
    /// The entries: packed records that labels read, and whole rules.
    entries: Arc<Entries>,
    /// Argument conventions keyed by command path (`git`, `gh run list`).
    pub commands: super::NameMap<CommandSpec>,
    /// Command paths that have longer paths below them (`gh`, `gh run`), so
    /// the normaliser only looks for subcommands where some exist.
    pub command_parents: FxHashSet<Cow<'static, str>>,
    /// Every command path's help words (`help` in commands.toml) together:
    /// a command with none of them among its words asks for no help, which
    /// settles nearly every command without a lookup.
    pub help_words: super::HelpWords,
    /// Wrappers keyed by each of their names (one shared copy per wrapper).
    pub wrappers: super::NameMap<Arc<Wrapper>>,
    /// Named argument shapes.
    pub shapes: BTreeMap<String, String>,
    /// The command specs that safe verdicts come from (`specs/*.toml`).
    pub specs: Arc<crate::spec::Specs>,
    /// Loaded from the binary's own copy, for which `build.rs` compiled the
    /// automata (the matcher still checks they fit).
    pub(crate) embedded: bool,
}

/// A taxonomy's entries in one form for what labels read of them: packed
/// records (a [`Bundle`]), which a label reads field by field without
/// building the entry. Only where they are kept differs.
#[derive(Debug)]
enum Entries {
    /// The embedded taxonomy's, as `build.rs` packed them into the binary;
    /// whole rules are built from the records on first request.
    Embedded {
        bundle: Bundle<'static>,
        built: OnceLock<Vec<Rule>>,
    },
    /// Entries loaded from files (or given whole): their records, packed
    /// at load as `build.rs` packs the embedded ones, beside the whole
    /// rules, which keep what the records leave out (examples, near
    /// misses, checked patterns).
    Loaded { packer: Packer, rules: Vec<Rule> },
}

impl Default for Entries {
    fn default() -> Entries {
        Entries::Loaded {
            packer: Packer::default(),
            rules: Vec::new(),
        }
    }
}

impl Entries {
    /// Whole rules, packed for their labels to be read as the embedded
    /// ones are.
    fn loaded(rules: Vec<Rule>) -> Result<Entries, TaxonomyError> {
        let mut packer = Packer::default();
        for run in rules.chunk_by(|a, b| a.file == b.file) {
            let path = packer.span(&run[0].file);
            packer
                .rule_files
                .push((path, crate::le_words::u32_of(run.len())));
        }
        for rule in &rules {
            let record = RuleRecord {
                line: crate::le_words::u32_of(rule.line),
                kind: rule.kind,
                id: packer.span(&rule.id),
                category: packer.span(&rule.category),
                blast_radius: Some(packer.span(rule.blast_radius.as_str())),
                reason: packer.span(&rule.reason),
                command: packer.list(&rule.commands),
                pattern: match rule.compiled.get() {
                    Some(Ok(c)) if rule.kind != RuleKind::Command => Some(packer.span(&c.pattern)),
                    _ => None,
                },
                shape: match &rule.shape {
                    Some(RuleShape(raw)) => packer.shape(raw),
                    None => ShapeLists::default(),
                },
            };
            packer.rule(record);
            if !packer.within_offsets() {
                return Err(too_large(&rule.file));
            }
        }
        Ok(Entries::Loaded { packer, rules })
    }

    /// The records, wherever they are kept.
    fn bundle(&self) -> Bundle<'_> {
        match self {
            Entries::Embedded { bundle, .. } => *bundle,
            Entries::Loaded { packer, .. } => packer.bundle(),
        }
    }

    /// A string of the records' text as a label holds it: borrowed from
    /// the binary, or copied from a loaded taxonomy's text.
    fn label_text(&self, span: Span) -> Option<Cow<'static, str>> {
        match self {
            Entries::Embedded { bundle, .. } => bundle.str(span).map(Cow::Borrowed),
            Entries::Loaded { packer, .. } => {
                packer.bundle().str(span).map(|s| Cow::Owned(s.into()))
            }
        }
    }
}

/// What a label needs of one entry, read without building the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryLabel {
    /// Its id.
    pub id: Cow<'static, str>,
    /// Its blast radius.
    pub blast_radius: BlastRadius,
    /// Its category.
    pub category: Cow<'static, str>,
    /// Its reason.
    pub reason: Cow<'static, str>,
}

impl Taxonomy {
    /// A taxonomy over the embedded taxonomy's packed entries.
    pub(crate) fn set_packed(&mut self, bundle: Bundle<'static>) {
        self.entries = Arc::new(Entries::Embedded {
            bundle,
            built: OnceLock::new(),
        });
    }

    /// Replaces the entries with `rules`, whole (the taxonomy stops being
    /// the embedded one: the automata `build.rs` compiled no longer
    /// answer for it unless its entries are the same). Refused, the
    /// entries unchanged, when their text is more than the records can
    /// address (4 GiB).
    pub fn set_rules(&mut self, rules: Vec<Rule>) -> Result<(), TaxonomyError> {
        self.entries = Arc::new(Entries::loaded(rules)?);
        Ok(())
    }

    /// True while the entries are the embedded taxonomy's, unchanged: the
    /// automata `build.rs` compiled from the same bundle fit them.
    pub(crate) fn has_embedded_entries(&self) -> bool {
        matches!(*self.entries, Entries::Embedded { .. })
    }

    /// True for the taxonomy embedded in the binary.
    pub fn is_embedded(&self) -> bool {
        self.embedded
    }

    /// Every rule, in taxonomy order. For the
    /// embedded taxonomy they are built on the first call: classifying a
    /// command needs only [`Taxonomy::entry`], and a hook process that
    /// built every entry would spend a third of its time doing it. (Should
    /// the packed entries not unpack, which only a damaged binary could
    /// cause, this is empty; labels read entries one by one and fail
    /// closed.)
    pub fn rules(&self) -> &[Rule] {
        match &*self.entries {
            Entries::Embedded { bundle, built } => {
                built.get_or_init(|| unpack_rules(bundle).unwrap_or_default())
            }
            Entries::Loaded { rules, .. } => rules,
        }
    }

    /// How many rules there are.
    pub fn rule_count(&self) -> usize {
        self.entries.bundle().rule_count()
    }

    /// Entry `i`'s blast radius.
    pub fn entry_radius(&self, i: usize) -> Option<BlastRadius> {
        BlastRadius::parse(self.entries.bundle().rule_radius(i)??)
    }

    /// Entry `i`'s category.
    pub fn entry_category(&self, i: usize) -> Option<&str> {
        self.entries.bundle().rule_category(i)
    }

    /// Entry `i`'s category and reason, as a label holds them.
    pub fn entry_category_reason(
        &self,
        i: usize,
    ) -> Option<(Cow<'static, str>, Cow<'static, str>)> {
        let r = self.entries.bundle().rule(i)?;
        let text = |span| self.entries.label_text(span);
        Some((text(r.category)?, text(r.reason)?))
    }

    /// What a label needs of entry `i`.
    pub fn entry(&self, i: usize) -> Option<EntryLabel> {
        let bundle = self.entries.bundle();
        let r = bundle.rule(i)?;
        let text = |span| self.entries.label_text(span);
        Some(EntryLabel {
            id: text(r.id)?,
            blast_radius: record_radius(&bundle, r)?,
            category: text(r.category)?,
            reason: text(r.reason)?,
        })
    }

    /// The rule with the given id.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules().iter().find(|r| r.id == id)
    }

    /// Distinct categories of the entries, sorted.
    pub fn categories(&self) -> Vec<&str> {
        let mut cats: Vec<&str> = self.rules().iter().map(|r| r.category.as_ref()).collect();
        cats.sort_unstable();
        cats.dedup();
        cats
    }
}

/// Files whose text is more than packed records can address.
pub(super) fn too_large(file: &str) -> TaxonomyError {
    TaxonomyError::Syntax {
        file: file.into(),
        message: "more than 4 GiB of text, more than toolgate's records can address: split the taxonomy, or remove what is not needed".into(),
    }
}

/// An error in the embedded taxonomy itself (only a damaged binary, or a
/// build that went wrong, has one).
pub(super) fn broken(message: String) -> TaxonomyError {
    TaxonomyError::Syntax {
        file: "taxonomy/".into(),
        message,
    }
}

/// The embedded taxonomy has a span or record that lies outside it.
pub(super) fn cut() -> TaxonomyError {
    broken("the embedded taxonomy points outside itself".into())
}

/// The embedded taxonomy's entries, built whole: for `explain`, the test
/// suite, and automata compiled at run time.
fn unpack_rules(bundle: &Bundle<'static>) -> Result<Vec<Rule>, TaxonomyError> {
    let mut rules = Vec::with_capacity(bundle.rule_count());
    let mut next = 0;
    for &(path, entries) in bundle.rule_files {
        let path = bundle.str(path).ok_or_else(cut)?;
        for _ in 0..entries {
            let r = bundle.rule(next).ok_or_else(cut)?;
            next += 1;
            let text = |span| bundle.str(span).ok_or_else(cut);
            let id = text(r.id)?;
            let blast_radius = record_radius(bundle, r)
                .ok_or_else(|| broken(format!("entry `{id}` has no blast radius")))?;
            let compiled = OnceLock::new();
            let shape = match r.pattern {
                Some(pattern) => {
                    let _ = compiled.set(Ok(Compiled {
                        pattern: text(pattern)?.to_string(),
                        tail: None,
                        post: PostCheck::default(),
                    }));
                    None
                }
                None => Some(RuleShape(Box::new(
                    bundle.raw_shape(&r.shape).ok_or_else(cut)?,
                ))),
            };
            let mut commands = Vec::with_capacity(r.command.1 as usize);
            for word in bundle.words(r.command) {
                commands.push(Cow::Borrowed(word.ok_or_else(cut)?));
            }
            rules.push(Rule {
                id: Cow::Borrowed(id),
                category: Cow::Borrowed(text(r.category)?),
                blast_radius,
                reason: Cow::Borrowed(text(r.reason)?),
                file: Cow::Borrowed(path),
                line: r.line as usize,
                kind: r.kind,
                commands,
                examples: Vec::new(),
                near_misses: Vec::new(),
                compiled,
                shape,
            });
        }
    }
    Ok(rules)
}

/// An entry's blast radius, from its whole record (`None` when it names
/// none that parses).
fn record_radius(bundle: &Bundle<'_>, r: &RuleRecord) -> Option<BlastRadius> {
    BlastRadius::parse(bundle.str(r.blast_radius?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags packed on their own hold their words, in order, whether their
    /// list is short enough to be searched in order or carries a table,
    /// and equal the same words wherever those are packed.
    #[test]
    fn flags_hold_their_words_whatever_their_number() {
        for n in [0, 1, 3, 4, 5, 47, 48, 49, 60] {
            let words: Vec<String> = (0..n).map(|i| format!("--opt{i}")).collect();
            let flags: Flags = words.iter().map(|w| Cow::Owned(w.clone())).collect();
            assert_eq!(flags.iter().collect::<Vec<_>>(), words, "{n}");
            assert_eq!(flags.is_empty(), n == 0);
            for w in &words {
                assert!(flags.contains(w), "{n}: {w}");
            }
            for other in ["", "--opt", "--opt1x", "-opt0", "--OPT0"] {
                assert!(!flags.contains(other), "{n}: {other}");
            }
            // The same words among others' in one text and lists.
            let mut packer = Packer::default();
            packer.list(&["-a", "-b"]);
            let list = packer.list(&words);
            let shared = Arc::new(LoadedLists::from(packer));
            assert_eq!(Flags::loaded(&shared, list), flags, "{n}");
            assert_ne!(Flags::loaded(&shared, (0, 2)), flags, "{n}");
        }
        assert!(Flags::default().is_empty() && !Flags::default().contains(""));
    }

    /// A loaded taxonomy's records name its rule files as the embedded
    /// bundle does: each file once, in order, with its count of entries.
    #[test]
    fn loaded_records_name_each_rule_file_with_its_entries() {
        let sources = super::super::load::embedded_sources();
        let loaded = super::super::load::load_sources(&sources).unwrap_or_else(|e| panic!("{e}"));
        let embedded = crate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        let files_of = |tax: &Taxonomy| -> Vec<(String, u32)> {
            let bundle = tax.entries.bundle();
            bundle
                .rule_files
                .iter()
                .map(|&(path, n)| (bundle.str(path).unwrap_or("?").to_string(), n))
                .collect()
        };
        let (files, want) = (files_of(&loaded), files_of(&embedded));
        assert!(files.len() > 5, "{files:?}");
        assert_eq!(files, want);
    }
}
