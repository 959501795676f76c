//! The walk: one pass over a command's shell syntax, every simple command
//! found (nested ones included) examined in turn. Each command is matched
//! against the destructive entries ([`destructive`](super::destructive)),
//! judged by its spec ([`safe`](super::safe)) and checked for
//! self-protection ([`protect`](super::protect)); the walk keeps what it
//! found and [`Walk::finish`] turns it into one label.

use std::borrow::Cow;

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::analysis::{Analysis, Examined, Finding};
use super::feeds::stdin_feeds;
use crate::label::{BlastRadius, Class, Label, Origin};
use crate::matcher::{Applicable, Matcher};
use crate::normalize::{self, canonical_with, Canonical, Invocation, Nested};
use crate::shell::{self, RedirectKind, Script, SimpleCommand, Word};
use crate::spec::Spec;
use crate::taxonomy::{CommandSpec, Taxonomy};

/// The longest here-document or here-string body a safe command may be
/// fed: bash 5.1 and later hand a body that fits in a pipe (a page is
/// the least a pipe holds) through one, and write a longer one to a
/// temporary file in $TMPDIR (seen under strace: `sh-thd.*`, created and
/// unlinked).
const HERE_BODY_LIMIT: usize = 4096;

/// The variable that stops GNU getopt's permutation.
const POSIXLY_CORRECT: &str = "POSIXLY_CORRECT";

/// Whether `text` holds the name POSIXLY_CORRECT anywhere: as an
/// assignment, an `export`, an `env` argument or a word a nested shell
/// reads. Asked of every word, nearly always of one without it, so the
/// name's first byte is looked for before the name (`str::contains` sets
/// up a substring search for each word: BENCHMARKS.md, "Scanning against
/// the start").
fn mentions_posixly_correct(text: &str) -> bool {
    let name = POSIXLY_CORRECT.as_bytes();
    text.as_bytes()
        .windows(name.len())
        .any(|w| w[0] == name[0] && w == name)
}

/// How many levels of `sh -c` / `eval` / `ssh` strings are followed.
pub const MAX_NESTING: usize = 12;
/// How many invocations one classification examines.
pub const MAX_INVOCATIONS: usize = 20_000;

/// The reason given when a matched entry cannot be read back (only a
/// damaged binary could do that).
const UNREADABLE_ENTRY: &str = "a matching taxonomy entry could not be read";

/// What the taxonomy says of one command word: the lookups each
/// invocation of it needs, all made from the word alone.
#[derive(Clone, Copy)]
pub(super) struct WordFacts<'c> {
    /// Its conventions (`commands.toml`).
    pub(super) conventions: Option<&'c CommandSpec>,
    /// The destructive groups of the word it is matched under (an alias
    /// resolved).
    pub(super) destructive: Applicable<'c>,
    /// Its line groups.
    pub(super) line: Applicable<'c>,
    /// Its spec, when it was looked up (`None`: not asked).
    pub(super) spec: Option<Option<&'c Spec<'static>>>,
}

/// The facts of the command words a batch has met
/// ([`Classifier::classify_terse_all`](super::Classifier::classify_terse_all)):
/// a corpus names the same words again and again (over `tldr.txt`,
/// `nl2bash.txt` and `cheatsheets.txt` of `../shared/corpus`, five in six
/// lines start with a word met earlier in the same batch), and one lookup
/// here takes the place of up to six in the taxonomy's tables (the
/// conventions, each family's word and glob groups, the spec).
pub(super) struct WordMemo<'c> {
    facts: FxHashMap<CompactString, WordFacts<'c>>,
}

impl WordMemo<'_> {
    /// The most words kept: a batch of distinct words stops adding to it,
    /// and memory stays bounded whatever the input.
    const MOST: usize = 4096;

    /// A memo for a batch of `commands` commands, with room for a word
    /// each (up to a thousand) so that it seldom grows.
    pub(super) fn for_batch(commands: usize) -> Self {
        WordMemo {
            facts: FxHashMap::with_capacity_and_hasher(commands.min(1024), Default::default()),
        }
    }
}

