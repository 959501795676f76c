//! What a call would touch: the files it reads, the trees it walks, the
//! git objects it prints, and where each part of it runs.
//!
//! The classifier reads words, not the world: it can say that `cat
//! deploy/cluster.yaml` reads one project file, but not whether that file
//! holds a token. The reach is what it hands to whoever can look (the
//! hook, `scan --look`, a runtime through [`look`](crate::look)), computed
//! by the same spec roles that made the verdict, so the look checks exactly
//! what the words were judged to read.

use serde::Serialize;

/// Everything a call would read, in the order its words name it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reach {
    /// Each thing read.
    pub touches: Vec<Touch>,
    /// Why text alone cannot clear some of those reads (a tree search of
    /// the working directory, a system file, a sibling folder): only a
    /// clean look lets the gate allow the call. Empty when the words alone
    /// clear every read.
    pub needs_look: Vec<String>,
}

impl Reach {
    /// Whether the call reads nothing a look would check.
    pub fn is_empty(&self) -> bool {
        self.touches.is_empty()
    }

    pub(crate) fn add(&mut self, touch: Touch) {
        if !self.touches.contains(&touch) {
            self.touches.push(touch);
        }
    }

    pub(crate) fn note_needs_look(&mut self, why: String) {
        if !self.needs_look.contains(&why) {
            self.needs_look.push(why);
        }
    }
}

/// One thing a call reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Touch {
    /// Which part of a list or pipeline reads it (0 for a simple command).
    pub part: usize,
    /// Where that part runs when an earlier `cd` or `pushd` moved the
    /// shell: the directory as written, relative to the call's working
    /// directory or absolute. `None`: the call's working directory.
    pub dir: Option<String>,
    /// What is read.
    pub target: Target,
}

/// What a [`Touch`] reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// A file (or a directory listed, not walked), as written.
    File {
        /// The path.
        path: String,
    },
    /// Every file below a directory (`grep -r`, `rg`, `find`).
    Tree {
        /// The directory.
        path: String,
    },
    /// The files a glob the shell expands names (`cat src/*.rs`).
    Glob {
        /// The glob as written.
        pattern: String,
    },
    /// A file the command prints decoded or transformed (`zcat`, `base64
    /// -d`, `iconv`, `rev`): the detectors cannot see what it would print
    /// in the bytes it reads.
    Decoded {
        /// The path.
        path: String,
    },
    /// A git object printed: a revision's blob (`REV:path`), or what a
    /// revision's commits change (`git show REV`, `git diff REV`).
    GitObject {
        /// The revision as written (`HEAD~2`, `main@{yesterday}`, `A..B`).
        /// A revision option (`--all`, `--reflog`) stands for the commits
        /// it adds to a walk.
        rev: String,
        /// The path inside the revision's tree, for `REV:path`.
        path: Option<String>,
        /// What the command prints of it: the same revision is one commit
        /// to `git show`, all its history to `git log -p`, and one side of
        /// a comparison with the work tree to `git diff`.
        shows: Shows,
    },
}

/// What a git command prints of a revision it names, so that a look
/// reads no less than the command prints (and not all of history for
/// `git show`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shows {
    /// The object itself (`git show`, `git cat-file -p`, `git stash show
    /// -p`): a blob's bytes, a tree's names, a tag's message and what it
    /// tags, a commit's message and its changes against its parents; a
    /// range, each of its commits so.
    Object,
    /// Every commit reachable from it, each with its message and changes
    /// (`git log -p`, `git whatchanged`, `git diff-tree`).
    History,
    /// One side of a comparison with the index and the work tree (`git
    /// diff REV`, `git status -v`); a range, its two ends compared.
    Diff,
    /// Every file of its tree (`git grep PATTERN REV`, `git blame REV`).
    Files,
}

impl Target {
    /// The path or pattern a person would recognise it by.
    pub fn shown(&self) -> String {
        match self {
            Target::File { path } | Target::Tree { path } | Target::Decoded { path } => {
                path.clone()
            }
            Target::Glob { pattern } => pattern.clone(),
            Target::GitObject {
                rev, path: Some(p), ..
            } => format!("{rev}:{p}"),
            Target::GitObject {
                rev, path: None, ..
            } => rev.clone(),
        }
    }
}

