//! The classifier: a compiled taxonomy, and the one entry
//! ([`Classifier::assess`]) every way of classifying goes through.

use std::cell::RefCell;
use std::sync::OnceLock;

use super::analysis::{Analysis, Assessment};
use super::walk::{keeps_buffers, Keep, Scratch, Walk, WordMemo};
use crate::error::{EmbeddedTaxonomyError, TaxonomyError};
use crate::label::{Class, Label};
use crate::matcher::Matcher;
use crate::shell::{self, Script};
use crate::spec::Context;
use crate::taxonomy::Taxonomy;

/// A compiled classifier. Build one with [`Classifier::new`] or use the
/// embedded default through [`classify`].
#[derive(Debug)]
pub struct Classifier {
    pub(super) tax: Taxonomy,
    pub(super) matcher: Matcher,
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
            // Its own copy, loaded straight into the classifier: cloning
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
        self.assess(command, &Options::default()).label
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
        self.assess(
            command,
            &Options {
                context: *ctx,
                detail: Detail::Label,
                reach: false,
            },
        )
        .label
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
        self.assess(
            command,
            &Options {
                context: Context::default(),
                detail: Detail::Terse,
                reach: false,
            },
        )
        .label
    }

    /// [`Classifier::classify_terse`] in a known place.
    pub fn classify_terse_in(&self, command: &str, ctx: &Context) -> Label {
        self.assess(
            command,
            &Options {
                context: *ctx,
                detail: Detail::Terse,
                reach: false,
            },
        )
        .label
    }

    /// Labels one shell command and reports how it got there.
    pub fn analyze(&self, command: &str) -> Analysis {
        self.assess(
            command,
            &Options {
                context: Context::default(),
                detail: Detail::Explain,
                reach: false,
            },
        )
    }

    /// Labels one shell command run in a known place and says whether a
    /// compound command's every part is safe.
    pub fn assess_in(&self, command: &str, ctx: &Context) -> Assessment {
        self.assessment(command, ctx, false)
    }

    /// [`Classifier::assess_in`], noting what the command would read
    /// ([`Assessment::reach`]) for a caller that looks before it allows.
    ///
    /// ```
    /// use toolgate_core::{Class, Classifier, Context};
    /// let c = Classifier::embedded()?;
    /// let a = c.assess_reaching("grep -r TODO .", &Context { cwd: Some("/app") });
    /// // Unknown by its words: a look can clear it.
    /// assert_eq!((a.label.class, a.look_clears), (Class::Unknown, true));
    /// let a = c.assess_reaching("cat src/main.rs", &Context { cwd: Some("/app") });
    /// assert_eq!(a.reach.map(|r| r.touches.len()), Some(1));
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn assess_reaching(&self, command: &str, ctx: &Context) -> Assessment {
        self.assessment(command, ctx, true)
    }

    fn assessment(&self, command: &str, ctx: &Context, reach: bool) -> Assessment {
        let a = self.assess(
            command,
            &Options {
                context: *ctx,
                detail: Detail::Parts,
                reach,
            },
        );
        Assessment {
            label: a.label,
            every_part_safe: a.every_part_safe,
            look_clears: a.look_clears,
            reach: a.reach,
        }
    }

    /// [`Classifier::analyze`] in a known place.
    pub fn analyze_in(&self, command: &str, ctx: &Context) -> Analysis {
        self.assess(
            command,
            &Options {
                context: *ctx,
                detail: Detail::Explain,
                reach: false,
            },
        )
    }

    /// Assesses one shell command: the one entry every other way of
    /// classifying goes through, each a thin wrapper that picks the
    /// [`Options`].
    ///
    /// ```
    /// use toolgate_core::classify::{Detail, Options};
    /// use toolgate_core::{Class, Classifier, Context};
    /// let c = Classifier::embedded()?;
    /// let here = Options { context: Context { cwd: Some("/app") }, detail: Detail::Parts, reach: false };
    /// let a = c.assess("cat /app/README.md && git status", &here);
    /// assert_eq!((a.label.class, a.every_part_safe), (Class::Unknown, true));
    /// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
    /// ```
    pub fn assess<'x>(&'x self, command: &str, options: &Options<'x>) -> Analysis {
        let (detail, ctx) = (options.detail, options.context);
        if is_blank(command) {
            return Analysis {
                label: Label::unknown(if keep(detail).reasons {
                    "empty command"
                } else {
                    ""
                }),
                commands: Vec::new(),
                findings: Vec::new(),
                not_safe: vec!["empty command".into()],
                every_part_safe: false,
                look_clears: false,
                reach: None,
                first_command: None,
            };
        }
        // The thread's buffers, borrowed where they are (moving them in
        // and out cost every command a copy); a classification that is
        // already using them on this thread gets buffers of its own.
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.walk(command, options, &mut scratch, ctx),
            Err(_) => self.walk(command, options, &mut Scratch::default(), ctx),
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
        let mut memo = WordMemo::for_batch(commands.len());
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
                    let mut walk =
                        Walk::new(&self.tax, &self.matcher, keep(Detail::Terse), scratch, ctx);
                    walk.memo = Some(&mut memo);
                    walk.parsed(script, 0, None);
                    walk.label().0
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
        options: &Options<'x>,
        scratch: &mut Scratch,
        ctx: Context<'x>,
    ) -> Analysis {
        let mut walk = Walk::new(&self.tax, &self.matcher, keep(options.detail), scratch, ctx);
        if options.reach {
            walk.reach = Some(crate::reach::Reach::default());
        }
        walk.script(command, 0, None);
        walk.finish()
    }

    /// The ids of the entries that match a command wherever it appears, and
    /// of the specs that explain it: used by the taxonomy's own example
    /// tests and `explain`.
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

/// What a walk keeps for a level of detail.
fn keep(detail: Detail) -> Keep {
    Keep {
        explain: detail == Detail::Explain,
        reasons: !matches!(detail, Detail::Terse | Detail::Named),
        named: detail != Detail::Terse,
        by_parts: matches!(detail, Detail::Parts | Detail::Explain),
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How much an assessment keeps of what it saw: the less, the faster.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Detail {
    /// The label, with an unknown label's reason left empty (bulk output
    /// that shows no reason for unknown commands).
    Terse,
    /// [`Terse`](Detail::Terse)'s label, and the first command's name
    /// ([`Analysis::first_command`]): what a summary of unknown commands
    /// counts, without building reasons it does not show.
    Named,
    /// The label.
    #[default]
    Label,
    /// The label, and whether a compound command's every part is safe
    /// (which costs a spec check per part, so only the gate asks).
    Parts,
    /// Everything `explain` shows.
    Explain,
}

/// What [`Classifier::assess`] is asked: where the command runs and how
/// much to keep.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// Where the command runs.
    pub context: Context<'a>,
    /// How much to keep.
    pub detail: Detail,
    /// Note what the command would read ([`Analysis::reach`]), for a
    /// caller that will look before it allows; a read only a look can
    /// clear then sets [`Analysis::look_clears`].
    pub reach: bool,
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