/// State of one classification.
pub(super) struct Walk<'c, 's> {
    pub(super) tax: &'c Taxonomy,
    pub(super) matcher: &'c Matcher,
    /// What to keep of what the walk sees.
    pub(super) keep: Keep,
    /// Some reason rules out a safe verdict (kept or not).
    pub(super) refused: bool,
    /// The simple commands of a top-level list or pipeline, judged one by
    /// one.
    pub(super) parts: Parts,
    pub(super) commands: Vec<Examined>,
    pub(super) findings: Vec<Finding>,
    /// The worst finding so far, as (blast radius, rule index).
    pub(super) worst: Option<(BlastRadius, usize)>,
    /// The worst finding is a guard-tamper one, which no other replaces.
    pub(super) worst_guard: bool,
    /// The first command word examined, for the "no entry" reason (and
    /// [`Analysis::first_command`](super::Analysis::first_command)).
    pub(super) first_name: Option<CompactString>,
    pub(super) not_safe: Vec<Cow<'static, str>>,
    /// The spec that explained the single top-level command.
    pub(super) safe_spec: Option<crate::spec::Verdict<'c>>,
    /// Where the command runs.
    pub(super) ctx: crate::spec::Context<'c>,
    /// For a help or version request: its category (which of the two it
    /// asks for) and reason, which the label takes in place of the spec's.
    pub(super) help: Option<(&'static str, &'static str)>,
    pub(super) invocations: usize,
    /// Buffers reused from one command to the next on this thread.
    pub(super) scratch: &'s mut Scratch,
    /// The command words met earlier in the batch this walk is one
    /// command of (none outside a batch).
    pub(super) memo: Option<&'s mut WordMemo<'c>>,
    /// (rule, matched text) pairs already reported.
    pub(super) seen: FxHashSet<(usize, String)>,
    /// The input span of the top-level command being examined.
    pub(super) span: Option<[usize; 2]>,
    /// Where an earlier `cd` of this command line moved the shell, as
    /// written (`~/.claude`), while it is known: what a later command's
    /// relative paths are judged from for self-protection.
    pub(super) moved_to: Option<String>,
    /// An earlier `cd` went where nobody can follow (`cd "$X"`, `cd -`):
    /// a relative path lands who knows where.
    pub(super) lost: bool,
    /// The command line names POSIXLY_CORRECT (`POSIXLY_CORRECT=1 shred
    /// -u x --help`, an `export` before): GNU getopt then stops at the
    /// first operand, and a later `--help` is an operand.
    pub(super) posixly_correct: bool,
    /// What the command reads, for a caller that will look (`None`: not
    /// asked for).
    pub(super) reach: Option<crate::reach::Reach>,
    /// The single top-level command is safe but for reads only a look can
    /// clear.
    pub(super) safe_after_look: bool,
}

/// What a walk keeps of what it sees, as the caller's
/// [`Detail`](super::Detail) asks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Keep {
    /// Everything `explain` shows (the commands examined, every finding);
    /// plain classification only needs the worst finding.
    pub explain: bool,
    /// The reasons a command cannot be safe (all but a terse
    /// classification, whose unknown label has none).
    pub reasons: bool,
    /// The first command's name (all but a terse classification).
    pub named: bool,
    /// Judge a top-level list or pipeline part by part: whether each part
    /// is safe on its own.
    pub by_parts: bool,
}

impl<'c, 's> Walk<'c, 's> {
    pub(super) fn new(
        tax: &'c Taxonomy,
        matcher: &'c Matcher,
        keep: Keep,
        scratch: &'s mut Scratch,
        ctx: crate::spec::Context<'c>,
    ) -> Walk<'c, 's> {
        Walk {
            tax,
            matcher,
            keep,
            refused: false,
            parts: Parts::default(),
            commands: Vec::new(),
            findings: Vec::new(),
            worst: None,
            worst_guard: false,
            first_name: None,
            not_safe: Vec::new(),
            safe_spec: None,
            ctx,
            help: None,
            invocations: 0,
            scratch,
            memo: None,
            seen: FxHashSet::default(),
            span: None,
            moved_to: None,
            lost: false,
            posixly_correct: false,
            reach: None,
            safe_after_look: false,
        }
    }

