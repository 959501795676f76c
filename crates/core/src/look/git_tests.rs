//! The look at git objects, against real repositories that the tests
//! build with the `git` command line (the tests may run git; the look
//! never does).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::reach::{Reach, Shows, Target, Touch};

const SETTINGS: &str = "# settings\nDEBUG = False\nAWS_ACCESS_KEY_ID = 'AKIAUJZDEGXDNCF32EPF'\nAWS_SECRET_ACCESS_KEY = '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'\n";
const CLEAN: &str = "# settings\nDEBUG = False\nREGION = 'eu-west-1'\n";

/// A fresh folder for one test's repository.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-look-git-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir.canonicalize().unwrap_or(dir)
}

/// Runs git in `dir`, isolated from the machine's config; `false` when
/// git is not installed (the test then has nothing to build on).
fn git(dir: &Path, args: &[&str]) -> bool {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output();
    match out {
        Ok(o) if o.status.success() => true,
        Ok(o) => panic!("git {args:?}: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => false,
    }
}

fn write(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
}

/// A repository whose second commit adds `app/settings.py` with
/// `settings` and whose third removes it: HEAD~1 holds it, HEAD not.
/// `None` without git.
fn history(test: &str, settings: &str) -> Option<PathBuf> {
    let dir = scratch(test);
    write(&dir, "README.md", "# app\n");
    let built = git(&dir, &["init", "-q", "-b", "main"])
        && git(&dir, &["add", "-A"])
        && git(&dir, &["commit", "-q", "-m", "start"]);
    if !built {
        return None;
    }
    write(&dir, "app/settings.py", settings);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "add settings"]);
    git(&dir, &["rm", "-q", "app/settings.py"]);
    git(&dir, &["commit", "-q", "-m", "drop settings"]);
    Some(dir)
}

fn site(dir: &Path) -> Site {
    Site {
        cwd: dir.to_path_buf(),
        places: Places {
            project: Some(dir.to_path_buf()),
            homes: Vec::new(),
            temp: Vec::new(),
        },
    }
}

fn object(rev: &str, path: Option<&str>, shows: Shows) -> Target {
    Target::GitObject {
        rev: rev.into(),
        path: path.map(str::to_string),
        shows,
    }
}

fn outcome(dir: &Path, target: Target) -> Outcome {
    let reach = Reach {
        touches: vec![Touch {
            part: 0,
            dir: None,
            target,
        }],
        needs_look: Vec::new(),
    };
    look(&reach, &site(dir), &FileSystem, &Budget::default()).outcome
}

/// The cases every history repository answers: what each touch prints of
/// it, with and without the committed secret.
fn history_cases() -> Vec<(Target, &'static str)> {
    vec![
        (
            object("HEAD~1", Some("app/settings.py"), Shows::Object),
            "HEAD~1:app/settings.py line 3",
        ),
        (
            object(
                "HEAD^{/add settings}",
                Some("app/settings.py"),
                Shows::Object,
            ),
            "HEAD^{/add settings}:app/settings.py line 3",
        ),
        (
            object("HEAD", None, Shows::History),
            "app/settings.py in commit",
        ),
        (
            object("HEAD~1", None, Shows::Object),
            "app/settings.py in commit",
        ),
        (
            object("HEAD~1", None, Shows::Diff),
            "app/settings.py in the diff of `HEAD~1` line 3",
        ),
        (
            object("HEAD~2..HEAD~1", None, Shows::Diff),
            "app/settings.py",
        ),
        (
            object("HEAD~1", None, Shows::Files),
            "app/settings.py in `HEAD~1` line 3",
        ),
        (
            object("--all", None, Shows::History),
            "app/settings.py in commit",
        ),
    ]
}

