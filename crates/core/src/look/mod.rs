//! The look: before the gate allows a call, a bounded look at what the
//! call would really read, from where it would really run.
//!
//! The classifier reads words and never the world. A safe verdict says
//! that the words only read; whether what they read is harmless depends
//! on things the words do not show: what a file holds, where a link leads,
//! which folder a `cd` left the shell in. The look takes the call's
//! [`Reach`] and checks each read:
//!
//! * a path is resolved as the kernel would resolve it (links, `..` after
//!   a link) and its *target* judged: a link to a secret is a secret, a
//!   link out of the project is outside it;
//! * a file is read (regular files only, opened without blocking, never
//!   half-read: one past the size bound is an overrun) and the secret
//!   detectors run over it;
//! * a tree is walked as a search would walk it, within a budget of files,
//!   bytes and time, every name and every file's content checked;
//! * a git object is resolved and read from the repository's object store
//!   in process (never by starting `git`, whose config can name programs),
//!   and what the command would print of it is scanned: a blob, a commit's
//!   message and changes, a walk of history within the budget, a revision
//!   against the index and the work tree (see `git.rs`).
//!
//! A hit makes the call one that would print a secret; what the look
//! cannot settle (an overrun, a private place, an unreadable file) leaves
//! the call unknown; only a clean look lets the gate allow it. The look
//! is a snapshot: a file can change between the look and the command.
//! It never runs the command or any program, never writes, and sends
//! nothing anywhere.

mod git;
mod places;
mod world;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use places::{can_be_project, components, is_home_shaped, native_dir, Place, Places};
pub use world::{Contents, FileSystem, Kind, Pieces, World};

pub use crate::reach::Outcome;
use crate::reach::{Reach, Target, Touch};

/// How much one look may read. The defaults end well before any client's
/// hook timeout (the shortest is several seconds; most clients run the
/// command when a hook times out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Files read or named, in all.
    pub files: usize,
    /// Bytes read, in all.
    pub bytes: u64,
    /// The largest single file read; a larger one is an overrun.
    pub file_bytes: u64,
    /// Wall-clock time for the whole look.
    pub time: Duration,
}

impl Default for Budget {
    /// 20,000 files, 256 MiB in all, 16 MiB a file, 1.5 s.
    fn default() -> Budget {
        Budget {
            files: 20_000,
            bytes: 256 << 20,
            file_bytes: 16 << 20,
            time: Duration::from_millis(1_500),
        }
    }
}

/// A look's outcome, with what it read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Look {
    /// What it found.
    pub outcome: Outcome,
    /// Files it read or named.
    pub files: usize,
    /// Bytes it read.
    pub bytes: u64,
}

/// Where the call runs, for a look: the working directory (absolute, as
/// this system spells it) and the places around it.
#[derive(Clone, Debug)]
pub struct Site {
    /// The call's working directory.
    pub cwd: PathBuf,
    /// The project, homes and temporary directories.
    pub places: Places,
}

