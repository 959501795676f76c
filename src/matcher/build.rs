//! Building and searching the pattern groups.
//!
//! Structured entries are grouped by command word, and each group's
//! automaton is compiled the first time a command with that word is seen. A
//! hook process classifies one command, so it compiles the one or two groups
//! it needs instead of the whole taxonomy; a bulk scan compiles each group
//! once and reuses it for millions of lines.

use std::cell::RefCell;
use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::{Input, PatternSet};
use rustc_hash::FxHashMap;

use super::compile::{compile_many, compile_one};
use crate::error::TaxonomyError;
use crate::gate::glob_match;
use crate::label::Class;
use crate::normalize::Canonical;
use crate::taxonomy::pattern::regex_escape;
use crate::taxonomy::{Compiled, RuleKind, Taxonomy};

/// Some patterns, compiled into one automaton on first use.
#[derive(Debug, Default)]
pub struct PatternGroup {
    /// What the group holds, for error messages (with `word`, if any).
    what: &'static str,
    /// The command word every command reaching this group has, when there
    /// is one: structured patterns are compiled for that word alone.
    word: Option<String>,
    /// Rule index (into [`Taxonomy::rules`]) for each pattern id.
    rules: Vec<usize>,
    compiled: OnceLock<Result<Option<Regex>, String>>,
}

impl PatternGroup {
    fn new(what: &'static str, rules: Vec<usize>) -> PatternGroup {
        PatternGroup {
            what,
            word: None,
            rules,
            compiled: OnceLock::new(),
        }
    }

    fn regex(&self, tax: &Taxonomy) -> Result<Option<&Regex>, &str> {
        self.compiled
            .get_or_init(|| {
                if self.rules.is_empty() {
                    return Ok(None);
                }
                let mut patterns: Vec<String> = Vec::with_capacity(self.rules.len());
                for &i in &self.rules {
                    let c = tax.rules[i]
                        .compiled(&tax.shapes)
                        .map_err(|e| format!("{}: {e}", self.describe()))?;
                    patterns.push(match (&self.word, &c.tail) {
                        (Some(word), Some(tail)) => {
                            format!("^\\x1f{}\\x1f{tail}", regex_escape(word))
                        }
                        _ => c.pattern.clone(),
                    });
                }
                let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
                compile_many(&refs)
                    .map(Some)
                    .map_err(|e| format!("{}: {e}", self.describe()))
            })
            .as_ref()
            .map(Option::as_ref)
            .map_err(String::as_str)
    }