    /// Whether a new reason would be kept. A handful of distinct reasons
    /// say enough; more would only make long inputs slow.
    pub(super) fn keeps_reasons(&self) -> bool {
        const MAX_REASONS: usize = 8;
        self.keep.reasons && self.not_safe.len() < MAX_REASONS
    }

    /// Records why the command cannot be safe (nor the part of a list or
    /// pipeline being examined).
    pub(super) fn refuse_safe(&mut self, why: impl Into<Cow<'static, str>>) {
        self.parts.refused = true;
        self.refuse_whole(why);
    }

    /// Records why the command as a whole cannot be safe, for a reason that
    /// does not rule out each part being safe on its own (it is compound).
    pub(super) fn refuse_whole(&mut self, why: impl Into<Cow<'static, str>>) {
        self.refused = true;
        if self.keeps_reasons() {
            self.keep_reason(why.into());
        }
    }

    /// Keeps a reason once.
    pub(super) fn keep_reason(&mut self, why: Cow<'static, str>) {
        if !self.not_safe.contains(&why) {
            self.not_safe.push(why);
        }
    }

    /// Like [`Walk::refuse_safe`], formatting the reason only when it will
    /// be kept.
    pub(super) fn refuse_safe_with(&mut self, why: impl FnOnce() -> String) {
        self.refused = true;
        self.parts.refused = true;
        if self.keeps_reasons() {
            self.format_reason(why);
        }
    }

    /// Formats and keeps a reason (see [`Walk::keep_reason`]).
    pub(super) fn format_reason(&mut self, why: impl FnOnce() -> String) {
        self.keep_reason(Cow::Owned(why()));
    }

    pub(super) fn script(&mut self, text: &str, depth: usize, via: Option<&str>) {
        if depth > MAX_NESTING {
            self.refuse_safe_with(|| {
                format!("nested shell strings deeper than {MAX_NESTING} levels")
            });
            return;
        }
        // Nested scripts find the scratch script taken and read into a new
        // one; the outermost one's is put back for the next command.
        let mut script = std::mem::take(&mut self.scratch.script);
        shell::parse_into(text, depth * 2, &mut script);
        self.parsed(&script, depth, via);
        if keeps_buffers(&script) {
            self.scratch.script = script;
        }
    }

    /// Walks `script`, read from a string `depth` levels deep (reached
    /// through `via`).
    pub(super) fn parsed(&mut self, script: &Script, depth: usize, via: Option<&str>) {
        if let Some(err) = &script.error {
            self.refuse_safe_with(|| {
                format!(
                    "could not parse the shell syntax: {} at byte {}",
                    err.message, err.offset
                )
            });
        }
        if let Some(limit) = script.limit {
            self.refuse_safe(limit.describe());
        }
        if script.compound {
            self.refuse_whole(
                "compound shell (lists, pipes, substitutions or control flow) is never safe",
            );
        }
        // The parts of a top-level list or pipeline are judged one by one.
        let by_part = self.keep.by_parts
            && depth == 0
            && script.compound
            && !script.structured
            && script.error.is_none()
            && script.limit.is_none();
        if depth == 0 {
            self.parts.every_safe = by_part;
        }
        if depth > 0 {
            self.refuse_safe_with(|| {
                format!(
                    "runs a nested command via {}",
                    via.unwrap_or("another command")
                )
            });
        }
        let feeds = stdin_feeds(script, self.tax);
        for (i, cmd) in script.commands.iter().enumerate() {
            let (stdin, source) = match feeds.as_ref().and_then(|f| f.get(i)) {
                Some((stdin, source)) => (stdin.as_deref(), *source),
                None => (cmd.stdin.as_ref().map(|t| t.text.as_str()), None),
            };
            if by_part {
                self.parts.begin();
                self.parts.dir.clone_from(&self.moved_to);
                self.parts.lost = self.lost;
            }
            self.command(cmd, stdin, source, depth, via);
            if by_part {
                self.parts.end();
            }
        }
        if script.commands.is_empty() && script.error.is_none() {
            self.refuse_safe("no command");
        }
    }

