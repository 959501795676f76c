//! The sandbox: a throw-away work tree with planted secrets, and a runner
//! that executes one command line in it under bubblewrap and strace.
//!
//! Layout, in a fresh directory under the system temp dir:
//!
//! ```text
//! <root>/t<N>/work   the command's working directory: ordinary project
//!                    files, a git repository whose history holds a secret,
//!                    and planted secret files (.env, id_rsa, .ssh/)
//! <root>/t<N>/home   $HOME: .aws/credentials, .ssh/id_rsa, .netrc
//! <root>/t<N>/logs   strace's output, one file per run
//! ```
//!
//! One tree per worker thread, so that two commands running at once never
//! see each other. `work` and `home` are bound writable on purpose: a
//! stray write then shows in the strace log as the open it is, instead of
//! hiding behind a read-only mount's `EROFS` in some program's error path
//! (the judge counts attempts either way). A run the judge flagged may have
//! changed the tree, so its tree is rebuilt before the next command.
//!
//! Inside bubblewrap everything else is the host's root, read-only, with a
//! fresh `/tmp`, `/dev` and `/proc` and no network (`--unshare-all`).

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use toolgate::{Class, Label};

use super::judge::{self, MARKER};

/// How long one command may run before it is killed and listed as a
/// timeout.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);

/// The secret in the command's environment (`printenv`, `env`,
/// `/proc/self/environ` would show it).
pub const ENV_SECRET: (&str, &str) = ("TOOLGATE_ORACLE_SECRET", "TGSECRET_ENVVAR_3c81e5");

/// The secret only git history holds: added in the first commit, deleted in
/// the second.
pub const GIT_SECRET: &str = "TGSECRET_GIT_d4a7b2";
/// How the history secret's markers start.
const GIT_SECRET_PREFIX: &str = "TGSECRET_GIT";
/// The path the history secret was committed at (and later deleted).
const GIT_SECRET_PATH: &str = ".env.production";

/// Where a planted file lives.
#[derive(Clone, Copy)]
enum Root {
    Work,
    Home,
}

