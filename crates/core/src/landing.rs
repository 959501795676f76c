//! Where a write or a delete lands, and the blast radius that follows.
//!
//! A destructive entry declares the radius of its worst case (`rm -rf`:
//! high). For the entries that write, modify or delete files, what is at
//! stake depends on where: a build directory inside the project or a file
//! under `/tmp` is not the home directory. [`radius_of_targets`] grades
//! every path a command names:
//!
//! * **low**: below the working directory when it is known (not the
//!   directory itself, not `.git`, and not when it is the root, a home
//!   directory or a system directory), or below the temporary directory;
//! * **medium**: elsewhere in the user's files (below the home directory,
//!   another absolute path, a path that climbs out with `..`);
//! * **high**: system paths, the home directory itself, the root, and
//!   files that run code: shell start-up files, `authorized_keys`,
//!   crontabs, git hooks, autostart entries, systemd units.
//!
//! The call's radius is the worst of its paths'. A path whose place cannot
//! be known (a relative path when no working directory was given, an
//! expansion, the working directory itself) keeps the entry's own radius,
//! and so does a command that names no path at all.

use crate::label::BlastRadius;
use crate::spec::paths::normalize as lexical;
use crate::spec::Context;

/// The categories whose radius follows from where they land.
pub const BY_TARGET: &[&str] = &["fs-delete", "fs-overwrite", "fs-modify"];

/// The radius of a write or delete naming `targets` (its operands and
/// option values), given the entry's own `declared` radius.
///
/// ```
/// use toolgate_core::landing::radius_of_targets;
/// use toolgate_core::{BlastRadius, Context};
/// let here = Context { cwd: Some("/app") };
/// let r = |targets: &[&str]| radius_of_targets(targets, &here, BlastRadius::High);
/// assert_eq!(r(&["build"]), BlastRadius::Low);
/// // With no working directory a relative path could be anywhere.
/// assert_eq!(radius_of_targets(&["build"], &Context::default(), BlastRadius::High), BlastRadius::High);
/// assert_eq!(r(&["/tmp/x"]), BlastRadius::Low);
/// assert_eq!(r(&["/app/dist"]), BlastRadius::Low);
/// assert_eq!(r(&["~/notes"]), BlastRadius::Medium);
/// assert_eq!(r(&["~/.bashrc"]), BlastRadius::High);
/// assert_eq!(r(&["build", "/etc/hosts"]), BlastRadius::High);
/// assert_eq!(r(&["."]), BlastRadius::High); // the whole project: as declared
/// ```
pub fn radius_of_targets(targets: &[&str], ctx: &Context, declared: BlastRadius) -> BlastRadius {
    Places::of(targets, ctx).radius(declared)
}

/// Where each of a command's paths lands, worked out once for every entry
/// the command matches (`rm -rf build` matches three, each with its own
/// declared radius).
#[derive(Clone, Debug)]
pub struct Places {
    /// The radius of each target's place; `None` where it cannot be known.
    each: Vec<Option<BlastRadius>>,
}

impl Places {
    /// The places of `targets` seen from `ctx`.
    pub fn of(targets: &[&str], ctx: &Context) -> Places {
        Places {
            each: targets.iter().map(|t| place(t, ctx)).collect(),
        }
    }

    /// The call's radius for an entry that declares `declared`: the worst
    /// place, an unknown place counting as declared, and declared when no
    /// path is named.
    pub fn radius(&self, declared: BlastRadius) -> BlastRadius {
        self.each
            .iter()
            .map(|p| p.unwrap_or(declared))
            .max()
            .unwrap_or(declared)
    }
}

/// Whether a command run by `via` (the classifier's name for what ran it)
/// runs on this machine, so that its paths are this machine's: shells and
/// local runners yes, `ssh`, `docker exec`, `kubectl exec` and the like no.
pub fn runs_here(via: &str) -> bool {
    let first = via.split_whitespace().next().unwrap_or("");
    matches!(
        first,
        "bash"
            | "sh"
            | "zsh"
            | "dash"
            | "ksh"
            | "fish"
            | "eval"
            | "source"
            | "."
            | "redirection"
            | "find"
            | "xargs"
            | "nohup"
            | "command"
            | "exec"
            | "time"
            | "timeout"
            | "nice"
            | "watch"
            | "parallel"
    )
}