    pub(super) fn command(
        &mut self,
        cmd: &SimpleCommand,
        stdin: Option<&str>,
        source: Option<&'static str>,
        depth: usize,
        via: Option<&str>,
    ) {
        for r in &cmd.redirects {
            match r.kind {
                RedirectKind::Duplicate | RedirectKind::HereDoc | RedirectKind::HereString => {}
                // An input redirect from a file of the project (`sort <
                // data.csv`) reads what the command would read as an
                // operand: the same path check as a file operand's
                // (inside the working directory, no device, no secret).
                RedirectKind::Read => {
                    // Judged from where the part runs after a `cd`, and
                    // noted for a caller that will look at what it reads.
                    let dir = self.parts.dir.clone().filter(|_| self.parts.active);
                    let moved;
                    let ctx = match &dir {
                        Some(d) => {
                            moved = moved_cwd_of(self.ctx.cwd, d);
                            crate::spec::Context {
                                cwd: Some(moved.as_str()),
                            }
                        }
                        None => self.ctx,
                    };
                    // (A `cd` can fail: from where the call started too.)
                    let plain_file = r.target.literal
                        && !r.target.glob
                        && crate::spec::paths::check(&r.target.text, &ctx, false).is_ok()
                        && crate::spec::paths::check(&r.target.text, &self.ctx, false).is_ok();
                    if !plain_file {
                        self.refuse_safe("reads a file through a redirection");
                    } else if let Some(reach) = self.reach.as_mut() {
                        let moved = dir.is_some();
                        for dir in [dir, None].into_iter().take(1 + usize::from(moved)) {
                            reach.add(crate::reach::Touch {
                                part: self.parts.index,
                                dir,
                                target: crate::reach::Target::File {
                                    path: r.target.text.to_string(),
                                },
                            });
                        }
                    }
                }
                kind if kind.writes() => {
                    if r.target_is_sink() {
                        continue;
                    }
                    self.refuse_safe("redirects output into a file");
                    let name = if kind.truncates() {
                        "@write"
                    } else {
                        "@append"
                    };
                    let inv = Invocation {
                        name: name.into(),
                        written: name.into(),
                        args: Cow::Owned(vec![r.target.clone()]),
                        keeps_safe: true,
                        plain_name: true,
                        ..Invocation::default()
                    };
                    self.invocation(inv, None, None, depth, Some("redirection"), None);
                }
                _ => {}
            }
        }
        if !cmd.assignments.is_empty() {
            self.refuse_safe("sets environment variables for the command");
        }
        if !self.posixly_correct {
            self.posixly_correct = cmd
                .assignments
                .iter()
                .chain(&cmd.words)
                .any(|w| mentions_posixly_correct(&w.text));
        }
        if cmd.words.is_empty() {
            return;
        }
        self.span = (depth == 0 && !cmd.in_substitution).then_some([cmd.span.start, cmd.span.end]);
        // Globs are judged by the command's spec, which knows where a file
        // name may stand, and so are variables known to hold no secret,
        // which it lets stand only where a word is printed as it is; every
        // other expansion rules safe out here.
        if cmd
            .words
            .iter()
            .any(|w| !w.literal && !w.glob && w.variables == crate::shell::Variables::None)
        {
            self.refuse_safe("a word is expanded by the shell at run time");
        }
        if let Some(fed) = &cmd.stdin {
            // Here-strings and unquoted here-documents are expanded like
            // words: `${x:=…}`, `$(…)` and `$SECRET` run or print there too.
            if !fed.literal && fed.text.bytes().any(|b| b == b'$' || b == b'`') {
                self.refuse_safe("a here-document or here-string is expanded by the shell");
            }
            // bash writes a body that does not fit in a pipe to a
            // temporary file. (bash before 5.1 does so with every body:
            // that is the shell's own plumbing, created and removed
            // around the command, and accepted as such.)
            if fed.text.len() > HERE_BODY_LIMIT {
                self.refuse_safe("a here-document or here-string so long that the shell writes it to a temporary file");
            }
        }
        let inv = normalize::peel(&cmd.words, self.tax);
        self.invocation(inv, stdin, source, depth, via, Some(&cmd.words));
    }

