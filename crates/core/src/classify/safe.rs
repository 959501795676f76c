//! The safe judgement: a command is safe when its spec explains every word
//! of it, and a list or pipeline's every part is safe when each part is
//! safe on its own.

use std::borrow::Cow;

use super::analysis::Examined;
use super::walk::{moved_cwd_of, Walk};
use crate::normalize::{self, Invocation};
use crate::shell::Word;
use crate::spec::Spec;

/// The category of a call that only asks for help.
pub const HELP_CATEGORY: &str = "help";
/// The category of a call that only asks for a version.
pub const VERSION_CATEGORY: &str = "version";
/// Its reason.
const HELP_REASON: &str = "prints its help or version and exits";

/// The category of a help request by its last word: `--version`, `-V`,
/// `-v` and `version` ask for a version.
pub(super) fn help_category(word: Option<&str>) -> &'static str {
    match word {
        Some(w) if w.contains("version") || w == "-v" || w == "-V" => VERSION_CATEGORY,
        _ => HELP_CATEGORY,
    }
}

/// How `explain` names the spec that explained a command (with the help
/// request's category, for one).
pub(super) fn spec_id(spec: &crate::spec::Spec<'static>, help: Option<&str>) -> String {
    let name = spec.names.first().unwrap_or("");
    let category = help.unwrap_or(&spec.category);
    format!("{name} ({category}) {}:{}", spec.file, spec.line)
}

