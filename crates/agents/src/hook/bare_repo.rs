//! A working directory git would read as a bare repository.
//!
//! git finds its repository by walking up from where it runs: at each
//! directory, a `.git` there wins; failing that, a directory that itself
//! looks like a repository (`HEAD`, `objects/`, `refs/`) is taken as a bare
//! one, and its `config` is git's. A project can commit such files at any
//! level, and their config can name programs (a diff driver's `textconv`,
//! `core.pager`, `core.fsmonitor`) that a read such as `git log -p` then
//! runs. The classifier does no I/O and cannot see this; the hook, which
//! knows the call's working directory, looks before it lets git run.

use std::path::Path;

/// How many directories up the walk looks.
const MAX_LEVELS: usize = 64;

/// The directory git would take for a bare repository when run in `cwd`,
/// if any: the first directory from `cwd` upward that looks like one before
/// any holds a `.git`.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("toolgate-bare-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("objects")).unwrap();
/// std::fs::create_dir_all(dir.join("refs")).unwrap();
/// std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
/// assert_eq!(toolgate_agents::hook::bare_repository_above(&dir).as_deref(), Some(dir.as_path()));
/// std::fs::create_dir_all(dir.join(".git")).unwrap();
/// assert_eq!(toolgate_agents::hook::bare_repository_above(&dir), None);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn bare_repository_above(cwd: &Path) -> Option<std::path::PathBuf> {
    let mut dir = Some(cwd);
    for _ in 0..MAX_LEVELS {
        let d = dir?;
        if d.join(".git").exists() {
            return None;
        }
        if d.join("HEAD").is_file() && d.join("objects").is_dir() && d.join("refs").is_dir() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// Whether a shell command may run git: any word `git` (or ending in
/// `/git`). Reading the words loosely is the cautious side: a false yes
/// only costs a few `stat` calls.
pub fn may_run_git(command: &str) -> bool {
    command
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '\'' | '"')
        })
        .any(|w| w == "git" || w.ends_with("/git"))
}
