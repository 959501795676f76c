//! The classifier: shell front end, normaliser and matcher put together, and
//! the rules that turn their findings into one [`Label`].
//!
//! * A destructive match on any command found anywhere wins, with the worst
//!   blast radius (ties: the earliest entry in taxonomy order).
//! * Safe needs exactly one simple command, literal words, no writing
//!   redirection, no wrapper that changes who runs it, nothing nested, and a
//!   safe entry matching the whole command.
//! * Everything else is unknown, with a reason. Nothing here panics or does
//!   I/O; a taxonomy that fails to load degrades every label to unknown.

use std::borrow::Cow;
use std::cell::RefCell;

use rustc_hash::FxHashSet;
use std::sync::OnceLock;

use compact_str::CompactString;
use serde::Serialize;
use smallvec::SmallVec;

use crate::error::{EmbeddedTaxonomyError, TaxonomyError};
use crate::label::{BlastRadius, Class, Label, Origin};
use crate::matcher::Matcher;
use crate::normalize::{self, canonical_with, Canonical, Invocation, Nested};
use crate::shell::{self, RedirectKind, Script, SimpleCommand, Word};
pub use crate::spec::Context;
use crate::taxonomy::Taxonomy;

/// The longest here-document or here-string body a safe command may be
/// fed: bash 5.1 and later hand a body that fits in a pipe (a page is
/// the least a pipe holds) through one, and write a longer one to a
/// temporary file in $TMPDIR (seen under strace: `sh-thd.*`, created and
/// unlinked).
const HERE_BODY_LIMIT: usize = 4096;

/// How many levels of `sh -c` / `eval` / `ssh` strings are followed.
pub const MAX_NESTING: usize = 12;
/// How many invocations one classification examines.
pub const MAX_INVOCATIONS: usize = 20_000;

/// One command the classifier examined.
#[derive(Clone, Debug, Serialize)]
pub struct Examined {
    /// The normalised command line.
    pub command: String,
    /// The canonical tokens, space-separated.
    pub canonical: String,
    /// Nesting depth (0 = written at the top level).
    pub depth: usize,
    /// What ran it (`bash -c`, `docker exec`, `find -exec`, …), if nested.
    pub via: Option<String>,
    /// Wrappers peeled off.
    pub wrappers: Vec<String>,
    /// Ids of destructive entries that matched.
    pub destructive: Vec<String>,
    /// The command spec that explained every word, as `NAME (category)
    /// FILE:LINE` (`NAME (help)` for a help or version request).
    pub safe: Vec<String>,
    /// The service that spec says the command reads through (it connects
    /// there), if any.
    pub service: Option<String>,
    /// The programs that spec says the command runs as part of itself.
    pub helpers: Vec<String>,
    /// Where the command stands in the input, for commands written at the
    /// top level: `[start, end)` byte offsets.
    pub span: Option<[usize; 2]>,
}

/// A destructive finding.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The entry id.
    pub rule: String,
    /// Its category.
    pub category: String,
    /// Its blast radius.
    pub blast_radius: BlastRadius,
    /// What it matched: a command line, SQL or code excerpt.
    pub matched: String,
}

/// Everything the classifier saw and concluded, for `explain`.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The label.
    pub label: Label,
    /// Every command examined, nested ones included.
    pub commands: Vec<Examined>,
    /// Destructive findings.
    pub findings: Vec<Finding>,
    /// Why the command is not safe (empty when it is).
    pub not_safe: Vec<String>,
    /// For compound shell made only of lists and pipelines: every simple
    /// command in it is safe on its own (see [`Assessment`]).
    pub every_part_safe: bool,
}

/// A label and whether a compound command's every part is safe.
///
/// Compound shell is never labelled safe (the seed rule), but an operator
/// may choose to let a list or pipeline through when each of its simple
/// commands would be safe on its own: nothing backgrounded, no writing
/// redirection, nothing nested, no substitution or control structure, and
/// no destructive finding anywhere.
///
/// ```
/// use toolgate_core::{Class, Classifier, Context};
/// let c = Classifier::embedded()?;
/// let a = c.assess_in("ls -la && git status", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Unknown, true));
/// let a = c.assess_in("ls -la && npm test", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Unknown, false));
/// let a = c.assess_in("git status", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Safe, false));
/// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assessment {
    /// The label (unknown for any compound command).
    pub label: Label,
    /// The command is compound, of lists and pipelines only, and every
    /// simple command in it is safe on its own.
    pub every_part_safe: bool,
}

/// A compiled classifier. Build one with [`Classifier::new`] or use the
/// embedded default through [`classify`].
#[derive(Debug)]
pub struct Classifier {
    tax: Taxonomy,
    matcher: Matcher,
}

impl Classifier {
    /// Compiles a classifier from a validated taxonomy.
    pub fn new(tax: Taxonomy) -> Result<Classifier, TaxonomyError> {
        let matcher = Matcher::new(&tax);
        Ok(Classifier { tax, matcher })
    }

