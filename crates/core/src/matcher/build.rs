//! Building and searching the pattern groups.
//!
//! Entries are grouped by command word (see [`super::plan`]). For the
//! embedded taxonomy, `build.rs` compiled each group into a DFA that is
//! used straight from the binary (a [`crate::table`] of next states, or one
//! per part of a group too big for one); any other taxonomy (and a group
//! too big to ship) is compiled into a lazy DFA the first time a command
//! with that word is seen. A hook process thus compiles nothing for most
//! commands, and a bulk scan compiles each remaining group once for
//! millions of lines.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::PatternSet;
use rustc_hash::FxHashMap;

use super::compile::{compile_one, MultiPattern};
use super::plan::{self, Family, FlatGroup, FlatIndex};
use crate::error::TaxonomyError;
use crate::glob::glob_match;
use crate::le_words::{le_u32, push_words, u32_of};
use crate::normalize::Canonical;
use crate::table::{Damaged, Table};
use crate::taxonomy::group_pattern;
use crate::taxonomy::{Compiled, Taxonomy};

/// The index of the automata `build.rs` compiled for the embedded taxonomy.
static SHIPPED: FlatIndex<'static> = include!(concat!(env!("OUT_DIR"), "/automata_index.rs"));
/// The automata themselves.
static SHIPPED_DFAS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/automata.dfa"));

/// A shipped group's DFA bytes, if it has one.
fn shipped_dfa((at, len): (u32, u32)) -> Option<&'static [u8]> {
    let at = usize::try_from(at).ok()?;
    let end = at.checked_add(usize::try_from(len).ok()?)?;
    SHIPPED_DFAS.get(at..end).filter(|b| !b.is_empty())
}

/// A shipped group's DFA parts and whether it searches anchored.
fn shipped_parts_of(g: &FlatGroup) -> Option<(&'static [u8], bool)> {
    shipped_dfa(g.dfa).map(|bytes| (bytes, g.anchored))
}

