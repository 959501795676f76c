//! The look against a fake world: links, places, trees, budgets.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::*;
use crate::reach::{Reach, Target, Touch};

/// A file system in memory: files, folders and links by absolute path.
#[derive(Default)]
struct Fake {
    nodes: BTreeMap<PathBuf, Node>,
}

#[derive(Clone)]
enum Node {
    File(Vec<u8>),
    Dir,
    Link(PathBuf),
}

impl Fake {
    fn file(mut self, path: &str, text: &str) -> Fake {
        self.parents(path);
        self.nodes
            .insert(PathBuf::from(path), Node::File(text.as_bytes().to_vec()));
        self
    }

    fn link(mut self, path: &str, target: &str) -> Fake {
        self.parents(path);
        self.nodes
            .insert(PathBuf::from(path), Node::Link(PathBuf::from(target)));
        self
    }

    fn parents(&mut self, path: &str) {
        for a in Path::new(path).ancestors().skip(1) {
            self.nodes.entry(a.to_path_buf()).or_insert(Node::Dir);
        }
    }

    /// Resolves every link, as the kernel does: component by component,
    /// `..` applied to the resolved prefix.
    fn walk(&self, path: &Path, hops: usize) -> io::Result<PathBuf> {
        if hops > 40 {
            return Err(io::Error::other("too many links"));
        }
        let mut at = PathBuf::from("/");
        for c in path.components() {
            match c {
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
                Component::ParentDir => {
                    at.pop();
                }
                Component::Normal(n) => {
                    let next = at.join(n);
                    match self.nodes.get(&next) {
                        None => return Err(io::ErrorKind::NotFound.into()),
                        Some(Node::Link(t)) => {
                            let t = if t.is_absolute() {
                                t.clone()
                            } else {
                                at.join(t)
                            };
                            at = self.walk(&t, hops + 1)?;
                        }
                        Some(_) => at = next,
                    }
                }
            }
        }
        Ok(at)
    }
}

impl World for Fake {
    fn resolve(&self, path: &Path) -> io::Result<PathBuf> {
        self.walk(path, 0)
    }

    fn kind(&self, path: &Path) -> io::Result<Kind> {
        match self.nodes.get(path) {
            Some(Node::File(b)) => Ok(Kind::File(b.len() as u64)),
            Some(Node::Dir) => Ok(Kind::Dir),
            Some(Node::Link(_)) => Ok(Kind::Link),
            None => Err(io::ErrorKind::NotFound.into()),
        }
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Contents> {
        match self.nodes.get(path) {
            Some(Node::File(b)) if b.len() as u64 > limit => Ok(Contents::TooLarge(b.len() as u64)),
            Some(Node::File(b)) => Ok(Contents::Bytes(b.clone())),
            Some(_) => Ok(Contents::NotRegular),
            None => Err(io::ErrorKind::NotFound.into()),
        }
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
        match self.nodes.get(dir) {
            Some(Node::Dir) => {}
            Some(_) => return Err(io::ErrorKind::NotADirectory.into()),
            None => return Err(io::ErrorKind::NotFound.into()),
        }
        Ok(self
            .nodes
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| Some((p.file_name()?.to_os_string(), self.kind(p).ok()?)))
            .collect())
    }
}

/// A made-up key pair in the documented formats (it grants nothing).
const KEY_LINE: &str = "AWS_ACCESS_KEY_ID = 'AKIAUJZDEGXDNCF32EPF'\nAWS_SECRET_ACCESS_KEY = '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'\n";

fn site() -> Site {
    Site {
        cwd: PathBuf::from("/home/ann/proj"),
        places: Places {
            project: Some(PathBuf::from("/home/ann/proj")),
            homes: vec![PathBuf::from("/home/ann")],
            temp: vec![PathBuf::from("/tmp")],
        },
    }
}

fn reach(targets: &[Target]) -> Reach {
    Reach {
        touches: targets
            .iter()
            .map(|t| Touch {
                part: 0,
                dir: None,
                target: t.clone(),
            })
            .collect(),
        needs_look: Vec::new(),
    }
}

fn file(p: &str) -> Target {
    Target::File { path: p.into() }
}

fn tree(p: &str) -> Target {
    Target::Tree { path: p.into() }
}