/// The paths a write or delete names: for a copy (`cp`, `install`, `ln`,
/// `rsync`, `scp`) its destination, the last operand; for `dd` its `of=`;
/// for anything else every operand. Option values that hold a path
/// (`--target-directory=/etc`, `-t/etc`) always count: an option may name
/// the destination.
pub fn targets<'w>(name: &str, args: &'w [&'w str]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut operands = Vec::new();
    let mut dashdash = false;
    let mut target_next = false;
    for &a in args {
        if std::mem::take(&mut target_next) {
            // `cp -t DIR`, `--target-directory DIR`: the destination.
            out.push(a);
            continue;
        }
        if !dashdash && (a == "-t" || (a.starts_with("--t") && "--target-directory".starts_with(a)))
        {
            target_next = true;
            continue;
        }
        if !dashdash && a == "--" {
            dashdash = true;
            continue;
        }
        if !dashdash && a.len() > 1 && a.starts_with('-') {
            let value = match a.split_once('=') {
                Some((_, v)) => v,
                None => a
                    .trim_start_matches('-')
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic()),
            };
            if !value.is_empty() && value.starts_with(['/', '~', '.']) {
                out.push(value);
            }
            continue;
        }
        operands.push(a);
    }
    match name {
        "cp" | "install" | "ln" | "rsync" | "scp" => out.extend(operands.last()),
        "dd" => out.extend(operands.iter().filter_map(|a| a.strip_prefix("of="))),
        _ => out.extend(operands),
    }
    out
}

/// Start-up files and other files whose contents a program runs.
const RUNS_CODE: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".xinitrc",
    ".xprofile",
    ".xsession",
    "authorized_keys",
    "authorized_keys2",
    "crontab",
    "config.fish",
    ".envrc",
];

/// Directories whose files a program runs or trusts.
const RUNS_CODE_DIRS: &[&str] = &[
    ".ssh",
    "hooks",
    "autostart",
    "systemd",
    "cron.d",
    "cron.daily",
    "cron.hourly",
    "cron.weekly",
    "cron.monthly",
    "init.d",
    "profile.d",
    "sudoers.d",
];

/// Top-level directories of the system.
const SYSTEM_ROOTS: &[&str] = &[
    "etc",
    "usr",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "boot",
    "opt",
    "var",
    "srv",
    "sys",
    "proc",
    "dev",
    "root",
    "System",
    "Library",
    "Applications",
    "private",
    "snap",
];

/// The radius of one path, or `None` when its place cannot be known.
fn place(target: &str, ctx: &Context) -> Option<BlastRadius> {
    // `of=/tmp/x`, `--output=/etc/x`: the path after the `=`.
    let path = match target.split_once('=') {
        Some((_, value)) if value.starts_with(['/', '~', '.']) => value,
        _ => target,
    };
    if path.is_empty() || path.contains(['$', '`']) {
        return None;
    }
    if path == "/dev/null" || path == "/dev/stdout" || path == "/dev/stderr" {
        return Some(BlastRadius::Low);
    }
    if path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/") {
        // A connection, not a file: other entries judge it.
        return None;
    }
    if path
        .split('/')
        .any(|p| RUNS_CODE.contains(&p) || RUNS_CODE_DIRS.contains(&p))
    {
        return Some(BlastRadius::High);
    }
    if let Some(rest) = path.strip_prefix('~') {
        // `~` or `~/`: the home directory itself; `~user/…` the same.
        let below = rest.split_once('/').map_or("", |(_, r)| r);
        return Some(if lexical(below).is_some_and(|b| b.is_empty()) {
            BlastRadius::High
        } else {
            BlastRadius::Medium
        });
    }
    let cwd = ctx.cwd.and_then(|c| lexical(c.trim_start_matches('/')));
    let abs = match (path.strip_prefix('/'), &cwd) {
        (Some(rest), _) => lexical_owned(rest)?,
        // Relative to a directory nobody named: anywhere.
        (None, None) => return None,
        (None, Some(cwd)) => {
            let mut joined = cwd.join("/");
            joined.push('/');
            joined.push_str(path);
            lexical_owned(&joined)?
        }
    };
    let abs: Vec<&str> = abs.iter().map(String::as_str).collect();
    if let Some(cwd) = cwd.filter(|c| !broad(c)) {
        if abs.len() > cwd.len() && abs[..cwd.len()] == cwd[..] {
            // Git's own store holds what cannot be rebuilt; a wildcard
            // at the top (`rm -rf *`) is the whole project.
            let first = abs[cwd.len()];
            return (first != ".git" && !first.contains(['*', '?', '[']))
                .then_some(BlastRadius::Low);
        }
        if abs == cwd {
            // The whole project.
            return None;
        }
    }
    Some(match abs.as_slice() {
        [] => BlastRadius::High,
        ["tmp", _, ..] | ["var", "tmp", _, ..] | ["dev", "shm", _, ..] => BlastRadius::Low,
        ["home" | "Users"] | ["home" | "Users", _] | ["root"] => BlastRadius::High,
        // A directory at the top of the file system (`/data`).
        ["tmp"] => BlastRadius::Medium,
        [_] => BlastRadius::High,
        ["home" | "Users", _, _, ..] => BlastRadius::Medium,
        [top, ..] if SYSTEM_ROOTS.contains(top) => BlastRadius::High,
        _ => BlastRadius::Medium,
    })
}