    /// The classifier over the embedded taxonomy, compiled once per process.
    ///
    /// It fails only when the binary itself is broken (the build checked
    /// the taxonomy); the error says so and how to get a working toolgate.
    /// A failure is cached like a success: every call gets the same error.
    ///
    /// ```
    /// use toolgate_core::{Class, Classifier};
    /// let c = Classifier::embedded()?;
    /// assert_eq!(c.classify("git status").class, Class::Safe);
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn embedded() -> Result<&'static Classifier, EmbeddedTaxonomyError> {
        static CELL: OnceLock<Result<Classifier, EmbeddedTaxonomyError>> = OnceLock::new();
        CELL.get_or_init(|| {
            // Its own copy, decoded straight into the classifier: cloning
            // the shared `Taxonomy::embedded()` cost about 12% of a
            // one-command process.
            let tax = crate::taxonomy::load_embedded_fast().map_err(EmbeddedTaxonomyError::new)?;
            Classifier::new(tax).map_err(EmbeddedTaxonomyError::new)
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// Compiles every automaton now instead of on first use (the test suite
    /// does this to catch a broken pattern; a long-running process may
    /// prefer to pay up front).
    pub fn compile_all(&self) -> Result<(), TaxonomyError> {
        self.matcher.compile_all(&self.tax)
    }

    /// The taxonomy this classifier was built from.
    pub fn taxonomy(&self) -> &Taxonomy {
        &self.tax
    }

    /// Labels one shell command.
    pub fn classify(&self, command: &str) -> Label {
        self.run(command, Detail::Label, Context::default()).label
    }

    /// Labels one shell command run in a known place: an absolute path
    /// below the working directory is then inside it, as a relative one
    /// always is.
    ///
    /// ```
    /// use toolgate_core::{Class, Classifier, Context};
    /// let c = Classifier::embedded()?;
    /// let ctx = Context { cwd: Some("/app") };
    /// assert_eq!(c.classify_in("cat /app/src/main.rs", &ctx).class, Class::Safe);
    /// assert_eq!(c.classify("cat /app/src/main.rs").class, Class::Unknown);
    /// assert_eq!(c.classify_in("cat /app/../etc/passwd", &ctx).class, Class::Unknown);
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn classify_in(&self, command: &str, ctx: &Context) -> Label {
        self.run(command, Detail::Label, *ctx).label
    }

    /// Labels one shell command as [`Classifier::classify`] does, except
    /// that an unknown label's reason is left empty. For bulk output that
    /// shows no reason for unknown commands (`scan --format jsonl`): the
    /// reasons a command cannot be safe are then never written out, which
    /// saves a scan a few percent.
    ///
    /// ```
    /// use toolgate_core::{Class, Classifier};
    /// let c = Classifier::embedded()?;
    /// let label = c.classify_terse("npm run dev");
    /// assert_eq!((label.class, label.reason.as_ref()), (Class::Unknown, ""));
    /// assert_eq!(c.classify_terse("rm -rf /"), c.classify("rm -rf /"));
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn classify_terse(&self, command: &str) -> Label {
        self.run(command, Detail::Terse, Context::default()).label
    }

    /// [`Classifier::classify_terse`] in a known place.
    pub fn classify_terse_in(&self, command: &str, ctx: &Context) -> Label {
        self.run(command, Detail::Terse, *ctx).label
    }

    /// Labels one shell command and reports how it got there.
    pub fn analyze(&self, command: &str) -> Analysis {
        self.run(command, Detail::Explain, Context::default())
    }

    /// Labels one shell command run in a known place and says whether a
    /// compound command's every part is safe.
    pub fn assess_in(&self, command: &str, ctx: &Context) -> Assessment {
        let a = self.run(command, Detail::Assess, *ctx);
        Assessment {
            label: a.label,
            every_part_safe: a.every_part_safe,
        }
    }

    /// [`Classifier::analyze`] in a known place.
    pub fn analyze_in(&self, command: &str, ctx: &Context) -> Analysis {
        self.run(command, Detail::Explain, *ctx)
    }

    fn run<'x>(&'x self, command: &str, detail: Detail, ctx: Context<'x>) -> Analysis {
        if is_blank(command) {
            return Analysis {
                label: Label::unknown(if detail == Detail::Terse {
                    ""
                } else {
                    "empty command"
                }),
                commands: Vec::new(),
                findings: Vec::new(),
                not_safe: vec!["empty command".into()],
                every_part_safe: false,
            };
        }
        // The thread's buffers, borrowed where they are (moving them in
        // and out cost every command a copy); a classification that is
        // already using them on this thread gets buffers of its own.
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.walk(command, detail, &mut scratch, ctx),
            Err(_) => self.walk(command, detail, &mut Scratch::default(), ctx),
        })
    }

    /// The terse labels ([`Classifier::classify_terse_in`]) of many
    /// commands, each with the place it runs in, in order.
    ///
    /// The same labels as one call per command, found faster: a few
    /// commands at a time are read as shell first and only then judged, so
    /// that the parser's code and the judge's stay in the processor's
    /// instruction cache instead of pushing each other out at every command
    /// (a scan of the shared corpus: half the instruction-cache misses).
    ///
    /// ```
    /// use toolgate_core::{Class, Classifier, Context};
    /// let c = Classifier::embedded()?;
    /// let here = Context::default();
    /// let labels = c.classify_terse_all(&[("git status", here), ("rm -rf /", here), ("", here)]);
    /// let classes: Vec<Class> = labels.iter().map(|l| l.class).collect();
    /// assert_eq!(classes, [Class::Safe, Class::Destructive, Class::Unknown]);
    /// assert_eq!(labels[1], c.classify_terse("rm -rf /"));
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn classify_terse_all(&self, commands: &[(&str, Context<'_>)]) -> Vec<Label> {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.terse_all(commands, &mut scratch),
            Err(_) => self.terse_all(commands, &mut Scratch::default()),
        })
    }

    fn terse_all(&self, commands: &[(&str, Context<'_>)], scratch: &mut Scratch) -> Vec<Label> {
        let mut labels = Vec::with_capacity(commands.len());
        let mut scripts = std::mem::take(&mut scratch.read_ahead);
        for run in commands.chunks(READ_AHEAD) {
            if scripts.len() < run.len() {
                scripts.resize_with(run.len(), Script::default);
            }
            for (&(text, _), script) in run.iter().zip(&mut scripts) {
                shell::parse_into(text, 0, script);
            }
            for (&(text, ctx), script) in run.iter().zip(&mut scripts) {
                labels.push(if is_blank(text) {
                    Label::unknown("")
                } else {
                    let mut walk = Walk::new(self, Detail::Terse, scratch, ctx);
                    walk.parsed(script, 0, None);
                    walk.finish().label
                });
                if !keeps_buffers(script) {
                    *script = Script::default();
                }
            }
        }
        scratch.read_ahead = scripts;
        labels
    }

    fn walk<'x>(
        &'x self,
        command: &str,
        detail: Detail,
        scratch: &mut Scratch,
        ctx: Context<'x>,
    ) -> Analysis {
        let mut walk = Walk::new(self, detail, scratch, ctx);
        walk.script(command, 0, None);
        walk.finish()
    }

    /// Which rules (indices) match a command, destructive and safe, wherever
    /// it appears: used by the taxonomy's own example tests and `explain`.
    pub fn matching_rules(&self, command: &str) -> Vec<String> {
        let a = self.analyze(command);
        let mut ids: Vec<String> = a.findings.iter().map(|f| f.rule.clone()).collect();
        for c in &a.commands {
            ids.extend(c.safe.iter().cloned());
        }
        ids.sort();
        ids.dedup();
        ids
    }
}

