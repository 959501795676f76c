//! The look at git objects: what `git show REV:path`, `git show REV`,
//! `git log -p`, `git diff REV` and `git grep PATTERN REV` would print,
//! read from the object store in process.
//!
//! Never by starting `git`: a repository's own config chooses programs
//! that git runs on a read (`core.fsmonitor` on any command that looks at
//! the work tree, `core.pager`, textconv and external diff drivers,
//! filters), so a look that started git would run a hostile repository's
//! code before the gate had allowed anything. gix is opened isolated (no
//! system, global or user config, nothing from the environment), is built
//! without the features that can start programs (attributes and filters,
//! credentials, the network), and here only reads objects, refs, the
//! index and the work tree's files.
//!
//! What is scanned covers what is printed, and may be more: whole blobs
//! on both sides of a change rather than the changed lines with their
//! context, every commit of a range rather than those a pathspec keeps,
//! every parent of a merge rather than git's combined diff. More only
//! costs a prompt; less would let a secret through.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, ByteSlice};
use gix::hash::ObjectId;
use gix::objs::{Kind as ObjectKind, ObjectRef};
use gix::revision::plumbing::Spec;

use super::{components, places, Place, Stop, Walker};
use crate::reach::Shows;

/// An opened repository, with the revision a touch named (for reasons).
struct Repo<'t> {
    repo: gix::Repository,
    /// The touch as written (`HEAD~1:app/settings.py`, `HEAD`).
    shown: &'t str,
}

/// Regular-expression characters (basic and extended): git finds the
/// commit of `:/text` and `REV^{/text}` by a regular expression, gix
/// (built without its regex feature) by plain text; where the two can
/// differ, the look does not guess which commit git would pick.
const REGEX_CHARS: &[char] = &[
    '.', '[', ']', '*', '^', '$', '\\', '+', '?', '(', ')', '{', '}', '|', '!',
];