    /// The group, for error messages.
    fn describe(&self) -> String {
        match &self.word {
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
        let Some(re) = self.regex(tax).map_err(String::from)? else {
            return Ok(());
        };
        // One pattern set per thread, reused: a search then allocates
        // nothing.
        thread_local! {
            static SET: RefCell<PatternSet> = RefCell::new(PatternSet::new(0));
        }
        SET.with(|cell| {
            let mut set = cell.borrow_mut();
            if set.capacity() < re.pattern_len() {
                *set = PatternSet::new(re.pattern_len());
            }
            set.clear();
            re.which_overlapping_matches(&Input::new(haystack), &mut set);
            out.extend(set.iter().map(|pid| self.rules[pid.as_usize()]));
        });
        Ok(())
    }

    /// How many patterns the group holds.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when the group holds no pattern.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Structured patterns of one class, grouped by command word.
#[derive(Debug, Default)]
pub struct WordGroups {
    by_word: FxHashMap<String, PatternGroup>,
    /// Patterns whose command word is a glob (`mkfs.*`), with the globs.
    globbed: PatternGroup,
    /// The glob words, each with its literal prefix (checked first).
    globs: Vec<(String, String)>,
}

impl WordGroups {
    fn build(
        tax: &Taxonomy,
        what: &'static str,
        pick: impl Fn(&crate::taxonomy::Rule) -> bool,
    ) -> WordGroups {
        let mut words: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut globbed = Vec::new();
        let mut globs = Vec::new();
        for (i, rule) in tax.rules.iter().enumerate() {
            if !pick(rule) {
                continue;
            }
            for alt in rule.commands.iter().flat_map(|c| c.split('|')) {
                if alt.contains('*') {
                    if !globbed.contains(&i) {
                        globbed.push(i);
                    }
                    let prefix = alt.split('*').next().unwrap_or("").to_string();
                    globs.push((prefix, alt.to_string()));
                } else {
                    match words.get_mut(alt) {
                        Some(list) if !list.contains(&i) => list.push(i),
                        Some(_) => {}
                        None => {
                            words.insert(alt.to_string(), vec![i]);
                        }
                    }
                }
            }
        }
        let by_word = words
            .into_iter()
            .map(|(w, rules)| {
                let mut group = PatternGroup::new(what, rules);
                group.word = Some(w.clone());
                (w, group)
            })
            .collect();
        WordGroups {
            by_word,
            globbed: PatternGroup::new(what, globbed),
            globs,
        }
    }

    /// Every group that may apply to a command word.
    fn groups_for(&self, name: &str) -> impl Iterator<Item = &PatternGroup> {
        let glob = self
            .globs
            .iter()
            .any(|(prefix, g)| name.starts_with(prefix.as_str()) && glob_match(g, name))
            .then_some(&self.globbed);
        self.by_word.get(name).into_iter().chain(glob)
    }

    fn all(&self) -> impl Iterator<Item = &PatternGroup> {
        self.by_word.values().chain(std::iter::once(&self.globbed))
    }
}

/// The compiled taxonomy.
#[derive(Debug)]
pub struct Matcher {
    /// Destructive structured shapes, over canonical forms.
    pub destructive: WordGroups,
    /// Safe structured shapes, over canonical forms.
    pub safe: WordGroups,
    /// SQL patterns, over SQL text.
    pub sql: PatternGroup,
    /// Code patterns, over interpreter code.
    pub code: PatternGroup,
    /// Raw-regex patterns scoped to command words, over normalised command
    /// lines.
    pub line: WordGroups,
    /// Raw-regex patterns for any command.
    pub line_any: PatternGroup,
    /// Per rule: the forbidden-token check, compiled on first use.
    forbid: Vec<OnceLock<Option<Regex>>>,
    /// Per rule: the required-token check, compiled on first use.
    require: Vec<OnceLock<Option<Regex>>>,
}

impl Matcher {
    /// Prepares the pattern groups of a taxonomy; automata are compiled on
    /// first use (see [`Matcher::compile_all`] to compile them now).
    pub fn new(tax: &Taxonomy) -> Matcher {
        let pick = |kind: RuleKind| -> Vec<usize> {
            tax.rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.kind == kind)
                .map(|(i, _)| i)
                .collect()
        };
        let lazy = || (0..tax.rules.len()).map(|_| OnceLock::new()).collect();
        let structured = |class: Class| {
            move |r: &crate::taxonomy::Rule| r.kind == RuleKind::Command && r.class == class
        };
        let any_line: Vec<usize> = pick(RuleKind::Regex)
            .into_iter()
            .filter(|&i| tax.rules[i].commands.is_empty())
            .collect();
        Matcher {
            destructive: WordGroups::build(
                tax,
                "destructive entries",
                structured(Class::Destructive),
            ),
            safe: WordGroups::build(tax, "safe entries", structured(Class::Safe)),
            sql: PatternGroup::new("sql entries", pick(RuleKind::Sql)),
            code: PatternGroup::new("code entries", pick(RuleKind::Code)),
            line: WordGroups::build(tax, "regex entries", |r| r.kind == RuleKind::Regex),
            line_any: PatternGroup::new("regex entries for any command", any_line),
            forbid: lazy(),
            require: lazy(),
        }
    }

    /// Compiles every automaton now, reporting the first failure: for tests
    /// and for long-running processes that prefer to pay up front.
    pub fn compile_all(&self, tax: &Taxonomy) -> Result<(), TaxonomyError> {
        let groups = self
            .destructive
            .all()
            .chain(self.safe.all())
            .chain(self.line.all())
            .chain([&self.sql, &self.code, &self.line_any]);
        for g in groups {
            g.regex(tax).map_err(|message| TaxonomyError::Build {
                what: g.describe(),
                message: message.to_string(),
            })?;
        }
        for rule in &tax.rules {
            let c = rule
                .compiled(&tax.shapes)
                .map_err(|e| TaxonomyError::Build {
                    what: format!("entry `{}`", rule.id),
                    message: e.to_string(),
                })?;
            for src in [&c.post.forbid, &c.post.require].into_iter().flatten() {
                compile_one(src).map_err(|e| TaxonomyError::Build {
                    what: format!("post-checks of `{}`", rule.id),
                    message: e.to_string(),
                })?;
            }
        }
        Ok(())
    }

    /// Do any raw-regex rules apply to commands with this word?
    pub fn has_line_rules(&self, name: &str) -> bool {
        !self.line_any.is_empty() || self.line.groups_for(name).next().is_some()
    }

    /// Raw-regex rules matching a command line whose command word is
    /// `name`.
    pub fn line_matches(
        &self,
        tax: &Taxonomy,
        name: &str,
        line: &str,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        for group in self.line.groups_for(name) {
            group.matches_into(tax, line, out)?;
        }
        self.line_any.matches_into(tax, line, out)
    }

    /// Rules of `groups` matching a canonical form, after post-checks.
    pub fn command_matches(
        &self,
        tax: &Taxonomy,
        groups: &WordGroups,
        canon: &Canonical,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        let start = out.len();
        for group in groups.groups_for(canon.name()) {
            group.matches_into(tax, &canon.text, out)?;
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

    fn lazy_regex<'a>(
        cell: &'a OnceLock<Option<Regex>>,
        src: Option<&String>,
    ) -> Option<&'a Regex> {
        cell.get_or_init(|| src.and_then(|s| compile_one(s).ok()))
            .as_ref()
    }

    fn post_check(&self, tax: &Taxonomy, rule_idx: usize, canon: &Canonical) -> bool {
        let rule = &tax.rules[rule_idx];
        let Ok(Compiled { post, .. }) = rule.compiled(&tax.shapes) else {
            return rule.class == Class::Destructive;
        };
        // A check that cannot compile errs on the cautious side: a safe
        // entry does not match, a destructive one still does.
        let broken = rule.class == Class::Destructive;
        if let Some(src) = &post.forbid {
            match Self::lazy_regex(&self.forbid[rule_idx], Some(src)) {
                Some(re) if re.is_match(&canon.text) => return false,
                Some(_) => {}
                None if !broken => return false,
                None => {}
            }
        }
        if let Some(src) = &post.require {
            match Self::lazy_regex(&self.require[rule_idx], Some(src)) {
                Some(re) if !re.is_match(&canon.text) => return false,
                Some(_) => {}
                None if !broken => return false,
                None => {}
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