/// The reason given when a matched entry cannot be read back (only a
/// damaged binary could do that).
const UNREADABLE_ENTRY: &str = "a matching taxonomy entry could not be read";

/// The category of a call that only asks for help.
pub const HELP_CATEGORY: &str = "help";
/// The category of a call that only asks for a version.
pub const VERSION_CATEGORY: &str = "version";
/// Its reason.
const HELP_REASON: &str = "prints its help or version and exits";

/// The category of a help request by its last word: `--version`, `-V`,
/// `-v` and `version` ask for a version.
fn help_category(word: Option<&str>) -> &'static str {
    match word {
        Some(w) if w.contains("version") || w == "-v" || w == "-V" => VERSION_CATEGORY,
        _ => HELP_CATEGORY,
    }
}

/// How `explain` names the spec that explained a command (with the help
/// request's category, for one).
fn spec_id(spec: &crate::spec::Spec<'static>, help: Option<&str>) -> String {
    let name = spec.names.first().unwrap_or("");
    let category = help.unwrap_or(&spec.category);
    format!("{name} ({category}) {}:{}", spec.file, spec.line)
}

/// Entry `i`'s id, for `explain`.
fn entry_id(tax: &Taxonomy, i: usize) -> String {
    tax.entry(i).map_or_else(String::new, |e| e.id.into_owned())
}

/// Labels one shell command with the embedded taxonomy.
///
/// ```
/// use toolgate_core::{classify, Class};
/// assert_eq!(classify("git status").class, Class::Safe);
/// assert_eq!(classify("ls && rm -rf ~").class, Class::Destructive);
/// assert_eq!(classify("npm run dev").class, Class::Unknown);
/// ```
pub fn classify(command: &str) -> Label {
    match Classifier::embedded() {
        Ok(c) => c.classify(command),
        Err(e) => Label::unknown(e.to_string()),
    }
}

/// Labels a command given as raw bytes, as a hook or a corpus line may carry
/// them. Invalid UTF-8 is decoded lossily for reading, but a command whose
/// bytes are not what was read is never labelled safe.
///
/// ```
/// use toolgate_core::{classify_bytes, Class};
/// assert_eq!(classify_bytes(b"rm -rf /tmp/\xff").class, Class::Destructive);
/// assert_eq!(classify_bytes(b"ls \xff").class, Class::Unknown);
/// assert_eq!(classify_bytes(b"ls src").class, Class::Safe);
/// ```
pub fn classify_bytes(command: &[u8]) -> Label {
    match std::str::from_utf8(command) {
        Ok(text) => classify(text),
        Err(_) => {
            let text = String::from_utf8_lossy(command);
            let label = classify(&text);
            if label.class == Class::Safe {
                Label::unknown("the command is not valid UTF-8")
            } else {
                label
            }
        }
    }
}

/// Buffers a classification borrows from its thread and gives back, so
/// that a scan allocates them once per thread rather than per command.
#[derive(Default)]
struct Scratch {
    /// Rule indices matched.
    hits: Vec<usize>,
    /// The canonical form's text.
    canon: String,
    /// The script read last, whose buffers the next one reuses.
    script: Script,
    /// The scripts of a run of commands read ahead of judging them
    /// ([`Classifier::classify_terse_all`]), kept for the next run.
    read_ahead: Vec<Script>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How much a classification keeps of what it saw.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// The label, with an unknown label's reason empty.
    Terse,
    /// The label.
    Label,
    /// The label, and whether a compound command's every part is safe
    /// (which costs a spec check per part, so only the gate asks).
    Assess,
    /// Everything `explain` shows.
    Explain,
}

/// State of one classification.
struct Walk<'c, 's> {
    c: &'c Classifier,
    /// Keep what `explain` shows (the commands examined, every finding);
    /// plain classification only needs the worst finding.
    explain: bool,
    /// Keep the reasons the command cannot be safe (all but a terse
    /// classification, whose unknown label has none).
    reasons: bool,
    /// Some reason rules out a safe verdict (kept or not).
    refused: bool,
    /// Judge a top-level list or pipeline part by part.
    by_parts: bool,
    /// The simple commands of a top-level list or pipeline, judged one by
    /// one.
    parts: Parts,
    commands: Vec<Examined>,
    findings: Vec<Finding>,
    /// The worst finding so far, as (blast radius, rule index).
    worst: Option<(BlastRadius, usize)>,
    /// The worst finding is a guard-tamper one, which no other replaces.
    worst_guard: bool,
    /// The first command word examined, for the "no entry" reason.
    first_name: Option<CompactString>,
    not_safe: Vec<Cow<'static, str>>,
    /// The spec that explained the single top-level command.
    safe_spec: Option<crate::spec::Verdict<'c>>,
    /// Where the command runs.
    ctx: crate::spec::Context<'c>,
    /// For a help or version request: its category, which of the two it
    /// asks for.
    help_category: Option<&'static str>,
    invocations: usize,
    /// Buffers reused from one command to the next on this thread.
    scratch: &'s mut Scratch,
    /// (rule, matched text) pairs already reported.
    seen: FxHashSet<(usize, String)>,
    /// The input span of the top-level command being examined.
    span: Option<[usize; 2]>,
    /// Where an earlier `cd` of this command line moved the shell, as
    /// written (`~/.claude`), while it is known: what a later command's
    /// relative paths are judged from for self-protection.
    moved_to: Option<String>,
    /// An earlier `cd` went where nobody can follow (`cd "$X"`, `cd -`):
    /// a relative path lands who knows where.
    lost: bool,
}