impl Walker<'_> {
    /// Looks at a git object a part prints: `rev` (with `path` inside
    /// its tree) in the repository that holds `base`, as `shows` says the
    /// command prints it.
    pub(super) fn git_object(
        &mut self,
        base: &Path,
        rev: &str,
        path: Option<&str>,
        shows: Shows,
    ) -> Result<(), Stop> {
        let shown = match path {
            Some(p) => format!("{rev}:{p}"),
            None => rev.to_string(),
        };
        let repo = self.open_repo(base, &shown)?;
        if rev.starts_with('-') {
            return match (rev, path) {
                ("--all", None) => self.every_ref(&repo),
                _ => Err(Stop::Unsettled(format!(
                    "walks the commits `{rev}` adds, which the look does not follow"
                ))),
            };
        }
        searches_by_text(rev)?;
        reflog_by_date(rev)?;
        let spec = match path {
            None => rev.to_string(),
            Some(p) => {
                let p = top_relative(&repo.repo, base, p, &shown)?;
                // `:path` and `:0:path` end their revision with the colon.
                if rev.ends_with(':') {
                    format!("{rev}{p}")
                } else {
                    format!("{rev}:{p}")
                }
            }
        };
        let parsed = match repo.repo.rev_parse(spec.as_bytes().as_bstr()) {
            Ok(parsed) => parsed,
            // A word that is no revision but names a file of the work tree
            // is a path to git (`git diff src/a.py`, `git log -p a.py`):
            // what it prints then is HEAD's, limited to that path, and the
            // file itself is a read of its own. HEAD's whole is looked at.
            Err(_)
                if path.is_none()
                    && rev != "HEAD"
                    && self.world.resolve(&base.join(rev)).is_ok() =>
            {
                return self.git_object(base, "HEAD", None, shows);
            }
            Err(e) => return Err(unresolved(&shown, &e)),
        };
        let in_tree = parsed
            .path_and_mode()
            .map(|(p, _)| p.to_str_lossy().into_owned());
        let spec = parsed.detach();
        if let Some(inner) = in_tree {
            // `REV:path`: a blob is printed whole; a tree, by its names
            // (`git show`, `git cat-file -p`) or every file below it (a
            // search or a diff reads them).
            let Some(id) = single(&spec) else {
                return Err(unresolved_single(&shown));
            };
            let names_only = matches!(shows, Shows::Object | Shows::History);
            return self.git_path(&repo, id, &inner, names_only);
        }
        if matches!(shows, Shows::Object | Shows::History) {
            notes(&repo)?;
        }
        match shows {
            Shows::Object => match spec {
                Spec::Include(id) => self.git_shown(&repo, id),
                Spec::ExcludeParents(id) => self.git_commit(&repo, id),
                other => self.git_walk(&repo, &other),
            },
            Shows::History => self.git_walk(&repo, &spec),
            Shows::Diff => self.git_diff(&repo, &spec),
            Shows::Files => {
                let Some(id) = single(&spec) else {
                    return Err(unresolved_single(&shown));
                };
                self.git_files(&repo, id)
            }
        }
    }

    /// Opens the repository holding `base`, isolated: only its own
    /// config is read, and nothing it says can start a program (gix has no
    /// fsmonitor, pager or hooks, and this build no filters).
    fn open_repo<'t>(&mut self, base: &Path, shown: &'t str) -> Result<Repo<'t>, Stop> {
        // Replacement objects off, whatever the repository's config says
        // (an override outranks it): git applies `refs/replace/` unless a
        // command says `--no-replace-objects`, and gix would also read a
        // base of its own (`gitoxide.objects.replaceRefBase`) that git
        // ignores; a repository with replacements is left unsettled below.
        let options =
            gix::open::Options::isolated().config_overrides(["core.useReplaceRefs=false"]);
        let repo = gix::discover_opts(base, gix::discover::upwards::Options::default(), options)
            .map_err(|e| {
                Stop::Unsettled(format!(
                "prints the git object `{shown}`, but no repository could be opened from {} ({e})",
                self.shown(base)
            ))
            })?;
        // A repository kept in a private place (a home's dotfiles) is not
        // the project's: what it holds is not the look's to read.
        let top = repo
            .workdir()
            .unwrap_or_else(|| repo.git_dir())
            .to_path_buf();
        let top = self.world.resolve(&top).unwrap_or(top);
        match self.site.places.place_of(&top) {
            Place::Project | Place::System => {
                let repo = Repo { repo, shown };
                rewrites_history(&repo)?;
                Ok(repo)
            }
            Place::Private | Place::Unreadable => Err(Stop::Unsettled(format!(
                "prints the git object `{shown}` from the repository at {}, outside the project",
                top.display()
            ))),
        }
    }

    /// Reads an object's bytes, counted against the budget; a larger
    /// object than a file the look would read is an overrun.
    fn git_read(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<(ObjectKind, Vec<u8>), Stop> {
        self.files += 1;
        self.check_budget()?;
        let header = repo
            .repo
            .find_header(id)
            .map_err(|e| unreadable(repo.shown, id, &e))?;
        if header.size() > self.budget.file_bytes {
            return Err(Stop::Unsettled(format!(
                "`{}` prints object {} of {} bytes, more than the {} MiB a look reads of one file",
                repo.shown,
                id.to_hex_with_len(7),
                header.size(),
                self.budget.file_bytes >> 20
            )));
        }
        let object = repo
            .repo
            .find_object(id)
            .map_err(|e| unreadable(repo.shown, id, &e))?;
        let kind = object.kind;
        let data = object.detach().data;
        self.bytes += data.len() as u64;
        self.check_budget()?;
        Ok((kind, data))
    }

    /// Decodes an object read with [`Walker::git_read`].
    fn git_decode<'d>(
        repo: &Repo<'_>,
        id: ObjectId,
        kind: ObjectKind,
        data: &'d [u8],
    ) -> Result<ObjectRef<'d>, Stop> {
        ObjectRef::from_bytes(data, kind, repo.repo.object_hash()).map_err(|e| {
            Stop::Unsettled(format!(
                "`{}`: object {} cannot be decoded ({e})",
                repo.shown,
                id.to_hex_with_len(7)
            ))
        })
    }

    /// Runs the detectors over printed bytes; `place` says where they are
    /// (`HEAD~1:app/settings.py`, `the message of commit 1a2b3c4`).
    fn git_scan(&self, bytes: &[u8], place: impl FnOnce() -> String) -> Result<(), Stop> {
        match crate::secrets::contains_secret(bytes) {
            Some(hit) => Err(Stop::Secret(format!(
                "would print {}: {} line {}",
                hit.kind,
                place(),
                hit.line
            ))),
            None => Ok(()),
        }
    }

    /// A path printed from a repository (a changed file's name, a tree's
    /// entry): a secret file's name counts as it does in the work tree.
    fn git_name(&self, path: &str, place: impl FnOnce() -> String) -> Result<(), Stop> {
        let parts = components(Path::new(path));
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        match crate::spec::paths::secret_class(&parts) {
            Some(class) => Err(Stop::Secret(format!(
                "would print a secret file ({class}): {}",
                place()
            ))),
            None => Ok(()),
        }
    }

    /// A blob printed whole, at `path` (for its name and the reason).
    fn git_blob(
        &mut self,
        repo: &Repo<'_>,
        id: ObjectId,
        path: &str,
        at: &str,
    ) -> Result<(), Stop> {
        let place = || format!("{path} {at}");
        self.git_name(path, place)?;
        let (_, data) = self.git_read(repo, id)?;
        self.git_scan(&data, place)
    }

    /// `REV:path`: the object at a path inside a revision's tree.
    fn git_path(
        &mut self,
        repo: &Repo<'_>,
        id: ObjectId,
        path: &str,
        names_only: bool,
    ) -> Result<(), Stop> {
        let shown = repo.shown.to_string();
        self.git_name(path, || shown.clone())?;
        let (kind, data) = self.git_read(repo, id)?;
        match kind {
            ObjectKind::Tree if names_only => self.git_names(repo, id, &data, path),
            ObjectKind::Tree => self.git_tree_files(repo, id, &data, path, &mut HashSet::new()),
            ObjectKind::Blob => self.git_scan(&data, || shown),
            _ => self.git_shown(repo, id),
        }
    }

    /// A tree listed by its names (`git show HEAD:src`).
    fn git_names(
        &mut self,
        repo: &Repo<'_>,
        id: ObjectId,
        data: &[u8],
        prefix: &str,
    ) -> Result<(), Stop> {
        let ObjectRef::Tree(tree) = Self::git_decode(repo, id, ObjectKind::Tree, data)? else {
            return Ok(());
        };
        for entry in &tree.entries {
            self.files += 1;
            let path = join_path(prefix, entry.filename);
            self.git_name(&path, || {
                format!("{path} in the listing of `{}`", repo.shown)
            })?;
        }
        self.check_budget()
    }

    /// Every file below a tree (`git grep PATTERN REV`), each blob read
    /// once (`seen`).
    fn git_tree_files(
        &mut self,
        repo: &Repo<'_>,
        id: ObjectId,
        data: &[u8],
        prefix: &str,
        seen: &mut HashSet<ObjectId>,
    ) -> Result<(), Stop> {
        let ObjectRef::Tree(tree) = Self::git_decode(repo, id, ObjectKind::Tree, data)? else {
            return Ok(());
        };
        let entries: Vec<(String, ObjectId, bool, bool)> = tree
            .entries
            .iter()
            .map(|e| {
                (
                    join_path(prefix, e.filename),
                    e.oid.to_owned(),
                    e.mode.is_tree(),
                    e.mode.is_commit(),
                )
            })
            .collect();
        let at = format!("in `{}`", repo.shown);
        for (path, oid, is_tree, is_submodule) in entries {
            if is_submodule {
                // A submodule's commit is printed as an id, its files live
                // in another repository.
                continue;
            }
            if is_tree {
                self.git_name(&path, || format!("{path} {at}"))?;
                let (_, sub) = self.git_read(repo, oid)?;
                self.git_tree_files(repo, oid, &sub, &path, seen)?;
            } else if seen.insert(oid) {
                self.git_blob(repo, oid, &path, &at)?;
            } else {
                self.git_name(&path, || format!("{path} {at}"))?;
            }
        }
        Ok(())
    }

    /// A revision's every file (`git grep PATTERN REV`, `git blame
    /// REV`), and the index's where it differs (`git grep --cached`).
    fn git_files(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<(), Stop> {
        let tree = self.git_tree_of(repo, id)?;
        let mut seen = HashSet::new();
        if let Some(tree) = tree {
            let (_, data) = self.git_read(repo, tree)?;
            self.git_tree_files(repo, tree, &data, "", &mut seen)?;
        }
        for (path, blob) in self.git_index(repo)? {
            if seen.insert(blob) {
                self.git_blob(repo, blob, &path, "in the index")?;
            }
        }
        Ok(())
    }

    /// What `git show` prints of one object: a blob's bytes, a tree's
    /// names, a commit and its changes, a tag's message and its target.
    fn git_shown(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<(), Stop> {
        let mut id = id;
        // Tags of tags: bounded by the budget's file count, as each read is.
        loop {
            let (kind, data) = self.git_read(repo, id)?;
            let object = Self::git_decode(repo, id, kind, &data)?;
            match object {
                ObjectRef::Blob(_) => {
                    let shown = repo.shown;
                    return self.git_scan(&data, || format!("`{shown}`"));
                }
                ObjectRef::Tree(_) => return self.git_names(repo, id, &data, ""),
                ObjectRef::Commit(_) => return self.git_commit(repo, id),
                ObjectRef::Tag(tag) => {
                    let shown = repo.shown;
                    self.git_scan(tag.message, || format!("the message of tag `{shown}`"))?;
                    id = tag.target();
                }
            }
        }
    }

    /// One commit as `git show` and `git log -p` print it: its message,
    /// and its changes against each parent (against nothing for a root).
    fn git_commit(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<(), Stop> {
        let (kind, data) = self.git_read(repo, id)?;
        let ObjectRef::Commit(commit) = Self::git_decode(repo, id, kind, &data)? else {
            // A walk only meets commits; anything else is shown as itself.
            return self.git_shown(repo, id);
        };
        let short = id.to_hex_with_len(7).to_string();
        self.git_scan(commit.message, || format!("the message of commit {short}"))?;
        let tree = commit.tree();
        let parents: Vec<ObjectId> = commit.parents().collect();
        let at = format!("in commit {short}");
        if parents.is_empty() {
            return self.git_changes(repo, None, Some(tree), "", &at);
        }
        for parent in parents {
            let old = self.git_tree_of(repo, parent)?;
            self.git_changes(repo, old, Some(tree), "", &at)?;
        }
        Ok(())
    }

    /// The tree of a commit (or of what a tag leads to); `None` for a
    /// blob, which has none.
    fn git_tree_of(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<Option<ObjectId>, Stop> {
        let (id, kind, data) = self.git_peeled(repo, id)?;
        let object = Self::git_decode(repo, id, kind, &data)?;
        Ok(match object {
            ObjectRef::Commit(c) => Some(c.tree()),
            ObjectRef::Tree(_) => Some(id),
            ObjectRef::Tag(_) | ObjectRef::Blob(_) => None,
        })
    }

    /// The object `id` leads to through tags (itself when it is none),
    /// read: its id, kind and bytes. Only the tags are decoded here; the
    /// caller decodes the object, once.
    fn git_peeled(
        &mut self,
        repo: &Repo<'_>,
        id: ObjectId,
    ) -> Result<(ObjectId, ObjectKind, Vec<u8>), Stop> {
        let mut id = id;
        loop {
            let (kind, data) = self.git_read(repo, id)?;
            if kind != ObjectKind::Tag {
                return Ok((id, kind, data));
            }
            let target = match Self::git_decode(repo, id, kind, &data)? {
                ObjectRef::Tag(t) => Some(t.target()),
                _ => None,
            };
            match target {
                Some(target) => id = target,
                None => return Ok((id, kind, data)),
            }
        }
    }

    /// The changes between two trees, both sides of every changed file
    /// (a diff prints removed lines too); equal subtrees are skipped by
    /// their ids, so a commit costs what it changes.
    fn git_changes(
        &mut self,
        repo: &Repo<'_>,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        prefix: &str,
        at: &str,
    ) -> Result<(), Stop> {
        if old == new {
            return Ok(());
        }
        let mut sides: BTreeMap<Vec<u8>, [Option<(ObjectId, Mode)>; 2]> = BTreeMap::new();
        for (side, tree) in [old, new].into_iter().enumerate() {
            for (name, oid, mode) in self.git_entries(repo, tree)? {
                sides.entry(name).or_default()[side] = Some((oid, mode));
            }
        }
        for (name, [a, b]) in sides {
            if a == b {
                continue;
            }
            let path = join_path(prefix, name.as_bstr());
            self.git_name(&path, || format!("{path} {at}"))?;
            let tree_side =
                |s: Option<(ObjectId, Mode)>| s.filter(|s| s.1 == Mode::Tree).map(|s| s.0);
            let (ta, tb) = (tree_side(a), tree_side(b));
            if ta.is_some() || tb.is_some() {
                self.git_changes(repo, ta, tb, &path, at)?;
            }
            for (oid, mode) in [a, b].into_iter().flatten() {
                if mode == Mode::Blob {
                    self.git_blob(repo, oid, &path, at)?;
                }
            }
        }
        Ok(())
    }

    /// A tree's entries (none for no tree), owned so that reads may go on.
    fn git_entries(&mut self, repo: &Repo<'_>, tree: Option<ObjectId>) -> Result<Vec<Entry>, Stop> {
        let Some(id) = tree else {
            return Ok(Vec::new());
        };
        let (kind, data) = self.git_read(repo, id)?;
        let ObjectRef::Tree(tree) = Self::git_decode(repo, id, kind, &data)? else {
            return Ok(Vec::new());
        };
        Ok(tree
            .entries
            .iter()
            .map(|e| {
                let mode = if e.mode.is_tree() {
                    Mode::Tree
                } else if e.mode.is_commit() {
                    Mode::Submodule
                } else {
                    Mode::Blob
                };
                (e.filename.to_vec(), e.oid.to_owned(), mode)
            })
            .collect())
    }

    /// Every commit a walk meets (`git log -p REV`, `A..B`, `A...B`), each
    /// as [`Walker::git_commit`] reads it, within the budget.
    fn git_walk(&mut self, repo: &Repo<'_>, spec: &Spec) -> Result<(), Stop> {
        let (tips, hidden): (Vec<ObjectId>, Vec<ObjectId>) = match *spec {
            Spec::Include(id) => (vec![id], vec![]),
            // `^A` alone walks nothing.
            Spec::Exclude(_) => return Ok(()),
            Spec::Range { from, to } => (vec![to], vec![from]),
            Spec::Merge { theirs, ours } => {
                let base = repo
                    .repo
                    .merge_base(theirs, ours)
                    .map_err(|e| unresolved(repo.shown, &e))?;
                (
                    vec![theirs, ours],
                    base.map(|b| b.detach()).into_iter().collect(),
                )
            }
            Spec::IncludeOnlyParents(id) => (self.git_parents(repo, id)?, vec![]),
            Spec::ExcludeParents(id) => return self.git_commit(repo, id),
        };
        self.git_walk_from(repo, tips, hidden)
    }

    fn git_walk_from(
        &mut self,
        repo: &Repo<'_>,
        tips: Vec<ObjectId>,
        hidden: Vec<ObjectId>,
    ) -> Result<(), Stop> {
        let mut commits = Vec::new();
        let mut others = Vec::new();
        for tip in tips {
            // A walk starts from commits; a tag is peeled, a tree or blob
            // tip (`git log -p v1^{tree}`) is shown as itself.
            match self.git_peel_commit(repo, tip)? {
                Some(c) => commits.push(c),
                None => others.push(tip),
            }
        }
        for other in others {
            self.git_shown(repo, other)?;
        }
        if commits.is_empty() {
            return Ok(());
        }
        let walk = repo
            .repo
            .rev_walk(commits)
            .with_hidden(hidden)
            .all()
            .map_err(|e| unresolved(repo.shown, &e))?;
        for info in walk {
            let info = info.map_err(|e| unresolved(repo.shown, &e))?;
            self.git_commit(repo, info.id)?;
        }
        Ok(())
    }

    /// The commit an object leads to through tags, if it is one.
    fn git_peel_commit(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<Option<ObjectId>, Stop> {
        let (id, kind, _) = self.git_peeled(repo, id)?;
        Ok((kind == ObjectKind::Commit).then_some(id))
    }

    fn git_parents(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<Vec<ObjectId>, Stop> {
        let (id, kind, data) = self.git_peeled(repo, id)?;
        let object = Self::git_decode(repo, id, kind, &data)?;
        match object {
            ObjectRef::Commit(c) => Ok(c.parents().collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// `--all` and its kin: the history of every ref and of `HEAD`.
    fn every_ref(&mut self, repo: &Repo<'_>) -> Result<(), Stop> {
        let mut tips = Vec::new();
        let head = repo.repo.head_id().ok().map(|id| id.detach());
        tips.extend(head);
        let refs = repo
            .repo
            .references()
            .map_err(|e| unresolved(repo.shown, &e))?;
        let all = refs.all().map_err(|e| unresolved(repo.shown, &e))?;
        for r in all {
            let mut r = r.map_err(|e| unresolved(repo.shown, &e))?;
            let id = r.peel_to_id().map_err(|e| unresolved(repo.shown, &e))?;
            tips.push(id.detach());
        }
        self.git_walk_from(repo, tips, Vec::new())
    }

    /// `git diff` and its kin: a range's two ends compared; one revision
    /// compared with the index and the work tree.
    fn git_diff(&mut self, repo: &Repo<'_>, spec: &Spec) -> Result<(), Stop> {
        let at = format!("in the diff of `{}`", repo.shown);
        match *spec {
            Spec::Range { from, to } => {
                let (a, b) = (self.git_tree_of(repo, from)?, self.git_tree_of(repo, to)?);
                self.git_changes(repo, a, b, "", &at)
            }
            // `git diff A...B`: from where the two met to B.
            Spec::Merge { theirs, ours } => {
                let base = repo
                    .repo
                    .merge_base(theirs, ours)
                    .map_err(|e| unresolved(repo.shown, &e))?
                    .ok_or_else(|| {
                        Stop::Unsettled(format!("`{}`: the two sides share no commit", repo.shown))
                    })?;
                let (a, b) = (
                    self.git_tree_of(repo, base.detach())?,
                    self.git_tree_of(repo, ours)?,
                );
                self.git_changes(repo, a, b, "", &at)
            }
            Spec::Include(id) | Spec::ExcludeParents(id) => self.git_against_work_tree(repo, id),
            ref other => self.git_walk(repo, other),
        }
    }

    /// The index's entries: path and blob, every stage (a conflict's
    /// sides are all printed); submodules left out.
    fn git_index(&mut self, repo: &Repo<'_>) -> Result<Vec<(String, ObjectId)>, Stop> {
        let index = repo.repo.index_or_empty().map_err(|e| {
            Stop::Unsettled(format!("`{}`: the index cannot be read ({e})", repo.shown))
        })?;
        let entries: Vec<(String, ObjectId)> = index
            .entries()
            .iter()
            .filter(|e| !e.mode.is_submodule())
            .map(|e| (e.path(&index).to_str_lossy().into_owned(), e.id))
            .collect();
        // Not counted here: each entry is counted where its blob or its
        // work tree file is read (a name listed twice is one file).
        self.check_budget()?;
        Ok(entries)
    }

    /// Every blob of a tree by path (a diff against the work tree
    /// compares path by path).
    fn git_flatten(
        &mut self,
        repo: &Repo<'_>,
        tree: ObjectId,
        prefix: &str,
        out: &mut Vec<(String, ObjectId)>,
    ) -> Result<(), Stop> {
        for (name, oid, mode) in self.git_entries(repo, Some(tree))? {
            let path = join_path(prefix, name.as_bstr());
            match mode {
                Mode::Tree => self.git_flatten(repo, oid, &path, out)?,
                Mode::Blob => out.push((path, oid)),
                Mode::Submodule => {}
            }
        }
        Ok(())
    }

    /// One revision set against the index and the work tree, path by
    /// path: wherever the three differ, every side is scanned. That covers
    /// `git diff` (index to work tree), `git diff REV` (revision to work
    /// tree), `git diff --cached REV` (revision to index) and `git diff
    /// A B` (each end's touch covers the paths where it differs).
    fn git_against_work_tree(&mut self, repo: &Repo<'_>, id: ObjectId) -> Result<(), Stop> {
        let mut revision = Vec::new();
        if let Some(tree) = self.git_tree_of(repo, id)? {
            self.git_flatten(repo, tree, "", &mut revision)?;
        }
        // Path: the revision's blob, the index's (a stage each).
        let mut paths: BTreeMap<String, (Option<ObjectId>, Vec<ObjectId>)> = BTreeMap::new();
        for (path, blob) in revision {
            paths.entry(path).or_default().0 = Some(blob);
        }
        for (path, blob) in self.git_index(repo)? {
            paths.entry(path).or_default().1.push(blob);
        }
        let workdir = repo.repo.workdir().map(Path::to_path_buf);
        let hash = repo.repo.object_hash();
        let at = format!("in the diff of `{}`", repo.shown);
        for (path, (in_rev, staged)) in paths {
            let work = match &workdir {
                Some(dir) => self.git_work_file(&dir.join(&path), hash)?,
                None => None,
            };
            let work_id = work.as_ref().map(|w| w.id);
            let mut sides = in_rev.iter().chain(staged.iter()).chain(work_id.iter());
            let first = sides.next();
            let unchanged = in_rev.is_some()
                && !staged.is_empty()
                && (workdir.is_none() || work_id.is_some())
                && sides.all(|s| Some(s) == first);
            if unchanged {
                continue;
            }
            let mut read = HashSet::new();
            for blob in in_rev.into_iter().chain(staged) {
                if Some(blob) != work_id && read.insert(blob) {
                    self.git_blob(repo, blob, &path, &at)?;
                }
            }
            if let (Some(dir), Some(work)) = (&workdir, work) {
                let file = dir.join(&path);
                let shown = self.shown(&file);
                if work.link {
                    // git prints a link's text, not what it leads to.
                    self.git_name(&path, || shown.clone())?;
                } else {
                    // Judged where the work tree's file leads, as a read is.
                    self.target(&file, &shown)?;
                }
                self.git_scan(&work.bytes, || shown)?;
            }
        }
        Ok(())
    }

    /// A work tree file as git would hash it, read within the budget:
    /// a link by its text (git stores a link as a blob of its target), a
    /// regular file by its bytes; `None` when it is not there (deleted, or
    /// neither, which git does not show).
    fn git_work_file(
        &mut self,
        path: &Path,
        hash: gix::hash::Kind,
    ) -> Result<Option<WorkFile>, Stop> {
        self.files += 1;
        self.check_budget()?;
        // The link's own text: read from the file system itself, as gix
        // reads the repository (the look's World has no readlink).
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let (bytes, link) = if is_link {
            let text = std::fs::read_link(path)
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    gix::path::into_bstr(t)
                        .map(|b| b.into_owned().into())
                        .map_err(|e| e.to_string())
                });
            match text {
                Ok(text) => (text, true),
                Err(e) => return Err(self.cannot_read(path, &e)),
            }
        } else {
            match self.world.read(path, self.budget.file_bytes) {
                Ok(super::Contents::Bytes(bytes)) => (bytes, false),
                Ok(super::Contents::TooLarge(n)) => return Err(self.too_large(path, n)),
                Ok(super::Contents::NotRegular) => return Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(self.cannot_read(path, &e)),
            }
        };
        self.bytes += bytes.len() as u64;
        self.check_budget()?;
        let id = gix::objs::compute_hash(hash, ObjectKind::Blob, &bytes)
            .map_err(|e| Stop::Unsettled(format!("{} cannot be hashed ({e})", self.shown(path))))?;
        Ok(Some(WorkFile { id, bytes, link }))
    }
}

/// A work tree file as git would compare it with a blob.
struct WorkFile {
    /// Its blob id.
    id: ObjectId,
    /// What `git diff` would print of it.
    bytes: Vec<u8>,
    /// A link, printed by its text.
    link: bool,
}

/// What a tree entry holds, for a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Tree,
    Blob,
    Submodule,
}

/// A tree entry: name, id, what it holds.
type Entry = (Vec<u8>, ObjectId, Mode);

/// `prefix/name`, or `name` at the top.
fn join_path(prefix: &str, name: &BStr) -> String {
    let name = name.to_str_lossy();
    if prefix.is_empty() {
        name.into_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

/// The single object a revision names, when it names one.
fn single(spec: &Spec) -> Option<ObjectId> {
    match *spec {
        Spec::Include(id) | Spec::ExcludeParents(id) => Some(id),
        _ => None,
    }
}

/// Fails a revision that finds its commit by a regular expression gix
/// would read as plain text (see [`REGEX_CHARS`]): the text of `:/text`
/// is the rest of the word; of `REV^{/text}`, up to the last `}` (a `}`
/// inside the text, which two readers could end at different braces, is
/// itself refused).
fn searches_by_text(rev: &str) -> Result<(), Stop> {
    let text = match (rev.strip_prefix(":/"), rev.find("^{/")) {
        (Some(text), _) => text,
        (None, Some(at)) => {
            let after = &rev[at + 3..];
            &after[..after.rfind('}').unwrap_or(after.len())]
        }
        (None, None) => return Ok(()),
    };
    if text.contains(REGEX_CHARS) {
        return Err(Stop::Unsettled(format!(
            "`{rev}` finds its commit by a regular expression, which the look does not match as git would"
        )));
    }
    Ok(())
}

/// Fails a revision that names a reflog entry by date
/// (`main@{yesterday}`, `@{2024-01-01 10:00}`): git reads the date with
/// its approxidate, which takes nearly any words, and gix reads dates its
/// own way; an entry picked by a differently read date is another
/// commit. Counts (`@{1}`, `@{-1}`) and `@{upstream}`, `@{push}` are read
/// alike by both.
fn reflog_by_date(rev: &str) -> Result<(), Stop> {
    let mut rest = rev;
    while let Some(at) = rest.find("@{") {
        let after = &rest[at + 2..];
        let end = after.find('}').unwrap_or(after.len());
        let inner = &after[..end];
        let count = inner.strip_prefix('-').unwrap_or(inner);
        let alike = (!count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()))
            || ["u", "upstream", "push"]
                .iter()
                .any(|w| inner.eq_ignore_ascii_case(w));
        if !alike {
            return Err(Stop::Unsettled(format!(
                "`{rev}` names a reflog entry by date, which the look does not read as git would"
            )));
        }
        rest = &after[end..];
    }
    Ok(())
}

/// A `REV:./path` or `REV:../path` is relative to where the command runs;
/// the object store knows paths from the top of the work tree.
fn top_relative(
    repo: &gix::Repository,
    base: &Path,
    path: &str,
    shown: &str,
) -> Result<String, Stop> {
    if !(path == "." || path == ".." || path.starts_with("./") || path.starts_with("../")) {
        return Ok(path.to_string());
    }
    let top = repo.workdir().map(places::lexical);
    let full = places::lexical(&base.join(path));
    let rel = top
        .as_deref()
        .and_then(|t| full.strip_prefix(t).ok())
        .map(PathBuf::from);
    match rel {
        Some(rel) => Ok(rel.to_string_lossy().replace('\\', "/")),
        None => Err(Stop::Unsettled(format!(
            "`{shown}` names a path outside the work tree"
        ))),
    }
}

/// Fails a repository whose objects git reads through a rewrite gix does
/// not apply here: replacement refs (`refs/replace/`, which git applies
/// unless told not to) and grafts (`info/grafts`, which give commits other
/// parents): either can make git print other objects than the look read.
fn rewrites_history(repo: &Repo<'_>) -> Result<(), Stop> {
    let replaced = repo
        .repo
        .references()
        .and_then(|r| r.prefixed("refs/replace/").map(|mut i| i.next().is_some()))
        .map_err(|e| unresolved(repo.shown, &e))?;
    let grafted = repo.repo.common_dir().join("info").join("grafts").exists();
    if replaced || grafted {
        return Err(Stop::Unsettled(format!(
            "`{}` is read through the repository's {}, which the look does not apply as git would",
            repo.shown,
            if replaced {
                "replacement refs"
            } else {
                "grafts"
            }
        )));
    }
    Ok(())
}

/// Fails a repository with notes: `git show` and `git log` print a
/// commit's note under its message, from `refs/notes/commits` or the ref
/// the config names, and the look does not read notes.
fn notes(repo: &Repo<'_>) -> Result<(), Stop> {
    let config = repo.repo.config_snapshot();
    let named = ["core.notesRef", "notes.displayRef"]
        .iter()
        .any(|key| config.string(*key).is_some());
    let stored = repo
        .repo
        .references()
        .and_then(|r| r.prefixed("refs/notes/").map(|mut i| i.next().is_some()))
        .map_err(|e| unresolved(repo.shown, &e))?;
    if named || stored {
        return Err(Stop::Unsettled(format!(
            "`{}` prints commits with their notes, which the look does not read",
            repo.shown
        )));
    }
    Ok(())
}

fn unresolved(shown: &str, e: &dyn std::fmt::Display) -> Stop {
    Stop::Unsettled(format!(
        "prints the git object `{shown}`, whose revision the look cannot resolve ({e})"
    ))
}

fn unresolved_single(shown: &str) -> Stop {
    Stop::Unsettled(format!(
        "prints the git object `{shown}`, which does not name a single object"
    ))
}

fn unreadable(shown: &str, id: ObjectId, e: &dyn std::fmt::Display) -> Stop {
    Stop::Unsettled(format!(
        "`{shown}`: object {} cannot be read ({e})",
        id.to_hex_with_len(7)
    ))
}