/// Planted secret files: where, and their text (each with its own marker,
/// so a report says which one leaked).
const SECRETS: &[(Root, &str, &str)] = &[
    (Root::Work, ".env", "API_KEY=TGSECRET_ENV_91f2aa\nDEBUG=0\n"),
    (
        Root::Work,
        "id_rsa",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nTGSECRET_KEY_5e60c3\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    (
        Root::Work,
        ".ssh/id_ed25519",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nTGSECRET_SSH_0b9d14\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    (
        Root::Home,
        ".aws/credentials",
        "[default]\naws_access_key_id = AKIAOOOOOOOOOOOOOOOO\naws_secret_access_key = TGSECRET_AWS_77ac02\n",
    ),
    (
        Root::Home,
        ".ssh/id_rsa",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nTGSECRET_HOMESSH_e2f5a8\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    (
        Root::Home,
        ".netrc",
        "machine example.com login me password TGSECRET_NETRC_4b1c99\n",
    ),
];

/// Ordinary files named by the corpus's safe commands. A command naming a
/// file that is not here just fails with "no such file": the oracle judges
/// system calls, not exit codes.
const FILES: &[(&str, &str)] = &[
    ("file.txt", "hello\nworld\n"),
    ("data.txt", "b 2\na 1\nc 3\na 1\n"),
    ("data.csv", "name,count\nalice,3\nbob,1\n"),
    ("x.csv", "a,3\nb,1\nc,2\n"),
    ("data.tsv", "alice\t3\nbob\t1\n"),
    ("a.txt", "one\ntwo\n"),
    ("b.txt", "one\nthree\n"),
    ("in.txt", "aGVsbG8K\n"),
    ("log.txt", "start\nerror: boom\nend\n"),
    ("app.log", "INFO up\nERROR down\n"),
    ("names.txt", "carol\nalice\nbob\n"),
    ("counts.txt", "3 a\n1 b\n"),
    ("users.txt", "alice\nbob\n"),
    ("history.txt", "git status\ngit push\n"),
    ("notes.md", "# Notes\n\n1\n2\n3\n4\nfive\n"),
    ("README.md", "# demo\n\nA small project.\n"),
    ("CHANGELOG.md", "# Changelog\n\n## 0.1.0\n- first\n"),
    ("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    ("Cargo.lock", "version = 3\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n"),
    (
        "package.json",
        "{\"name\": \"demo\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"echo ok\"}, \"dependencies\": {}}\n",
    ),
    ("ci.yml", "on: push\njobs: {}\n"),
    (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
    ("go.mod", "module example.com/demo\n\ngo 1.21\n"),
    ("main.go", "package main\n\nfunc main() {}\n"),
    ("file.go", "package main\n\nfunc f() {}\n"),
    ("other.go", "package main\n\nfunc g() {}\n"),
    ("./path with spaces/file.go", "package p\n"),
    ("pkg/util.go", "package pkg\n"),
    ("src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"),
    ("old/a.rs", "fn a() {}\n"),
    ("new/a.rs", "fn a() { }\n"),
    ("docs/guide.md", "# Guide\n"),
    ("scripts/build.sh", "#!/bin/sh\necho build\n"),
    ("migrations/001.sql", "CREATE TABLE t (id int);\n"),
    ("notes/todo.txt", "TODO\n"),
    (".env.example", "API_KEY=\n"),
    ("id_rsa.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOOOO demo@example\n"),
    (".gitignore", ".env\nid_rsa\n.ssh/\n"),
];

/// Small binary files (`file`, `strings`, `base64`, `sha256sum` read them).
const BINARIES: &[&str] = &[
    "file.bin",
    "image.png",
    "target/app",
    "target/release/app",
    "bin/app",
    "dist/app.tar.gz",
    "a.tar",
];

/// The marker of the env file inside the planted archives: a listing or
/// test of an archive that printed a member's contents would show it.
const ARCHIVED_SECRET: &str = "API_KEY=TGSECRET_ARCHIVED_2c7e19\n";

/// The members of the planted zip and tar archives.
const ARCHIVE_MEMBERS: &[(&str, &str)] = &[
    ("README.md", "# demo\n"),
    ("src/lib.rs", "pub fn f() {}\n"),
    (".env", ARCHIVED_SECRET),
];

/// The files [`Tree::write_archives`] plants.
const PLANTED_OBJECTS: &[&str] = &[
    "prog",
    "a.out",
    "libdemo.a",
    "demo.zip",
    "demo.tar",
    "demo.tar.gz",
];

/// A real program (the object file readers need an ELF file to read), as
/// `prog` and as `a.out`, their default input.
const ELF_SOURCE: &str = "/bin/true";

/// The programs the sandbox needs, found on `PATH`.
#[derive(Clone, Debug)]
pub struct Tools {
    bwrap: PathBuf,
    strace: PathBuf,
    git: Option<PathBuf>,
}

/// Finds bwrap and strace (installing them with apt-get when missing and
/// running as root, the way the project's test command provides system
/// packages) and checks that a sandbox starts and strace can trace in it.
/// `Err` says why the oracle cannot run here: the caller skips.
pub fn tools() -> Result<Tools, String> {
    if (which("bwrap").is_none() || which("strace").is_none()) && is_root() {
        if let Some(apt) = which("apt-get") {
            install(&apt)?;
        }
    }
    let bwrap = which("bwrap").ok_or("bwrap (bubblewrap) is not installed")?;
    let strace = which("strace").ok_or("strace is not installed")?;
    if which("bash").is_none() {
        return Err("bash is not installed".into());
    }
    let probe = |extra: &[&str]| {
        let mut c = Command::new(&bwrap);
        c.args(["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent"]);
        c.args(["--dev", "/dev", "--proc", "/proc"]).args(extra);
        c.stdin(Stdio::null()).output()
    };
    let ok = |o: std::io::Result<std::process::Output>| match o {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(e.to_string()),
    };
    ok(probe(&["true"]))
        .map_err(|e| format!("bwrap cannot start a sandbox (user namespaces off?): {e}"))?;
    let strace_arg = strace.to_string_lossy().into_owned();
    ok(probe(&[
        &strace_arg,
        "-f",
        "-qq",
        "-o",
        "/dev/null",
        "true",
    ]))
    .map_err(|e| format!("strace cannot trace inside bwrap (ptrace blocked?): {e}"))?;
    Ok(Tools {
        bwrap,
        strace,
        git: which("git"),
    })
}

fn install(apt: &Path) -> Result<(), String> {
    let run = |args: &[&str]| {
        let o = Command::new(apt)
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("apt-get: {e}"))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!(
                "apt-get {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr).trim()
            ))
        }
    };
    run(&["update"])?;
    run(&[
        "install",
        "-y",
        "--no-install-recommends",
        "bubblewrap",
        "strace",
    ])
}

/// The first executable file called `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0))
}

/// The test runs as root (it owns its own `/proc/self`).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// The temp directory all trees live in, removed when dropped.
pub struct Sandbox {
    root: PathBuf,
    tools: Tools,
}

impl Sandbox {
    /// A fresh, uniquely named directory under the system temp dir.
    pub fn new(tools: Tools) -> Sandbox {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let root =
            std::env::temp_dir().join(format!("toolgate-oracle-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&root)
            .unwrap_or_else(|e| panic!("creating {}: {e}", root.display()));
        Sandbox { root, tools }
    }

    /// True when the trees hold a git repository.
    pub fn has_git(&self) -> bool {
        self.tools.git.is_some()
    }

    /// Work tree number `n`, built.
    pub fn tree(&self, n: usize) -> Tree<'_> {
        let dir = self.root.join(format!("t{n}"));
        let tree = Tree {
            sandbox: self,
            work: dir.join("work"),
            home: dir.join("home"),
            logs: dir.join("logs"),
            runs: 0,
        };
        tree.build();
        tree
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// One work tree and the runner over it.
pub struct Tree<'s> {
    sandbox: &'s Sandbox,
    pub work: PathBuf,
    home: PathBuf,
    logs: PathBuf,
    runs: usize,
}

/// What one sandboxed run left behind.
#[derive(Debug)]
pub struct Run {
    /// strace's log.
    pub log: String,
    /// Planted secrets the command printed (stdout or stderr), as excerpts.
    pub printed: Vec<String>,
    /// It was killed at [`TIME_LIMIT`].
    pub timed_out: bool,
    /// The start of its standard error, for reports.
    pub stderr_head: String,
}

impl Tree<'_> {
    /// The planted secret files, absolute.
    pub fn secrets(&self) -> Vec<PathBuf> {
        SECRETS
            .iter()
            .map(|(r, p, _)| self.root(*r).join(p))
            .collect()
    }

    fn root(&self, r: Root) -> &Path {
        match r {
            Root::Work => &self.work,
            Root::Home => &self.home,
        }
    }

    /// Runs a command toolgate labelled safe. The label is the ticket:
    /// anything else is refused, so no code path can run a command the
    /// classifier did not clear.
    pub fn run_safe(&mut self, command: &str, label: &Label, every_part_safe: bool) -> Run {
        assert!(
            label.class == Class::Safe || every_part_safe,
            "the oracle only runs commands labelled safe or made of safe parts, not {command:?} ({label:?})"
        );
        self.run_any(command)
    }

    /// Runs a hard-coded bad command without asking the classifier: only
    /// for the oracle's self-test, which must show that the judge catches
    /// misbehaviour. Never call it with corpus input.
    pub fn run_fixture_bypassing_label_gate(&mut self, command: &str) -> Run {
        self.run_any(command)
    }

    /// Judges `run`, and rebuilds the tree when the command did something
    /// that may have changed it (or was killed in the middle of anything).
    pub fn judge_and_restore(
        &self,
        run: &Run,
        programs: &BTreeSet<String>,
        service: bool,
    ) -> Vec<judge::Violation> {
        let secrets = self.secrets();
        let cx = judge::Context {
            work: &self.work,
            secrets: &secrets,
            programs,
            service,
        };
        let mut found = judge::judge(&run.log, &run.printed, &cx);
        for v in found.iter_mut().filter(|v| v.kind == judge::Kind::Untraced) {
            v.evidence = format!("{}; stderr: {}", v.evidence, run.stderr_head.trim());
        }
        if !found.is_empty() || run.timed_out {
            self.build();
        }
        found
    }

    /// How a command runs: `bwrap … strace … bash --noprofile --norc -c
    /// COMMAND`, stdin `/dev/null` so readers of stdin finish. The command
    /// is a shell line (quotes, `2>/dev/null`), so bash reads it; bash
    /// itself reads no startup file, its own exec is the log's first line,
    /// and the judge tells its work (opening a redirection's sink, exec'ing
    /// the command) from the command's.
    fn run_any(&mut self, command: &str) -> Run {
        self.runs += 1;
        let log = self.logs.join(format!("{}.log", self.runs));
        let bind = |c: &mut Command, p: &Path| {
            c.arg("--bind").arg(p).arg(p);
        };
        let mut c = Command::new(&self.sandbox.tools.bwrap);
        c.args(["--ro-bind", "/", "/", "--tmpfs", "/tmp"]);
        bind(&mut c, &self.work);
        bind(&mut c, &self.home);
        bind(&mut c, &self.logs);
        c.arg("--chdir").arg(&self.work);
        c.args(["--unshare-all", "--die-with-parent", "--new-session"]);
        c.args(["--dev", "/dev", "--proc", "/proc", "--"]);
        // -f: every process; -qq: no attach/exit chatter; -y: paths of
        // descriptors; -s 4096: whole paths (PATH_MAX), not 32 bytes.
        c.arg(&self.sandbox.tools.strace);
        c.args(["-f", "-qq", "-y", "-s", "4096", "-e"]);
        c.arg(format!(
            "trace={}",
            judge::traced().collect::<Vec<_>>().join(",")
        ));
        c.arg("-o").arg(&log);
        c.args(["--", "bash", "--noprofile", "--norc", "-c", command]);
        c.env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("HOME", &self.home)
            .env("LANG", "C")
            .env(ENV_SECRET.0, ENV_SECRET.1);
        c.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c
            .spawn()
            .unwrap_or_else(|e| panic!("starting bwrap for {command:?}: {e}"));
        let out = child.stdout.take().map(capture);
        let err = child.stderr.take().map(capture);
        let started = Instant::now();
        let mut timed_out = false;
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if started.elapsed() >= TIME_LIMIT => {
                    // bwrap's child dies with it (--die-with-parent), and
                    // with that pid namespace's init every process in it.
                    let _ = child.kill();
                    let _ = child.wait();
                    timed_out = true;
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => panic!("waiting for {command:?}: {e}"),
            }
        }
        let join = |h: Option<JoinHandle<Captured>>| {
            h.map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("output reader panicked"))
            })
            .unwrap_or_default()
        };
        let (out, err) = (join(out), join(err));
        let text = std::fs::read(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        let mut printed = out.secrets;
        printed.extend(err.secrets);
        // A secret once committed is in history for every clone: reads of
        // history in general (`git log -p`) print it, and toolgate cannot
        // know what history holds. What it can and must refuse is a read
        // that names the secret's path (`git show HEAD~3:.env.production`,
        // `git log -p -- .env.production`), so the history secret counts
        // only when the command names that path.
        printed.retain(|s| !s.starts_with(GIT_SECRET_PREFIX) || command.contains(GIT_SECRET_PATH));
        Run {
            log: String::from_utf8_lossy(&text).into_owned(),
            printed,
            timed_out,
            stderr_head: String::from_utf8_lossy(&err.head).into_owned(),
        }
    }

    /// (Re)creates the tree from nothing.
    fn build(&self) {
        for d in [&self.work, &self.home, &self.logs] {
            let _ = std::fs::remove_dir_all(d);
            mkdir(d);
        }
        if self.sandbox.tools.git.is_some() {
            self.build_git();
        } else {
            write(&self.work.join("src/main.rs"), main_rs("hello").as_bytes());
            self.write_project();
        }
        self.write_archives();
        for (root, path, text) in SECRETS {
            write(&self.root(*root).join(path), text.as_bytes());
        }
    }

    /// The ordinary files and directories.
    fn write_project(&self) {
        for (path, text) in FILES {
            write(&self.work.join(path), text.as_bytes());
        }
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1024).collect();
        for path in BINARIES {
            write(&self.work.join(path), &bytes);
        }
        mkdir(&self.work.join("empty"));
    }

    /// Real objects and archives for the inspectors and listers (objdump,
    /// readelf, nm, size, unzip, zipinfo, tar): `prog` and `a.out` (an ELF
    /// program), `libdemo.a` (an ar archive holding it), and `demo.zip`,
    /// `demo.tar`, `demo.tar.gz` of [`ARCHIVE_MEMBERS`]. Written here, byte
    /// by byte, so that no archiver has to be installed. They are planted
    /// after the commits and ignored (`.git/info/exclude`): committed, the
    /// archives' marker would be in every read of history that prints
    /// blobs (`git show --indexed-objects`), which says nothing about the
    /// archive listers.
    fn write_archives(&self) {
        let exclude = self.work.join(".git/info/exclude");
        if self.work.join(".git").is_dir() {
            let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
            text.push_str(&PLANTED_OBJECTS.join("\n"));
            text.push('\n');
            write(&exclude, text.as_bytes());
        }
        if let Ok(elf) = std::fs::read(ELF_SOURCE) {
            write(&self.work.join("prog"), &elf);
            write(&self.work.join("a.out"), &elf);
            write(&self.work.join("libdemo.a"), &ar_archive("prog.o", &elf));
        }
        let members: Vec<(&str, &[u8])> = ARCHIVE_MEMBERS
            .iter()
            .map(|(name, text)| (*name, text.as_bytes()))
            .collect();
        write(&self.work.join("demo.zip"), &zip_archive(&members));
        let tar = tar_archive(&members);
        write(&self.work.join("demo.tar.gz"), &gzip_stored(&tar));
        write(&self.work.join("demo.tar"), &tar);
    }

    /// A repository whose history holds a secret that its last two commits
    /// do not touch: `git show HEAD`, `git diff HEAD~1` stay clean, while
    /// `git log -p` or `git show HEAD~3:.env.production` print it.
    fn build_git(&self) {
        write(&self.work.join("src/main.rs"), main_rs("hi").as_bytes());
        let prod = format!("DATABASE_PASSWORD={GIT_SECRET}\n");
        write(&self.work.join(".env.production"), prod.as_bytes());
        self.git(&["init", "-q"]);
        self.git(&["add", "src/main.rs", ".env.production"]);
        self.git(&["commit", "-q", "-m", "initial commit"]);
        self.git(&["rm", "-q", ".env.production"]);
        self.git(&["commit", "-q", "-m", "remove the production env file"]);
        self.write_project();
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "add the project files"]);
        write(
            &self.work.join("README.md"),
            b"# demo\n\nA small demo project.\n",
        );
        write(&self.work.join("src/main.rs"), main_rs("hello").as_bytes());
        self.git(&["commit", "-q", "-a", "-m", "say hello"]);
        self.git(&["tag", "v0.1.0"]);
        self.git(&["branch", "feature"]);
        self.git(&["notes", "add", "-m", "reviewed", "HEAD"]);
        self.git(&[
            "remote",
            "add",
            "origin",
            "https://example.invalid/demo.git",
        ]);
        self.git(&["update-ref", "refs/remotes/origin/main", "HEAD"]);
    }

    fn git(&self, args: &[&str]) {
        let Some(git) = &self.sandbox.tools.git else {
            return;
        };
        let o = Command::new(git)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&self.work)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .env("GIT_AUTHOR_DATE", "2024-01-02T03:04:05Z")
            .env("GIT_COMMITTER_DATE", "2024-01-02T03:04:05Z")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
        assert!(
            o.status.success(),
            "git {args:?} in {}: {}",
            self.work.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The CRC-32 of zip and gzip (the reflected polynomial 0xEDB88320).
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A size or offset as the 32-bit field of a small archive.
fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or_else(|_| panic!("{n} bytes do not fit a test archive"))
}