/// The entries of a group, by pattern id: little-endian `u32` rule
/// indices, borrowed from the binary for the groups `build.rs` shipped and
/// written out for those planned from a loaded taxonomy.
#[derive(Debug, Default)]
struct Rules(Cow<'static, [u8]>);

impl Rules {
    /// The rules of a group planned here.
    fn planned(rules: &[usize]) -> Rules {
        let words: Vec<u32> = rules.iter().map(|&r| u32_of(r)).collect();
        let mut bytes = Vec::with_capacity(4 * words.len());
        push_words(&mut bytes, &words);
        Rules(Cow::Owned(bytes))
    }

    fn get(&self, i: usize) -> Option<usize> {
        Some(le_u32(&self.0, 4 * i)? as usize)
    }

    fn len(&self) -> usize {
        self.0.len() / 4
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A shipped table, and the group pattern id its pattern ids count from.
type Part = (Table<'static>, usize);

/// A group's automaton (boxed by its group, so the variants' sizes matter
/// little).
enum Searcher {
    /// Compiled at build time into tables (see [`crate::table`]), used from
    /// the binary: one, or one per part of a group too big for one, each
    /// with the id of its first pattern. For a group of one table, the
    /// prefix every pattern starts with (the command word framed by
    /// separators, or nothing) and the state after it: a haystack that
    /// starts with the prefix is searched from there on.
    Shipped {
        parts: Vec<Part>,
        after_prefix: Option<(Vec<u8>, u32)>,
    },
    /// Compiled here.
    Lazy(MultiPattern),
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Searcher::Shipped { parts, .. } => write!(f, "Shipped(parts: {})", parts.len()),
            Searcher::Lazy(m) => write!(f, "Lazy({m:?})"),
        }
    }
}

/// Some patterns, compiled into one automaton on first use.
#[derive(Debug, Default)]
pub struct PatternGroup {
    /// What the group holds, for error messages (with the word, if any).
    what: &'static str,
    /// Rule index (into [`Taxonomy::rules`]) for each pattern id.
    rules: Rules,
    /// The DFA `build.rs` compiled for this group, if any, and whether it
    /// searches anchored.
    shipped: Option<(&'static [u8], bool)>,
    /// Boxed: most groups of a process are never searched, and an unboxed
    /// DFA would make every group in the maps several times larger.
    compiled: OnceLock<Result<Option<Box<Searcher>>, String>>,
    /// Compiled here if the shipped DFA ever fails a search.
    fallback: OnceLock<Result<Box<MultiPattern>, String>>,
    /// Whether any of its entries is a guard-tamper one: most groups have
    /// none, and a command whose groups have none needs no second look at
    /// the paths its words reach.
    has_guard_entry: OnceLock<bool>,
}

impl PatternGroup {
    fn new(what: &'static str, rules: Rules, shipped: Option<(&'static [u8], bool)>) -> Self {
        PatternGroup {
            what,
            rules,
            shipped,
            compiled: OnceLock::new(),
            fallback: OnceLock::new(),
            has_guard_entry: OnceLock::new(),
        }
    }

    /// Whether any entry of the group is of the guard-tamper category.
    fn has_guard_entry(&self, tax: &Taxonomy) -> bool {
        *self.has_guard_entry.get_or_init(|| {
            self.rules
                .iter()
                .any(|r| tax.entry_category(r) == Some(crate::guard_paths::GUARD_TAMPER))
        })
    }

    /// The group's automaton. `word` is the command word every command
    /// reaching this group has, when there is one: structured patterns are
    /// then compiled for that word alone.
    fn searcher(&self, tax: &Taxonomy, word: Option<&str>) -> Result<Option<&Searcher>, &str> {
        self.compiled
            .get_or_init(|| {
                if self.rules.is_empty() {
                    return Ok(None);
                }
                if let Some((bytes, anchored)) = self.shipped {
                    if let Some(parts) = load_parts(bytes, self.rules.len()) {
                        let after_prefix = match &parts[..] {
                            [(table, 0)] => Some(table_prefix(table, anchored, word)),
                            _ => None,
                        };
                        return Ok(Some(Box::new(Searcher::Shipped {
                            parts,
                            after_prefix,
                        })));
                    }
                }
                self.compile(tax, word)
                    .map(|m| Some(Box::new(Searcher::Lazy(m))))
            })
            .as_ref()
            .map(|s| s.as_deref())
            .map_err(String::as_str)
    }

    /// Generates the group's patterns and compiles them here.
    fn compile(&self, tax: &Taxonomy, word: Option<&str>) -> Result<MultiPattern, String> {
        let mut patterns: Vec<String> = Vec::with_capacity(self.rules.len());
        for i in self.rules.iter() {
            let rule = tax
                .rules()
                .get(i)
                .ok_or_else(|| format!("{}: entry {i} is missing", self.describe(word)))?;
            let c = rule
                .compiled(&tax.shapes)
                .map_err(|e| format!("{}: {e}", self.describe(word)))?;
            patterns.push(group_pattern(word, c));
        }
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        MultiPattern::new(&refs).map_err(|e| format!("{}: {e}", self.describe(word)))
    }

    /// The group, for error messages.
    fn describe(&self, word: Option<&str>) -> String {
        match word {
            Some(w) => format!("{} for `{w}`", self.what),
            None => self.what.to_string(),
        }
    }

    /// Appends to `out` the rule index of every pattern matching `haystack`.
    /// A group that failed to compile reports its error instead.
    pub fn matches_into(
        &self,
        tax: &Taxonomy,
        haystack: &str,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        self.word_matches_into(tax, None, haystack, out)
    }

    fn word_matches_into(
        &self,
        tax: &Taxonomy,
        word: Option<&str>,
        haystack: &str,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        let Some(searcher) = self.searcher(tax, word).map_err(String::from)? else {
            return Ok(());
        };
        // One pattern set per thread, reused: a search then allocates
        // nothing.
        thread_local! {
            static SET: RefCell<PatternSet> = RefCell::new(PatternSet::new(0));
        }
        SET.with(|cell| {
            let mut set = cell.borrow_mut();
            let len = self.rules.len();
            if set.capacity() < len {
                *set = PatternSet::new(len);
            }
            set.clear();
            match searcher {
                Searcher::Lazy(m) => m.which_matches(haystack, &mut set),
                Searcher::Shipped {
                    parts,
                    after_prefix,
                } => {
                    let bytes = haystack.as_bytes();
                    let from_prefix = after_prefix.as_ref().and_then(|(prefix, state)| {
                        Some((*state, bytes.strip_prefix(prefix.as_slice())?))
                    });
                    let found = match (&parts[..], from_prefix) {
                        ([(table, 0)], Some((state, rest))) => {
                            search_table(table, state, rest, 0, &mut set)
                        }
                        _ => parts.iter().try_for_each(|(table, first)| {
                            search_table(table, table.start(), bytes, *first, &mut set)
                        }),
                    };
                    if found.is_err() {
                        // Only a damaged binary gets here: compile the group.
                        set.clear();
                        let fallback = self
                            .fallback
                            .get_or_init(|| self.compile(tax, word).map(Box::new));
                        match fallback {
                            Ok(m) => m.which_matches(haystack, &mut set),
                            Err(e) => return Err(e.clone()),
                        }
                    }
                }
            }
            // Listing the set walks its whole capacity: skip that when
            // nothing matched, as is usual.
            if !set.is_empty() {
                out.extend(set.iter().filter_map(|pid| self.rules.get(pid.as_usize())));
            }
            Ok(())
        })
    }

    /// How many patterns the group holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when the group holds no pattern.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// True when the group's automaton came compiled with the binary.
    #[cfg(test)]
    pub fn is_shipped(&self) -> bool {
        self.shipped.is_some()
    }
}

/// Structured patterns of one class, grouped by command word.
#[derive(Debug)]
pub struct WordGroups {
    /// Which entries.
    family: Family,
    /// The groups by word (for the embedded taxonomy, they are found in the
    /// shipped index instead, see [`Matcher::groups_for`]).
    by_word: FxHashMap<Cow<'static, str>, PatternGroup>,
    /// Patterns whose command word is a glob (`mkfs.*`), with the globs.
    globbed: PatternGroup,
    /// The glob words, each with its literal prefix (checked first).
    globs: Vec<(String, String)>,
    /// The bytes the globs' prefixes start with, as a set (every byte when
    /// a glob starts with `*`): most command words start with none, and
    /// are turned away without a comparison.
    glob_firsts: [u64; 4],
}

impl WordGroups {
    fn new(family: Family, what: &'static str) -> WordGroups {
        WordGroups {
            family,
            by_word: FxHashMap::default(),
            globbed: PatternGroup::new(what, Rules::default(), None),
            globs: Vec::new(),
            glob_firsts: [0; 4],
        }
    }

    fn add_glob(&mut self, glob: &str) {
        let prefix = glob.split('*').next().unwrap_or("").to_string();
        match prefix.bytes().next() {
            Some(b) => self.glob_firsts[usize::from(b / 64)] |= 1 << (b % 64),
            None => self.glob_firsts = [u64::MAX; 4],
        }
        self.globs.push((prefix, glob.to_string()));
    }

    /// The glob group, if a glob word matches `name`.
    fn glob_group(&self, name: &str) -> Option<(Option<&str>, &PatternGroup)> {
        let first = name.bytes().next().unwrap_or(0);
        if self.glob_firsts[usize::from(first / 64)] & (1 << (first % 64)) == 0 {
            return None;
        }
        self.globs
            .iter()
            .any(|(prefix, g)| name.starts_with(prefix.as_str()) && glob_match(g, name))
            .then_some((None, &self.globbed))
    }
}

/// The groups of one family that apply to one command word: the word's own
/// group and the glob group, either or both absent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Applicable<'a> {
    groups: [Option<(Option<&'a str>, &'a PatternGroup)>; 2],
}

impl<'a> Applicable<'a> {
    /// True when no group applies: nothing can match.
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(Option::is_none)
    }

    /// True when some entry of these groups is a guard-tamper one, so that
    /// a search of them can find one.
    pub fn may_find_guard_entry(&self, tax: &Taxonomy) -> bool {
        self.iter().any(|(_, g)| g.has_guard_entry(tax))
    }

    /// The groups, each with the word its patterns are compiled for.
    fn iter(&self) -> impl Iterator<Item = (Option<&'a str>, &'a PatternGroup)> + '_ {
        self.groups.iter().flatten().copied()
    }
}