impl<'c> Walk<'c, '_> {
    /// Judges the command `inv` (written as `written`, `depth` levels
    /// deep) by its spec: a safe verdict for the one top-level command, or
    /// for the part of a list or pipeline being examined. `broken`: a
    /// taxonomy entry could not be matched, which rules safe out.
    /// `name_spec`: the spec of `inv`'s name, when it was looked up.
    pub(super) fn judge_safe(
        &mut self,
        inv: &Invocation<'_>,
        name_spec: Option<Option<&'c Spec<'static>>>,
        written: Option<&[Word]>,
        depth: usize,
        broken: bool,
        examined: &mut Option<Examined>,
    ) {
        let tax = self.tax;
        // A spec's safe verdict decides a label only for the one top-level
        // command of a command nothing has yet ruled out; `explain` shows it
        // always.
        let may_be_safe =
            self.invocations == 1 && depth == 0 && self.worst.is_none() && !self.refused && !broken;
        // The same for the part of a list or pipeline being examined.
        let part_top = self.parts.active && self.parts.invocations == 1 && depth == 0;
        let part_may_be_safe = part_top && self.worst.is_none() && !self.parts.refused && !broken;
        // Safe comes from the command's spec alone, read from the words as
        // written (wrappers included: a wrapper has a spec or is not safe).
        // Most commands have no spec at all: that is settled by one lookup,
        // with no reason built unless it is kept; the spec found is the one
        // the words are read against.
        let top = self.invocations == 1 && depth == 0;
        let wanted = self.keep.explain || may_be_safe || part_may_be_safe;
        // A command that cannot be safe, where no reason is kept and no
        // part is judged (a scan), needs no spec: what it would add (a
        // refusal, a reason) changes nothing then. (A sixth of the
        // commands of a scan.)
        let needed = wanted || self.keep.reasons || self.parts.active;
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
            // `HEAD` runs libwww-perl's HTTP client where names are
            // case-sensitive, not `head`: no spec explains a name the
            // system would not fold.
            // (Asked only of a name that has a spec, or for the reason.)
            let folded_away = || crate::shell::case_folded_away(&first.text);
            let spec = match name_spec {
                Some(found) if same_word => found,
                _ => tax.specs.get(&name),
            }
            .filter(|_| !folded_away());
            // A part's own reasons are shown by `explain`; the label of a
            // compound command keeps the one reason that it is compound.
            let part_reasons = top || (part_top && self.keep.explain);
            if spec.is_none() && part_top {
                self.parts.refused = true;
            }
            if spec.is_none() && part_reasons {
                self.refuse_safe_with(|| {
                    if folded_away() {
                        format!(
                            "`{}` is not `{name}` where command names are case-sensitive",
                            first.text
                        )
                    } else {
                        format!(
                            "`{}`: no spec says what `{name}` does with its arguments",
                            first.text
                        )
                    }
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
                // (Sorted, for the reader's bisection: a command of many
                // such words is read in n log n.)
                let mut globs: Vec<&str> = words
                    .iter()
                    .filter(|w| w.glob)
                    .map(|w| w.text.as_str())
                    .collect();
                globs.sort_unstable();
                globs.dedup();
                let mut variables: Vec<(&str, crate::shell::Variables)> = words
                    .iter()
                    .filter(|w| w.variables != crate::shell::Variables::None)
                    .map(|w| (w.text.as_str(), w.variables))
                    .collect();
                // An unquoted one first among words of the same text, and
                // kept: it is the one the shell may split.
                let quoted_last =
                    |v: &crate::shell::Variables| *v != crate::shell::Variables::Unquoted;
                variables.sort_unstable_by(|a, b| {
                    a.0.cmp(b.0).then(quoted_last(&a.1).cmp(&quoted_last(&b.1)))
                });
                variables.dedup_by(|later, first| later.0 == first.0);
                // (A word that is not a plain name, `./ls`, is refused by
                // the full check, with its reason.)
                // A caller that will look has every read noted, where the
                // part runs after a `cd` too.
                let notes = self.reach.as_ref().map(|_| {
                    let dir = if part_top {
                        self.parts.dir.clone()
                    } else {
                        None
                    };
                    crate::spec::ReachNotes::new(self.parts.index, dir)
                });
                let moved_cwd;
                let ctx = match (&self.parts.dir, part_top) {
                    (Some(dir), true) => {
                        moved_cwd = moved_cwd_of(self.ctx.cwd, dir);
                        crate::spec::Context {
                            cwd: Some(moved_cwd.as_str()),
                        }
                    }
                    _ => self.ctx,
                };
                let judge = |ctx: &crate::spec::Context<'_>,
                             notes: Option<&crate::spec::ReachNotes>| {
                    let reading = crate::spec::Reading {
                        globs: &globs,
                        variables: &variables,
                        notes,
                        unexplained: notes.is_none() && !self.keep.reasons,
                    };
                    if plain {
                        crate::spec::check_args(&tax.specs, spec, &name, &texts[1..], ctx, &reading)
                    } else {
                        crate::spec::check(&tax.specs, texts, ctx, &reading)
                    }
                };
                let mut verdict = judge(&ctx, notes.as_ref());
                // A `cd` can fail (`cd x || cat f`, `cd x; cat f`) or run in
                // a subshell of its own (`cd x | cat f`): a later part is
                // judged from where the call started as well.
                let unmoved = (part_top && self.parts.dir.is_some()).then(|| {
                    let notes = self
                        .reach
                        .as_ref()
                        .map(|_| crate::spec::ReachNotes::new(self.parts.index, None));
                    let v = judge(&self.ctx, notes.as_ref());
                    (v, notes)
                });
                let mut unmoved_notes = None;
                if let Some((v, n)) = unmoved {
                    verdict = verdict.and_then(|kept| v.map(|_| kept));
                    unmoved_notes = n;
                }
                if let (Some(extra), Some(notes)) = (unmoved_notes, notes.as_ref()) {
                    let extra = extra.reach.take();
                    let mut mine = notes.reach.borrow_mut();
                    for touch in extra.touches {
                        mine.add(touch);
                    }
                    for why in extra.needs_look {
                        mine.note_needs_look(why);
                    }
                }
                match verdict {
                    Ok(v) => {
                        let needs_look = notes.as_ref().is_some_and(|n| {
                            let mine = n.reach.take();
                            let needs = !mine.needs_look.is_empty();
                            if let Some(reach) = self.reach.as_mut() {
                                for touch in mine.touches {
                                    reach.add(touch);
                                }
                                for why in mine.needs_look {
                                    reach.note_needs_look(why);
                                }
                            }
                            needs
                        });
                        if top && needs_look {
                            self.safe_after_look = true;
                        }
                        if part_top && needs_look {
                            self.parts.look = true;
                        }
                        let category = v.help.then(|| help_category(texts.last().copied()));
                        if let Some(e) = examined.as_mut() {
                            e.safe.push(spec_id(v.spec, category));
                            e.service = v.spec.service.as_ref().map(|s| s.to_string());
                            e.helpers = v.spec.helpers.iter().map(|h| h.to_string()).collect();
                        }
                        if top {
                            self.safe_spec = Some(v);
                            self.help = category.map(|c| (c, HELP_REASON));
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
    }

    /// git reads the config of the repository it finds where it runs:
    /// after `cd` into a directory that could be a bare repository
    /// committed to the project, that config (a pager, an fsmonitor, a diff
    /// driver) can name programs. Wrapped or not (`nice git log`), a git
    /// part after such a move is not safe.
    pub(super) fn part_runs_git_after_cd(&mut self, spec: &crate::spec::Spec<'static>) {
        let git = spec
            .names
            .iter()
            .any(|n| n == "git" || n.starts_with("git "));
        if self.parts.moved && git {
            self.parts.refused = true;
            if self.keep.explain {
                self.refuse_safe(
                    "git after `cd` into a subdirectory: a bare repository there brings its own config, which can name programs",
                );
            }
        }
    }

    /// Notes a part that moves the shell somewhere other than the working
    /// directory (`cd src`), which later parts then run in.
    pub(super) fn part_moves(&mut self, name: &str, args: &[&str]) {
        if name == "cd"
            && !args
                .iter()
                .all(|a| crate::spec::paths::is_cwd(a, &self.ctx))
        {
            self.parts.moved = true;
        }
    }
}