#[test]
fn a_committed_secret_is_found_wherever_a_command_prints_it() {
    let Some(dir) = history("secret", SETTINGS) else {
        return;
    };
    for (target, place) in history_cases() {
        let got = outcome(&dir, target.clone());
        assert!(
            matches!(&got, Outcome::Secret(why)
                if why.contains("a cloud access key") && why.contains(place)
                    && !why.contains("AKIA")),
            "{target:?}: {got:?}"
        );
    }
    // HEAD's own tree and HEAD's diff against the work tree no longer
    // hold it: neither prints it.
    for target in [
        object("HEAD", None, Shows::Diff),
        object("HEAD", None, Shows::Files),
        object("HEAD", Some("README.md"), Shows::Object),
        object("HEAD~2", None, Shows::Object),
    ] {
        assert_eq!(outcome(&dir, target.clone()), Outcome::Clear, "{target:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_history_is_clear_wherever_it_is_printed() {
    let Some(dir) = history("clean", CLEAN) else {
        return;
    };
    for (target, _) in history_cases() {
        assert_eq!(outcome(&dir, target.clone()), Outcome::Clear, "{target:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_secret_in_the_work_tree_or_the_index_is_in_the_diff() {
    let Some(dir) = history("work", CLEAN) else {
        return;
    };
    // A tracked link to an untracked secret, unchanged: git compares and
    // prints a link by its text, so `git diff` prints nothing of it.
    #[cfg(unix)]
    {
        write(&dir, ".env", SETTINGS);
        std::os::unix::fs::symlink(".env", dir.join("env-link")).unwrap_or_else(|e| panic!("{e}"));
        git(&dir, &["add", "env-link"]);
        git(&dir, &["commit", "-q", "-m", "link"]);
        let got = outcome(&dir, object("HEAD", None, Shows::Diff));
        assert_eq!(got, Outcome::Clear);
    }
    // Changed in the work tree: `git diff` prints it.
    write(&dir, "README.md", &format!("# app\n{SETTINGS}"));
    let got = outcome(&dir, object("HEAD", None, Shows::Diff));
    assert!(
        matches!(&got, Outcome::Secret(why) if why.contains("README.md line 4")),
        "{got:?}"
    );
    // Staged, then taken out of the work tree again: `git diff` prints
    // the staged lines as removed.
    git(&dir, &["add", "README.md"]);
    write(&dir, "README.md", "# app\n");
    let got = outcome(&dir, object("HEAD", None, Shows::Diff));
    assert!(
        matches!(&got, Outcome::Secret(why) if why.contains("README.md in the diff of `HEAD` line 4")),
        "{got:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_name_the_listing_prints_counts_and_a_message_is_scanned() {
    let Some(dir) = history("names", CLEAN) else {
        return;
    };
    write(&dir, "deploy/.env", "PORT=8080\n");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "deploy"]);
    let got = outcome(&dir, object("HEAD", Some("deploy"), Shows::Object));
    assert!(
        matches!(&got, Outcome::Secret(why) if why.contains("deploy/.env")),
        "{got:?}"
    );
    let message = format!("keys\n\n{SETTINGS}");
    git(&dir, &["commit", "-q", "--allow-empty", "-m", &message]);
    for shows in [Shows::Object, Shows::History] {
        let got = outcome(&dir, object("HEAD", None, shows));
        assert!(
            matches!(&got, Outcome::Secret(why) if why.contains("the message of commit")),
            "{got:?}"
        );
    }
    // The listing of the top names no secret file.
    let got = outcome(&dir, object("HEAD", Some(""), Shows::Object));
    assert!(
        matches!(&got, Outcome::Clear | Outcome::Unsettled(_)),
        "{got:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_the_look_cannot_resolve_is_unsettled_never_clear() {
    let Some(dir) = history("unresolved", CLEAN) else {
        return;
    };
    for target in [
        object("no-such-branch", None, Shows::Object),
        object("HEAD~9", Some("README.md"), Shows::Object),
        object("HEAD", Some("no/such/file"), Shows::Object),
        object("main@{last tuesday}", None, Shows::Object),
        object(
            "HEAD^{/add.settings}",
            Some("app/settings.py"),
            Shows::Object,
        ),
        object("--reflog", None, Shows::History),
    ] {
        let got = outcome(&dir, target.clone());
        assert!(matches!(got, Outcome::Unsettled(_)), "{target:?}: {got:?}");
    }
    // Notes, which `git show` and `git log` print with their commits.
    git(&dir, &["notes", "add", "-m", "a note", "HEAD"]);
    for shows in [Shows::Object, Shows::History] {
        let got = outcome(&dir, object("HEAD", None, shows));
        assert!(
            matches!(got, Outcome::Unsettled(ref why) if why.contains("notes")),
            "{got:?}"
        );
    }
    // A replacement object: git would print the replacement (or, told
    // `--no-replace-objects`, the original).
    git(&dir, &["notes", "remove", "HEAD"]);
    git(&dir, &["update-ref", "-d", "refs/notes/commits"]);
    assert_eq!(
        outcome(&dir, object("HEAD", None, Shows::Object)),
        Outcome::Clear
    );
    git(&dir, &["replace", "HEAD", "HEAD~1"]);
    let got = outcome(&dir, object("HEAD", None, Shows::Object));
    assert!(
        matches!(got, Outcome::Unsettled(ref why) if why.contains("replacement")),
        "{got:?}"
    );
    // Outside any repository.
    let bare = scratch("norepo");
    let got = outcome(&bare, object("HEAD", None, Shows::Object));
    assert!(matches!(got, Outcome::Unsettled(_)), "{got:?}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bare);
}

#[test]
fn the_history_of_a_large_repository_is_bounded_by_the_budget() {
    let Some(dir) = history("budget", CLEAN) else {
        return;
    };
    let reach = Reach {
        touches: vec![Touch {
            part: 0,
            dir: None,
            target: object("HEAD", None, Shows::History),
        }],
        needs_look: Vec::new(),
    };
    let small = Budget {
        files: 3,
        ..Budget::default()
    };
    let got = look(&reach, &site(&dir), &FileSystem, &small).outcome;
    assert!(
        matches!(got, Outcome::Unsettled(ref why) if why.contains("3 files")),
        "{got:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A repository whose config names programs for git to run on a read
/// (`core.fsmonitor`, `core.pager`, a diff driver, a filter, hooks): the
/// look reads it and none of them runs.
#[test]
#[cfg(unix)]
fn a_hostile_config_runs_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let Some(dir) = history("hostile", SETTINGS) else {
        return;
    };
    let marker = dir.join("ran");
    let script = dir.join("evil.sh");
    write(
        &dir,
        "evil.sh",
        &format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    let s = script.display().to_string();
    for (key, value) in [
        ("core.fsmonitor", s.as_str()),
        ("core.pager", s.as_str()),
        ("core.hooksPath", dir.to_str().unwrap_or_default()),
        ("diff.evil.textconv", s.as_str()),
        ("diff.external", s.as_str()),
        ("filter.evil.smudge", s.as_str()),
        ("filter.evil.clean", s.as_str()),
        ("filter.evil.process", s.as_str()),
    ] {
        git(&dir, &["config", key, value]);
    }
    write(&dir, ".gitattributes", "* diff=evil filter=evil\n");
    for target in [
        object("HEAD~1", Some("app/settings.py"), Shows::Object),
        object("HEAD", None, Shows::History),
        object("HEAD", None, Shows::Diff),
        object("HEAD", None, Shows::Files),
    ] {
        let _ = outcome(&dir, target);
    }
    assert!(
        !marker.exists(),
        "the look ran a program the repository's config names"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_path_git_reads_as_a_path_is_looked_at_as_head_s_changes() {
    let Some(dir) = history("pathword", CLEAN) else {
        return;
    };
    // `git diff README.md`: no revision of that name, a file of it.
    let got = outcome(&dir, object("README.md", None, Shows::Diff));
    assert_eq!(got, Outcome::Clear);
    write(&dir, "README.md", &format!("# app\n{SETTINGS}"));
    let got = outcome(&dir, object("README.md", None, Shows::Diff));
    assert!(
        matches!(&got, Outcome::Secret(why) if why.contains("README.md line 4")),
        "{got:?}"
    );
    // A word that is neither stays unsettled.
    let got = outcome(&dir, object("no-such-thing", None, Shows::Diff));
    assert!(matches!(got, Outcome::Unsettled(_)), "{got:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