/// The compiled taxonomy.
#[derive(Debug)]
pub struct Matcher {
    /// Destructive structured shapes, over canonical forms.
    pub destructive: WordGroups,
    /// SQL patterns, over SQL text.
    pub sql: PatternGroup,
    /// Code patterns, over interpreter code.
    pub code: PatternGroup,
    /// Raw-regex patterns scoped to command words, over normalised command
    /// lines.
    pub line: WordGroups,
    /// Raw-regex patterns for any command.
    pub line_any: PatternGroup,
    /// Per rule: the forbidden-token check, loaded or compiled on first use.
    forbid: Vec<OnceLock<Option<Checker>>>,
    /// For the embedded taxonomy: the shipped index of groups and
    /// post-checks, read in place.
    index: Option<FlatIndex<'static>>,
    /// Per shipped group: its state, made on first use.
    /// (Boxed: a process uses a handful of the hundreds of slots.)
    slots: Vec<OnceLock<Option<Slot>>>,
}

/// A shipped group made ready: its command word and its state.
type Slot = (&'static str, Box<PatternGroup>);

/// A yes/no check over a canonical form.
enum Checker {
    /// Shipped with the binary as a table.
    Table(Table<'static>),
    /// Compiled here.
    Regex(Regex),
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Checker::Table(_) => f.write_str("Checker::Table"),
            Checker::Regex(_) => f.write_str("Checker::Regex"),
        }
    }
}