    /// The facts of an invocation's command word: from the batch's memo
    /// when the word was met before, else looked up (and, in a batch,
    /// kept with its spec).
    fn word_facts(&mut self, inv: &Invocation<'_>) -> WordFacts<'c> {
        let (tax, m) = (self.tax, self.matcher);
        let look_up = |with_spec: bool| {
            let conventions = normalize::command_spec(inv, tax);
            let name = normalize::matched_name(inv, conventions);
            WordFacts {
                conventions,
                destructive: m.groups_for(&m.destructive, name),
                line: m.line_groups(&inv.name),
                spec: with_spec.then(|| tax.specs.get(&inv.name)),
            }
        };
        let Some(memo) = self.memo.as_deref_mut() else {
            return look_up(false);
        };
        if let Some(&facts) = memo.facts.get(inv.name.as_ref()) {
            return facts;
        }
        let facts = look_up(true);
        if memo.facts.len() < WordMemo::MOST {
            memo.facts.insert(CompactString::new(&inv.name), facts);
        }
        facts
    }

    pub(super) fn invocation(
        &mut self,
        inv: Invocation<'_>,
        stdin: Option<&str>,
        source: Option<&'static str>,
        depth: usize,
        via: Option<&str>,
        written: Option<&[Word]>,
    ) {
        self.invocations += 1;
        if self.invocations > MAX_INVOCATIONS {
            self.refuse_safe("too many commands to examine");
            return;
        }
        self.parts.invocations += 1;
        if self.parts.invocations > 1 {
            self.parts.refused = true;
        }
        if self.invocations > 1 {
            self.refuse_whole("more than one command");
        } else if self.keep.named {
            self.first_name = Some(CompactString::new(&inv.name));
        }
        if !inv.keeps_safe {
            self.refuse_safe_with(|| {
                format!(
                    "runs through {}, which changes who or how it runs",
                    inv.wrappers.join(" ")
                )
            });
        }
        if !inv.plain_name {
            self.refuse_safe_with(|| format!("`{}` is not a plain command name", inv.written));
        }
        if inv.name == "cd" || inv.name == "pushd" {
            self.note_move(&inv);
        }
        let (tax, m) = (self.tax, self.matcher);
        // The groups are looked up once; the canonical form is built only
        // when one will search it (or for `explain`): about half of all
        // commands have no group at all.
        let facts = self.word_facts(&inv);
        let spec = facts.conventions;
        // `rm --help` prints text and exits: no destructive entry applies.
        // (Asked only when the last word could be a help word at all.) Nor
        // to `shred -u notes.txt --help` or `git rebase --onto main -h`,
        // whose parsers honour the help word wherever an option may stand
        // (unless the command line sets POSIXLY_CORRECT, which stops GNU
        // getopt's permutation). Lifted out of destructive, such a call is
        // unknown unless its spec explains it (`safe.rs`).
        let help = inv.plain_name
            && ((inv.args.len() <= 3
                && inv
                    .args
                    .last()
                    .is_some_and(|w| crate::spec::could_be_help(&w.text))
                && {
                    let args: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
                    crate::spec::help_form(&tax.specs, &inv.name, &args)
                })
                || (!self.posixly_correct && normalize::asks_for_help(&inv, spec, tax)));
        let destructive = if help {
            Default::default()
        } else {
            facts.destructive
        };
        let build = |scratch: &mut String| canonical_with(&inv, spec, tax, std::mem::take(scratch));
        let mut canon: Option<Canonical> = None;
        if self.keep.explain || !destructive.is_empty() {
            canon = Some(build(&mut self.scratch.canon));
        }
        let mut hits = std::mem::take(&mut self.scratch.hits);
        hits.clear();
        let mut broken = Vec::new();
        if let Some(canon) = &canon {
            if let Err(e) = m.command_matches(tax, &destructive, canon, &mut hits) {
                broken.push(e);
            }
        }
        let line_groups = if help { Default::default() } else { facts.line };
        // The command line as the line rules read it, in a buffer kept
        // from one command to the next (a nested command met before it is
        // put back finds the buffer taken and allocates its own).
        let mut line_buf = std::mem::take(&mut self.scratch.line);
        let display = if self.keep.explain || m.has_line_rules(&line_groups) {
            inv.display_into(&mut line_buf);
            Some(line_buf.as_str())
        } else {
            None
        };
        if let Some(line) = display {
            if let Err(e) = m.line_matches(tax, &line_groups, line, &mut hits) {
                broken.push(e);
            }
        }
        let mut examined = self.keep.explain.then(|| Examined {
            command: display.map(String::from).unwrap_or_default(),
            canonical: canon.as_ref().map(Canonical::readable).unwrap_or_default(),
            depth,
            via: via.map(String::from),
            wrappers: inv.wrappers.clone(),
            destructive: Vec::new(),
            safe: Vec::new(),
            service: None,
            helpers: Vec::new(),
            span: self.span.take(),
        });
        // Where the paths land, worked out at the first entry that asks.
        let mut landing = None;
        for &h in &hits {
            if let Some(e) = examined.as_mut() {
                e.destructive.push(entry_id(tax, h));
            }
            // Paths name this machine's files only for a command run
            // here (not through ssh, docker exec, kubectl exec …).
            let here = via.is_none_or(crate::landing::runs_here);
            let radius = here
                .then(|| self.landing_radius(h, &inv, &mut landing))
                .flatten();
            self.find_at(h, display.unwrap_or(""), radius);
        }
        self.scratch.line = line_buf;
        hits.clear();
        if inv.name == "git" {
            self.guard_git(&inv, &mut hits);
            hits.clear();
        } else if destructive.may_find_guard_entry(tax) {
            self.guard_spellings(&inv, spec, &destructive, &mut hits);
            hits.clear();
        }
        // Safe comes from the command's spec alone (see `safe.rs`).
        self.judge_safe(
            &inv,
            facts.spec,
            written,
            depth,
            !broken.is_empty(),
            &mut examined,
        );
        for e in broken {
            self.refuse_safe_with(|| format!("taxonomy error: {e}"));
        }
        self.scratch.hits = hits;
        if let Some(canon) = canon {
            self.scratch.canon = canon.text;
        }
        if let Some(e) = examined {
            self.commands.push(e);
        }

        for n in normalize::nested(&inv, stdin, source) {
            match n {
                Nested::Script {
                    runner,
                    text,
                    literal,
                } => {
                    if !literal {
                        self.refuse_safe_with(|| {
                            format!("{runner} runs a string built at run time")
                        });
                    }
                    self.script(&text, depth + 1, Some(&runner));
                }
                Nested::Argv { runner, words } => {
                    self.refuse_safe_with(|| format!("runs a nested command via {runner}"));
                    if words.is_empty() {
                        continue;
                    }
                    let inner = normalize::peel(&words, self.tax);
                    self.invocation(inner, None, None, depth + 1, Some(&runner), None);
                }
                Nested::Code { lang, text } => {
                    self.refuse_safe_with(|| format!("runs inline {lang} code"));
                    self.code(&lang, &text, depth);
                }
                Nested::Sql { client, text } => {
                    self.refuse_safe_with(|| format!("sends SQL to {client}"));
                    let mut hits = Vec::new();
                    // Keywords in literals and comments are data.
                    let code = normalize::executable_sql(&text);
                    if let Err(e) = self.matcher.sql.matches_into(self.tax, &code, &mut hits) {
                        self.refuse_safe_with(|| format!("taxonomy error: {e}"));
                    }
                    for h in hits {
                        self.find(h, &excerpt(&text));
                    }
                }
                Nested::Remote { source } => {
                    let inv = Invocation {
                        name: "@pipe-shell".into(),
                        written: "@pipe-shell".into(),
                        args: Cow::Owned(vec![Word::literal(source)]),
                        keeps_safe: true,
                        plain_name: true,
                        ..Invocation::default()
                    };
                    self.invocation(inv, None, None, depth, Some("pipe into a shell"), None);
                }
                Nested::Opaque { what } => {
                    self.refuse_safe_with(|| format!("{what}, whose contents cannot be seen"));
                }
            }
        }
    }

    pub(super) fn code(&mut self, lang: &str, text: &str, depth: usize) {
        let mut hits = Vec::new();
        if let Err(e) = self.matcher.code.matches_into(self.tax, text, &mut hits) {
            self.refuse_safe_with(|| format!("taxonomy error: {e}"));
        }
        for h in hits {
            self.find(h, &excerpt(text));
        }
        let strings = crate::normalize::shell_strings(lang, text);
        for s in strings {
            self.script(&s, depth + 1, Some(&format!("{lang} code")));
        }
    }

    /// The reason when nothing ruled the command out and no entry knew it.
    pub(super) fn no_entry(&self) -> String {
        let name = self.first_name.as_deref().unwrap_or_default();
        let mut why = String::with_capacity(name.len() + 48);
        why.push_str("no taxonomy entry recognises `");
        why.push_str(name);
        why.push_str("` in this form");
        why
    }

    pub(super) fn finish(mut self) -> Analysis {
        let (label, look_clears_one) = self.label();
        // Only `explain` shows the reasons one by one.
        let not_safe = if self.keep.explain {
            self.not_safe.into_iter().map(Cow::into_owned).collect()
        } else {
            Vec::new()
        };
        let every_part_safe = self.parts.every_safe && self.worst.is_none();
        // A look can clear what the words alone could not only where
        // nothing else stood in the way: the one command's spec explained
        // every word, or every part's did.
        let look_clears = look_clears_one || (every_part_safe && self.parts.look);
        Analysis {
            label,
            commands: self.commands,
            findings: self.findings,
            not_safe,
            every_part_safe: every_part_safe && !self.parts.look,
            look_clears,
            reach: self.reach,
            first_command: self.first_name.map(String::from),
        }
    }

    /// The label the walk arrives at, and whether it is safe by its words
    /// but for reads only a look can clear. All that a terse
    /// classification (a scan) keeps of a walk.
    pub(super) fn label(&mut self) -> (Label, bool) {
        let tax = self.tax;
        let mut look_clears_one = false;
        let label = if let Some((radius, rule_index)) = self.worst {
            match tax.entry_category_reason(rule_index) {
                Some((category, reason)) => Label {
                    class: Class::Destructive,
                    origin: Origin::Classifier,
                    blast_radius: radius,
                    category,
                    reason,
                },
                None => Label {
                    class: Class::Destructive,
                    origin: Origin::Classifier,
                    blast_radius: radius,
                    category: "".into(),
                    reason: UNREADABLE_ENTRY.into(),
                },
            }
        } else if let (false, Some(_), true) = (self.refused, self.safe_spec, self.safe_after_look)
        {
            // Safe by its words but for reads only a look can clear: the
            // label stays unknown (labels never widen), with what the look
            // has to check.
            look_clears_one = true;
            let needs = self.reach.as_ref().map(|r| r.needs_look.join("; "));
            Label::unknown(needs.unwrap_or_default())
        } else if let (false, Some(v)) = (self.refused, self.safe_spec) {
            let (category, reason) = if let Some((category, reason)) = self.help {
                (Cow::Borrowed(category), Cow::Borrowed(reason))
            } else {
                (v.spec.category.clone(), v.spec.reason.clone())
            };
            Label {
                class: Class::Safe,
                origin: Origin::Classifier,
                blast_radius: BlastRadius::Safe,
                category,
                reason,
            }
        } else if !self.keep.reasons {
            Label::unknown("")
        } else if !self.keep.explain && self.not_safe.len() <= 1 {
            // One reason (none: no entry knew the command) is the label's
            // as it is, borrowed when it is a fixed text.
            match self.not_safe.pop() {
                Some(why) => Label::unknown(why),
                None => Label::unknown(self.no_entry()),
            }
        } else {
            if self.not_safe.is_empty() {
                let why = self.no_entry();
                self.not_safe.push(Cow::Owned(why));
            }
            Label::unknown(self.not_safe.join("; "))
        };
        (label, look_clears_one)
    }
}

/// Entry `i`'s id, for `explain`.
pub(super) fn entry_id(tax: &crate::taxonomy::Taxonomy, i: usize) -> String {
    tax.entry(i).map_or_else(String::new, |e| e.id.into_owned())
}

/// Whether a script's buffers are worth keeping for the next command: one
/// that grew large is let go rather than kept for a thread's life.
pub(super) fn keeps_buffers(script: &Script) -> bool {
    script.commands.capacity() <= 16 && script.commands.iter().all(|c| c.words.capacity() <= 64)
}

fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.len() <= 120 {
        one_line
    } else {
        let mut end = 117;
        while !one_line.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &one_line[..end])
    }
}

