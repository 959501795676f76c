//! Reading a command's argv the way its real parser does, against its spec.
//!
//! GNU getopt_long's rules (the default): options and operands in any
//! order; `--` ends the options; a long option may be abbreviated to any
//! unique prefix (an exact name wins; a prefix of several is an error, so
//! it is not safe here either); `--name=value` or `--name value` for a
//! required value, only `--name=value` for an optional one; short options
//! bundle (`-abc`), and a short option that takes a value takes the rest of
//! its word (`-ofile`, `-vo file`). `posix` syntax stops at the first
//! operand; `single-dash` reads whole words (`-name`) and never bundles.

use std::fmt;

use smallvec::SmallVec;

use super::content;
use super::format::{Arity, Effect, Opt, Repeat, Role, Spec, Syntax, WordList, Words};
use super::paths::{self, Context};
use super::Specs;
use crate::shell::command_name;
use crate::shell::{Variables, Word};

/// The characters that make a word a glob.
const GLOB_CHARS: [char; 3] = ['*', '?', '['];

/// How many wrappers deep (`nice timeout 5 ls`) a safe command may be.
const MAX_DEPTH: usize = 8;

/// The most globs a `stray_words_fail` command may hold: each is left out
/// in turn, and the rest read again.
const MAX_VANISHING_GLOBS: usize = 3;

/// A command a spec explains whole.
#[derive(Clone, Copy, Debug)]
pub struct Verdict<'s> {
    /// The spec that explained it (the innermost, for a wrapped command).
    pub spec: &'s Spec<'static>,
    /// It asks only for help or a version.
    pub help: bool,
}

/// The word a spec could not explain, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The word (empty when the command as a whole is the reason).
    pub word: String,
    /// Why it rules out a safe verdict.
    pub why: String,
}

impl Refusal {
    fn new(word: &str, why: impl Into<String>) -> Refusal {
        Refusal {
            word: word.to_string(),
            why: why.into(),
        }
    }

    /// A refusal whose reason nobody asked for.
    fn unexplained() -> Refusal {
        Refusal {
            word: String::new(),
            why: String::new(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.word.is_empty() {
            f.write_str(&self.why)
        } else {
            write!(f, "`{}`: {}", self.word, self.why)
        }
    }
}

/// How a command's words are read: what the shell does to some of them,
/// and what the caller wants back. The default reads every word as
/// literal, keeps the reasons of a refusal and notes no reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reading<'c> {
    /// The words the shell expands as globs, by text, sorted and without
    /// repeats (a literal word with the same text is held to the same
    /// rules; see [`paths::check_glob`] for where one may stand).
    pub globs: &'c [&'c str],
    /// The words whose only expansions are of variables known to hold no
    /// secret, by text, sorted and without repeats (where one text stands
    /// both quoted and not, as [`Variables::Unquoted`]), with how they
    /// stand: data where the spec says the command prints a word as it is
    /// ([`Role::Printed`]), refused anywhere else.
    pub variables: &'c [(&'c str, Variables)],
    /// Where the reads are noted, for a caller that will look at them: a
    /// read only a look can clear (a search of the working directory, a
    /// system file, a sibling folder) is then noted with why instead of
    /// refused, and a verdict is safe by text only when the notes hold no
    /// such reason.
    pub notes: Option<&'c ReachNotes>,
    /// Nobody reads a refusal's reason (a scan): the verdict is the same,
    /// a refusal says nothing, and the commonest refusals allocate nothing.
    pub unexplained: bool,
}

/// Checks a simple command's words (command word first) against the
/// specs, read as `reading` says.
pub fn check<'s>(
    specs: &'s Specs,
    words: &[&str],
    ctx: &Context,
    reading: &Reading,
) -> Result<Verdict<'s>, Refusal> {
    Reader::new(specs, ctx, reading).command(words, 0)
}

/// [`check`] for a command whose plain name (`name`, from its command word)
/// the caller has already looked up: `spec` is its spec, `args` the words
/// after the command word.
pub fn check_args<'s>(
    specs: &'s Specs,
    spec: &'s Spec<'static>,
    name: &str,
    args: &[&str],
    ctx: &Context,
    reading: &Reading,
) -> Result<Verdict<'s>, Refusal> {
    Reader::new(specs, ctx, reading).spec(spec, name, args, 0)
}

/// Whether `name args…` only asks for help or a version, as its spec says
/// the command honours (`rm --help`, `git push -h`): such a call prints
/// text and exits, whatever the command would otherwise do.
pub fn help_form(specs: &Specs, name: &str, args: &[&str]) -> bool {
    let mut path = name.to_string();
    let mut args = args;
    let mut depth = 0;
    while let Some(spec) = specs.get(&path) {
        depth += 1;
        if depth > MAX_DEPTH {
            return false;
        }
        if let [only] = args {
            return spec.help.iter().chain(&spec.docs).any(|h| h == *only);
        }
        if !spec.subcommands || args.len() < 2 {
            return false;
        }
        let sub = sub_path(&path, args[0]);
        if specs.get(&sub).is_none() {
            return args.len() == 2
                && spec.help_subcommands.contains(args[0])
                && spec
                    .subcommand_help
                    .iter()
                    .chain(&spec.docs)
                    .any(|h| h == args[1]);
        }
        path = sub;
        args = &args[1..];
    }
    false
}

struct Reader<'s, 'c> {
    specs: &'s Specs,
    ctx: &'c Context<'c>,
    /// The words the shell expands as globs (see [`Reading::globs`]).
    globs: &'c [&'c str],
    /// The words that expand variables (see [`Reading::variables`]).
    variables: &'c [(&'c str, Variables)],
    /// Every option given so far, across subcommands (for `requires`).
    given: std::cell::RefCell<Given<'s>>,
    /// Refusals say why: false where nobody reads them (a scan), so the
    /// commonest ones (an unknown option, an option that writes) format
    /// and allocate nothing.
    reasons: bool,
    /// Where the reads are noted, when the caller will look at them; a
    /// read only a look can clear is then noted instead of refused.
    reach: Option<&'c ReachNotes>,
    /// The command being read takes its numbers as counts, sizes or
    /// durations that bound how long it runs or how much it prints
    /// ([`BOUNDED_NUMBERS`]).
    bounded: std::cell::Cell<bool>,
}

/// The reads a spec reader noted, for a caller that will look.
#[derive(Debug, Default)]
pub struct ReachNotes {
    /// The reads, and why text alone cannot clear some of them.
    pub reach: std::cell::RefCell<crate::reach::Reach>,
    /// The spec being read (`git show`), for what a revision prints.
    current: std::cell::RefCell<String>,
    /// Where the part being read runs, if a `cd` moved it.
    pub dir: Option<String>,
    /// Which part of a list or pipeline is being read.
    pub part: usize,
}

impl ReachNotes {
    /// Notes for the part `part` of a list or pipeline, which runs in
    /// `dir` when an earlier `cd` moved the shell.
    pub fn new(part: usize, dir: Option<String>) -> ReachNotes {
        ReachNotes {
            part,
            dir,
            ..ReachNotes::default()
        }
    }

    fn touch(&self, target: crate::reach::Target) {
        self.reach.borrow_mut().add(crate::reach::Touch {
            part: self.part,
            dir: self.dir.clone(),
            target,
        });
    }
}

/// The options given: most commands give a few, which are kept in place
/// (a command is read in a fresh [`Reader`], so a `Vec` alone would cost
/// an allocation for nearly every command that gives one).
#[derive(Default)]
struct Given<'s>(SmallVec<[WordList<'s>; 8]>);

impl<'s> Given<'s> {
    fn push(&mut self, opt: &Opt<'s>) {
        self.0.push(opt.names.clone());
    }

    /// Whether an option with the name `name` was given.
    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|names| names.contains(name))
    }
}