/// A working directory too broad to confine anything: the root, a home
/// directory itself, or a system directory.
fn broad(cwd: &[&str]) -> bool {
    match cwd {
        [] | ["home" | "Users"] | ["home" | "Users", _] | ["root"] | ["tmp"] => true,
        [top, ..] => SYSTEM_ROOTS.contains(top),
    }
}

/// [`lexical`], owning its parts.
fn lexical_owned(path: &str) -> Option<Vec<String>> {
    lexical(path).map(|v| v.into_iter().map(String::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_destinations() {
        assert_eq!(targets("cp", &["-r", "/etc/ssl", "backup"]), ["backup"]);
        assert_eq!(targets("cp", &["-t/etc", "x"]), ["/etc", "x"]);
        assert_eq!(targets("cp", &["-t", "/etc", "x"]), ["/etc", "x"]);
        assert_eq!(
            targets("cp", &["--target", "/etc", "x", "y"]),
            ["/etc", "y"]
        );
        assert_eq!(
            targets("cp", &["--target-directory=/etc", "x"]),
            ["/etc", "x"]
        );
        assert_eq!(
            targets("dd", &["if=/dev/sda", "of=/tmp/x", "bs=1M"]),
            ["/tmp/x"]
        );
        assert_eq!(
            targets("rm", &["-rf", "build", "--", "-x"]),
            ["build", "-x"]
        );
        assert_eq!(targets("mv", &["a", "b"]), ["a", "b"]);
    }

    #[test]
    fn places() {
        let here = Context { cwd: Some("/app") };
        let none = Context::default();
        use BlastRadius::{High as H, Low as L, Medium as M};
        let home = Context {
            cwd: Some("/home/dev"),
        };
        for (ctx, path, want) in [
            (&here, "build", Some(L)),
            (&here, "./dist/x.js", Some(L)),
            (&here, "src/../build", Some(L)),
            (&here, "../other", Some(H)), // /other, at the top of the file system
            (&here, "../etc/x", Some(H)),
            (&here, "..", Some(H)),
            (&here, ".", None),
            (&here, "*", None),
            (&here, ".git", None),
            (&here, ".git/hooks/pre-commit", Some(H)),
            (&here, "/app/build", Some(L)),
            (&here, "/app", None),
            (&here, "/app/../etc/passwd", Some(H)),
            (&none, "build", None),
            (&none, "/app/build", Some(M)),
            (&none, "/tmp/x", Some(L)),
            (&none, "/tmp", Some(M)),
            (&none, "/var/tmp/x", Some(L)),
            (&none, "of=/tmp/x", Some(L)),
            (&none, "--output=/etc/x", Some(H)),
            (&none, "/etc/hosts", Some(H)),
            (&none, "/", Some(H)),
            (&none, "/home/dev", Some(H)),
            (&none, "/home/dev/notes.txt", Some(M)),
            (&none, "/home/dev/.zshrc", Some(H)),
            (&none, "~", Some(H)),
            (&none, "~/", Some(H)),
            (&none, "~/project", Some(M)),
            (&none, "~/.ssh/authorized_keys", Some(H)),
            (&none, "/mnt/data/x", Some(M)),
            (&none, "/home", Some(H)),
            (&none, "/data", Some(H)),
            (&none, "$HOME/x", None),
            (&none, "/dev/null", Some(L)),
            (&none, "/dev/sda", Some(H)),
            (&home, "project", Some(M)),
            (&home, ".bashrc", Some(H)),
            (&home, ".", Some(H)),
        ] {
            assert_eq!(place(path, ctx), want, "{path} in {:?}", ctx.cwd);
        }
    }
}