impl Checker {
    /// Does the check's pattern occur in `haystack`? `None` when the search
    /// failed (only a damaged table fails).
    fn is_match(&self, haystack: &str) -> Option<bool> {
        match self {
            Checker::Table(table) => table.is_match(haystack.as_bytes()).ok(),
            Checker::Regex(re) => Some(re.is_match(haystack)),
        }
    }
}

/// An entry's post-checks, shipped or generated here.
struct PostView<'a> {
    forbid: Option<(&'a [u8], Option<&'static [u8]>)>,
    max_args: Option<usize>,
    min_args: Option<usize>,
    subcommand_len: usize,
}

impl Matcher {
    /// Prepares the pattern groups of a taxonomy; automata not shipped with
    /// the binary are compiled on first use (see [`Matcher::compile_all`] to
    /// compile them now).
    pub fn new(tax: &Taxonomy) -> Matcher {
        let lazy = || (0..tax.rule_count()).map(|_| OnceLock::new()).collect();
        let mut m = Matcher {
            destructive: WordGroups::new(Family::Destructive, "destructive entries"),
            sql: PatternGroup::default(),
            code: PatternGroup::default(),
            line: WordGroups::new(Family::Line, "regex entries"),
            line_any: PatternGroup::default(),
            forbid: lazy(),
            index: None,
            slots: Vec::new(),
        };
        if tax.is_embedded() {
            if let Some(index) = shipped_for(tax) {
                // Word groups are looked up in the index when needed; the
                // few others are filed now.
                for (_, g) in index.special_groups() {
                    let dfa = shipped_parts_of(&g);
                    m.file(
                        g.special,
                        g.family,
                        Cow::Borrowed(""),
                        Rules(Cow::Borrowed(g.rules)),
                        dfa,
                    );
                }
                for (family, glob) in index.globs() {
                    m.family_mut(family).add_glob(glob);
                }
                m.slots = (0..index.group_count()).map(|_| OnceLock::new()).collect();
                m.index = Some(index);
                return m;
            }
        }
        let planned = plan::plan(tax.rules().iter().map(|r| (r.kind, r.commands.as_slice())));
        for (key, rules) in planned.groups {
            let (special, family, word) = plan::key_parts(&key);
            let word = Cow::Owned(word.to_string());
            m.file(special, family, word, Rules::planned(&rules), None);
        }
        for (family, glob) in &planned.globs {
            m.family_mut(*family).add_glob(glob);
        }
        m
    }

    /// Every group of `groups` that may apply to a command word, with the
    /// word its patterns are compiled for: looked up once per command, then
    /// searched as often as needed.
    pub fn groups_for<'a>(&'a self, groups: &'a WordGroups, name: &str) -> Applicable<'a> {
        let word = match &self.index {
            Some(index) => index.word_group_number(groups.family, name).and_then(|i| {
                // Decoded once: a scan looks the same words up again
                // and again.
                let slot = self.slots.get(i)?.get_or_init(|| {
                    let g = index.group(i)?;
                    let rules = Rules(Cow::Borrowed(g.rules));
                    let group = PatternGroup::new(groups.globbed.what, rules, shipped_parts_of(&g));
                    Some((g.word, Box::new(group)))
                });
                let (word, group) = slot.as_ref()?;
                Some((Some(*word), group.as_ref()))
            }),
            None => groups
                .by_word
                .get_key_value(name)
                .map(|(w, g)| (Some(w.as_ref()), g)),
        };
        Applicable {
            groups: [word, groups.glob_group(name)],
        }
    }

    /// Every group, with its word.
    fn all_groups(&self) -> Vec<(Option<&str>, &PatternGroup)> {
        let mut all: Vec<(Option<&str>, &PatternGroup)> = Vec::new();
        for groups in [&self.destructive, &self.line] {
            all.extend(groups.by_word.iter().map(|(w, g)| (Some(w.as_ref()), g)));
            all.push((None, &groups.globbed));
        }
        if let Some(index) = &self.index {
            for i in 0..index.group_count() {
                let Some(g) = index.group(i).filter(|g| g.special == plan::SPECIAL_WORD) else {
                    continue;
                };
                let Some(groups) = g.family.map(|f| self.family(f)) else {
                    continue;
                };
                all.extend(self.groups_for(groups, g.word).groups[0]);
            }
        }
        all.extend([&self.sql, &self.code, &self.line_any].map(|g| (None, g)));
        all
    }

    fn family(&self, family: Family) -> &WordGroups {
        match family {
            Family::Destructive => &self.destructive,
            Family::Line => &self.line,
        }
    }

    fn family_mut(&mut self, family: Family) -> &mut WordGroups {
        match family {
            Family::Destructive => &mut self.destructive,
            Family::Line => &mut self.line,
        }
    }