impl Site {
    /// The site of a call that runs in `cwd` on this machine: the project
    /// is the git work tree holding `cwd` (a `.git` folder or file in it or
    /// above), else `project_dir` (the directory a client names as its
    /// project) when it holds `cwd`, else `cwd` itself; none when `cwd` is
    /// a home or inside a home's hidden folders. Homes and temporary
    /// directories come from the environment.
    pub fn here(world: &dyn World, cwd: &Path, project_dir: Option<&Path>) -> Site {
        let mut homes = Vec::new();
        for var in ["HOME", "USERPROFILE"] {
            if let Some(h) = std::env::var_os(var).filter(|h| !h.is_empty()) {
                let h = PathBuf::from(h);
                homes.push(world.resolve(&h).unwrap_or(h));
            }
        }
        let mut temp = vec![std::env::temp_dir()];
        if cfg!(unix) {
            temp.push(PathBuf::from("/tmp"));
        }
        let temp = temp
            .into_iter()
            .map(|t| world.resolve(&t).unwrap_or(t))
            .collect();
        let cwd = world.resolve(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let project = can_be_project(&cwd, &homes)
            .then(|| {
                git_work_tree(world, &cwd)
                    .or_else(|| {
                        project_dir
                            .map(|p| world.resolve(p).unwrap_or_else(|_| p.to_path_buf()))
                            .filter(|p| cwd.starts_with(p) && can_be_project(p, &homes))
                    })
                    .unwrap_or_else(|| cwd.clone())
            })
            .filter(|p| can_be_project(p, &homes));
        Site {
            cwd,
            places: Places {
                project,
                homes,
                temp,
            },
        }
    }
}

/// The git work tree holding `dir`: the nearest folder at or above it
/// with a `.git` folder or file.
fn git_work_tree(world: &dyn World, dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| world.kind(&d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// Settles a gate's verdict on a look, when the gate wants one
/// ([`Gate::wants_look`](crate::gate::Gate::wants_look)): the call's
/// reach looked at from `cwd` (its working directory; `None`: not one this
/// system can look at, so nothing is cleared) on the real file system.
/// `project_dir` is the directory a client names as its project, if any.
#[allow(clippy::too_many_arguments)]
pub fn settle(
    gate: &crate::gate::Gate<'_>,
    verdict: crate::gate::Verdict,
    assessed: &crate::classify::Assessment,
    tool: &str,
    args: &serde_json::Value,
    cwd: Option<&Path>,
    project_dir: Option<&Path>,
    budget: &Budget,
) -> crate::gate::Verdict {
    if !gate.wants_look(&verdict, assessed) {
        return verdict;
    }
    let Some(reach) = &assessed.reach else {
        return verdict;
    };
    let outcome = match cwd {
        None => {
            Outcome::Unsettled("the working directory is not one this system can look at".into())
        }
        Some(cwd) => {
            let world = FileSystem;
            let site = Site::here(&world, cwd, project_dir);
            look(reach, &site, &world, budget).outcome
        }
    };
    gate.settle_look(tool, args, verdict, assessed, &outcome)
}

/// Looks at everything `reach` names, from `site`, within `budget`.
pub fn look(reach: &Reach, site: &Site, world: &dyn World, budget: &Budget) -> Look {
    let mut walker = Walker {
        world,
        site,
        budget,
        started: Instant::now(),
        files: 0,
        bytes: 0,
    };
    let mut unsettled: Option<String> = None;
    for touch in &reach.touches {
        match walker.touch(touch) {
            Ok(()) => {}
            Err(Stop::Secret(why)) => return walker.done(Outcome::Secret(why)),
            Err(Stop::Unsettled(why)) => {
                unsettled.get_or_insert(why);
            }
        }
    }
    let outcome = match unsettled {
        Some(why) => Outcome::Unsettled(why),
        None => Outcome::Clear,
    };
    walker.done(outcome)
}

/// Why a read stops the look.
enum Stop {
    Secret(String),
    Unsettled(String),
}

struct Walker<'w> {
    world: &'w dyn World,
    site: &'w Site,
    budget: &'w Budget,
    started: Instant,
    files: usize,
    bytes: u64,
}

/// The most threads a tree's files are read on.
const MAX_THREADS: usize = 4;

/// A tree of fewer files than this a thread is read on one: starting a
/// thread costs more than reading a few small files.
const FILES_A_THREAD: usize = 32;

/// Paths that hold no data or are the command's own input.
const SINKS: &[&str] = &["-", "/dev/null", "/dev/stdin"];

impl Walker<'_> {
    fn done(&self, outcome: Outcome) -> Look {
        Look {
            outcome,
            files: self.files,
            bytes: self.bytes,
        }
    }

    /// The directory a part runs in.
    fn base(&self, touch: &Touch) -> PathBuf {
        // The shell's `cd` is logical: `cd link/..` is back where it
        // started, whatever the link points at.
        match &touch.dir {
            Some(dir) => places::lexical(&self.site.cwd.join(dir)),
            None => self.site.cwd.clone(),
        }
    }

    fn touch(&mut self, touch: &Touch) -> Result<(), Stop> {
        let base = self.base(touch);
        match &touch.target {
            Target::File { path } if SINKS.contains(&path.as_str()) => Ok(()),
            Target::File { path } => self.file(&base.join(path), path),
            Target::Tree { path } => self.tree(&base.join(path), path),
            Target::Glob { pattern } => self.glob(&base, pattern),
            Target::Decoded { path } => Err(Stop::Unsettled(format!(
                "prints `{path}` decoded or transformed, which the look cannot scan as it would be printed"
            ))),
            Target::GitObject { rev, path, shows } => {
                self.git_object(&base, rev, path.as_deref(), *shows)
            }
        }
    }

    fn check_budget(&self) -> Result<(), Stop> {
        if self.files > self.budget.files {
            return Err(Stop::Unsettled(format!(
                "reads more than {} files, the look's bound",
                self.budget.files
            )));
        }
        if self.bytes > self.budget.bytes {
            return Err(Stop::Unsettled(format!(
                "reads more than {} MiB, the look's bound",
                self.budget.bytes >> 20
            )));
        }
        self.check_time()
    }

    fn check_time(&self) -> Result<(), Stop> {
        if self.started.elapsed() > self.budget.time {
            return Err(Stop::Unsettled(format!(
                "takes longer than {} ms to look at, the look's bound",
                self.budget.time.as_millis()
            )));
        }
        Ok(())
    }

    /// How a path is shown in a reason: relative to the project where it
    /// is inside it.
    fn shown(&self, path: &Path) -> String {
        let rel = self
            .site
            .places
            .project
            .as_ref()
            .and_then(|p| path.strip_prefix(p).ok())
            .filter(|r| !r.as_os_str().is_empty());
        rel.unwrap_or(path).display().to_string()
    }

    /// Resolves `path` and judges where it leads: its place, and whether
    /// the target's name is a secret's. `None`: it does not exist (the
    /// command reads nothing there).
    fn target(&mut self, path: &Path, written: &str) -> Result<Option<PathBuf>, Stop> {
        let resolved = match self.world.resolve(path) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A missing file reads nothing, but it may be there by the
                // time the command runs: judged by where it would be.
                return match self.site.places.place_of(path) {
                    Place::Project | Place::System => Ok(None),
                    Place::Private | Place::Unreadable => Err(Stop::Unsettled(format!(
                        "`{written}` would be read from {}, outside the project and the system's places",
                        path.display()
                    ))),
                };
            }
            Err(e) => {
                return Err(Stop::Unsettled(format!(
                    "`{written}` cannot be looked at ({e})"
                )))
            }
        };
        match self.site.places.place_of(&resolved) {
            Place::Project | Place::System => {}
            Place::Private => {
                return Err(Stop::Unsettled(format!(
                    "`{written}` leads to {}, outside the project and the system's places",
                    resolved.display()
                )))
            }
            Place::Unreadable => {
                return Err(Stop::Unsettled(format!(
                    "`{written}` leads to {}, a kernel interface the look does not read",
                    resolved.display()
                )))
            }
        }
        if let Some(class) = self.secret_name(&resolved) {
            return Err(Stop::Secret(format!(
                "would read a secret file ({class}): {}",
                self.shown(&resolved)
            )));
        }
        Ok(Some(resolved))
    }

    /// The secret class of a resolved path's name, judged from the
    /// project's root inside it (a project kept under a folder named like
    /// a secret one is not all secret), from the root elsewhere.
    fn secret_name(&self, resolved: &Path) -> Option<&'static str> {
        // The project's own git config is a secret only by what it holds
        // (a token in a remote URL or a header), which the detectors read:
        // by its name alone every search of a repository would stop there.
        if let Some(project) = &self.site.places.project {
            if resolved == project.join(".git").join("config") {
                return None;
            }
        }
        let inside = self
            .site
            .places
            .project
            .as_ref()
            .and_then(|p| resolved.strip_prefix(p).ok());
        let parts = components(inside.unwrap_or(resolved));
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        crate::spec::paths::secret_class(&parts)
    }

    fn file(&mut self, path: &Path, written: &str) -> Result<(), Stop> {
        let Some(resolved) = self.target(path, written)? else {
            return Ok(());
        };
        match self.world.kind(&resolved) {
            Ok(Kind::Dir) => Ok(()),
            Ok(_) => self.contents(&resolved),
            Err(_) => Ok(()),
        }
    }

    /// Reads a resolved file and runs the detectors over it.
    fn contents(&mut self, resolved: &Path) -> Result<(), Stop> {
        self.files += 1;
        self.check_budget()?;
        let read = self.read_and_scan(resolved)?;
        self.bytes += read;
        self.check_budget()
    }

    /// Reads a resolved file piece by piece, running the detectors over
    /// each; the bytes read. A file that is gone reads nothing (the command
    /// would read nothing there).
    fn read_and_scan(&self, resolved: &Path) -> Result<u64, Stop> {
        let mut lines_before = 0;
        let mut read: u64 = 0;
        let mut found = None;
        let mut each = |piece: &[u8]| {
            read += piece.len() as u64;
            if let Some(hit) = crate::secrets::contains_secret(piece) {
                found = Some((hit.kind, lines_before + hit.line));
                return false;
            }
            lines_before += crate::secrets::count_lines(piece);
            true
        };
        let pieces = self
            .world
            .read_pieces(resolved, self.budget.file_bytes, &mut each);
        match pieces {
            Ok(Pieces::Read) => Ok(read),
            Ok(Pieces::Stopped) => {
                let (kind, line) = found.unwrap_or(("a secret", 0));
                Err(Stop::Secret(format!(
                    "would print {kind}: {} line {line}",
                    self.shown(resolved)
                )))
            }
            Ok(Pieces::TooLarge(n)) => Err(self.too_large(resolved, n)),
            Ok(Pieces::NotRegular) => Err(Stop::Unsettled(format!(
                "{} is not a regular file",
                self.shown(resolved)
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(self.cannot_read(resolved, &e)),
        }
    }

    /// A file larger than the look reads of one: an overrun.
    fn too_large(&self, path: &Path, size: u64) -> Stop {
        Stop::Unsettled(format!(
            "{} is {size} bytes, more than the {} MiB a look reads of one file",
            self.shown(path),
            self.budget.file_bytes >> 20
        ))
    }

    /// A file the look could not read.
    fn cannot_read(&self, path: &Path, e: &dyn std::fmt::Display) -> Stop {
        Stop::Unsettled(format!("{} cannot be read ({e})", self.shown(path)))
    }

    /// Walks a tree: every name below it is judged and every file read.
    /// Links below the top are judged by their targets whether or not the
    /// tool follows them (a look that assumes less never misses more).
    ///
    /// The names are walked first, the files' sizes counted against the
    /// budget as listed; then the files are read and scanned, on every
    /// core when there are many. Either way the outcome is what reading
    /// one by one in walk order would give: the first stop in that order.
    fn tree(&mut self, root: &Path, written: &str) -> Result<(), Stop> {
        let Some(resolved) = self.target(root, written)? else {
            return Ok(());
        };
        let mut reads = Vec::new();
        let listed = self.list_tree(resolved, &mut reads);
        self.read_all(&reads)?;
        listed
    }

    /// Walks the names under `top`, judging each, and adds the files to
    /// read to `reads`, in walk order; stops at the first name or place
    /// that stops the look, or where the budget would be spent.
    fn list_tree(&mut self, top: PathBuf, reads: &mut Vec<PathBuf>) -> Result<(), Stop> {
        let mut stack = vec![top];
        while let Some(dir) = stack.pop() {
            self.check_budget()?;
            let entries = match self.world.list(&dir) {
                Ok(e) => e,
                Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                    // A file given where a tree may be: read it.
                    let size = self.world.kind(&dir).ok();
                    return self.queue_read(dir, size, reads);
                }
                Err(e) => {
                    return Err(Stop::Unsettled(format!(
                        "{} cannot be listed ({e})",
                        self.shown(&dir)
                    )))
                }
            };
            for (name, kind) in entries {
                let path = dir.join(&name);
                self.files += 1;
                if let Some(class) = self.secret_name(&path) {
                    return Err(Stop::Secret(format!(
                        "would read a secret file ({class}): {}",
                        self.shown(&path)
                    )));
                }
                match kind {
                    Kind::Dir => stack.push(path),
                    Kind::File(_) => self.queue_read(path, Some(kind), reads)?,
                    Kind::Link => {
                        let shown = self.shown(&path);
                        if let Some(target) = self.target(&path, &shown)? {
                            let kind = self.world.kind(&target).ok();
                            if kind != Some(Kind::Dir) {
                                self.queue_read(target, kind, reads)?;
                            } else if !target.starts_with(&dir) {
                                // A link to a folder outside: followed by
                                // some tools (`grep -R`, `rg -L`), walked.
                                stack.push(target);
                            }
                        }
                    }
                    Kind::Other => {}
                }
            }
        }
        Ok(())
    }

    /// Adds a file to read, counting it and its listed size against the
    /// budget as reading it would.
    fn queue_read(
        &mut self,
        path: PathBuf,
        kind: Option<Kind>,
        reads: &mut Vec<PathBuf>,
    ) -> Result<(), Stop> {
        self.files += 1;
        self.check_budget()?;
        if let Some(Kind::File(size)) = kind {
            // A larger file stops the look when it is read, whatever the
            // bytes budget says.
            self.bytes += size.min(self.budget.file_bytes);
            self.check_budget()?;
        }
        reads.push(path);
        Ok(())
    }

    /// Reads and scans `reads`, counted already: the first stop in their
    /// order, if any.
    fn read_all(&self, reads: &[PathBuf]) -> Result<(), Stop> {
        let one = |path: &PathBuf| -> Result<(), Stop> {
            self.check_time()?;
            self.read_and_scan(path).map(drop)
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
            .min(reads.len() / FILES_A_THREAD);
        if threads <= 1 {
            return reads.iter().try_for_each(one);
        }
        // Files are handed out in order, and a reader stops only past the
        // earliest stop found: every file before it has been read.
        let next = AtomicUsize::new(0);
        let earliest: Mutex<Option<(usize, Stop)>> = Mutex::new(None);
        let stop_at = AtomicUsize::new(usize::MAX);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= reads.len() || i > stop_at.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Err(stop) = one(&reads[i]) {
                        let mut first = earliest.lock().unwrap_or_else(|e| e.into_inner());
                        if first.as_ref().is_none_or(|(j, _)| i < *j) {
                            *first = Some((i, stop));
                            stop_at.fetch_min(i, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        match earliest.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, stop)) => Err(stop),
            None => Ok(()),
        }
    }

    /// The files a glob names: its folder listed, each name that matches
    /// its last part judged as a file.
    fn glob(&mut self, base: &Path, pattern: &str) -> Result<(), Stop> {
        let (dir, last) = match pattern.rsplit_once('/') {
            Some((d, l)) => (base.join(if d.is_empty() { "/" } else { d }), l),
            None => (base.to_path_buf(), pattern),
        };
        let Some(resolved) = self.target(&dir, pattern)? else {
            return Ok(());
        };
        let entries = self.world.list(&resolved).map_err(|e| {
            Stop::Unsettled(format!("`{pattern}`: its folder cannot be listed ({e})"))
        })?;
        for (name, _) in entries {
            let name = name.to_string_lossy();
            if shell_glob_match(last, &name) {
                let path = resolved.join(name.as_ref());
                self.file(&path, pattern)?;
            }
        }
        Ok(())
    }
}

/// Whether `name` matches a shell glob's part: `*`, `?`, `[…]` (with `!`
/// or `^` to negate, and ranges); a leading `.` only by a literal one.
pub fn shell_glob_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    // A `?` or `[…]` matches one character in the shell's locale, which
    // may be a byte or a UTF-8 sequence: over a name that is not ASCII
    // (or not UTF-8, read lossily here) either counts as `*`, so that the
    // look reads at least every file the shell could expand to.
    if !name.is_ascii() {
        let loose = loosen(pattern);
        return go_loose(&loose, name);
    }
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(b'*') => (0..=n.len()).any(|k| go(&p[1..], &n[k..])),
            Some(b'?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some(b'[') => {
                let Some(end) = p.iter().skip(2).position(|&c| c == b']').map(|e| e + 2) else {
                    return n.first() == Some(&b'[') && go(&p[1..], &n[1..]);
                };
                let Some(&c) = n.first() else {
                    return false;
                };
                let (negate, set) = match p[1] {
                    b'!' | b'^' => (true, &p[2..end]),
                    _ => (false, &p[1..end]),
                };
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == b'-' {
                        hit |= set[i] <= c && c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == c;
                        i += 1;
                    }
                }
                hit != negate && go(&p[end + 1..], &n[1..])
            }
            Some(&c) => n.first() == Some(&c) && go(&p[1..], &n[1..]),
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// A glob with each `?` and `[…]` widened to `*`.
fn loosen(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '?' => out.push('*'),
            '[' => {
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                }
                out.push('*');
            }
            c => out.push(c),
        }
    }
    out
}

/// `*` and literal characters only, by characters.
fn go_loose(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            tail.char_indices()
                .map(|(i, _)| i)
                .chain([tail.len()])
                .any(|i| go_loose(rest, &tail[i..]))
        }
    }
}

#[cfg(test)]
mod git_tests;
#[cfg(test)]
mod tests;