/// The judgement of a top-level list or pipeline part by part.
#[derive(Default)]
pub(super) struct Parts {
    /// Every part so far was safe on its own (false until a list or
    /// pipeline of simple commands is being read).
    pub(super) every_safe: bool,
    /// A part is being examined.
    pub(super) active: bool,
    /// Some reason rules out the current part.
    pub(super) refused: bool,
    /// Commands examined for the current part (wrapped and nested ones
    /// included).
    pub(super) invocations: usize,
    /// A spec explained the current part's words.
    pub(super) safe: bool,
    /// An earlier part moved the shell out of the working directory into
    /// one of its subdirectories.
    pub(super) moved: bool,
    /// Where the current part runs, when an earlier `cd` moved the shell:
    /// its paths are judged from there.
    pub(super) dir: Option<String>,
    /// An earlier `cd` went where nobody can follow.
    pub(super) lost: bool,
    /// The current part's index in the list or pipeline.
    pub(super) index: usize,
    /// Some part is safe only once a look clears its reads.
    pub(super) look: bool,
}

impl Parts {
    pub(super) fn begin(&mut self) {
        self.active = true;
        self.refused = false;
        self.invocations = 0;
        self.safe = false;
    }

    pub(super) fn end(&mut self) {
        // A part after a `cd` nobody can follow reads relative paths from
        // who knows where.
        self.every_safe &= self.safe && !self.refused && !self.lost;
        self.active = false;
        self.index += 1;
    }
}