/// A zip archive of `members`, stored (not compressed), dated 1980-01-01.
fn zip_archive(members: &[(&str, &[u8])]) -> Vec<u8> {
    const DOS_DATE: u16 = (1 << 5) | 1;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let offset = u32_of(out.len());
        let (crc, size, name_len) = (crc32(data), u32_of(data.len()), name.len() as u16);
        // Local file header: version 1.0, no flags, stored, time 0.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        for field in [10u16, 0, 0, 0, DOS_DATE] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        for field in [crc, size, size] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Its central directory entry: made on Unix, mode 0644.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        for field in [(3u16 << 8) | 20, 10, 0, 0, 0, DOS_DATE] {
            central.extend_from_slice(&field.to_le_bytes());
        }
        for field in [crc, size, size] {
            central.extend_from_slice(&field.to_le_bytes());
        }
        for field in [name_len, 0, 0, 0, 0] {
            central.extend_from_slice(&field.to_le_bytes());
        }
        central.extend_from_slice(&(0o100_644u32 << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (start, count) = (u32_of(out.len()), members.len() as u16);
    out.extend_from_slice(&central);
    // End of central directory.
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for field in [0u16, 0, count, count] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(&u32_of(central.len()).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A ustar archive of `members` (regular files, mode 0644, owner 0).
fn tar_archive(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in members {
        let mut header = [0u8; 512];
        let mut put = |at: usize, text: &str| {
            header[at..at + text.len()].copy_from_slice(text.as_bytes());
        };
        put(0, name);
        put(100, "0000644");
        put(108, "0000000");
        put(116, "0000000");
        put(124, &format!("{:011o}", data.len()));
        put(136, "00000000000");
        put(148, "        ");
        put(156, "0");
        put(257, "ustar");
        put(263, "00");
        put(265, "root");
        put(297, "root");
        let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
        header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    // Two zero blocks end the archive.
    out.resize(out.len() + 1024, 0);
    out
}

/// `data` in gzip's format, in stored (uncompressed) deflate blocks.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = chunk.len() as u16;
        out.push(u8::from(last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&u32_of(data.len()).to_le_bytes());
    out
}

/// An ar archive (a static library) of one member.
fn ar_archive(name: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    let header = format!(
        "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
        format!("{name}/"),
        0,
        0,
        0,
        644,
        data.len()
    );
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(b'\n');
    }
    out
}

/// A `src/main.rs` that prints `s`.
fn main_rs(s: &str) -> String {
    format!("fn main() {{\n    println!(\"{s}\");\n}}\n")
}

fn mkdir(d: &Path) {
    std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("creating {}: {e}", d.display()));
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        mkdir(dir);
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// What a reader thread kept of one output stream.
#[derive(Default)]
struct Captured {
    head: Vec<u8>,
    secrets: Vec<String>,
}

/// How much of a stream's start is kept for reports.
const HEAD: usize = 2048;

/// How far past a marker an excerpt reaches; also how much of each chunk
/// is carried into the next, so a marker split between reads is still
/// found, and found once.
const EXCERPT: usize = 48;

/// Reads a stream to its end in a thread (a command may print without
/// limit until it times out), keeping its start and every planted secret
/// it shows.
fn capture(mut r: impl Read + Send + 'static) -> JoinHandle<Captured> {
    std::thread::spawn(move || {
        let mut got = Captured::default();
        let mut window: Vec<u8> = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = r.read(&mut buf).unwrap_or(0);
            let end = n == 0;
            let room = HEAD.saturating_sub(got.head.len()).min(n);
            got.head.extend_from_slice(&buf[..room]);
            window.extend_from_slice(&buf[..n]);
            // Markers starting in the window's last EXCERPT bytes wait for
            // the next read, unless there is none.
            let settled = if end {
                window.len()
            } else {
                window.len().saturating_sub(EXCERPT)
            };
            let mut at = 0;
            while let Some(p) = find(&window[at..settled], MARKER.as_bytes()) {
                let start = at + p;
                let stop = (start + EXCERPT).min(window.len());
                let excerpt: Vec<u8> = window[start..stop]
                    .iter()
                    .copied()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .collect();
                let excerpt = String::from_utf8_lossy(&excerpt).into_owned();
                if !got.secrets.contains(&excerpt) {
                    got.secrets.push(excerpt);
                }
                at = start + 1;
            }
            window.drain(..settled);
            if end {
                return got;
            }
        }
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