    /// Puts one planned group (given as [`plan::key_parts`]) where the
    /// searches look for it.
    fn file(
        &mut self,
        special: u8,
        family: Option<Family>,
        word: Cow<'static, str>,
        rules: Rules,
        dfa: Option<(&'static [u8], bool)>,
    ) {
        let (slot, what) = match (special, family) {
            (plan::SPECIAL_WORD, Some(family)) => {
                let groups = self.family_mut(family);
                let group = PatternGroup::new(groups.globbed.what, rules, dfa);
                groups.by_word.insert(word, group);
                return;
            }
            (plan::SPECIAL_GLOB, Some(family)) => {
                let groups = self.family_mut(family);
                let what = groups.globbed.what;
                (&mut groups.globbed, what)
            }
            (plan::SPECIAL_SQL, _) => (&mut self.sql, "sql entries"),
            (plan::SPECIAL_CODE, _) => (&mut self.code, "code entries"),
            (plan::SPECIAL_LINE_ANY, _) => (&mut self.line_any, "regex entries for any command"),
            // Nothing else is ever written.
            _ => return,
        };
        *slot = PatternGroup::new(what, rules, dfa);
    }

    /// Compiles every automaton now, reporting the first failure: for tests
    /// and for long-running processes that prefer to pay up front.
    pub fn compile_all(&self, tax: &Taxonomy) -> Result<(), TaxonomyError> {
        for (word, g) in self.all_groups() {
            g.searcher(tax, word)
                .map_err(|message| TaxonomyError::Build {
                    what: g.describe(word),
                    message: message.to_string(),
                })?;
        }
        for rule in tax.rules() {
            let c = rule
                .compiled(&tax.shapes)
                .map_err(|e| TaxonomyError::Build {
                    what: format!("entry `{}`", rule.id),
                    message: e.to_string(),
                })?;
            if let Some(src) = &c.post.forbid {
                compile_one(src).map_err(|e| TaxonomyError::Build {
                    what: format!("post-checks of `{}`", rule.id),
                    message: e.to_string(),
                })?;
            }
        }
        Ok(())
    }

    /// The raw-regex groups scoped to a command word; with the rules for any
    /// command, they apply when [`Matcher::has_line_rules`] says so.
    pub fn line_groups(&self, name: &str) -> Applicable<'_> {
        self.groups_for(&self.line, name)
    }

    /// Do any raw-regex rules apply to a command with these line groups?
    pub fn has_line_rules(&self, found: &Applicable<'_>) -> bool {
        !self.line_any.is_empty() || !found.is_empty()
    }

    /// Raw-regex rules matching a command line: those of the command word's
    /// line groups, then those for any command.
    pub fn line_matches(
        &self,
        tax: &Taxonomy,
        found: &Applicable<'_>,
        line: &str,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        for (word, group) in found.iter() {
            group.word_matches_into(tax, word, line, out)?;
        }
        self.line_any.matches_into(tax, line, out)
    }

    /// Rules of the groups found for a command word (see
    /// [`Matcher::groups_for`]) matching its canonical form, after
    /// post-checks.
    pub fn command_matches(
        &self,
        tax: &Taxonomy,
        found: &Applicable<'_>,
        canon: &Canonical,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        let start = out.len();
        for (word, group) in found.iter() {
            group.word_matches_into(tax, word, &canon.text, out)?;
        }
        let mut keep = start;
        for i in start..out.len() {
            let rule_idx = out[i];
            if self.post_check(tax, rule_idx, canon) {
                out[keep] = rule_idx;
                keep += 1;
            }
        }
        out.truncate(keep);
        Ok(())
    }