impl<'c, 's> Walk<'c, 's> {
    fn new(
        c: &'c Classifier,
        detail: Detail,
        scratch: &'s mut Scratch,
        ctx: crate::spec::Context<'c>,
    ) -> Walk<'c, 's> {
        Walk {
            c,
            explain: detail == Detail::Explain,
            reasons: detail != Detail::Terse,
            refused: false,
            by_parts: matches!(detail, Detail::Assess | Detail::Explain),
            parts: Parts::default(),
            commands: Vec::new(),
            findings: Vec::new(),
            worst: None,
            worst_guard: false,
            first_name: None,
            not_safe: Vec::new(),
            safe_spec: None,
            ctx,
            help_category: None,
            invocations: 0,
            scratch,
            seen: FxHashSet::default(),
            span: None,
            moved_to: None,
            lost: false,
        }
    }

    /// Whether a new reason would be kept. A handful of distinct reasons
    /// say enough; more would only make long inputs slow.
    fn keeps_reasons(&self) -> bool {
        const MAX_REASONS: usize = 8;
        self.reasons && self.not_safe.len() < MAX_REASONS
    }

    /// Records why the command cannot be safe (nor the part of a list or
    /// pipeline being examined).
    fn refuse_safe(&mut self, why: impl Into<Cow<'static, str>>) {
        self.parts.refused = true;
        self.refuse_whole(why);
    }

    /// Records why the command as a whole cannot be safe, for a reason that
    /// does not rule out each part being safe on its own (it is compound).
    fn refuse_whole(&mut self, why: impl Into<Cow<'static, str>>) {
        self.refused = true;
        if self.keeps_reasons() {
            self.keep_reason(why.into());
        }
    }

    /// Keeps a reason once. (Out of line, like every reason's formatting:
    /// a scan keeps none, and the walk's hot path stays small enough for
    /// the instruction cache.)
    #[cold]
    #[inline(never)]
    fn keep_reason(&mut self, why: Cow<'static, str>) {
        if !self.not_safe.contains(&why) {
            self.not_safe.push(why);
        }
    }

    /// Like [`Walk::refuse_safe`], formatting the reason only when it will
    /// be kept.
    fn refuse_safe_with(&mut self, why: impl FnOnce() -> String) {
        self.refused = true;
        self.parts.refused = true;
        if self.keeps_reasons() {
            self.format_reason(why);
        }
    }

    /// Formats and keeps a reason (see [`Walk::keep_reason`]).
    #[cold]
    #[inline(never)]
    fn format_reason(&mut self, why: impl FnOnce() -> String) {
        self.keep_reason(Cow::Owned(why()));
    }