fn outcome(world: &Fake, targets: &[Target]) -> Outcome {
    look(&reach(targets), &site(), world, &Budget::default()).outcome
}

fn world() -> Fake {
    Fake::default()
        .file("/home/ann/proj/.git/HEAD", "ref: refs/heads/main\n")
        .file("/home/ann/proj/src/main.rs", "fn main() {}\n")
        .file("/home/ann/proj/README.md", "# proj\n")
        .file("/home/ann/.env", "TOKEN=x\n")
        .file("/usr/share/doc/x.txt", "docs\n")
}

#[test]
fn a_clean_file_and_a_clean_tree_are_clear() {
    let w = world();
    assert_eq!(outcome(&w, &[file("src/main.rs")]), Outcome::Clear);
    assert_eq!(outcome(&w, &[tree("src")]), Outcome::Clear);
    assert_eq!(outcome(&w, &[file("/usr/share/doc/x.txt")]), Outcome::Clear);
    // A file that is not there is read by nobody.
    assert_eq!(outcome(&w, &[file("missing.txt")]), Outcome::Clear);
}

#[test]
fn a_secret_in_an_ordinary_named_file_is_found_with_its_line() {
    let w = world().file(
        "/home/ann/proj/deploy/settings.py",
        &format!("# settings\nDEBUG = False\n{KEY_LINE}"),
    );
    match outcome(&w, &[file("deploy/settings.py")]) {
        Outcome::Secret(why) => {
            assert!(why.contains("deploy/settings.py line 3"), "{why}");
            assert!(!why.contains("2hpChYg"), "the value leaked: {why}");
        }
        other => panic!("{other:?}"),
    }
    match outcome(&w, &[tree(".")]) {
        Outcome::Secret(why) => assert!(why.contains("deploy/settings.py"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_link_is_judged_by_its_target() {
    let w = world()
        .file("/home/ann/proj/.env", "A=1\n")
        .link("/home/ann/proj/notes.txt", ".env")
        .link("/home/ann/proj/home-env", "/home/ann/.env")
        .link("/home/ann/proj/sub", "/home/ann")
        .link("/home/ann/proj/up", "src/../..");
    assert!(matches!(
        outcome(&w, &[file("notes.txt")]),
        Outcome::Secret(_)
    ));
    // Out of the project into a home: private.
    assert!(matches!(
        outcome(&w, &[file("home-env")]),
        Outcome::Unsettled(_)
    ));
    // `..` after a link climbs from the link's target.
    assert!(matches!(
        outcome(&w, &[file("sub/../ann/.env")]),
        Outcome::Unsettled(_)
    ));
    assert!(matches!(outcome(&w, &[tree("up")]), Outcome::Unsettled(_)));
}

#[test]
fn a_tree_with_a_secret_name_below_is_a_secret() {
    let w = world().file("/home/ann/proj/services/api/.env", "PORT=1\n");
    match outcome(&w, &[tree(".")]) {
        Outcome::Secret(why) => assert!(why.contains("services/api/.env"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome(&w, &[tree("src")]), Outcome::Clear);
}

#[test]
fn places_outside_the_project_are_private_or_unreadable() {
    let w = world().file("/home/ann/other/n.txt", "x\n");
    assert!(matches!(
        outcome(&w, &[file("/home/ann/other/n.txt")]),
        Outcome::Unsettled(_)
    ));
    assert!(matches!(
        outcome(&w, &[file("../other/n.txt")]),
        Outcome::Unsettled(_)
    ));
}

#[test]
fn budgets_overrun_to_unsettled_never_to_clear() {
    let mut w = world();
    for i in 0..50 {
        w = w.file(&format!("/home/ann/proj/data/f{i}.txt"), "plain\n");
    }
    let small = Budget {
        files: 10,
        ..Budget::default()
    };
    let got = look(&reach(&[tree("data")]), &site(), &w, &small).outcome;
    assert!(
        matches!(got, Outcome::Unsettled(ref why) if why.contains("10 files")),
        "{got:?}"
    );
    let tiny = Budget {
        file_bytes: 3,
        ..Budget::default()
    };
    let got = look(&reach(&[file("README.md")]), &site(), &w, &tiny).outcome;
    assert!(matches!(got, Outcome::Unsettled(_)), "{got:?}");
}

#[test]
fn a_git_object_where_no_repository_opens_is_unsettled() {
    let got = outcome(
        &world(),
        &[Target::GitObject {
            rev: "HEAD".into(),
            path: Some("config.py".into()),
            shows: crate::reach::Shows::Object,
        }],
    );
    assert!(
        matches!(got, Outcome::Unsettled(ref why) if why.contains("HEAD:config.py")),
        "{got:?}"
    );
}

#[test]
fn a_glob_reads_the_files_it_matches_only() {
    let w = world()
        .file("/home/ann/proj/src/keys.py", KEY_LINE)
        .file("/home/ann/proj/src/lib.rs", "pub fn f() {}\n");
    let glob = |p: &str| Target::Glob { pattern: p.into() };
    assert_eq!(outcome(&w, &[glob("src/*.rs")]), Outcome::Clear);
    assert!(matches!(
        outcome(&w, &[glob("src/*.py")]),
        Outcome::Secret(_)
    ));
}

#[test]
fn a_part_after_cd_is_read_from_where_it_runs() {
    let w = world().file("/home/ann/proj/sub/app.cfg", KEY_LINE);
    let r = Reach {
        touches: vec![Touch {
            part: 1,
            dir: Some("sub".into()),
            target: file("app.cfg"),
        }],
        needs_look: Vec::new(),
    };
    assert!(matches!(
        look(&r, &site(), &w, &Budget::default()).outcome,
        Outcome::Secret(_)
    ));
}

#[test]
fn shell_globs_match_as_the_shell_does() {
    for (p, n, want) in [
        ("*.rs", "main.rs", true),
        ("*.rs", ".hidden.rs", false),
        (".*", ".env", true),
        ("f?.txt", "f1.txt", true),
        ("f[0-9].txt", "f7.txt", true),
        ("f[!0-9].txt", "f7.txt", false),
        ("f[!0-9].txt", "fa.txt", true),
        ("*.rs", "main.py", false),
        // One character in the shell's locale may be several bytes: over
        // a name that is not ASCII, `?` and `[…]` count as `*`.
        ("?.py", "é.py", true),
        ("k?.py", "k\u{fffd}.py", true),
        ("??.py", "é.py", true),
    ] {
        assert_eq!(shell_glob_match(p, n), want, "{p} {n}");
    }
}

#[test]
fn a_working_directory_in_a_home_is_no_project() {
    let w = Fake::default()
        .file("/home/ann/.config/gh/hosts.yml", "x\n")
        .file("/home/ann/proj/.git/HEAD", "x\n")
        .file("/home/ann/proj/src/a.rs", "x\n");
    std::env::set_var("HOME", "/home/ann");
    let s = Site::here(&w, Path::new("/home/ann/.config/gh"), None);
    assert_eq!(s.places.project, None);
    let s = Site::here(&w, Path::new("/home/ann/proj/src"), None);
    assert_eq!(s.places.project, Some(PathBuf::from("/home/ann/proj")));
}

#[test]
fn cd_is_logical_as_the_shell_s_is() {
    let w = world()
        .file("/home/ann/proj/src/keys.py", KEY_LINE)
        .link("/home/ann/proj/L", "/home/ann/proj/src/inner");
    let r = Reach {
        touches: vec![Touch {
            part: 1,
            dir: Some("L/..".into()),
            target: file("src/keys.py"),
        }],
        needs_look: Vec::new(),
    };
    assert!(matches!(
        look(&r, &site(), &w, &Budget::default()).outcome,
        Outcome::Secret(_)
    ));
}

#[test]
fn a_home_under_the_temporary_directory_stays_private() {
    let places = Places {
        project: Some(PathBuf::from("/tmp/h/proj")),
        homes: vec![PathBuf::from("/tmp/h")],
        temp: vec![PathBuf::from("/tmp")],
    };
    assert_eq!(
        places.place_of(Path::new("/tmp/h/private.txt")),
        Place::Private
    );
    assert_eq!(places.place_of(Path::new("/tmp/build.log")), Place::System);
}

#[test]
fn the_repository_s_own_git_config_is_judged_by_what_it_holds() {
    let clean = world().file("/home/ann/proj/.git/config", "[core]\n\tbare = false\n");
    assert_eq!(outcome(&clean, &[tree(".")]), Outcome::Clear);
    let token = world().file(
        "/home/ann/proj/.git/config",
        "[remote \"origin\"]\n\turl = https://oauth2:ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES@github.com/acme/x.git\n",
    );
    match outcome(&token, &[tree(".")]) {
        Outcome::Secret(why) => assert!(why.contains(".git/config line 2"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Another repository's config, met by name, stays a secret.
    let other = world().file("/home/ann/proj/vendor/x/.git/config", "[core]\n");
    assert!(matches!(outcome(&other, &[tree(".")]), Outcome::Secret(_)));
}

#[test]
fn a_tree_read_on_several_threads_stops_where_reading_in_order_would() {
    // Enough files that they are read on every core: a secret in two of
    // them, and a file too large to read after both.
    let mut w = world();
    for i in 0..400 {
        let text = match i {
            137 => format!("# config\n{KEY_LINE}"),
            301 => KEY_LINE.to_string(),
            350 => "x".repeat(300),
            _ => format!("plain file {i}\n"),
        };
        w = w.file(&format!("/home/ann/proj/data/f{i:03}.txt"), &text);
    }
    let budget = Budget {
        file_bytes: 200,
        ..Budget::default()
    };
    for _ in 0..20 {
        let got = look(&reach(&[tree("data")]), &site(), &w, &budget);
        match &got.outcome {
            Outcome::Secret(why) => assert_eq!(
                why, "would print a cloud access key: data/f137.txt line 2",
                "{got:?}"
            ),
            other => panic!("{other:?}"),
        }
        // Every name listed, every file counted as read.
        assert_eq!(got.files, 400 * 2, "{got:?}");
    }
    // Without the secrets, the large file stops it.
    let w = w
        .file("/home/ann/proj/data/f137.txt", "plain\n")
        .file("/home/ann/proj/data/f301.txt", "plain\n");
    let got = look(&reach(&[tree("data")]), &site(), &w, &budget).outcome;
    assert_eq!(
        got,
        Outcome::Unsettled(
            "data/f350.txt is 300 bytes, more than the 0 MiB a look reads of one file".into()
        )
    );
}

/// A real file larger than one piece: lines across the pieces' seams, one
/// longer than a piece, no line break at the end.
#[test]
fn a_large_file_is_read_in_pieces_with_every_line_whole() {
    let dir = std::env::temp_dir().join(format!("toolgate-pieces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("big.txt");
    let mut text = String::new();
    let mut line = 0;
    // About 600 KiB of short lines, then one line of 300 KiB.
    while text.len() < 600 << 10 {
        text.push_str("an ordinary line of an ordinary file\n");
        line += 1;
    }
    text.push_str(&"y".repeat(300 << 10));
    text.push('\n');
    line += 1;
    // The key pair last, without a line break at the end: the access key
    // id is found, on the line after the long one.
    text.push_str(KEY_LINE.trim_end());
    let key_line = line + 1;
    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{e}"));

    let mut pieces = Vec::new();
    let got = FileSystem.read_pieces(&path, 16 << 20, &mut |p| {
        pieces.push(p.to_vec());
        true
    });
    assert_eq!(got.ok(), Some(Pieces::Read));
    assert!(pieces.len() > 2, "{}", pieces.len());
    assert_eq!(pieces.concat(), text.as_bytes());
    // Every piece but the last ends a line.
    assert!(pieces[..pieces.len() - 1]
        .iter()
        .all(|p| p.ends_with(b"\n")));
    // Smaller than the file: too large, whatever was handed over.
    assert_eq!(
        FileSystem.read_pieces(&path, 1000, &mut |_| true).ok(),
        Some(Pieces::TooLarge(text.len() as u64))
    );

    let site = Site {
        cwd: dir.clone(),
        places: Places {
            project: Some(dir.clone()),
            homes: Vec::new(),
            temp: Vec::new(),
        },
    };
    let got = look(
        &reach(&[file("big.txt")]),
        &site,
        &FileSystem,
        &Budget::default(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        got.outcome,
        Outcome::Secret(format!(
            "would print a cloud access key: big.txt line {key_line}"
        ))
    );
}