/// What a look at a call's reach found (see [`look`](crate::look)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "reason", rename_all = "snake_case")]
pub enum Outcome {
    /// Nothing the call reads holds a secret, as far as the look saw.
    Clear,
    /// The call would read a secret: the reason names the file, the line
    /// and the kind of secret, never its value.
    Secret(String),
    /// The look could not settle it: why.
    Unsettled(String),
}

/// Splits `REV:path` where git does: at the first colon that is not
/// inside a `^{…}` or `@{…}` suffix, whose text may hold colons
/// (`HEAD^{/fix: typo}:secret.env`, `main@{2024-01-01 10:00:00}:.env`).
/// A leading `:N:` (an index stage) is part of the revision. `None` when
/// the word holds no such colon (a plain revision).
pub fn split_rev_path(word: &str) -> Option<(&str, &str)> {
    let bytes = word.as_bytes();
    // `:0:path`, `:path`: the index, the revision is the stage.
    if let Some(rest) = word.strip_prefix(':') {
        let stage_end = rest
            .find(':')
            .filter(|&at| at > 0 && rest[..at].bytes().all(|b| b.is_ascii_digit()));
        return Some(match stage_end {
            Some(at) => (&word[..at + 2], &rest[at + 1..]),
            None => (":", rest),
        });
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if i > 0 && matches!(bytes[i - 1], b'^' | b'@') => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b':' if depth == 0 => return Some((&word[..i], &word[i + 1..])),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rev_and_path_split_where_git_splits_them() {
        for (word, want) in [
            ("HEAD:src/main.rs", Some(("HEAD", "src/main.rs"))),
            (
                "HEAD^{/fix: typo}:.env",
                Some(("HEAD^{/fix: typo}", ".env")),
            ),
            (
                "main@{2024-01-01 10:00:00}:.env",
                Some(("main@{2024-01-01 10:00:00}", ".env")),
            ),
            ("v1^{tree}:a:b", Some(("v1^{tree}", "a:b"))),
            (":0:.env", Some((":0:", ".env"))),
            (":.env", Some((":", ".env"))),
            ("HEAD~2", None),
            ("HEAD^{/fix: typo}", None),
            ("main@{1}", None),
        ] {
            assert_eq!(split_rev_path(word), want, "{word}");
        }
    }

    /// The git objects a command's reach names, as (revision, path,
    /// shows).
    fn git_reach(command: &str) -> Vec<(String, Option<String>, Shows)> {
        let classifier = match crate::Classifier::embedded() {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let ctx = crate::Context { cwd: Some("/app") };
        let a = classifier.assess_reaching(command, &ctx);
        a.reach
            .map(|r| r.touches)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| match t.target {
                Target::GitObject { rev, path, shows } => Some((rev, path, shows)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_git_reach_says_what_the_command_prints_of_each_revision() {
        let o = |rev: &str, path: Option<&str>, shows| {
            (rev.to_string(), path.map(str::to_string), shows)
        };
        for (command, want) in [
            (
                "git show HEAD~1:app/x.py",
                vec![o("HEAD~1", Some("app/x.py"), Shows::Object)],
            ),
            ("git show", vec![o("HEAD", None, Shows::Object)]),
            ("git show HEAD~2", vec![o("HEAD~2", None, Shows::Object)]),
            ("git log -p", vec![o("HEAD", None, Shows::History)]),
            (
                "git log -p main..topic",
                vec![o("main..topic", None, Shows::History)],
            ),
            ("git log -p --all", vec![o("--all", None, Shows::History)]),
            (
                "git log -p --branches",
                vec![o("--all", None, Shows::History)],
            ),
            (
                "git log -p --reflog",
                vec![o("--reflog", None, Shows::History)],
            ),
            ("git log -p -g", vec![o("-g", None, Shows::History)]),
            ("git diff HEAD~1", vec![o("HEAD~1", None, Shows::Diff)]),
            ("git diff", vec![o("HEAD", None, Shows::Diff)]),
            ("git stash show -p", vec![o("stash", None, Shows::Object)]),
            ("git cat-file -p HEAD", vec![o("HEAD", None, Shows::Object)]),
            (
                "git stash list -p",
                vec![o("--walk-reflogs", None, Shows::History)],
            ),
            (
                "git reflog -p",
                vec![o("--walk-reflogs", None, Shows::History)],
            ),
            ("git stash list", vec![]),
            ("git log --oneline", vec![]),
            ("git log --all --oneline", vec![]),
        ] {
            assert_eq!(git_reach(command), want, "{command}");
        }
    }
}
