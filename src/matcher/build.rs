//! Building and searching the pattern groups.

use std::collections::HashSet;

use regex_automata::meta::Regex;
use regex_automata::{Input, MatchKind, PatternSet};

use crate::error::TaxonomyError;
use crate::label::Class;
use crate::normalize::Canonical;
use crate::taxonomy::{RuleKind, Taxonomy};

/// All patterns of one kind compiled into one automaton.
#[derive(Debug)]
pub struct PatternGroup {
    re: Option<Regex>,
    /// Rule index (into [`Taxonomy::rules`]) for each pattern id.
    rules: Vec<usize>,
    /// Command words that can start a match: a prefilter for structured
    /// groups, so that most commands never reach the automaton.
    words: HashSet<String>,
    /// True when some pattern starts with a wildcard command word.
    any_word: bool,
}

impl PatternGroup {
    fn build(
        tax: &Taxonomy,
        what: &str,
        pick: impl Fn(usize) -> bool,
    ) -> Result<Self, TaxonomyError> {
        let mut patterns = Vec::new();
        let mut rules = Vec::new();
        let mut words = HashSet::new();
        let mut any_word = false;
        for (i, rule) in tax.rules.iter().enumerate() {
            if !pick(i) {
                continue;
            }
            patterns.push(rule.pattern.as_str());
            rules.push(i);
            for c in &rule.commands {
                for alt in c.split('|') {
                    if alt.contains('*') {
                        any_word = true;
                    }
                    words.insert(alt.to_string());
                }
            }
        }
        let re = if patterns.is_empty() {
            None
        } else {
            Some(
                Regex::builder()
                    .configure(
                        Regex::config()
                            .match_kind(MatchKind::All)
                            .nfa_size_limit(Some(256 << 20))
                            .hybrid_cache_capacity(16 << 20),
                    )
                    .build_many(&patterns)
                    .map_err(|e| TaxonomyError::Build {
                        what: what.to_string(),
                        message: e.to_string(),
                    })?,
            )
        };
        Ok(PatternGroup {
            re,
            rules,
            words,
            any_word,
        })
    }

    /// Could any pattern of this group apply to a command with this name?
    pub fn may_match_word(&self, name: &str) -> bool {
        self.any_word || self.words.contains(name)
    }

    /// Appends to `out` the rule index of every pattern matching `haystack`.
    pub fn matches_into(&self, haystack: &str, out: &mut Vec<usize>) {
        let Some(re) = &self.re else { return };
        let mut set = PatternSet::new(re.pattern_len());
        re.which_overlapping_matches(&Input::new(haystack), &mut set);
        out.extend(set.iter().map(|pid| self.rules[pid.as_usize()]));
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

/// The compiled taxonomy.
#[derive(Debug)]
pub struct Matcher {
    /// Destructive structured shapes, over canonical forms.
    pub destructive: PatternGroup,
    /// Safe structured shapes, over canonical forms.
    pub safe: PatternGroup,
    /// SQL patterns, over SQL text.
    pub sql: PatternGroup,
    /// Code patterns, over interpreter code.
    pub code: PatternGroup,
    /// Raw-regex patterns, over normalised command lines.
    pub line: PatternGroup,
    /// Per rule: the forbidden-token check, if any.
    forbid: Vec<Option<Regex>>,
    /// Per rule: the required-token check, if any.
    require: Vec<Option<Regex>>,
}

impl Matcher {
    /// Compiles every pattern group of a taxonomy.
    pub fn new(tax: &Taxonomy) -> Result<Matcher, TaxonomyError> {
        let kind = |i: usize| &tax.rules[i].kind;
        let class = |i: usize| tax.rules[i].class;
        let mut forbid = Vec::with_capacity(tax.rules.len());
        let mut require = Vec::with_capacity(tax.rules.len());
        let compile = |src: &Option<String>, id: &str| -> Result<Option<Regex>, TaxonomyError> {
            match src {
                Some(src) => Ok(Some(Regex::new(src).map_err(|e| TaxonomyError::Build {
                    what: format!("post-checks of `{id}`"),
                    message: e.to_string(),
                })?)),
                None => Ok(None),
            }
        };
        for rule in &tax.rules {
            forbid.push(compile(&rule.post.forbid, &rule.id)?);
            require.push(compile(&rule.post.require, &rule.id)?);
        }
        Ok(Matcher {
            destructive: PatternGroup::build(tax, "destructive commands", |i| {
                *kind(i) == RuleKind::Command && class(i) == Class::Destructive
            })?,
            safe: PatternGroup::build(tax, "safe commands", |i| {
                *kind(i) == RuleKind::Command && class(i) == Class::Safe
            })?,
            sql: PatternGroup::build(tax, "sql", |i| *kind(i) == RuleKind::Sql)?,
            code: PatternGroup::build(tax, "code", |i| *kind(i) == RuleKind::Code)?,
            line: PatternGroup::build(tax, "command lines", |i| *kind(i) == RuleKind::Regex)?,
            forbid,
            require,
        })
    }

    /// Rules of `group` matching a canonical form, after post-checks.
    pub fn command_matches(
        &self,
        tax: &Taxonomy,
        group: &PatternGroup,
        canon: &Canonical,
        out: &mut Vec<usize>,
    ) {
        if !group.may_match_word(canon.name()) {
            return;
        }
        let start = out.len();
        group.matches_into(&canon.text, out);
        let mut keep = start;
        for i in start..out.len() {
            let rule_idx = out[i];
            if self.post_check(tax, rule_idx, canon) {
                out[keep] = rule_idx;
                keep += 1;
            }
        }
        out.truncate(keep);
    }

    fn post_check(&self, tax: &Taxonomy, rule_idx: usize, canon: &Canonical) -> bool {
        let rule = &tax.rules[rule_idx];
        if let Some(Some(re)) = self.forbid.get(rule_idx) {
            if re.is_match(&canon.text) {
                return false;
            }
        }
        if let Some(Some(re)) = self.require.get(rule_idx) {
            if !re.is_match(&canon.text) {
                return false;
            }
        }
        if rule.post.max_args.is_some() || rule.post.min_args.is_some() {
            let n = canon
                .positional_count()
                .saturating_sub(rule.post.subcommand_len);
            if rule.post.max_args.is_some_and(|max| n > max) {
                return false;
            }
            if rule.post.min_args.is_some_and(|min| n < min) {
                return false;
            }
        }
        true
    }
}