    /// A post-check's automaton: the shipped DFA, else the pattern compiled
    /// here.
    fn checker<'a>(
        cell: &'a OnceLock<Option<Checker>>,
        src: &[u8],
        dfa: Option<&'static [u8]>,
    ) -> Option<&'a Checker> {
        cell.get_or_init(|| match dfa.and_then(Table::new) {
            Some(table) => Some(Checker::Table(table)),
            None => std::str::from_utf8(src)
                .ok()
                .and_then(|src| compile_one(src).ok())
                .map(Checker::Regex),
        })
        .as_ref()
    }

    fn post_check(&self, tax: &Taxonomy, rule_idx: usize, canon: &Canonical) -> bool {
        // A check that cannot compile or search (which it never fails to
        // in a sound binary) errs on the cautious side: every entry is
        // destructive, so the entry still matches.
        let shipped = self.index.as_ref().and_then(|index| index.post(rule_idx));
        let rule = || tax.rules().get(rule_idx).ok_or("the entry is missing");
        let post = match shipped {
            Some(p) => PostView {
                forbid: p.forbid.map(|(src, at)| (src, shipped_dfa(at))),
                max_args: p.max_args,
                min_args: p.min_args,
                subcommand_len: p.subcommand_len,
            },
            None => match rule().and_then(|r| r.compiled(&tax.shapes)) {
                Ok(Compiled { post, .. }) => PostView {
                    forbid: post.forbid.as_deref().map(|src| (src.as_bytes(), None)),
                    max_args: post.max_args,
                    min_args: post.min_args,
                    subcommand_len: post.subcommand_len,
                },
                Err(_) => return true,
            },
        };
        if let Some((src, dfa)) = post.forbid {
            let found = Self::checker(&self.forbid[rule_idx], src, dfa)
                .and_then(|c| c.is_match(&canon.text));
            if found == Some(true) {
                return false;
            }
        }
        if post.max_args.is_some() || post.min_args.is_some() {
            let n = canon.positional_count().saturating_sub(post.subcommand_len);
            if post.max_args.is_some_and(|max| n > max) {
                return false;
            }
            if post.min_args.is_some_and(|min| n < min) {
                return false;
            }
        }
        true
    }
}

/// Where a table's searches start (see `Searcher::Shipped`): after the
/// separator-framed command `word` when the group is anchored and its
/// patterns all start with it; else at the start, with no prefix.
fn table_prefix(table: &Table<'static>, anchored: bool, word: Option<&str>) -> (Vec<u8>, u32) {
    if let Some(word) = word.filter(|_| anchored) {
        let mut prefix = Vec::with_capacity(word.len() + 2);
        prefix.push(0x1f);
        prefix.extend_from_slice(word.as_bytes());
        prefix.push(0x1f);
        if let Some(state) = table.state_after(&prefix) {
            return (prefix, state);
        }
    }
    (Vec::new(), table.start())
}

/// A shipped group's tables, ready to search; `None` unless every part is
/// a table whose pattern ids, counted from its first, fall in the group's
/// `patterns` (only a damaged binary could hold anything else: the group is
/// then compiled here).
fn load_parts(bytes: &'static [u8], patterns: usize) -> Option<Vec<Part>> {
    plan::parts(bytes)?
        .into_iter()
        .map(|(first, bytes)| {
            let table = Table::new(bytes)?;
            (first.checked_add(table.pattern_count())? <= patterns).then_some((table, first))
        })
        .collect()
}

/// Adds to `set` every pattern of `table` (its ids moved up by `first`)
/// that matches when the table, in `state`, reads `rest` and then the end
/// of the input.
fn search_table(
    table: &Table<'static>,
    state: u32,
    rest: &[u8],
    first: usize,
    set: &mut PatternSet,
) -> Result<(), Damaged> {
    let mut outside = false;
    table.which_matches_from(state, rest, |p| {
        match regex_automata::PatternID::new(first + p).map(|id| set.try_insert(id)) {
            Ok(Ok(_)) => {}
            _ => outside = true,
        }
    })?;
    if outside {
        Err(Damaged)
    } else {
        Ok(())
    }
}

/// The shipped index, when it was built for this very taxonomy: the same
/// entries, in the same order, for the same command words.
fn shipped_for(tax: &Taxonomy) -> Option<FlatIndex<'static>> {
    let index = SHIPPED;
    // (An empty index, where the DFAs could not be shipped, is none.)
    if index.group_count() == 0 {
        return None;
    }
    let (count, shipped) = index.taxonomy();
    if tax.has_embedded_entries() {
        // The entries are the very bundle build.rs compiled the index from
        // (`the_index_fits_the_packed_entries` holds the two together), and
        // no one changed them: computing the fingerprint would build every
        // entry.
        return (count == tax.rule_count()).then_some(index);
    }
    (count == tax.rule_count() && shipped == fingerprint_of(tax)).then_some(index)
}

