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
use regex_automata::PatternSet;
use rustc_hash::FxHashMap;

use super::compile::{compile_one, MultiPattern};
use crate::error::TaxonomyError;
use crate::gate::glob_match;
use crate::label::Class;
use crate::normalize::Canonical;
use crate::taxonomy::group_pattern;
use crate::taxonomy::{Compiled, RuleKind, Taxonomy};

/// Some patterns, compiled into one automaton on first use.
#[derive(Debug, Default)]
pub struct PatternGroup {
    /// What the group holds, for error messages (with the word, if any).
    what: &'static str,
    /// Rule index (into [`Taxonomy::rules`]) for each pattern id.
    rules: Vec<usize>,
    compiled: OnceLock<Result<Option<MultiPattern>, String>>,
}

impl PatternGroup {
    fn new(what: &'static str, rules: Vec<usize>) -> PatternGroup {
        PatternGroup {
            what,
            rules,
            compiled: OnceLock::new(),
        }
    }

    /// The group's automaton. `word` is the command word every command
    /// reaching this group has, when there is one: structured patterns are
    /// then compiled for that word alone.
    fn regex(&self, tax: &Taxonomy, word: Option<&str>) -> Result<Option<&MultiPattern>, &str> {
        self.compiled
            .get_or_init(|| {
                if self.rules.is_empty() {
                    return Ok(None);
                }
                let mut patterns: Vec<String> = Vec::with_capacity(self.rules.len());
                for &i in &self.rules {
                    let c = tax.rules[i]
                        .compiled(&tax.shapes)
                        .map_err(|e| format!("{}: {e}", self.describe(word)))?;
                    patterns.push(group_pattern(word, c));
                }
                let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
                MultiPattern::new(&refs)
                    .map(Some)
                    .map_err(|e| format!("{}: {e}", self.describe(word)))
            })
            .as_ref()
            .map(Option::as_ref)
            .map_err(String::as_str)
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
        let Some(re) = self.regex(tax, word).map_err(String::from)? else {
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
            re.which_matches(haystack, &mut set);
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
    fn new(what: &'static str) -> WordGroups {
        WordGroups {
            globbed: PatternGroup::new(what, Vec::new()),
            ..WordGroups::default()
        }
    }

    /// Files rule `i` under each of its command words. Rules arrive in
    /// index order, so a rule already filed under a word is that group's
    /// last.
    fn add(&mut self, i: usize, commands: &[String]) {
        for alt in commands.iter().flat_map(|c| c.split('|')) {
            if alt.contains('*') {
                if self.globbed.rules.last() != Some(&i) {
                    self.globbed.rules.push(i);
                }
                let prefix = alt.split('*').next().unwrap_or("").to_string();
                self.globs.push((prefix, alt.to_string()));
            } else if let Some(group) = self.by_word.get_mut(alt) {
                if group.rules.last() != Some(&i) {
                    group.rules.push(i);
                }
            } else {
                let group = PatternGroup::new(self.globbed.what, vec![i]);
                self.by_word.insert(alt.to_string(), group);
            }
        }
    }

    /// Every group that may apply to a command word, with the word its
    /// patterns are compiled for.
    fn groups_for<'a>(
        &'a self,
        name: &str,
    ) -> impl Iterator<Item = (Option<&'a str>, &'a PatternGroup)> {
        let glob = self
            .globs
            .iter()
            .any(|(prefix, g)| name.starts_with(prefix.as_str()) && glob_match(g, name))
            .then_some((None, &self.globbed));
        self.by_word
            .get_key_value(name)
            .map(|(w, g)| (Some(w.as_str()), g))
            .into_iter()
            .chain(glob)
    }

    fn all(&self) -> impl Iterator<Item = (Option<&str>, &PatternGroup)> {
        self.by_word
            .iter()
            .map(|(w, g)| (Some(w.as_str()), g))
            .chain(std::iter::once((None, &self.globbed)))
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
        let mut destructive = WordGroups::new("destructive entries");
        let mut safe = WordGroups::new("safe entries");
        let mut line = WordGroups::new("regex entries");
        let (mut sql, mut code, mut line_any) = (Vec::new(), Vec::new(), Vec::new());
        // One pass over the rules, filing each where it is searched.
        for (i, rule) in tax.rules.iter().enumerate() {
            match rule.kind {
                RuleKind::Command if rule.class == Class::Destructive => {
                    destructive.add(i, &rule.commands)
                }
                RuleKind::Command if rule.class == Class::Safe => safe.add(i, &rule.commands),
                RuleKind::Command => {}
                RuleKind::Sql => sql.push(i),
                RuleKind::Code => code.push(i),
                RuleKind::Regex if rule.commands.is_empty() => line_any.push(i),
                RuleKind::Regex => line.add(i, &rule.commands),
            }
        }
        let lazy = || (0..tax.rules.len()).map(|_| OnceLock::new()).collect();
        Matcher {
            destructive,
            safe,
            sql: PatternGroup::new("sql entries", sql),
            code: PatternGroup::new("code entries", code),
            line,
            line_any: PatternGroup::new("regex entries for any command", line_any),
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
            .chain([&self.sql, &self.code, &self.line_any].map(|g| (None, g)));
        for (word, g) in groups {
            g.regex(tax, word).map_err(|message| TaxonomyError::Build {
                what: g.describe(word),
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
        for (word, group) in self.line.groups_for(name) {
            group.word_matches_into(tax, word, line, out)?;
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
        for (word, group) in groups.groups_for(canon.name()) {
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