    fn script(&mut self, text: &str, depth: usize, via: Option<&str>) {
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
    fn parsed(&mut self, script: &Script, depth: usize, via: Option<&str>) {
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
        let by_part = self.by_parts
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
        let feeds = stdin_feeds(script, &self.c.tax);
        for (i, cmd) in script.commands.iter().enumerate() {
            let (stdin, source) = match feeds.as_ref().and_then(|f| f.get(i)) {
                Some((stdin, source)) => (stdin.as_deref(), *source),
                None => (cmd.stdin.as_ref().map(|t| t.text.as_str()), None),
            };
            if by_part {
                self.parts.begin();
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

    fn command(
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
                RedirectKind::Read => self.refuse_safe("reads a file through a redirection"),
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
        if cmd.words.is_empty() {
            return;
        }
        self.span = (depth == 0 && !cmd.in_substitution).then_some([cmd.span.start, cmd.span.end]);
        // Globs are judged by the command's spec, which knows where a file
        // name may stand; every other expansion rules safe out here.
        if cmd.words.iter().any(|w| !w.literal && !w.glob) {
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
        let inv = normalize::peel(&cmd.words, &self.c.tax);
        self.invocation(inv, stdin, source, depth, via, Some(&cmd.words));
    }

    fn invocation(
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
        } else if self.reasons {
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
        let c = self.c;
        let (tax, m) = (&c.tax, &c.matcher);
        // The groups are looked up once; the canonical form is built only
        // when one will search it (or for `explain`): about half of all
        // commands have no group at all.
        let spec = normalize::command_spec(&inv, tax);
        let name = normalize::matched_name(&inv, spec);
        // `rm --help` prints text and exits: no destructive entry applies.
        // (Asked only when the last word could be a help word at all.)
        let help = inv.plain_name
            && inv.args.len() <= 3
            && inv
                .args
                .last()
                .is_some_and(|w| crate::spec::could_be_help(&w.text))
            && {
                let args: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
                crate::spec::help_form(&tax.specs, &inv.name, &args)
            };
        let destructive = if help {
            Default::default()
        } else {
            m.groups_for(&m.destructive, name)
        };
        let build = |scratch: &mut String| canonical_with(&inv, spec, tax, std::mem::take(scratch));
        let mut canon: Option<Canonical> = None;
        if self.explain || !destructive.is_empty() {
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
        let line_groups = m.line_groups(&inv.name);
        let display = (self.explain || m.has_line_rules(&line_groups)).then(|| inv.display());
        if let Some(line) = &display {
            if let Err(e) = m.line_matches(tax, &line_groups, line, &mut hits) {
                broken.push(e);
            }
        }
        let mut examined = self.explain.then(|| Examined {
            command: display.clone().unwrap_or_default(),
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
            self.find_at(h, display.as_deref().unwrap_or(""), radius);
        }
        hits.clear();
        if inv.name == "git" {
            self.guard_git(&inv, &mut hits);
            hits.clear();
        } else if destructive.may_find_guard_entry(tax) {
            self.guard_spellings(&inv, spec, &destructive, &mut hits);
            hits.clear();
        }
        // Safe entries decide a label only for the one top-level command of
        // a command nothing has yet ruled out; `explain` shows them always.
        let may_be_safe = self.invocations == 1
            && depth == 0
            && self.worst.is_none()
            && !self.refused
            && broken.is_empty();
        // The same for the part of a list or pipeline being examined.
        let part_top = self.parts.active && self.parts.invocations == 1 && depth == 0;
        let part_may_be_safe =
            part_top && self.worst.is_none() && !self.parts.refused && broken.is_empty();
        // Safe comes from the command's spec alone, read from the words as
        // written (wrappers included: a wrapper has a spec or is not safe).
        // Most commands have no spec at all: that is settled by one lookup,
        // with no reason built unless it is kept; the spec found is the one
        // the words are read against.
        let top = self.invocations == 1 && depth == 0;
        let wanted = self.explain || may_be_safe || part_may_be_safe;
        // A command that cannot be safe, where no reason is kept and no
        // part is judged (a scan), needs no spec: what it would add (a
        // refusal, a reason) changes nothing then. (A sixth of the
        // commands of a scan.)
        let needed = wanted || self.reasons || self.parts.active;
        if let Some(first) = written.filter(|_| needed).and_then(|words| words.first()) {
            // The word the normaliser named, when no wrapper was peeled
            // off, is this one: its name is known (3 M instructions of a
            // corpus scan). Debug builds check it against the plain path.
            let same_word = matches!(&inv.written, Cow::Borrowed(t)
                if std::ptr::eq(t.as_ptr(), first.text.as_ptr()) && t.len() == first.text.len());
            let (name, plain) = if same_word {
                (Cow::Borrowed(inv.name.as_ref()), inv.plain_name)
            } else {
                normalize::command_name(first)
            };
            debug_assert!(
                normalize::command_name(first) == (name.clone(), plain),
                "the normalised name of `{}`",
                first.text
            );
            let spec = tax.specs.get(&name);
            // A part's own reasons are shown by `explain`; the label of a
            // compound command keeps the one reason that it is compound.
            let part_reasons = top || (part_top && self.explain);
            if spec.is_none() && part_top {
                self.parts.refused = true;
            }
            if spec.is_none() && part_reasons {
                self.refuse_safe_with(|| {
                    format!(
                        "`{}`: no spec says what `{name}` does with its arguments",
                        first.text
                    )
                });
            }
            if let (Some(spec), Some(words), true) = (spec, written, wanted) {
                // The words' texts, in place for a command of up to 16
                // words (an allocation per spec read was 0.5% of a scan).
                let mut held: [&str; 16] = [""; 16];
                let spilled: Vec<&str>;
                let texts: &[&str] = match held.get_mut(..words.len()) {
                    Some(place) => {
                        for (t, w) in place.iter_mut().zip(words) {
                            *t = w.text.as_str();
                        }
                        place
                    }
                    None => {
                        spilled = words.iter().map(|w| w.text.as_str()).collect();
                        &spilled
                    }
                };
                let globs: Vec<&str> = words
                    .iter()
                    .filter(|w| w.glob)
                    .map(|w| w.text.as_str())
                    .collect();
                // (A word that is not a plain name, `./ls`, is refused by
                // the full check, with its reason.)
                let verdict = if plain && !self.reasons {
                    crate::spec::check_args_unexplained(
                        &tax.specs,
                        spec,
                        &name,
                        &texts[1..],
                        &globs,
                        &self.ctx,
                    )
                } else if plain {
                    crate::spec::check_args(&tax.specs, spec, &name, &texts[1..], &globs, &self.ctx)
                } else {
                    crate::spec::check(&tax.specs, texts, &globs, &self.ctx)
                };
                match verdict {
                    Ok(v) => {
                        let category = v.help.then(|| help_category(texts.last().copied()));
                        if let Some(e) = examined.as_mut() {
                            e.safe.push(spec_id(v.spec, category));
                            e.service = v.spec.service.as_ref().map(|s| s.to_string());
                            e.helpers = v.spec.helpers.iter().map(|h| h.to_string()).collect();
                        }
                        if top {
                            self.safe_spec = Some(v);
                            self.help_category = category;
                        }
                        if part_top {
                            self.parts.safe = true;
                            self.part_runs_git_after_cd(v.spec);
                            self.part_moves(&name, &texts[1..]);
                        }
                    }
                    Err(refusal) if part_reasons => self.refuse_safe_with(|| refusal.to_string()),
                    Err(_) => self.parts.refused = true,
                }
            }
        }
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
                    let inner = normalize::peel(&words, &self.c.tax);
                    self.invocation(inner, None, None, depth + 1, Some(&runner), None);
                }
                Nested::Code { lang, text } => {
                    self.refuse_safe_with(|| format!("runs inline {lang} code"));
                    self.code(&lang, &text, depth);
                }
                Nested::Sql { client, text } => {
                    self.refuse_safe_with(|| format!("sends SQL to {client}"));
                    let mut hits = Vec::new();
                    if let Err(e) = self
                        .c
                        .matcher
                        .sql
                        .matches_into(&self.c.tax, &text, &mut hits)
                    {
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

    #[inline(never)]
    fn code(&mut self, lang: &str, text: &str, depth: usize) {
        let mut hits = Vec::new();
        if let Err(e) = self
            .c
            .matcher
            .code
            .matches_into(&self.c.tax, text, &mut hits)
        {
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

    /// git reads the config of the repository it finds where it runs:
    /// after `cd` into a directory that could be a bare repository
    /// committed to the project, that config (a pager, an fsmonitor, a diff
    /// driver) can name programs. Wrapped or not (`nice git log`), a git
    /// part after such a move is not safe.
    #[inline(never)]
    fn part_runs_git_after_cd(&mut self, spec: &crate::spec::Spec<'static>) {
        let git = spec
            .names
            .iter()
            .any(|n| n == "git" || n.starts_with("git "));
        if self.parts.moved && git {
            self.parts.refused = true;
            if self.explain {
                self.refuse_safe(
                    "git after `cd` into a subdirectory: a bare repository there brings its own config, which can name programs",
                );
            }
        }
    }

    /// Follows `cd DIR` (and `pushd DIR`): later relative paths are
    /// reached from `DIR`. A move nobody can follow (`cd -`, `cd "$X"`)
    /// forgets where the shell is.
    #[inline(never)]
    fn note_move(&mut self, inv: &Invocation<'_>) {
        let mut dirs = inv
            .args
            .iter()
            .filter(|w| !w.text.starts_with('-') || w.text == "-");
        let dir = match (dirs.next(), dirs.next()) {
            (None, _) => Some("~".to_string()),
            (Some(w), None) if w.literal && w.text != "-" => {
                Some(moved_from(self.moved_to.as_deref(), &w.text))
            }
            _ => None,
        };
        // Lost stays lost until a move to a fixed place.
        let fixed = dir.as_deref().is_some_and(|d| d.starts_with(['/', '~']));
        self.lost = dir.is_none() || (self.lost && !fixed);
        self.moved_to = dir.filter(|_| !self.lost);
    }

    /// Self-protection sees a path as the shell reaches it: a guard file
    /// spelled with `//`, `/./` or `..`, or named relative to a directory an
    /// earlier `cd` moved to, is matched again in that spelling, and only
    /// the guard-tamper entries of that second look count (every other
    /// entry already judged the words as written).
    #[inline(never)]
    fn guard_spellings(
        &mut self,
        inv: &Invocation<'_>,
        spec: Option<&crate::taxonomy::CommandSpec>,
        groups: &crate::matcher::Applicable<'_>,
        hits: &mut Vec<usize>,
    ) {
        let cd = self.moved_to.as_deref();
        // (No allocation for the usual command, whose words are as written.)
        let mut args: Vec<Word> = Vec::new();
        for (i, w) in inv.args.iter().enumerate() {
            // Not moved, a word with no `/` is reached as written (what
            // `as_reached` would find, with no call for most words).
            let t = w.text.as_bytes();
            if t.first() == Some(&b'-') || (cd.is_none() && !t.contains(&b'/')) {
                continue;
            }
            if let Some(text) = crate::guard_paths::as_reached(cd, &w.text) {
                if args.is_empty() {
                    args = inv.args.to_vec();
                }
                args[i].text = text.into();
            }
        }
        if args.is_empty() {
            return;
        }
        let moved = Invocation {
            args: Cow::Owned(args),
            ..inv.clone()
        };
        self.find_guard_entries(&moved, spec, groups, &moved.display(), hits);
    }

    /// Matches `inv` against `groups` and records the guard-tamper entries
    /// among the hits (the others already judged the words as written),
    /// shown as `display`.
    #[inline(never)]
    fn find_guard_entries(
        &mut self,
        inv: &Invocation<'_>,
        spec: Option<&crate::taxonomy::CommandSpec>,
        groups: &crate::matcher::Applicable<'_>,
        display: &str,
        hits: &mut Vec<usize>,
    ) {
        let tax = &self.c.tax;
        let canon = canonical_with(inv, spec, tax, String::new());
        if self
            .c
            .matcher
            .command_matches(tax, groups, &canon, hits)
            .is_err()
        {
            return;
        }
        for &h in hits.iter() {
            if self.is_guard_entry(h) {
                self.find_at(h, display, None);
            }
        }
    }

    /// git's own deletes and overwrites of a file (`git rm`, `mv`,
    /// `checkout`, `restore`, `clean`, with `-C DIR` read as a move) are
    /// judged as the `rm` of that file they amount to, so a guard file
    /// reached that way is self-protection's too. (A `guard-path` entry in
    /// git's own group would do the same, but joined to git's other
    /// patterns it doubled the automaton every git command is searched
    /// with.)
    #[inline(never)]
    fn guard_git(&mut self, inv: &Invocation<'_>, hits: &mut Vec<usize>) {
        const FILE_CHANGES: [&str; 5] = ["rm", "mv", "checkout", "restore", "clean"];
        const TAKES_VALUE: [&str; 6] = [
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--exec-path",
        ];
        let mut dir: Option<Cow<'_, str>> = self.moved_to.as_deref().map(Cow::Borrowed);
        let mut words = inv.args.iter();
        let mut sub = None;
        while let Some(w) = words.next() {
            let t = w.text.as_str();
            if TAKES_VALUE.contains(&t) {
                let value = words.next();
                if t == "-C" {
                    dir = value
                        .filter(|v| v.literal)
                        .map(|v| Cow::Owned(moved_from(dir.as_deref(), &v.text)));
                }
            } else if !t.starts_with('-') {
                sub = Some(t);
                break;
            }
        }
        if !sub.is_some_and(|s| FILE_CHANGES.contains(&s)) {
            return;
        }
        let rest: Vec<&Word> = words.collect();
        if rest
            .iter()
            .any(|w| matches!(w.text.as_str(), "--cached" | "-n" | "--dry-run"))
        {
            return;
        }
        let guard = crate::guard_paths::GuardPaths::default();
        let reached: Vec<Word> = rest
            .iter()
            .filter(|w| !w.text.starts_with('-'))
            .filter_map(|w| {
                let text = crate::guard_paths::as_reached(dir.as_deref(), &w.text)
                    .or_else(|| guard.protects(&w.text).map(|_| w.text.to_string()))?;
                Some(Word {
                    text: text.into(),
                    ..(*w).clone()
                })
            })
            .collect();
        if reached.is_empty() {
            return;
        }
        let as_rm = Invocation {
            name: "rm".into(),
            written: "rm".into(),
            args: Cow::Owned(reached),
            keeps_safe: true,
            plain_name: true,
            ..Invocation::default()
        };
        let c = self.c;
        let groups = c.matcher.groups_for(&c.matcher.destructive, "rm");
        let spec = normalize::command_spec(&as_rm, &c.tax);
        self.find_guard_entries(&as_rm, spec, &groups, &inv.display(), hits);
    }

    /// Notes a part that moves the shell somewhere other than the working
    /// directory (`cd src`), which later parts then run in.
    #[inline(never)]
    fn part_moves(&mut self, name: &str, args: &[&str]) {
        if name == "cd"
            && !args
                .iter()
                .all(|a| crate::spec::paths::is_cwd(a, &self.ctx))
        {
            self.parts.moved = true;
        }
    }

    /// For an entry that writes, modifies or deletes files: the radius of
    /// where this invocation's paths land ([`crate::landing`]). `landing`
    /// keeps the places for the invocation's other entries.
    #[inline(never)]
    fn landing_radius(
        &self,
        rule_index: usize,
        inv: &Invocation<'_>,
        landing: &mut Option<Landing>,
    ) -> Option<BlastRadius> {
        // (The category alone settles most entries: no record decoded.)
        let category = self.c.tax.entry_category(rule_index)?;
        if !crate::landing::BY_TARGET.contains(&category) {
            return None;
        }
        let (_, entry_radius) = self.c.tax.entry_radius(rule_index)?;
        let landing = landing.get_or_insert_with(|| self.landing(inv));
        let radius = landing.places.radius(entry_radius);
        Some(match landing.somewhere {
            true => radius.max(entry_radius),
            false => radius,
        })
    }

    /// Where `inv`'s paths land.
    fn landing(&self, inv: &Invocation<'_>) -> Landing {
        let args: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
        let targets = crate::landing::targets(&inv.name, &args);
        // After `cd DIR`, a relative target lands in DIR (`cd /etc && rm
        // hosts` removes `/etc/hosts`), or, when the `cd` failed and the
        // command ran anyway (`cd /etc; rm hosts`), where the shell was:
        // the worse of the two counts.
        let moved: Vec<String>;
        let targets: Vec<&str> = match &self.moved_to {
            Some(dir) => {
                moved = targets
                    .iter()
                    .filter(|t| !crate::guard_paths::is_rooted(t))
                    .map(|t| format!("{dir}/{t}"))
                    .collect();
                targets
                    .into_iter()
                    .chain(moved.iter().map(String::as_str))
                    .collect()
            }
            None => targets,
        };
        Landing {
            places: crate::landing::Places::of(&targets, &self.ctx),
            somewhere: self.lost && targets.iter().any(|t| !crate::guard_paths::is_rooted(t)),
        }
    }

    /// Is entry `rule_index` of the [`GUARD_TAMPER`](crate::guard_paths::GUARD_TAMPER) category?
    fn is_guard_entry(&self, rule_index: usize) -> bool {
        self.c.tax.entry_category(rule_index) == Some(crate::guard_paths::GUARD_TAMPER)
    }

    fn find(&mut self, rule_index: usize, matched: &str) {
        self.find_at(rule_index, matched, None);
    }

    /// Records a finding, with its radius where this command's differs from
    /// the entry's.
    fn find_at(&mut self, rule_index: usize, matched: &str, radius: Option<BlastRadius>) {
        // An entry that cannot be read counts as the worst radius: a
        // finding is never lost.
        let radius = radius.unwrap_or_else(|| {
            self.c
                .tax
                .entry_radius(rule_index)
                .map_or(BlastRadius::Unknown, |(_, r)| r)
        });
        // A guard-tamper finding wins over every other, so that the label
        // (and the gate, which denies that category) sees it even beside
        // another high finding (`rm -rf ~/.claude` is also a recursive
        // delete). Otherwise the worst blast radius wins; ties go to the
        // earliest entry. The category is read only for a second finding.
        let candidate = (radius, rule_index);
        let better = match self.worst {
            None => {
                self.worst_guard = self.is_guard_entry(rule_index);
                true
            }
            Some(_) if self.worst_guard => false,
            Some(_) if self.is_guard_entry(rule_index) => {
                self.worst_guard = true;
                true
            }
            Some((radius, index)) => {
                candidate.0 > radius || (candidate.0 == radius && rule_index < index)
            }
        };
        if better {
            self.worst = Some(candidate);
        }
        if !self.explain || !self.seen.insert((rule_index, matched.to_string())) {
            return;
        }
        let entry = self.c.tax.entry(rule_index);
        self.findings.push(Finding {
            rule: entry
                .as_ref()
                .map_or_else(String::new, |e| e.id.to_string()),
            category: entry
                .as_ref()
                .map_or_else(String::new, |e| e.category.to_string()),
            blast_radius: radius,
            matched: matched.to_string(),
        });
    }

    /// The reason when nothing ruled the command out and no entry knew it.
    fn no_entry(&self) -> String {
        let name = self.first_name.as_deref().unwrap_or_default();
        let mut why = String::with_capacity(name.len() + 48);
        why.push_str("no taxonomy entry recognises `");
        why.push_str(name);
        why.push_str("` in this form");
        why
    }

    fn finish(mut self) -> Analysis {
        let tax = &self.c.tax;
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
        } else if let (false, Some(v)) = (self.refused, self.safe_spec) {
            let (category, reason) = if let Some(category) = self.help_category {
                (Cow::Borrowed(category), Cow::Borrowed(HELP_REASON))
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
        } else if !self.reasons {
            Label::unknown("")
        } else if !self.explain && self.not_safe.len() <= 1 {
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
        // Only `explain` shows the reasons one by one.
        let not_safe = if self.explain {
            self.not_safe.into_iter().map(Cow::into_owned).collect()
        } else {
            Vec::new()
        };
        let every_part_safe = self.parts.every_safe && self.worst.is_none();
        Analysis {
            label,
            commands: self.commands,
            findings: self.findings,
            not_safe,
            every_part_safe,
        }
    }
}

/// Where one invocation's paths land, for the entries it matches.
struct Landing {
    places: crate::landing::Places,
    /// A relative path after a `cd` that may have failed: it could land
    /// anywhere, so no entry's radius goes below its own.
    somewhere: bool,
}

/// The judgement of a top-level list or pipeline part by part.
#[derive(Default)]
struct Parts {
    /// Every part so far was safe on its own (false until a list or
    /// pipeline of simple commands is being read).
    every_safe: bool,
    /// A part is being examined.
    active: bool,
    /// Some reason rules out the current part.
    refused: bool,
    /// Commands examined for the current part (wrapped and nested ones
    /// included).
    invocations: usize,
    /// A spec explained the current part's words.
    safe: bool,
    /// An earlier part moved the shell out of the working directory into
    /// one of its subdirectories.
    moved: bool,
}

impl Parts {
    fn begin(&mut self) {
        self.active = true;
        self.refused = false;
        self.invocations = 0;
        self.safe = false;
    }

    fn end(&mut self) {
        self.every_safe &= self.safe && !self.refused;
        self.active = false;
    }
}

/// How many commands [`Classifier::classify_terse_all`] reads ahead of
/// judging them: enough that each phase's code stays in the instruction
/// cache for a while, few enough that the scripts read stay in the data
/// cache until they are judged. (A scan of the shared corpus took the same
/// time within 1% from 8 to 64; from 128 up the data cache's misses cost
/// more than the instruction cache's saved.)
const READ_AHEAD: usize = 16;

/// Whether a command is blank. A command nearly always starts with a
/// printable ASCII byte, which settles that without trimming it.
fn is_blank(command: &str) -> bool {
    let starts_printable = command
        .as_bytes()
        .first()
        .is_some_and(|&b| b.is_ascii_graphic());
    !starts_printable && command.trim().is_empty()
}

/// Whether a script's buffers are worth keeping for the next command: one
/// that grew large is let go rather than kept for a thread's life.
fn keeps_buffers(script: &Script) -> bool {
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

/// `'rm', '-rf', '/'` → `rm -rf /`.
/// For each command of a script: the text the script feeds it on stdin (a
/// here-document, a here-string, or `echo …`/`printf …`/`cat <<EOF` in the
/// previous pipeline stage), and the downloader or decoder upstream in its
/// pipeline when the input came from the network or was decoded. One pass,
/// so long pipelines stay linear. `None` for a script without pipes, whose
/// commands only their own here-documents and here-strings feed.
fn stdin_feeds(
    script: &Script,
    tax: &Taxonomy,
) -> Option<Vec<(Option<String>, Option<&'static str>)>> {
    if !script
        .commands
        .iter()
        .any(|c| c.stage > 0 || c.upstream.is_some())
    {
        return None;
    }
    // Per pipeline: the last command seen and the first source found among
    // the stages before it. Each command is examined as a source at most
    // once, when a later stage first needs it.
    // (Pipelines of one script are few: a list searched in place, not a
    // hash map allocated for every script with a pipe.)
    type Stage = (usize, Option<&'static str>);
    let mut state: SmallVec<[(usize, Stage); 4]> = SmallVec::new();
    let state_of = |state: &[(usize, Stage)], pipeline: usize| {
        state.iter().find(|(p, _)| *p == pipeline).map(|(_, s)| *s)
    };
    let mut out = Vec::with_capacity(script.commands.len());
    for (i, cmd) in script.commands.iter().enumerate() {
        let mut feed = (cmd.stdin.as_ref().map(|t| t.text.clone()), None);
        if cmd.pipeline == usize::MAX {
            out.push(feed);
            continue;
        }
        if let Some((outer, _)) = cmd.upstream {
            // Inside a compound stage: fed by the outer pipeline.
            if let Some((prev, upstream)) = state_of(&state, outer) {
                feed.1 = upstream.or_else(|| source_of(&script.commands[prev], tax));
            }
            out.push(feed);
            continue;
        }
        let mut source = None;
        if cmd.stage > 0 {
            if let Some((prev, upstream)) = state_of(&state, cmd.pipeline) {
                let p = &script.commands[prev];
                source = upstream.or_else(|| source_of(p, tax));
                if feed.0.is_none() && p.stage + 1 == cmd.stage {
                    feed.0 = literal_output(p);
                }
                feed.1 = source;
            }
        }
        out.push(feed);
        match state.iter_mut().find(|(p, _)| *p == cmd.pipeline) {
            Some((_, s)) => *s = (i, source),
            None => state.push((cmd.pipeline, (i, source))),
        }
    }
    Some(out)
}

/// What a pipeline stage writes, when the script spells it out.
fn literal_output(p: &SimpleCommand) -> Option<String> {
    let name = p.words.first().map(|w| w.text.as_str())?;
    match name {
        "echo" | "printf" => {
            let args: Vec<&str> = p.words[1..]
                .iter()
                .map(|w| w.text.as_str())
                .filter(|t| !matches!(*t, "-e" | "-n" | "-E"))
                .collect();
            Some(format!("{}\n", args.join(" ").replace("\\n", "\n")))
        }
        "cat" if p.words.len() == 1 => p.stdin.as_ref().map(|s| s.text.clone()),
        _ => None,
    }
}

/// The network or decoding source a command is (wrappers peeled), if it is
/// one.
fn source_of(cmd: &SimpleCommand, tax: &Taxonomy) -> Option<&'static str> {
    cmd.words.first()?;
    let name = normalize::peel(&cmd.words, tax).name;
    normalize::DOWNLOADERS
        .iter()
        .chain(DECODERS)
        .find(|d| **d == name)
        .copied()
}

/// Where `cd DIR` (or `git -C DIR`) leads from `from`, the directory an
/// earlier move led to, if any: `DIR` itself when it is absolute or starts
/// at the home directory, else `DIR` below `from`.
fn moved_from(from: Option<&str>, dir: &str) -> String {
    match from {
        Some(from) if !dir.starts_with(['/', '~']) => format!("{from}/{dir}"),
        _ => dir.to_string(),
    }
}

/// Programs that turn hidden text back into a script.
const DECODERS: &[&str] = &["base64", "xxd", "openssl", "gunzip", "zcat", "rev", "tr"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_blank_commands_are_empty() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        for blank in ["", " ", "\t\n", "\u{a0}\u{3000}", " \u{2028}"] {
            let label = c.classify(blank);
            assert_eq!(
                (label.class, label.blast_radius, label.reason.as_ref()),
                (Class::Unknown, BlastRadius::Unknown, "empty command"),
                "{blank:?}"
            );
        }
        for written in [" ls", "\u{a0}ls", "ls", "\tls "] {
            assert_ne!(c.classify(written).reason, "empty command", "{written:?}");
        }
    }

    #[test]
    fn a_relative_target_lands_where_cd_moved() {
        use BlastRadius::{High, Low, Medium};
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("embedded taxonomy: {e}"));
        for (command, radius) in [
            // Moved to a system directory, a home, a temporary one.
            ("cd /etc && rm hosts", High),
            ("cd /etc; cd nginx; rm nginx.conf", High),
            ("cd ~ && rm .bashrc", High),
            ("cd /tmp && rm x", Low),
            ("cd ~/proj && rm notes.txt", Medium),
            // A failed `cd` leaves the shell where it was: the worse counts.
            ("cd /tmp/a; rm -rf ../x", High),
            // Where it started, and back to a fixed place after a lost one.
            ("cd src && rm x.o", Low),
            ("cd \"$D\" && cd /tmp && rm x", Low),
            // Absolute targets do not care where the shell is.
            ("cd /etc && rm /tmp/x", Low),
        ] {
            let label = c.classify(command);
            assert_eq!(
                (label.class, label.blast_radius),
                (Class::Destructive, radius),
                "{command:?}: {label:?}"
            );
        }
    }
}