/// The fingerprint of a taxonomy's entries, as build.rs files it.
fn fingerprint_of(tax: &Taxonomy) -> u64 {
    plan::fingerprint(
        tax.rules()
            .iter()
            .map(|r| (r.id.as_ref(), r.commands.as_slice())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_words_are_found_past_their_first_byte_filter() {
        let mut groups = WordGroups::new(Family::Destructive, "test");
        let found = |g: &WordGroups, name: &str| g.glob_group(name).is_some();
        assert!(!found(&groups, "mkfs.ext4") && !found(&groups, ""));
        groups.add_glob("mkfs.*");
        groups.add_glob("newfs_*");
        for (name, want) in [
            ("mkfs.ext4", true),
            ("newfs_msdos", true),
            ("mkfs", false),
            ("ls", false),
            ("", false),
        ] {
            assert_eq!(found(&groups, name), want, "{name}");
        }
        // A glob that starts with `*` lets every first byte through.
        groups.add_glob("*.sh");
        assert!(found(&groups, "run.sh") && found(&groups, "mkfs.x") && !found(&groups, "ls"));
    }

    /// Canonical forms for post-checks to look at.
    const POST_CHECK_HAYSTACKS: &[&str] = &[
        "",
        "\x1fls\x1f-la\x1f",
        "\x1fgit\x1fpush\x1f--force\x1forigin\x1fmain\x1f",
        "\x1ffind\x1f.\x1f-name\x1fx\x1f-delete\x1f",
        "\x1ffind\x1f.\x1f-exec\x1frm\x1f{}\x1f;\x1f",
        "\x1fsed\x1f-i\x1fs/a/b/\x1ff\x1f",
        "\x1fcurl\x1f-o\x1fout\x1fhttps://x\x1f",
        "\x1fdocker\x1frun\x1f--privileged\x1f-v\x1f/:/h\x1fimg\x1f",
        "\x1fkubectl\x1fdelete\x1fpod\x1f--all\x1f",
        "\x1frm\x1f-r\x1f-f\x1f/\x1f",
        "\x1fgit\x1fbranch\x1f-D\x1fx\x1f",
        "\x1fnpm\x1frun\x1fbuild\x1f--\x1f--watch\x1f",
        "\x1ftar\x1f-xzf\x1fa.tgz\x1f-C\x1f/\x1f",
    ];

    #[test]
    fn every_shipped_dfa_validates() {
        let index = SHIPPED;
        let (rules, _) = index.taxonomy();
        let mut checks = 0;
        for post in (0..rules).filter_map(|r| index.post(r)) {
            if let Some((src, at)) = post.forbid {
                let src = std::str::from_utf8(src).unwrap_or_else(|e| panic!("{e}"));
                let dfa = shipped_dfa(at).unwrap_or_else(|| panic!("{src} did not ship"));
                let checked = Table::new(dfa).map(|t| t.check());
                assert_eq!(checked, Some(Ok(())), "{src}");
                // The shipped check is the table, and says what the regex
                // compiled here says.
                let cell = OnceLock::new();
                let shipped = Matcher::checker(&cell, src.as_bytes(), Some(dfa));
                assert!(matches!(shipped, Some(Checker::Table(_))), "{src}");
                let here = compile_one(src).unwrap_or_else(|e| panic!("{src}: {e}"));
                for h in POST_CHECK_HAYSTACKS {
                    let got = shipped.and_then(|c| c.is_match(h));
                    assert_eq!(got, Some(here.is_match(h)), "{src} on {h:?}");
                }
                checks += 1;
            }
        }
        // (Forbidden flags and arguments, and dry-run forms.)
        assert!(checks > 20, "{checks}");
        // Every group ships (as one table or, if that is too big, in
        // parts), and the index finds each under its own key.
        assert!(index.group_count() > 500, "{}", index.group_count());
        for i in 0..index.group_count() {
            let g = index.group(i).unwrap_or_else(|| panic!("group {i}"));
            let found = index.find_number(g.special, g.family, g.word);
            assert_eq!(found, Some(i), "{:?} {:?}", g.family, g.word);
            let bytes = shipped_dfa(g.dfa).unwrap_or_else(|| panic!("{:?} did not ship", g.word));
            let parts = plan::parts(bytes).unwrap_or_default();
            assert!(!parts.is_empty(), "group {:?} {:?}", g.family, g.word);
            for (_, dfa) in parts {
                let checked = Table::new(dfa).map(|t| t.check());
                assert_eq!(checked, Some(Ok(())), "group {:?} {:?}", g.family, g.word);
            }
        }
        assert_eq!(
            index.find_number(
                plan::SPECIAL_WORD,
                Some(Family::Destructive),
                "no-such-word"
            ),
            None
        );
    }

    /// Every shipped group, searched as shipped (a table or tables in
    /// parts, from the state after its prefix where it has one),
    /// finds what its patterns compiled here find, over haystacks made of
    /// its word and tokens that patterns look for (or not).
    #[test]
    fn shipped_groups_find_what_their_patterns_find() {
        const TOKENS: &[&str] = &[
            "-rf", "-r", "-f", "--force", "--hard", "/", "~", "*", ".", "x", "push", "reset",
            "delete", "rm", "status", "-n", "5", "origin", "main", "HEAD~1", "--", "-", "a=b",
            "-o=x", "--all", "-y", "install", "build", "run", "exec", "sh", "-c", "list",
        ];
        let tax = crate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        let index = SHIPPED;
        let (mut compared, mut matched, mut tables, mut prefixed) = (0, 0, 0, 0);
        for i in 0..index.group_count() {
            let g = index.group(i).unwrap_or_else(|| panic!("group {i}"));
            let word = (!g.word.is_empty()).then_some(g.word);
            let shipped = PatternGroup::new(
                "shipped",
                Rules(Cow::Borrowed(g.rules)),
                shipped_parts_of(&g),
            );
            let here = PatternGroup::new("here", Rules(Cow::Borrowed(g.rules)), None);
            let compiled = here.compile(&tax, word).unwrap_or_else(|e| panic!("{e}"));
            match shipped.searcher(&tax, word) {
                Ok(Some(Searcher::Shipped { after_prefix, .. })) => {
                    tables += 1;
                    prefixed +=
                        usize::from(after_prefix.as_ref().is_some_and(|(p, _)| !p.is_empty()));
                }
                other => panic!("group {:?} {:?} did not ship: {other:?}", g.family, g.word),
            }
            let mut haystacks: Vec<String> = vec![
                format!("\x1f{}\x1f", g.word),
                String::new(),
                "DROP TABLE x;".into(),
                "import os; os.system('rm -rf /')".into(),
            ];
            for (k, t) in TOKENS.iter().enumerate() {
                let u = TOKENS[(k * 7 + 3) % TOKENS.len()];
                let v = TOKENS[(k * 13 + 5) % TOKENS.len()];
                haystacks.push(format!("\x1f{}\x1f{t}\x1f", g.word));
                haystacks.push(format!("\x1f{}\x1f{t}\x1f{u}\x1f{v}\x1f", g.word));
                haystacks.push(format!("{} {t} {u}", g.word));
                haystacks.push(format!("\x1f{t}\x1f{}\x1f", g.word));
            }
            for h in &haystacks {
                let mut ours = Vec::new();
                let r = shipped.word_matches_into(&tax, word, h, &mut ours);
                assert_eq!(r, Ok(()), "{:?}", g.word);
                let mut set = PatternSet::new(here.len());
                compiled.which_matches(h, &mut set);
                let theirs: Vec<usize> = set
                    .iter()
                    .filter_map(|p| here.rules.get(p.as_usize()))
                    .collect();
                ours.sort_unstable();
                assert_eq!(ours, theirs, "group {:?} {:?} on {h:?}", g.family, g.word);
                compared += 1;
                matched += usize::from(!theirs.is_empty());
            }
        }
        assert!(
            tables > 500 && prefixed > 400,
            "{tables} tables, {prefixed} from a prefix"
        );
        assert!(
            compared > 50_000 && matched > 1_000,
            "{matched} of {compared}"
        );
    }

    #[test]
    fn the_index_fits_the_packed_entries() {
        // What `shipped_for` takes on trust for the packed taxonomy.
        let tax = crate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        assert!(tax.has_embedded_entries());
        let index = SHIPPED;
        assert_eq!(index.taxonomy(), (tax.rule_count(), fingerprint_of(&tax)));
        assert_eq!(tax.rules().len(), tax.rule_count());
        // Labels read in place say what the built entries say.
        for (i, rule) in tax.rules().iter().enumerate() {
            let e = tax.entry(i).unwrap_or_else(|| panic!("entry {i}"));
            assert_eq!(
                (
                    e.id.as_ref(),
                    e.blast_radius,
                    e.category.as_ref(),
                    e.reason.as_ref()
                ),
                (
                    rule.id.as_ref(),
                    rule.blast_radius,
                    rule.category.as_ref(),
                    rule.reason.as_ref()
                )
            );
            assert_eq!(tax.entry_radius(i), Some(rule.blast_radius));
        }
        assert_eq!(tax.entry(tax.rule_count()), None);
    }

    #[test]
    fn the_embedded_taxonomy_uses_the_shipped_automata() {
        // Whether the matcher built for `tax` searches `rm` with a shipped DFA.
        let rm_shipped = |tax: &Taxonomy| {
            let m = Matcher::new(tax);
            let shipped = m
                .groups_for(&m.destructive, "rm")
                .iter()
                .next()
                .map(|(_, g)| g.is_shipped());
            shipped
        };
        let tax = crate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rm_shipped(&tax), Some(true));
        // A taxonomy that is not the embedded one compiles its own.
        let mut other = tax.clone();
        other.embedded = false;
        assert_eq!(rm_shipped(&other), Some(false));
        // Nor is an embedded taxonomy whose entries changed trusted.
        let mut changed = tax.clone();
        let mut swapped = changed.rules().to_vec();
        swapped.swap(0, 1);
        changed.set_rules(swapped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rm_shipped(&changed), Some(false));
    }
}
