//! Self-protection in the walk: a path is judged as the shell reaches it,
//! after `cd` and through git's own file changes, against the guard's
//! files ([`crate::guard_paths`]).

use std::borrow::Cow;

use super::walk::Walk;
use crate::normalize::{self, canonical_with, Invocation};
use crate::shell::Word;

impl Walk<'_, '_> {
    /// Follows `cd DIR` (and `pushd DIR`): later relative paths are
    /// reached from `DIR`. A move nobody can follow (`cd -`, `cd "$X"`)
    /// forgets where the shell is.
    pub(super) fn note_move(&mut self, inv: &Invocation<'_>) {
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
    pub(super) fn guard_spellings(
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
    pub(super) fn find_guard_entries(
        &mut self,
        inv: &Invocation<'_>,
        spec: Option<&crate::taxonomy::CommandSpec>,
        groups: &crate::matcher::Applicable<'_>,
        display: &str,
        hits: &mut Vec<usize>,
    ) {
        let tax = self.tax;
        let canon = canonical_with(inv, spec, tax, String::new());
        if self
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
    pub(super) fn guard_git(&mut self, inv: &Invocation<'_>, hits: &mut Vec<usize>) {
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
        let groups = self.matcher.groups_for(&self.matcher.destructive, "rm");
        let spec = normalize::command_spec(&as_rm, self.tax);
        self.find_guard_entries(&as_rm, spec, &groups, &inv.display(), hits);
    }
}

/// Where `cd DIR` (or `git -C DIR`) leads from `from`, the directory an
/// earlier move led to, if any: `DIR` itself when it is absolute or starts
/// at the home directory, else `DIR` below `from`.
pub(super) fn moved_from(from: Option<&str>, dir: &str) -> String {
    match from {
        Some(from) if !dir.starts_with(['/', '~']) => format!("{from}/{dir}"),
        _ => dir.to_string(),
    }
}