/// What the options read so far have said.
#[derive(Default)]
struct Seen<'w> {
    /// Operands, with whether they came after `--` (in place for a few).
    operands: SmallVec<[(&'w str, bool); 8]>,
    /// An option supplied the pattern (`grep -e`).
    pattern: bool,
    /// An option made the command read trees (`grep -r`).
    recursive: bool,
    /// An option made a wrapper a lookup (`command -v`).
    lookup: bool,
    /// Options have ended (`--`, or the first operand in posix syntax).
    ended: bool,
    /// `--` was seen.
    dashdash: bool,
    /// The command stops at a stray word before it acts (its spec's
    /// `stray_words_fail`).
    stray_words_fail: bool,
    /// A long help form of the spec stood where an option does.
    help: bool,
}

impl<'s, 'c> Reader<'s, 'c> {
    fn new(specs: &'s Specs, ctx: &'c Context<'c>, reading: &Reading<'c>) -> Reader<'s, 'c> {
        Reader {
            specs,
            ctx,
            globs: reading.globs,
            variables: reading.variables,
            given: std::cell::RefCell::new(Given::default()),
            reasons: !reading.unexplained,
            reach: reading.notes,
            bounded: std::cell::Cell::new(false),
        }
    }

    /// Checks a path the command reads: refused, cleared by its words, or
    /// (for a caller that will look) noted as a read only a look clears.
    fn read_path(&self, w: &str, tree: bool) -> Result<(), Refusal> {
        use crate::reach::Target;
        let Some(notes) = self.reach else {
            return paths::check(w, self.ctx, tree).map_err(|why| self.refusal(w, why));
        };
        let cleared = paths::check_reach(w, self.ctx, tree).map_err(|why| self.refusal(w, why))?;
        if let paths::Cleared::AfterLook(why) = cleared {
            notes
                .reach
                .borrow_mut()
                .note_needs_look(format!("`{w}`: {why}"));
        }
        let decodes = {
            let current = notes.current.borrow();
            let name = current.split(' ').next().unwrap_or("");
            DECODERS.contains(&name)
        };
        notes.touch(if decodes {
            Target::Decoded {
                path: w.to_string(),
            }
        } else if tree {
            Target::Tree {
                path: w.to_string(),
            }
        } else {
            Target::File {
                path: w.to_string(),
            }
        });
        Ok(())
    }

    /// A refusal of `word`, whose reason `why` is built only when it will
    /// be read.
    fn refuse(&self, word: &str, why: impl FnOnce() -> String) -> Refusal {
        if self.reasons {
            Refusal::new(word, why())
        } else {
            Refusal::unexplained()
        }
    }

    /// A refusal of `word` for a reason already at hand (see [`Reader::refuse`]).
    fn refusal(&self, word: &str, why: impl Into<String>) -> Refusal {
        if self.reasons {
            Refusal::new(word, why)
        } else {
            Refusal::unexplained()
        }
    }

    fn command(&self, words: &[&str], depth: usize) -> Result<Verdict<'s>, Refusal> {
        let Some((&first, args)) = words.split_first() else {
            return Err(self.refusal("", "no command"));
        };
        if depth > MAX_DEPTH {
            return Err(self.refusal(first, "wrappers nested too deep"));
        }
        if self.is_glob(first) {
            return Err(self.refusal(first, "a command name the shell expands as a glob"));
        }
        if self.variable(first).is_some() {
            return Err(self.refusal(first, "a command name the shell expands at run time"));
        }
        let word = Word::literal(first);
        let (name, plain) = command_name(&word);
        if !plain {
            return Err(self.refusal(first, "not a plain command name or a system path"));
        }
        if crate::shell::case_folded_away(first) {
            return Err(self.refusal(
                first,
                format!("not `{name}` where command names are case-sensitive"),
            ));
        }
        let Some(spec) = self.specs.get(&name) else {
            return Err(self.refusal(
                first,
                format!("no spec says what `{name}` does with its arguments"),
            ));
        };
        self.spec(spec, &name, args, depth)
    }

    fn spec(
        &self,
        spec: &'s Spec<'static>,
        path: &str,
        args: &[&str],
        depth: usize,
    ) -> Result<Verdict<'s>, Refusal> {
        if let [only] = args {
            if spec.help.contains(only) {
                return Ok(Verdict { spec, help: true });
            }
        }
        self.bounded
            .set(BOUNDED_NUMBERS.contains(&path.split(' ').next().unwrap_or("")));
        if let Some(notes) = self.reach {
            path.clone_into(&mut notes.current.borrow_mut());
        }
        if spec.help_only {
            if let [sub, only] = args {
                if spec.help_subcommands.contains(sub) && spec.subcommand_help.contains(only) {
                    return Ok(Verdict { spec, help: true });
                }
            }
            return Err(self.refuse(args.first().copied().unwrap_or(path), || {
                help_only_why(spec, path)
            }));
        }
        if spec.stray_words_fail {
            self.vanishing_globs(spec, path, args, depth)?;
        }
        let mut seen = Seen {
            stray_words_fail: spec.stray_words_fail,
            ..Seen::default()
        };
        let fixed = spec
            .operands
            .iter()
            .filter(|o| o.repeat == Repeat::One)
            .count();
        let mut i = 0;
        while i < args.len() {
            let w = args[i];
            let option = !seen.ended && w.len() > 1 && w.starts_with('-');
            if !option && !spec.operators.contains(w) || seen.ended {
                if spec.subcommands && seen.operands.is_empty() {
                    if self.is_glob(w) {
                        return Err(self.refusal(w, "a subcommand the shell expands as a glob"));
                    }
                    if self.variable(w).is_some() {
                        return Err(self.refusal(w, "a subcommand the shell expands at run time"));
                    }
                    if seen.dashdash {
                        return Err(self.refusal(w, "a subcommand after `--`"));
                    }
                    return self.subcommand(spec, path, w, &args[i + 1..], depth);
                }
                if spec.wraps && !seen.lookup && seen.operands.len() == fixed {
                    // The wrapper's own operands (`timeout 5 …`) are
                    // judged before the command it runs.
                    let own = spec.operands.iter().filter(|o| o.repeat == Repeat::One);
                    for (op, &(w, _)) in own.zip(&seen.operands) {
                        if !self.variable_word(op.role, w, false, false)? {
                            self.role(op.role, w, false)?;
                        }
                    }
                    return self.command(&args[i..], depth + 1);
                }
                seen.operands.push((w, seen.dashdash));
                if spec.syntax == Syntax::Posix {
                    seen.ended = true;
                }
                i += 1;
                continue;
            }
            if w == "--" && spec.syntax != Syntax::SingleDash {
                seen.ended = true;
                seen.dashdash = true;
                i += 1;
                continue;
            }
            if spec.operators.contains(w) {
                i += 1;
                continue;
            }
            // GNU getopt_long permutes options to the front, so a long
            // help form the spec declares (`--help`, `--version`) asks for
            // help wherever an option may stand (`sort -u data.txt
            // --help`). Before the first operand every parser reads it as
            // an option. (Short forms mean other things in other places:
            // `-h` is `--human-readable` to `sort`. And before a
            // subcommand a help word picks what runs: `git --help log` is
            // `git help log`, which starts man.)
            if w.starts_with("--")
                && spec.syntax != Syntax::SingleDash
                && !spec.subcommands
                && spec.help.contains(w)
            {
                seen.help = true;
                i += 1;
                continue;
            }
            if spec.numeric_option && w[1..].bytes().all(|b| b.is_ascii_digit()) {
                i += 1;
                continue;
            }
            i = self.option(spec, path, args, i, &mut seen)?;
        }
        if spec.requires_subcommand {
            return Err(self.refusal(
                path,
                "names no subcommand, and alone it does something else",
            ));
        }
        self.operands(spec, path, &seen)?;
        if !seen.operands.is_empty() && !spec.operands_require.is_empty() {
            let given = self.given.borrow();
            if !spec.operands_require.iter().any(|r| given.has(r)) {
                let names: Vec<&str> = spec.operands_require.iter().collect();
                return Err(self.refusal(
                    seen.operands.first().map_or(path, |o| o.0),
                    format!(
                        "an operand means something else without {}",
                        names.join(" or ")
                    ),
                ));
            }
        }
        // `git show`, `git log -p` with no revision print HEAD's changes
        // and history.
        if let Some(notes) = self.reach {
            let printed = |t: &crate::reach::Touch| {
                matches!(t.target, crate::reach::Target::GitObject { .. })
            };
            // (`git diff` and `git status -v` print the index's changes,
            // `git grep` searches the tracked files: noted as HEAD's.)
            let implicit_head = path.starts_with("git ") && path != "git cat-file";
            // (`git grep` with no revision searches the work tree's files,
            // which its pathspecs, or the whole tree, name for the look;
            // with `--cached`, the index.)
            let work_tree_grep = path == "git grep" && !self.given.borrow().has("--cached");
            if self.prints_revisions(path) {
                if let Some(walk) = self.walks_beyond(path) {
                    self.prints_revision(walk, None);
                }
            }
            if implicit_head
                && !work_tree_grep
                && self.prints_revisions(path)
                && !notes.reach.borrow().touches.iter().any(printed)
            {
                // `git stash show` with no stash shows the latest one.
                let rev = if path == "git stash show" {
                    "stash"
                } else {
                    "HEAD"
                };
                self.prints_revision(rev, None);
            }
            // `git grep` in the work tree with no pathspec searches every
            // tracked file.
            let reads_files = |t: &crate::reach::Touch| {
                !matches!(t.target, crate::reach::Target::GitObject { .. })
            };
            if work_tree_grep && !notes.reach.borrow().touches.iter().any(reads_files) {
                notes.touch(crate::reach::Target::Tree { path: ".".into() });
            }
        }
        if !spec.requires.is_empty() {
            let given = self.given.borrow();
            if !spec.requires.iter().any(|r| given.has(r)) {
                let names: Vec<&str> = spec.requires.iter().collect();
                return Err(self.refusal(path, format!("is safe only with {}", names.join(" or "))));
            }
        }
        Ok(Verdict {
            spec,
            help: seen.help,
        })
    }

    /// A command that takes a glob as a pattern (`stray_words_fail`) must
    /// be safe too when the shell drops a glob that matches nothing
    /// (`shopt -s nullglob`): the words after it shift into other places
    /// (`-name *.py -name -files0-from` is then `-name -name
    /// -files0-from`, which reads the starting points from a file). Each
    /// glob is left out in turn, and the rest read again (which leaves out
    /// the others in turn).
    fn vanishing_globs(
        &self,
        spec: &'s Spec<'static>,
        path: &str,
        args: &[&str],
        depth: usize,
    ) -> Result<(), Refusal> {
        if self.globs.is_empty() {
            return Ok(());
        }
        let globs = args.iter().filter(|w| self.is_glob(w)).count();
        if globs > MAX_VANISHING_GLOBS {
            return Err(self.refusal(path, "too many globs to read with each left out"));
        }
        for (k, &glob) in args.iter().enumerate().filter(|(_, w)| self.is_glob(w)) {
            // The last word, and the value of the option before it: left
            // out, that option misses its value, and the command stops.
            let last_value = k + 1 == args.len()
                && k > 0
                && exact(spec, args[k - 1]).is_some_and(|o| o.arity == Arity::Required);
            if last_value {
                continue;
            }
            let without: SmallVec<[&str; 16]> = args
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .map(|(_, &w)| w)
                .collect();
            if let Err(why) = self.spec(spec, path, &without, depth) {
                return Err(self.refuse(glob, || {
                    format!("when it matches nothing, the shell may drop it (nullglob), and without it: {why}")
                }));
            }
        }
        Ok(())
    }

    fn subcommand(
        &self,
        spec: &'s Spec<'static>,
        path: &str,
        word: &str,
        rest: &[&str],
        depth: usize,
    ) -> Result<Verdict<'s>, Refusal> {
        let sub = sub_path(path, word);
        if let Some(s) = self.specs.get(&sub) {
            return self.spec(s, &sub, rest, depth);
        }
        if let [only] = rest {
            // (The help forms first: a short list, where git's subcommands
            // are a hundred.)
            if spec.subcommand_help.contains(only) && spec.help_subcommands.contains(word) {
                return Ok(Verdict { spec, help: true });
            }
        }
        Err(self.refuse(word, || {
            format!("`{sub}` has no spec, so what it does is not known")
        }))
    }

    /// Reads the option at `args[i]`; returns the index after it and its
    /// value.
    fn option(
        &self,
        spec: &'s Spec<'static>,
        path: &str,
        args: &[&str],
        i: usize,
        seen: &mut Seen,
    ) -> Result<usize, Refusal> {
        let w = args[i];
        let unknown = || self.refuse(w, || format!("not an option `{path}` is known to take"));
        if spec.syntax == Syntax::SingleDash {
            if let Some(opt) = exact(spec, w) {
                return self.take(&opt, w, w, None, args, i, seen);
            }
            if let Some((name, value)) = w.split_once('=') {
                if let Some(opt) = exact(spec, name) {
                    return self.take(&opt, w, name, Some(value), args, i, seen);
                }
            }
            return Err(unknown());
        }
        if w.starts_with("--") {
            let (name, value) = match w.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (w, None),
            };
            return match long(spec, name) {
                Long::Found(opt, resolved) => self.take(&opt, w, resolved, value, args, i, seen),
                Long::Ambiguous(names) => Err(self.refusal(
                    w,
                    format!(
                        "an ambiguous abbreviation (of {}), which the real parser refuses",
                        names.join(", ")
                    ),
                )),
                Long::None if spec.parameters && is_parameter(name) => {
                    let (value, next) = match value {
                        Some(v) => (v, i + 1),
                        None => match args.get(i + 1) {
                            Some(v) if !v.starts_with("--") => (*v, i + 2),
                            _ => ("", i + 1),
                        },
                    };
                    parameter_value(w, value)?;
                    Ok(next)
                }
                Long::None => Err(unknown()),
            };
        }
        // A bundle of short options; one that takes a value ends it.
        let body = &w[1..];
        for (j, c) in body.char_indices() {
            let Some((opt, short)) = exact_short(spec, c) else {
                return Err(if body.len() == c.len_utf8() {
                    unknown()
                } else {
                    self.refuse(w, || {
                        format!("`-{c}` is not an option `{path}` is known to take")
                    })
                });
            };
            let rest = &body[j + c.len_utf8()..];
            match opt.arity {
                Arity::None => {
                    self.effect(&opt, w, short)?;
                    note(&opt, seen);
                    self.given_all(&opt);
                }
                Arity::Required | Arity::Pair if !rest.is_empty() => {
                    return self.take(&opt, w, short, Some(rest), args, i, seen);
                }
                Arity::Optional if !rest.is_empty() => {
                    return self.take(&opt, w, short, Some(rest), args, i, seen);
                }
                _ => return self.take(&opt, w, short, None, args, i, seen),
            }
        }
        Ok(i + 1)
    }

    /// Takes an option found as `resolved`, written in `word`, with its
    /// attached value if any.
    #[allow(clippy::too_many_arguments)]
    fn take(
        &self,
        opt: &Opt<'s>,
        word: &str,
        resolved: &str,
        attached: Option<&str>,
        args: &[&str],
        i: usize,
        seen: &mut Seen,
    ) -> Result<usize, Refusal> {
        self.effect(opt, word, resolved)?;
        if self.variable(word).is_some() {
            // `--name="$VAR"`: a value that is printed as it is, and no
            // expansion in the option's name. (The value is judged here:
            // the words are known by their whole text.)
            let attached_long = long_with_plain_name(word, &['$']);
            if !(attached_long && attached.is_some() && opt.role == Role::Printed) {
                return Err(self.refusal(
                    word,
                    "an option the shell expands at run time, perhaps into another",
                ));
            }
        }
        if self.is_glob(word) {
            // `--include=*.py` expands, if at all, to words that all start
            // `--include=`: the same option with other data. Anywhere
            // else a glob could turn into other options.
            let data = matches!(opt.role, Role::Text | Role::Printed | Role::Pattern);
            let attached_long = long_with_plain_name(word, &GLOB_CHARS);
            if !(data && attached_long && attached.is_some()) {
                return Err(self.refusal(
                    word,
                    "a glob in an option, which the shell could expand into other options",
                ));
            }
        }
        note(opt, seen);
        self.given_all(opt);
        match opt.arity {
            Arity::None => match attached {
                Some(_) => Err(self.refusal(word, format!("{resolved} takes no value"))),
                None => Ok(i + 1),
            },
            Arity::Optional => {
                if let Some(v) = attached {
                    self.value(opt.role, v, seen.stray_words_fail)?;
                }
                Ok(i + 1)
            }
            Arity::Required => {
                let (value, next) = match attached {
                    Some(v) => (v, i + 1),
                    None => match args.get(i + 1) {
                        Some(v) => (*v, i + 2),
                        None => return Err(self.refusal(word, format!("{resolved} needs a value"))),
                    },
                };
                self.value(opt.role, value, seen.stray_words_fail)?;
                Ok(next)
            }
            Arity::Pair => {
                if attached.is_some() {
                    return Err(self.refusal(word, format!("{resolved} takes two separate words")));
                }
                match args.get(i + 2) {
                    Some(v) => {
                        self.value(opt.role, v, seen.stray_words_fail)?;
                        Ok(i + 3)
                    }
                    None => Err(self.refusal(word, format!("{resolved} needs a name and a value"))),
                }
            }
        }
    }

    /// An option's value: its role's check, and for data a check that it
    /// names no secret file, in case the tool opens what its spec calls
    /// text (`grep --include=.env` makes grep read every `.env` below).
    fn value(&self, role: Role, w: &str, stray_words_fail: bool) -> Result<(), Refusal> {
        // (An option's value is never read as an option.)
        if self.variable_word(role, w, false, true)? {
            return Ok(());
        }
        if self.is_glob(w) {
            if stray_words_fail && role == Role::Pattern && expands_past_nothing(w) {
                return Ok(());
            }
            return Err(self.refusal(
                w,
                "an option's value the shell expands as a glob, perhaps into several words",
            ));
        }
        if matches!(role, Role::Text | Role::Printed) {
            if let Some(class) = paths::secret_file_class_of_path(w) {
                return Err(self.refusal(w, format!("names a secret ({class})")));
            }
            // `-o jsonpath-file=PATH`, `templatefile=PATH`: a format that
            // reads a file names it after `file=`.
            if let Some(at) = content::has(w, "file=").then(|| w.find("file=")).flatten() {
                let path = &w[at + "file=".len()..];
                return paths::check(path, self.ctx, false)
                    .map_err(|why| self.refusal(w, format!("reads a file: {why}")));
            }
        }
        self.role(role, w, false)
    }

    /// Notes that `opt` was given (by every name it has).
    fn given_all(&self, opt: &Opt<'s>) {
        self.given.borrow_mut().push(opt);
    }

    fn effect(&self, opt: &Opt<'_>, word: &str, resolved: &str) -> Result<(), Refusal> {
        if opt.effect == Effect::Harmless {
            return Ok(());
        }
        if !self.reasons {
            return Err(Refusal::unexplained());
        }
        let what = if opt.note.is_empty() {
            opt.effect.describe().to_string()
        } else {
            format!("{} ({})", opt.effect.describe(), opt.note)
        };
        let written = word.split('=').next().unwrap_or(word);
        let why = if written != resolved && written.starts_with("--") {
            format!("abbreviation of {resolved}, which {what}")
        } else if written != resolved {
            format!("{resolved} {what}")
        } else {
            what
        };
        Err(self.refusal(word, why))
    }

    /// Matches the operands against the spec's grammar and checks each.
    fn operands(&self, spec: &Spec<'static>, path: &str, seen: &Seen) -> Result<(), Refusal> {
        let tree = spec.recursive || seen.recursive;
        let mut r = 0;
        let mut pattern_skipped = !seen.pattern;
        let mut files = 0;
        if seen.operands.is_empty() && spec.operands.iter().any(|o| o.role == Role::Workdir) {
            return Err(self.refusal(
                path,
                "with no directory named it moves to the home directory, outside the working directory",
            ));
        }
        for (k, &(w, after)) in seen.operands.iter().enumerate() {
            if let (true, Some(role)) = (after, spec.after_dashdash) {
                if !self.variable_word(role, w, false, true)? {
                    self.role(role, w, tree)?;
                }
                continue;
            }
            if spec.plus_number && w.starts_with('+') {
                // `tail +5` counts; `tail +5f` is the obsolete form of
                // `-f`, which follows the file for ever.
                if counting(w) {
                    continue;
                }
                return Err(self.refusal(w, "an obsolete `+` option, not a plain count"));
            }
            if seen.lookup {
                self.role(Role::CommandName, w, false)?;
                continue;
            }
            if !spec.secret_operands.is_empty() {
                let lower = w.to_ascii_lowercase();
                if let Some(secret) = lower
                    .split([',', '/', '.'])
                    .find(|part| spec.secret_operands.contains(part))
                {
                    return Err(self.refusal(w, format!("`{secret}` objects hold credentials")));
                }
            }
            let op = loop {
                let Some(op) = spec.operands.get(r) else {
                    return Err(
                        self.refusal(w, format!("an operand `{path}` is not known to take"))
                    );
                };
                if !pattern_skipped
                    && matches!(op.role, Role::Pattern | Role::SedScript | Role::JqFilter)
                {
                    pattern_skipped = true;
                    r += 1;
                    continue;
                }
                break op;
            };
            if matches!(
                op.role,
                Role::File | Role::LocalFile | Role::Dir | Role::Meta
            ) {
                files += 1;
            }
            if self.is_glob(w) {
                // Files it reads, any number of them, named by a glob that
                // cannot expand to an option or a secret.
                let files = matches!(
                    op.role,
                    Role::File | Role::LocalFile | Role::Dir | Role::Meta
                ) && op.repeat == Repeat::Many;
                if !files {
                    return Err(self.refusal(
                        w,
                        "a glob where the command takes a fixed number of words, which it could expand past",
                    ));
                }
                if tree {
                    return Err(self.refusal(
                        w,
                        "a glob the command searches below, whose matches could be directories holding secrets",
                    ));
                }
                if !after && w.starts_with(GLOB_CHARS) {
                    return Err(self.refusal(
                        w,
                        format!("a glob that could expand to a file named like an option (write `./{w}`, or put it after `--`)"),
                    ));
                }
                if op.role == Role::LocalFile && w.starts_with(GLOB_CHARS) {
                    // After `--` too: binutils read an `@FILE` anywhere.
                    return Err(self.refusal(
                        w,
                        format!("a glob that could expand to an `@FILE` the tool reads as arguments (write `./{w}`)"),
                    ));
                }
                paths::check_glob(w, self.ctx).map_err(|why| self.refusal(w, why))?;
                if let Some(notes) = self.reach {
                    notes.touch(crate::reach::Target::Glob {
                        pattern: w.to_string(),
                    });
                }
                if op.repeat != Repeat::Many {
                    r += 1;
                }
                continue;
            }
            // A variable's value could begin with `-`: only where options
            // have ended (after `--`, after the first operand of a parser
            // that stops there), or where every option the command has only
            // changes how it prints, may it stand first in the word.
            let splits = op.repeat == Repeat::Many && r + 1 == spec.operands.len();
            // (Asked only of a variable's word: building every option to
            // ask it of every operand was a tenth of a scan's spec reading.)
            let leads = self.variable(w).is_some()
                && (after
                    || (spec.syntax == Syntax::Posix && k > 0)
                    || spec.options.iter().all(|o| o.effect == Effect::Harmless));
            if !self.variable_word(op.role, w, splits, leads)? {
                self.role(op.role, w, tree)?;
            }
            if op.repeat != Repeat::Many {
                r += 1;
            }
        }
        if tree
            && files == 0
            && spec.operands.iter().any(|o| {
                matches!(
                    o.role,
                    Role::File | Role::LocalFile | Role::Dir | Role::Meta
                )
            })
        {
            const WHOLE: &str = "with no file named it searches the whole working directory, where secrets such as `.env` live";
            let Some(notes) = self.reach else {
                return Err(self.refusal("", WHOLE));
            };
            notes
                .reach
                .borrow_mut()
                .note_needs_look(format!("`{path}` {WHOLE}"));
            notes.touch(crate::reach::Target::Tree { path: ".".into() });
        }
        // A `local-file` the grammar requires and the line does not give:
        // the tool reads standard input instead (`tac` copies a pipe to a
        // temporary file), or does something else.
        // (Words after `--` with a role of their own fill no position: a
        // file given there counts.)
        let after_dashdash = spec.after_dashdash.is_some() && seen.operands.iter().any(|o| o.1);
        let missing = spec.operands[r.min(spec.operands.len())..]
            .iter()
            .find(|o| matches!(o.role, Role::LocalFile | Role::EnvName) && o.repeat == Repeat::One);
        match missing.map(|o| o.role) {
            Some(Role::LocalFile) if !after_dashdash => {
                return Err(self.refusal(
                    path,
                    "names no file, and without one it reads standard input",
                ));
            }
            // `printenv` alone prints every variable.
            Some(Role::EnvName) => {
                return Err(self.refusal(
                    path,
                    "names no variable, and without one it prints them all",
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the shell expands `w` as a glob.
    fn is_glob(&self, w: &str) -> bool {
        !self.globs.is_empty() && self.globs.binary_search(&w).is_ok()
    }

    /// How `w` expands variables, if it is one of [`Reading::variables`].
    fn variable(&self, w: &str) -> Option<Variables> {
        if self.variables.is_empty() {
            return None;
        }
        self.variables
            .binary_search_by(|(text, _)| (*text).cmp(w))
            .ok()
            .map(|at| self.variables[at].1)
    }

    /// Judges `w` where `role` stands, if it expands variables: `Ok(true)`
    /// when it does and may stand there, `Ok(false)` when it expands none.
    /// Its value, unseen, may only be printed. `splits`: the shell may split
    /// it into several words, or drop it, there (a trailing `printed...`).
    /// `leads`: a value that begins with `-` may stand first there.
    fn variable_word(
        &self,
        role: Role,
        w: &str,
        splits: bool,
        leads: bool,
    ) -> Result<bool, Refusal> {
        let Some(how) = self.variable(w) else {
            return Ok(false);
        };
        if role != Role::Printed {
            return Err(self.refusal(
                w,
                "a word the shell expands at run time, where the command does more than print it",
            ));
        }
        if how == Variables::Unquoted && !splits {
            return Err(self.refusal(
                w,
                "an unquoted variable, which the shell splits into words or drops, where the command takes one word",
            ));
        }
        if w.starts_with('$') && !leads {
            return Err(self.refusal(
                w,
                "a variable whose value could begin with `-` and be read as an option",
            ));
        }
        Ok(true)
    }

    fn role(&self, role: Role, w: &str, tree: bool) -> Result<(), Refusal> {
        let refuse = |why: String| Err(self.refusal(w, why));
        if self.is_glob(w) {
            return refuse("a glob where the command takes one word of its own".into());
        }
        if self.variable(w).is_some() {
            return refuse(
                "a word the shell expands at run time, where the command does more than print it"
                    .into(),
            );
        }
        match role {
            // Data; but a word that names a secret file is refused even
            // here, in case the real tool reads what its spec calls text.
            Role::Number if !number(w) => refuse("not a number".into()),
            Role::PlusFormat if !w.starts_with('+') => {
                refuse("not a `+FORMAT`, so it means something else".into())
            }
            Role::Key if w.contains('=') => {
                refuse("a `NAME=VALUE`, which sets what it names".into())
            }
            Role::Key if w.starts_with('-') => refuse("not a name".into()),
            Role::Key if path_like(w) => {
                refuse("a name with an empty part, which a tool that makes a path of it could climb out through".into())
            }
            Role::Key if w.split(['.', '/']).any(|part| paths::secret_class(&[part]).is_some()) => {
                let class = w
                    .split(['.', '/'])
                    .find_map(|part| paths::secret_class(&[part]))
                    .unwrap_or("a secret");
                refuse(format!("names a secret ({class})"))
            }
            Role::EnvName if !crate::secrets::variables::holds_no_secret(w) => {
                refuse("not a variable known to hold no secret: any other may hold a token".into())
            }
            Role::Number if self.bounded.get() && !number_within_bound(w) => refuse(format!(
                "a number beyond {MAX_NUMBER}, the bound for a safe count, size or duration"
            )),
            Role::Text | Role::Printed | Role::PlusFormat if w.contains('%') => {
                content::format_width(w).or_else(refuse)
            }
            Role::Text
            | Role::Printed
            | Role::Key
            | Role::EnvName
            | Role::Number
            | Role::Subcommand
            | Role::PlusFormat => Ok(()),
            Role::Pattern => match content::hunts_credentials(w) {
                Some(why) => refuse(why),
                None => Ok(()),
            },
            Role::File | Role::Dir => self.read_path(w, tree),
            Role::Meta => paths::check_metadata(w, self.ctx).or_else(refuse),
            Role::LocalFile => match w.as_bytes().first() {
                Some(b'-') => refuse("a file named like an option, or standard input".into()),
                _ if w == "/dev/stdin" => refuse("standard input, which is no file to read".into()),
                Some(b'@') => refuse("an `@FILE`, whose words the tool reads as arguments".into()),
                _ if w.contains(':') => {
                    refuse("a `HOST:FILE`, which the tool reads remotely".into())
                }
                _ if w.contains(['*', '?', '[']) => {
                    refuse("a wildcard, which the tool may match against files itself".into())
                }
                _ => self.read_path(w, tree),
            },
            Role::Pathspec => self.pathspec(w, tree),
            Role::Rev => self.rev(w),
            Role::RevOrPath => {
                // A word git may read as a revision (`git diff HEAD~2`,
                // `git blame HEAD~2 f`) prints that revision's contents
                // where the command prints revisions.
                if let Some(notes) = self.reach {
                    let prints = self.prints_revisions(&notes.current.borrow());
                    if prints && !w.contains(':') && !w.starts_with('-') {
                        self.prints_revision(w, None);
                    }
                }
                if w.contains(':') {
                    self.rev(w)
                } else if w.starts_with('-') {
                    refuse("not a revision or a path".into())
                } else {
                    self.pathspec(w, false)
                }
            }
            Role::CommandName => {
                let ok = !w.starts_with('-')
                    && w.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-')
                    });
                // (On Windows `type NAME` prints a file: no secret's name.)
                if !ok {
                    refuse("not a command name".into())
                } else if let Some(class) = paths::secret_class(&[w]) {
                    refuse(format!("names a secret ({class})"))
                } else {
                    Ok(())
                }
            }
            Role::SedScript => content::sed_script(w).or_else(refuse),
            Role::GitFormat => content::git_format(w).or_else(refuse),
            Role::JqFilter => content::jq_filter(w).or_else(refuse),
            Role::Workdir => paths::check_workdir(w, self.ctx).or_else(refuse),
        }
    }

    fn pathspec(&self, w: &str, tree: bool) -> Result<(), Refusal> {
        if w.bytes().any(|b| matches!(b, b'*' | b'?' | b'[')) {
            // `pkg/*.go`: a wildcard only in the last part, which ends in a
            // source file's suffix, matches source files only.
            let (dir, last) = w.rsplit_once('/').unwrap_or(("", w));
            let wild = |t: &str| t.bytes().any(|b| matches!(b, b'*' | b'?' | b'['));
            let source = last
                .rfind('.')
                .map(|at| &last[at..])
                .is_some_and(|x| !wild(x) && paths::is_source_suffix(x));
            if wild(dir) || !source {
                return Err(
                    self.refusal(w, "a pathspec with a wildcard, which could match a secret")
                );
            }
            if !dir.is_empty() {
                paths::check(dir, self.ctx, tree).map_err(|why| self.refusal(w, why))?;
            }
            if let Some(notes) = self.reach {
                notes.touch(crate::reach::Target::Glob {
                    pattern: w.to_string(),
                });
            }
            return Ok(());
        }
        if w.starts_with(':') {
            return Err(self.refusal(w, "pathspec magic, which could match a secret"));
        }
        self.read_path(w, tree)
    }

    /// A revision, or `REV:path` whose path is checked as a file.
    fn rev(&self, w: &str) -> Result<(), Refusal> {
        if w.starts_with('-') {
            return Err(self.refusal(w, "not a revision"));
        }
        if w.starts_with(":/") || w.starts_with(":!") {
            return Err(self.refusal(w, "a revision found by searching, which is not known ahead"));
        }
        // Not a revision, git falls back to reading the word as a
        // pathspec, magic included (`git log -p ':(glob).e*'` prints the
        // history of `.env`).
        if w.starts_with(":(") || w.starts_with(":^") {
            return Err(self.refusal(w, "pathspec magic, which could match a secret"));
        }
        // git splits `REV:path` at the first colon outside a `^{…}` or
        // `@{…}` suffix (`HEAD^{/fix: typo}:.env` prints `.env`), and `:0:`
        // names a stage of the index.
        let Some((rev, path)) = crate::reach::split_rev_path(w) else {
            self.prints_revision(w, None);
            return Ok(());
        };
        if path.is_empty() {
            self.prints_revision(rev, None);
            return Ok(());
        }
        paths::check(path, self.ctx, false)
            .map_err(|why| self.refusal(w, format!("its path {why}")))?;
        self.prints_revision(rev, Some(path));
        Ok(())
    }

    /// Whether the git command `path` (`git log`) prints what its
    /// revisions hold, as its options stand: file contents or changes.
    fn prints_revisions(&self, path: &str) -> bool {
        let given = self.given.borrow();
        let patch = [
            "-p",
            "-u",
            "--patch",
            "-U",
            "--patch-with-stat",
            "--patch-with-raw",
            "--cc",
            "-c",
            "--dd",
            "--binary",
            "-v",
            "--verbose",
        ]
        .iter()
        .any(|o| given.has(o));
        // `--stat`, `--name-only` and the like print names and counts
        // instead of the changes (unless a patch option asks for both).
        let summary_only = [
            "--stat",
            "--name-only",
            "--name-status",
            "--numstat",
            "--shortstat",
            "--summary",
            "--no-patch",
            "-s",
            "--quiet",
        ]
        .iter()
        .any(|o| given.has(o));
        if summary_only && !patch {
            return false;
        }
        matches!(
            path,
            "git show"
                | "git diff"
                | "git difftool"
                | "git diff-files"
                | "git diff-index"
                | "git diff-tree"
                | "git grep"
                | "git cat-file"
                | "git blame"
                | "git annotate"
        ) || (matches!(
            path,
            "git log"
                | "git stash show"
                | "git stash list"
                | "git whatchanged"
                | "git reflog"
                | "git reflog show"
                | "git status"
                | "git commit"
        ) && patch)
    }

    /// Notes a git object the command prints, for a caller that will look:
    /// a blob (`REV:path`) always; for a bare revision, what its commits
    /// change, where the command prints that (`git show`, `git diff`, `git
    /// log -p`, `git stash show -p`).
    fn prints_revision(&self, rev: &str, path: Option<&str>) {
        let Some(notes) = self.reach else {
            return;
        };
        let current = notes.current.borrow();
        let printed = path.is_some() || self.prints_revisions(&current);
        if printed {
            let shows = shows(&current);
            drop(current);
            notes.touch(crate::reach::Target::GitObject {
                rev: rev.to_string(),
                path: path.map(str::to_string),
                shows,
            });
        }
    }

    /// The revision option (`--all`, `--reflog`) that makes the command
    /// `path` walk commits its operands do not name, if one is given: a
    /// look that read only the named revisions would miss what they add.
    fn walks_beyond(&self, path: &str) -> Option<&'static str> {
        if !matches!(
            shows(path),
            crate::reach::Shows::History | crate::reach::Shows::Object
        ) {
            return None;
        }
        // `git reflog` and `git stash list` walk a reflog, whose entries
        // need not be one another's ancestors.
        if path.starts_with("git reflog") || path == "git stash list" {
            return Some("--walk-reflogs");
        }
        let given = self.given.borrow();
        // Each of these walks from refs the look can list: every ref
        // stands in for them all (more than the command prints, never
        // less).
        let refs = [
            "--all",
            "--branches",
            "--tags",
            "--remotes",
            "--glob",
            "--bisect",
        ];
        // These walk what no ref names (the reflogs, the index's objects,
        // alternates' refs, MERGE_HEAD, a default): each stands for
        // itself, which the look does not resolve.
        let other = [
            "--reflog",
            "-g",
            "--walk-reflogs",
            "--indexed-objects",
            "--alternate-refs",
            "--merge",
            "--default",
        ];
        if let Some(o) = other.iter().find(|o| given.has(o)) {
            return Some(o);
        }
        refs.iter().any(|o| given.has(o)).then_some("--all")
    }
}

/// What the git command `path` prints of a revision it names.
fn shows(path: &str) -> crate::reach::Shows {
    use crate::reach::Shows;
    match path {
        "git log" | "git whatchanged" | "git diff-tree" | "git reflog" | "git reflog show"
        | "git stash list" => Shows::History,
        "git diff" | "git difftool" | "git diff-files" | "git diff-index" | "git status"
        | "git commit" => Shows::Diff,
        "git grep" | "git blame" | "git annotate" => Shows::Files,
        _ => Shows::Object,
    }
}

/// Whether a key has an empty part between its separators (`.`, `/` or
/// `:`), or starts with one. sysctl reads `/proc/sys/` and the key with
/// dots and slashes swapped, and older releases follow `..` out of it
/// (`sysctl -n /../../etc/shadow`, or `.//.//.etc.shadow` spelled with
/// dots); zdump drops a leading `:` and opens the rest as a path
/// (`zdump :/etc/shadow`): every such climb or root needs a separator
/// first or two in a row.
fn path_like(key: &str) -> bool {
    let sep = |b: u8| matches!(b, b'.' | b'/' | b':');
    let b = key.as_bytes();
    b.first().is_some_and(|&c| sep(c)) || b.windows(2).any(|p| sep(p[0]) && sep(p[1]))
}

/// Whether every word a glob can expand to ends in a literal `.EXT` of
/// its own, with no `/` anywhere: the form `*.py`, `test_*.tar.gz` (see
/// `stray_words_fail`). Such a word is a file name, never an option
/// (none holds a `.`) or an operator of a command that reads its whole
/// line before it acts.
fn expands_past_nothing(glob: &str) -> bool {
    if glob.contains('/') {
        return false;
    }
    let Some(last_wild) = glob.rfind(GLOB_CHARS) else {
        return false;
    };
    let tail = &glob[last_wild + 1..];
    // A bracket expression ends at its `]`, which the tail must follow.
    !tail.contains(']') && tail.len() >= 2 && tail.starts_with('.')
}

/// The path of subcommand `word` of `path` (`git log`): what
/// `format!("{path} {word}")` writes, without the formatting machinery.
/// Whether `word` is `--name=VALUE` with none of `expanding` in the name:
/// what the shell expands there stays in the option's value.
fn long_with_plain_name(word: &str, expanding: &[char]) -> bool {
    word.starts_with("--")
        && word
            .split_once('=')
            .is_some_and(|(name, _)| !name.contains(expanding))
}

fn sub_path(path: &str, word: &str) -> String {
    let mut sub = String::with_capacity(path.len() + 1 + word.len());
    sub.push_str(path);
    sub.push(' ');
    sub.push_str(word);
    sub
}

/// Why a help-only command with other words is refused: "only `del
/// --help` alone is known to be safe", each help form after the path.
fn help_only_why(spec: &Spec<'static>, path: &str) -> String {
    let mut why = format!("only `{path} ");
    for (k, form) in spec.help.iter().enumerate() {
        if k > 0 {
            why.push_str("` or `");
            why.push_str(path);
            why.push(' ');
        }
        // The first form of this message put the path in with a
        // `replace("{path}", …)`, which reached into the forms too.
        if form.contains("{path}") {
            why.push_str(&form.replace("{path}", path));
        } else {
            why.push_str(form);
        }
    }
    why.push_str("` alone is known to be safe");
    why
}

/// `--instance-ids`: a parameter name of an API call.
fn is_parameter(name: &str) -> bool {
    let body = &name[2..];
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A parameter's value is data, unless the CLI reads it from somewhere.
fn parameter_value(word: &str, value: &str) -> Result<(), Refusal> {
    let lower = value.to_ascii_lowercase();
    for scheme in ["file://", "fileb://", "http://", "https://"] {
        if lower.contains(scheme) {
            return Err(Refusal::new(
                word,
                format!("a `{scheme}` value is read from a file or the network, unseen here"),
            ));
        }
    }
    Ok(())
}

/// `+5`, `+10c`: a count with an optional unit of `b`, `c` or `l`.
fn counting(w: &str) -> bool {
    let digits = w[1..].trim_end_matches(['b', 'c', 'l']);
    w.len() > 1
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && w.len() - 1 - digits.len() <= 1
}

/// A number as tools take them: `5`, `-5`, `+10`, `1.5`, `10K`, `2MiB`,
/// `50%`.
/// Commands that print what they read decoded or transformed, so that a
/// secret in the file is not in the bytes the look scans (`zcat`, `base64
/// -d`, `iconv -f utf-16le`, `rev`): their reads are left to the row's
/// unknown answer.
const DECODERS: &[&str] = &[
    "zcat", "gzip", "gunzip", "zgrep", "zegrep", "zfgrep", "zless", "zmore", "zdiff", "zcmp",
    "xzcat", "xz", "unxz", "lzcat", "bzcat", "bzip2", "bunzip2", "bzgrep", "zstdcat", "zstd",
    "unzstd", "lz4cat", "lz4", "base64", "base32", "basenc", "iconv", "rev", "uudecode", "xxd",
    "od", "hexdump", "openssl", "unzip", "zipinfo", "tar", "7z", "gpg",
];

/// Commands whose numbers say how long they run or how much they print
/// (`sleep 1e9`, `seq 1e14`, `head -c 10G`, `timeout 100d`): their number
/// roles are bounded by [`MAX_NUMBER`]. Elsewhere a number is an id or a
/// setting (`lsns 4026531836`, a port), which no bound fits.
const BOUNDED_NUMBERS: &[&str] = &[
    "sleep", "seq", "timeout", "head", "tail", "shuf", "jot", "ping", "watch", "usleep", "printf",
    "numfmt", "factor", "yes", "fold", "pr",
];

/// The largest value a number role takes in a safe call, its unit
/// applied: a count, size or duration past it (`sleep 1e6`, `seq 1e14`,
/// `head -c 10G`) runs for days or prints past any use, so it is not safe
/// by its words. (A day is 86,400 seconds: `sleep 1d` passes.)
pub const MAX_NUMBER: f64 = 1_000_000.0;

/// Whether a word [`number`] accepts is at most [`MAX_NUMBER`] once its
/// unit is applied (`s`, `m`, `h`, `d` for time; `k`, `M`, `G`, … and their
/// `B`/`iB` forms for sizes; a unit not known counts as the largest).
fn number_within_bound(w: &str) -> bool {
    let w = w.strip_prefix(['+', '-']).unwrap_or(w);
    let digits = w
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let Ok(value) = w[..digits].parse::<f64>() else {
        return false;
    };
    let unit = w[digits..]
        .trim_end_matches(['B', 'b'])
        .trim_end_matches('i');
    let scale = match unit {
        "" | "s" | "%" | "c" | "w" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3_600.0,
        "d" => 86_400.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" | "g" => 1e9,
        "T" | "t" => 1e12,
        "P" | "E" | "Z" | "Y" => 1e15,
        _ => f64::INFINITY,
    };
    value * scale <= MAX_NUMBER
}

fn number(w: &str) -> bool {
    let w = w.strip_prefix(['+', '-']).unwrap_or(w);
    let digits = w
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let unit = &w[digits..];
    digits > 0
        && w[..digits].bytes().filter(|b| *b == b'.').count() <= 1
        && unit.len() <= 3
        && unit.bytes().all(|b| b.is_ascii_alphabetic() || b == b'%')
}

fn note(opt: &Opt<'_>, seen: &mut Seen) {
    seen.pattern |= opt.pattern;
    seen.recursive |= opt.recursive;
    seen.lookup |= opt.lookup;
}

/// The first option, in spec order, named `name` exactly (through the
/// spec's hash table of names: [`exact_in_order`] is the plain search).
fn exact<'s>(spec: &'s Spec<'static>, name: &str) -> Option<Opt<'s>> {
    spec.option_named(name.as_bytes()).map(|(opt, _)| opt)
}

/// The plain search [`exact`] stands for, option by option.
#[cfg(test)]
fn exact_in_order<'s>(spec: &'s Spec<'static>, name: &str) -> Option<Opt<'s>> {
    spec.options.iter().find(|o| o.names.contains(name))
}

/// [`exact`] of the short option `-c`, with the name it matched (`-c`
/// itself), with no string built.
fn exact_short<'s>(spec: &'s Spec<'static>, c: char) -> Option<(Opt<'s>, &'s str)> {
    let mut buf = [b'-'; 5];
    let len = c.encode_utf8(&mut buf[1..]).len();
    spec.option_named(&buf[..1 + len])
}

enum Long<'s> {
    Found(Opt<'s>, &'s str),
    Ambiguous(Vec<&'s str>),
    None,
}

/// A long option by exact name or unique prefix; several names of one
/// option are one match (getopt_long's rule).
fn long<'s>(spec: &'s Spec<'static>, name: &str) -> Long<'s> {
    if let Some((opt, n)) = spec.option_named(name.as_bytes()) {
        return Long::Found(opt, n);
    }
    if name.len() <= 2 {
        return Long::None;
    }
    // (By the names alone: an option is built only once it is found.)
    let mut found: Option<(usize, &str)> = None;
    let mut others: Vec<&str> = Vec::new();
    for o in 0..spec.options.len() {
        let Some(names) = spec.options.names_joined(o) else {
            continue;
        };
        let Some(n) = Words::of(names).find(|n| n.starts_with("--") && n.starts_with(name)) else {
            continue;
        };
        match found {
            None => found = Some((o, n)),
            Some((f, first)) if f != o => {
                if others.is_empty() {
                    others.push(first);
                }
                others.push(n);
            }
            Some(_) => {}
        }
    }
    match found {
        Some(_) if !others.is_empty() => Long::Ambiguous(others),
        Some((o, n)) => match spec.options.get(o) {
            Some(opt) => Long::Found(opt, n),
            None => Long::None,
        },
        None => Long::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A made-up family of commands that uses every convention.
    const SPECS: &str = r#"
[[command]]
names = ["rd"]
category = "fs-read"
reason = "reads"
help = ["--help", "--version"]
operands = ["pattern", "file..."]
numeric_option = true
options = '''
-n --number
--number-nonblank
-o --output =file !writes
--outline
-k --key =text
-c --color =?text
-e --regexp =pattern +pattern
-r --recursive +recursive
-p --pager =text !executes   # pages through the named program
--arg ==file
-v --verbose
'''

[[command]]
names = ["px"]
category = "fs-read"
reason = "reads"
syntax = "posix"
operands = ["file..."]
options = '''
-a
'''

[[command]]
names = ["fd1"]
category = "fs-read"
reason = "finds"
syntax = "single-dash"
stray_words_fail = true
operators = ["(", ")", "!"]
operands = ["dir..."]
options = '''
-iname =pattern
-name =text
-delete !writes
-o
-newer =file
'''

[[command]]
names = ["wr"]
category = "io"
reason = "runs a command later"
wraps = true
operands = ["number"]
options = '''
-s --signal =text
-o --out =file !writes
'''

[[command]]
names = ["lk"]
category = "io"
reason = "looks commands up"
wraps = true
options = '''
-v +lookup
'''

[[command]]
names = ["vc"]
category = "vc-read"
reason = "version control"
syntax = "posix"
subcommands = true
requires_subcommand = true
help = ["--help"]
help_subcommands = ["push"]
subcommand_help = ["-h"]
docs = ["--help"]
options = '''
-C =dir
-c =text !executes
'''

[[command]]
names = ["vc log"]
category = "vc-read"
reason = "history"
operands = ["rev-or-path..."]
after_dashdash = "pathspec"
options = '''
--oneline
'''

[[command]]
names = ["tl"]
category = "fs-read"
reason = "prints the end"
plus_number = true
numeric_option = true
operands = ["file..."]
options = '''
-n --lines =number
-f --follow !waits
'''

[[command]]
names = ["cl"]
category = "cloud-read"
reason = "describes"
service = "the cloud API"
parameters = true
operands = ["text..."]
secret_operands = ["secrets", "secret"]
options = '''
--region =text
--endpoint-url =text !network   # sends the credentials to another host
'''

[[command]]
names = ["jc"]
category = "log-read"
reason = "reads the journal"
requires = ["--no-pager"]
options = '''
--no-pager
-n =number
'''

[[command]]
names = ["dt"]
category = "io"
reason = "prints the date"
operands = ["plus-format?"]

[[command]]
names = ["del"]
category = "fs-delete"
help = ["--help"]
help_only = true

[[command]]
names = ["ob"]
category = "fs-read"
reason = "dumps object files"
operands = ["local-file..."]
options = '''
-d
-j --section =?text
'''

[[command]]
names = ["tc"]
category = "fs-read"
reason = "prints files backwards"
operands = ["local-file", "local-file..."]
options = '''
-s =text
'''

[[command]]
names = ["sc"]
category = "sys-read"
reason = "prints kernel settings"
operands = ["key..."]
options = '''
-n
'''

[[command]]
names = ["nt"]
category = "sys-read"
reason = "prints network state"
subcommands = true

[[command]]
names = ["nt a[ddress]"]
category = "sys-read"
reason = "lists addresses"
subcommands = true

[[command]]
names = ["nt a[ddress] s[how]", "nt a[ddress] ls[t]"]
category = "sys-read"
reason = "shows addresses"
operands = ["text..."]

[[command]]
names = ["dk"]
category = "containers"
help = ["--version"]
help_only = true
subcommands = true
help_subcommands = ["ps"]
subcommand_help = ["--help"]
"#;

    fn specs() -> Specs {
        Specs::load(&[("specs/test.toml".into(), SPECS.into())])
            .unwrap_or_else(|e| panic!("test specs: {e}"))
    }

    /// [`verdict`] of a line whose words `globs` the shell expands.
    fn verdict_globbed(specs: &Specs, line: &str, globs: &[&str]) -> Result<bool, String> {
        let words: Vec<&str> = line.split(' ').collect();
        check(
            specs,
            &words,
            &Context::default(),
            &Reading {
                globs,
                ..Reading::default()
            },
        )
        .map(|v| v.help)
        .map_err(|r| r.to_string())
    }

    fn verdict(specs: &Specs, line: &str) -> Result<bool, String> {
        let words: Vec<&str> = line.split(' ').collect();
        check(specs, &words, &Context::default(), &Reading::default())
            .map(|v| v.help)
            .map_err(|r| r.to_string())
    }

    /// `git tag` lists with `--list`, given anywhere, and creates without.
    #[test]
    fn operands_may_need_an_option() {
        let tax = match crate::Taxonomy::embedded() {
            Ok(tax) => tax,
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let s = &tax.specs;
        for ok in [
            "git tag --list release-x",
            "git tag release-x -l",
            "git tag -n -l v1 v2",
            "git tag",
        ] {
            assert_eq!(verdict(s, ok), Ok(false), "{ok:?}");
        }
        for refused in [
            "git tag release-x",
            "git tag -n v1",
            "git tag -- -l",
            "git tag v1 HEAD",
        ] {
            assert!(verdict(s, refused).is_err(), "{refused:?}");
        }
    }

    /// A metadata operand may name a secret; the place checks still hold.
    #[test]
    fn metadata_reads_may_name_secrets() {
        let tax = match crate::Taxonomy::embedded() {
            Ok(tax) => tax,
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let s = &tax.specs;
        for ok in [
            "stat .env",
            "stat -L config/secrets.yml",
            "stat -c %s id_rsa",
        ] {
            assert_eq!(verdict(s, ok), Ok(false), "{ok:?}");
        }
        for refused in [
            "stat ~/.ssh/id_rsa",
            "stat ../.env",
            "stat /etc/shadow",
            // These open the file and read its bytes.
            "wc -l .env",
            "file .env",
            "cat .env",
            "head -c 10 .env",
            "grep -q KEY .env",
        ] {
            assert!(verdict(s, refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn gnu_options_are_read_as_getopt_long_reads_them() {
        let s = specs();
        for ok in [
            "rd x a.txt",
            "rd -n x",
            "rd -nv x a b",
            "rd x -n a", // permutation
            "rd --number x",
            "rd --number-n x", // unique prefix
            "rd --ke 2 x",
            "rd --key=2 x",
            "rd -k2 x",
            "rd -nk 2 x",
            "rd --color x",
            "rd --color=always x",
            "rd -c x",             // optional value absent: `x` is the pattern
            "rd -e x a.txt b.txt", // -e supplies the pattern: operands are files
            "rd -ex a.txt",
            "rd -5 x",
            "rd -- -n", // after `--`, `-n` is the pattern
            "rd --arg name a.txt x",
            "rd -r x src",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for (bad, why) in [
            ("rd --outp=x y", "`--outp=x`: abbreviation of --output, which writes a file"),
            ("rd --out x", "`--out`: an ambiguous abbreviation (of --output, --outline), which the real parser refuses"),
            ("rd --numb x", "`--numb`: an ambiguous abbreviation (of --number, --number-nonblank), which the real parser refuses"),
            ("rd -o x y", "`-o`: writes a file"),
            ("rd -vo x y", "`-vo`: -o writes a file"),
            ("rd -nvox y", "`-nvox`: -o writes a file"),
            ("rd -q x", "`-q`: not an option `rd` is known to take"),
            ("rd -nq x", "`-nq`: `-q` is not an option `rd` is known to take"),
            ("rd --pager=less x", "`--pager=less`: runs another program (pages through the named program)"),
            ("rd --number=3 x", "`--number=3`: --number takes no value"),
            ("rd -k", "`-k`: -k needs a value"),
            ("rd x .env", "`.env`: names a secret (an environment file)"),
            ("rd -e x --arg n .env", "`.env`: names a secret (an environment file)"),
            ("rd 'AKIA[0-9]' a", "`'AKIA[0-9]'`: the pattern looks for credentials (`AKIA`)"),
            ("rd -r x .", "`.`: searches the whole working directory, where secrets such as `.env` live"),
            ("rd -r x", "with no file named it searches the whole working directory, where secrets such as `.env` live"),
            ("rd x ../a", "`../a`: leaves the working directory through `..`"),
            ("rd -k .env x", "`.env`: names a secret (an environment file)"),
            ("rd -k jsonpath-file=../x y", "`jsonpath-file=../x`: reads a file: leaves the working directory through `..`"),
            ("rd -k templatefile=/root/x y", "`templatefile=/root/x`: reads a file: an absolute path, and the working directory is not known to contain it"),
        ] {
            assert_eq!(verdict(&s, bad), Err(why.to_string()), "{bad}");
        }
    }

    /// A `local-file` is a file the tool cannot take for anything else:
    /// the path check, and no leading `-` or `@`, no `:`, no wildcard;
    /// a glob of such files may not start with a wildcard even after
    /// `--` (binutils read an `@FILE` wherever it stands).
    /// A long help form of the spec, where an option may stand, asks for
    /// help (GNU getopt_long permutes it to the front); after `--`, after
    /// an operand of a posix parser, or as an option's value it is a word
    /// like any other.
    #[test]
    fn long_help_forms_count_wherever_an_option_may_stand() {
        let tax = match crate::Taxonomy::embedded() {
            Ok(tax) => tax,
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let s = &tax.specs;
        for (line, help) in [
            ("sort -u data.txt --help", true),
            ("sort --version -u data.txt", true),
            ("ls -la --help src", true),
            ("wc -l a.txt --version", true),
            // Not a help request: a file named `--help`, read.
            ("sort -- --help", false),
            ("sort -u data.txt", false),
        ] {
            assert_eq!(verdict(s, line), Ok(help), "{line:?}");
        }
        for refused in [
            // The rest must still be explained: `-o` writes.
            "sort -o out.txt data.txt --help",
            "sort --help -o out.txt data.txt",
            // A help-only spec reads only its help forms alone.
            "shred -u notes.txt --help",
            "rm -rf build --help",
            // An option's value: sort's buffer size, not a help request.
            "sort -S --help data.txt",
            // A secret is still refused beside it.
            "sort .env --help",
        ] {
            assert!(verdict(s, refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn local_files_are_files_no_tool_reads_as_more() {
        let s = specs();
        assert_eq!(
            verdict(&s, "tc"),
            Err("`tc`: names no file, and without one it reads standard input".to_string())
        );
        assert_eq!(verdict(&s, "tc -s , a.txt b.txt"), Ok(false));
        assert_eq!(
            verdict_globbed(&s, "tc a.txt ./*.rs", &["./*.rs"]),
            Ok(false)
        );
        assert_eq!(
            verdict_globbed(&s, "tc ./*.rs", &["./*.rs"]),
            Err("`./*.rs`: a glob where the command takes a fixed number of words, which it could expand past".to_string())
        );
        for ok in [
            "ob -d prog",
            "ob -d build/prog",
            "ob -d ./prog",
            "ob -d -- build/prog",
            "ob -j.text prog",
            "ob --section=.text prog",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for (bad, why) in [
            (
                "ob -d @args",
                "`@args`: an `@FILE`, whose words the tool reads as arguments",
            ),
            (
                "ob -d -- @args",
                "`@args`: an `@FILE`, whose words the tool reads as arguments",
            ),
            (
                "ob -d -- -x",
                "`-x`: a file named like an option, or standard input",
            ),
            (
                "ob -d /dev/stdin",
                "`/dev/stdin`: standard input, which is no file to read",
            ),
            (
                "ob -d host:prog",
                "`host:prog`: a `HOST:FILE`, which the tool reads remotely",
            ),
            (
                "ob -d build/x:y",
                "`build/x:y`: a `HOST:FILE`, which the tool reads remotely",
            ),
            (
                "ob -d p*",
                "`p*`: a wildcard, which the tool may match against files itself",
            ),
            (
                "ob -d ../prog",
                "`../prog`: leaves the working directory through `..`",
            ),
            (
                "ob -d build/../../prog",
                "`build/../../prog`: leaves the working directory through `..`",
            ),
            (
                "ob -d build/id_rsa",
                "`build/id_rsa`: names a secret (a private key)",
            ),
        ] {
            assert_eq!(verdict(&s, bad), Err(why.to_string()), "{bad}");
        }
        assert_eq!(verdict_globbed(&s, "ob -d ./*.rs", &["./*.rs"]), Ok(false));
        assert_eq!(
            verdict_globbed(&s, "ob -d -- *.rs", &["*.rs"]),
            Err("`*.rs`: a glob that could expand to an `@FILE` the tool reads as arguments (write `./*.rs`)".to_string())
        );
        assert_eq!(
            verdict_globbed(&s, "ob -d *.rs", &["*.rs"]),
            Err("`*.rs`: a glob that could expand to a file named like an option (write `./*.rs`, or put it after `--`)".to_string())
        );
    }

    /// A command that stops at a stray word before it acts takes a glob
    /// as a pattern option's value when every word it can become ends in
    /// a literal `.EXT`: anything else the shell might make of it is
    /// refused.
    #[test]
    fn a_pattern_glob_is_harmless_only_where_stray_words_fail() {
        let s = specs();
        for (ok, glob) in [
            ("fd1 . -iname *.py", "*.py"),
            ("fd1 . -iname test_*.tar.gz", "test_*.tar.gz"),
            ("fd1 src -iname *x*.o", "*x*.o"),
            ("fd1 . -iname ?.md", "?.md"),
        ] {
            assert_eq!(verdict_globbed(&s, ok, &[glob]), Ok(false), "{ok}");
        }
        let refused = "an option's value the shell expands as a glob, perhaps into several words";
        for (bad, glob) in [
            ("fd1 . -iname *", "*"),
            ("fd1 . -iname *bar", "*bar"),
            ("fd1 . -iname *.py?", "*.py?"),
            ("fd1 . -iname *.[ch]", "*.[ch]"),
            ("fd1 . -iname [ab].txt", "[ab].txt"),
            ("fd1 . -iname src/*.py", "src/*.py"),
            ("fd1 . -iname *.", "*."),
            ("fd1 . -name *.py", "*.py"), // text, not a pattern
        ] {
            assert_eq!(
                verdict_globbed(&s, bad, &[glob]),
                Err(format!("`{glob}`: {refused}")),
                "{bad}"
            );
        }
        // The shell may drop a glob that matches nothing (nullglob): the
        // line without it must be safe too.
        assert_eq!(
            verdict_globbed(&s, "fd1 . -iname *.py -iname -delete -iname x", &["*.py"]),
            Err("`*.py`: when it matches nothing, the shell may drop it (nullglob), and without it: `-delete`: writes a file".to_string())
        );
        assert_eq!(
            verdict_globbed(&s, "fd1 . -iname *.py -o -iname *.rs", &["*.py", "*.rs"]),
            Ok(false)
        );
        assert!(verdict_globbed(
            &s,
            "fd1 . -iname *.a -iname *.b -iname *.c -iname *.d",
            &["*.a", "*.b", "*.c", "*.d"]
        )
        .is_err());
        // Where a stray word does not stop the command, a glob value
        // never passes.
        assert_eq!(
            verdict_globbed(&s, "rd -e *.py a.txt", &["*.py"]),
            Err(format!("`*.py`: {refused}"))
        );
    }

    /// A `key` is data that never sets what it names.
    #[test]
    fn keys_are_names_never_assignments() {
        let s = specs();
        for ok in [
            "sc kernel.hostname",
            "sc -n vm.swappiness fs.file-max",
            "sc",
            "sc -- net.ipv4.ip_forward",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for (bad, why) in [
            (
                "sc kernel.hostname=x",
                "`kernel.hostname=x`: a `NAME=VALUE`, which sets what it names",
            ),
            ("sc -n a=", "`a=`: a `NAME=VALUE`, which sets what it names"),
            ("sc -- -w", "`-w`: not a name"),
            ("sc /../../etc/shadow", "`/../../etc/shadow`: a name with an empty part, which a tool that makes a path of it could climb out through"),
            ("sc kernel.//.//.etc.shadow", "`kernel.//.//.etc.shadow`: a name with an empty part, which a tool that makes a path of it could climb out through"),
            ("sc kernel..x", "`kernel..x`: a name with an empty part, which a tool that makes a path of it could climb out through"),
            ("sc .kernel", "`.kernel`: a name with an empty part, which a tool that makes a path of it could climb out through"),
            ("sc :/etc/shadow", "`:/etc/shadow`: a name with an empty part, which a tool that makes a path of it could climb out through"),
            ("sc net.ipv4.tcp_fastopen_key", "`net.ipv4.tcp_fastopen_key`: names a secret (a private key or keystore)"),
            ("sc net/ipv6/conf/lo/stable_secret", "`net/ipv6/conf/lo/stable_secret`: names a secret (a file named for a secret)"),
        ] {
            assert_eq!(verdict(&s, bad), Err(why.to_string()), "{bad}");
        }
    }

    /// `HEAD[REST]` in a name is every prefix from HEAD on, each a name of
    /// its own; other prefixes, and longer words, are not names.
    #[test]
    fn bracketed_names_are_every_prefix_from_the_head() {
        let s = specs();
        for ok in [
            "nt a",
            "nt address",
            "nt a s",
            "nt ad sh",
            "nt addre show",
            "nt a ls",
            "nt address lst dev x",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for (bad, why) in [
            (
                "nt addresses s",
                "`addresses`: `nt addresses` has no spec, so what it does is not known",
            ),
            (
                "nt a l",
                "`l`: `nt a l` has no spec, so what it does is not known",
            ),
            (
                "nt a showw",
                "`showw`: `nt a showw` has no spec, so what it does is not known",
            ),
            (
                "nt b s",
                "`b`: `nt b` has no spec, so what it does is not known",
            ),
        ] {
            assert_eq!(verdict(&s, bad), Err(why.to_string()), "{bad}");
        }
        assert_eq!(
            super::super::format::expand_names(&[
                "x a[bc] d".to_string(),
                "[".to_string(),
                "y[".to_string()
            ]),
            Ok(["x a d", "x ab d", "x abc d", "[", "y["]
                .map(String::from)
                .to_vec())
        );
        for bad in ["x a[]", "x a[b[c]]"] {
            assert!(
                super::super::format::expand_names(&[bad.to_string()]).is_err(),
                "{bad}"
            );
        }
        let twice = super::super::format::expand_names(&["x a[b]".to_string(), "x ab".to_string()]);
        assert_eq!(
            twice.map_err(|e| e.to_string()),
            Err("field `names`: `x ab` is named twice".to_string())
        );
    }

    /// The refusal of a help-only command's other words reads as its
    /// first form (a join, then a `replace`) did, for every spec with help
    /// forms, embedded or here, under its own path and odd ones.
    #[test]
    fn help_only_refusals_read_as_first_written() {
        let first = |spec: &Spec<'static>, path: &str| {
            let forms: Vec<&str> = spec.help.iter().collect();
            format!(
                "only `{path} {}` alone is known to be safe",
                forms.join("` or `{path} ").replace("{path}", path)
            )
        };
        let embedded = match crate::Taxonomy::embedded() {
            Ok(tax) => tax.specs.clone(),
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let mine = specs();
        let mut seen = 0;
        for specs in [&embedded, &mine] {
            for name in specs.names() {
                let Some(spec) = specs.get(&name) else {
                    panic!("{name} has a spec");
                };
                seen += usize::from(spec.help_only);
                for path in [name.as_ref(), "", "{path}", "a {path} b"] {
                    assert_eq!(help_only_why(spec, path), first(spec, path), "{name}");
                }
            }
        }
        assert!(seen > 2, "{seen}");
        assert_eq!(
            verdict(&mine, "del x"),
            Err("`x`: only `del --help` alone is known to be safe".to_string())
        );
    }

    /// The option index finds, for every word tried, the option the plain
    /// search in spec order finds, by the same name: every option name of
    /// every spec, embedded or here, each cut short, lengthened and in
    /// upper case, and every word of the spec examples and near misses.
    /// A reader that keeps no reasons gives every verdict the one that
    /// does gives: the generated cases (each option, abbreviated and
    /// bundled), and each with a word the spec does not know added.
    #[test]
    fn an_unexplained_reading_gives_the_same_verdicts() {
        let tax = match crate::Taxonomy::embedded() {
            Ok(tax) => tax,
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let ctx = Context::default();
        let mut refused = 0;
        for case in crate::taxonomy::embedded_oracle_cases() {
            let words: Vec<&str> = case.split_whitespace().collect();
            for extra in [None, Some("--no-such-option"), Some("-Z"), Some(".env")] {
                let mut words = words.clone();
                words.extend(extra);
                let Some(spec) = tax.specs.get(words[0]) else {
                    continue;
                };
                let explained = check_args(
                    &tax.specs,
                    spec,
                    words[0],
                    &words[1..],
                    &ctx,
                    &Reading::default(),
                );
                let unexplained = Reading {
                    unexplained: true,
                    ..Reading::default()
                };
                let quiet = check_args(&tax.specs, spec, words[0], &words[1..], &ctx, &unexplained);
                assert_eq!(
                    explained.as_ref().map(|v| v.help).ok(),
                    quiet.as_ref().map(|v| v.help).ok(),
                    "{words:?}"
                );
                if let (Err(e), Err(q)) = (&explained, &quiet) {
                    assert!(!e.why.is_empty(), "{words:?}");
                    assert!(q.why.is_empty() || q.why == e.why, "{words:?}");
                    refused += 1;
                }
            }
        }
        assert!(refused > 1000, "only {refused} refusals were compared");
    }

    #[test]
    fn the_option_index_finds_what_the_search_in_order_does() {
        let embedded = match crate::Taxonomy::embedded() {
            Ok(tax) => tax.specs.clone(),
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let mine = specs();
        // Every spec meets its own names and their near misses, and a
        // sixteenth of everybody else's words (a different sixteenth for
        // each spec, so every word meets some): all of them against every
        // spec made this the slowest test for no added coverage.
        const STRIDE: usize = 16;
        let near_misses = |spec: &Spec| -> Vec<String> {
            let mut words = Vec::new();
            for n in spec.options.names() {
                words.push(n.to_string());
                words.push(format!("{n}x"));
                words.push(n.chars().skip(1).collect());
                words.push(n.to_ascii_uppercase());
            }
            words
        };
        let mut shared: Vec<String> = Vec::new();
        for case in crate::taxonomy::embedded_oracle_cases() {
            for w in case.split_whitespace() {
                shared.push(w.to_string());
                shared.push(w.split('=').next().unwrap_or_default().to_string());
            }
        }
        for specs in [&embedded, &mine] {
            for path in specs.names() {
                let Some(spec) = specs.get(&path) else {
                    panic!("{path} has a spec");
                };
                shared.extend(near_misses(spec));
            }
        }
        shared.sort();
        shared.dedup();
        let mut found = 0;
        for specs in [&embedded, &mine] {
            for (i, path) in specs.names().into_iter().enumerate() {
                let Some(spec) = specs.get(&path) else {
                    panic!("{path} has a spec");
                };
                let mut words = near_misses(spec);
                words.extend(shared.iter().skip(i % STRIDE).step_by(STRIDE).cloned());
                words.extend(["", "-", "--", "-\u{e9}", "--\u{e9}t\u{e9}"].map(str::to_string));
                for w in &words {
                    // (Options are values built from the table: the first
                    // in spec order with the name is the one compared.)
                    let want = exact_in_order(spec, w);
                    found += usize::from(want.is_some());
                    let got = spec.option_named(w.as_bytes());
                    assert!(
                        got.as_ref().is_none_or(|(_, name)| name == w),
                        "{path}: {w}"
                    );
                    assert_eq!(got.map(|(o, _)| o), want, "{path}: {w}");
                    assert_eq!(exact(spec, w), want, "{path}: {w}");
                    let mut chars = w.chars();
                    if let (Some('-'), Some(c), None) = (chars.next(), chars.next(), chars.next()) {
                        let short = exact_short(spec, c);
                        assert_eq!(short, want.clone().map(|o| (o, w.as_str())), "{path}: {w}");
                    }
                }
            }
        }
        assert!(found > 10_000, "{found}");
    }

    #[test]
    fn counts_are_numbers_and_obsolete_forms_are_refused() {
        let s = specs();
        for ok in [
            "tl +5 a",
            "tl +10c a",
            "tl -n 5 a",
            "tl -n +5 a",
            "tl -n1K a",
            "tl -5 a",
            "tl --lines=-5 a",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for bad in [
            "tl +5f a",
            "tl +f a",
            "tl +cf",
            "tl -n f a",
            "tl -n 5x5 a",
            "tl -5f a",
            "tl -nf 5 a",
        ] {
            assert!(verdict(&s, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn service_reads_take_api_parameters_but_no_files_urls_or_secrets() {
        let s = specs();
        for ok in [
            "cl pods",
            "cl --region eu pods --instance-ids i-1",
            "cl --max-items=5 x",
            "cl --dry-run x",
            "dt",
            "dt +%F",
        ] {
            assert_eq!(verdict(&s, ok), Ok(false), "{ok}");
        }
        for bad in [
            "cl --endpoint-url http://evil x",
            "cl --endp=http://evil x",
            "cl --filters file://f.json x",
            "cl --policy=fileb://k x",
            "cl --x https://h/a x",
            "cl secrets",
            "cl SECRET/db",
            "cl pods,secrets",
            "cl secrets.v1",
            "cl --Bad x",
            "dt 010112002020",
        ] {
            assert!(verdict(&s, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_required_option_must_be_given() {
        let s = specs();
        assert_eq!(verdict(&s, "jc --no-pager"), Ok(false));
        assert_eq!(verdict(&s, "jc -n 5 --no-p"), Ok(false));
        assert_eq!(
            verdict(&s, "jc -n 5"),
            Err("`jc`: is safe only with --no-pager".to_string())
        );
    }

    #[test]
    fn posix_syntax_stops_at_the_first_operand() {
        let s = specs();
        assert_eq!(verdict(&s, "px -a a"), Ok(false));
        // `-a` after an operand is a file named `-a`.
        assert_eq!(verdict(&s, "px a -a"), Ok(false));
        assert!(verdict(&s, "px -b a").is_err());
    }

    #[test]
    fn single_dash_words_are_whole_options() {
        let s = specs();
        assert_eq!(verdict(&s, "fd1 src -name x ( ! -name y )"), Ok(false));
        assert_eq!(verdict(&s, "fd1 . -newer a.txt"), Ok(false));
        assert!(verdict(&s, "fd1 . -delete").is_err());
        assert!(verdict(&s, "fd1 . -na x").is_err(), "no abbreviation");
        assert!(verdict(&s, "fd1 . -newer .env").is_err());
    }

    #[test]
    fn wrappers_are_peeled_only_with_known_options() {
        let s = specs();
        assert_eq!(verdict(&s, "wr 5 rd x a"), Ok(false));
        assert_eq!(verdict(&s, "wr -s KILL 5 rd x"), Ok(false));
        assert_eq!(verdict(&s, "wr --sig=KILL 5 rd x"), Ok(false));
        assert_eq!(verdict(&s, "wr 5 wr 3 rd x"), Ok(false));
        for bad in [
            "wr --o=x 5 rd x",
            "wr -k 5 rd x",
            "wr 5 rd -o x y",
            "wr 5 sh -c x",
            "wr 5",
        ] {
            assert!(verdict(&s, bad).is_err() || bad == "wr 5", "{bad}");
        }
        assert_eq!(verdict(&s, "lk -v del"), Ok(false), "a lookup runs nothing");
        assert!(verdict(&s, "lk del x").is_err(), "without -v it runs del");
        assert!(verdict(&s, "lk -v ./x").is_err());
    }

    #[test]
    fn subcommands_and_help_forms() {
        let s = specs();
        assert_eq!(verdict(&s, "vc log --oneline"), Ok(false));
        assert_eq!(verdict(&s, "vc -C src log"), Ok(false));
        assert_eq!(verdict(&s, "vc log HEAD:src/a.rs"), Ok(false));
        assert_eq!(verdict(&s, "vc log -- src"), Ok(false));
        assert_eq!(verdict(&s, "vc log -- src/*.rs"), Ok(false));
        assert_eq!(verdict(&s, "vc log -- *.go"), Ok(false));
        assert_eq!(verdict(&s, "vc --help"), Ok(true));
        assert_eq!(verdict(&s, "vc push -h"), Ok(true));
        assert_eq!(verdict(&s, "del --help"), Ok(true));
        for bad in [
            "vc -c core.pager=sh log",
            "vc push",
            "vc push -h x",
            "vc push --help",
            "vc reset -h",
            "vc log HEAD:.env",
            "vc log :(glob).e*",
            "vc log :^src",
            "vc log :(top).env",
            "vc log -- .env",
            "vc log -- '*'",
            "vc log -- '*.env'",
            "vc log -- '.en?'",
            "vc log -- '*/x.rs'",
            "vc log -- '../*.rs'",
            "vc log --onel=x",
            "vc -C .. log",
            "del x",
            "del -- --help",
            "del --help x",
        ] {
            assert!(verdict(&s, bad).is_err(), "{bad}");
        }
        assert_eq!(verdict(&s, "dk ps --help"), Ok(true));
        assert_eq!(verdict(&s, "dk --version"), Ok(true));
        assert!(verdict(&s, "dk ps").is_err());
        assert!(verdict(&s, "dk run --help").is_err());
        assert!(verdict(&s, "vc").is_err(), "no subcommand");
        assert!(verdict(&s, "vc -C src").is_err(), "no subcommand");
        assert!(help_form(&s, "del", &["--help"]));
        assert!(help_form(&s, "vc", &["push", "-h"]));
        assert!(
            help_form(&s, "vc", &["push", "--help"]),
            "documentation through man"
        );
        assert!(!help_form(&s, "vc", &["push", "--version"]));
        assert!(!help_form(&s, "del", &["--", "--help"]));
        assert!(!help_form(&s, "del", &["--help", "x"]));
    }
}