/// The working directory a part runs in after `cd DIR` (as written): the
/// call's own joined with it. Where the call's is not known, a relative
/// move is judged below a stand-in root, so that the folder moved into
/// still counts for the secret check (`cd secrets && cat key.txt`), and an
/// absolute path stays outside any known place.
pub(super) fn moved_cwd_of(cwd: Option<&str>, dir: &str) -> String {
    const UNKNOWN: &str = "/\u{1}working-directory";
    // In a home directory every secret is a relative path away: judged
    // from the root, which no read passes.
    if dir.starts_with('~') {
        return "/".to_string();
    }
    if dir.starts_with('/') {
        return dir.to_string();
    }
    let base = cwd.unwrap_or(UNKNOWN).trim_end_matches('/');
    format!("{base}/{dir}")
}

/// Buffers a classification borrows from its thread and gives back, so
/// that a scan allocates them once per thread rather than per command.
#[derive(Default)]
pub(super) struct Scratch {
    /// Rule indices matched.
    pub(super) hits: Vec<usize>,
    /// The canonical form's text.
    pub(super) canon: String,
    /// The command line the line rules read ([`Invocation::display`]).
    pub(super) line: String,
    /// The script read last, whose buffers the next one reuses.
    pub(super) script: Script,
    /// The scripts of a run of commands read ahead of judging them
    /// ([`Classifier::classify_terse_all`]), kept for the next run.
    pub(super) read_ahead: Vec<Script>,
}

#[cfg(test)]
mod tests {
    use super::mentions_posixly_correct;

    #[test]
    fn the_posix_variable_is_found_anywhere_in_a_word_and_only_whole() {
        for word in [
            "POSIXLY_CORRECT",
            "POSIXLY_CORRECT=1",
            "PPOSIXLY_CORRECT",
            "POSIXLY_CORRECT=1 shred -u notes.txt --help",
            "x; export POSIXLY_CORRECT",
        ] {
            assert!(mentions_posixly_correct(word), "{word:?}");
        }
        for word in [
            "",
            "P",
            "POSIXLY_CORREC",
            "POSIXLY-CORRECT=1",
            "posixly_correct=1",
            "OSIXLY_CORRECT",
        ] {
            assert!(!mentions_posixly_correct(word), "{word:?}");
        }
    }
}
