//! The judge: reads the strace log (and the captured output) of one
//! sandboxed command and lists everything in it a safe command must never
//! do.
//!
//! It judges the attempt, not the result: a write that the kernel refused
//! (`EROFS`, `ENOENT`) or a `connect` that found no network is still a
//! command that tried, and a command labelled safe must not try.
//!
//! The log is strace's text output with `-f -y`: every line starts with a
//! pid, file descriptors carry their path in angle brackets
//! (`3</tmp/w/src>`, `AT_FDCWD</tmp/w>`), and a call another process
//! interrupted is split into `<unfinished ...>` and `<... resumed>` halves,
//! which [`calls`] joins back together.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The system calls the oracle asks strace for: each group below is
/// something a safe command must never do, or what the judge needs to
/// follow paths and processes (`chdir`, `fchdir`, the `clone` family).
/// Reads are traced through the open family only: a secret is caught when
/// its file is opened, and `read` itself would make logs huge for nothing.
pub fn traced() -> impl Iterator<Item = &'static str> {
    PROCESS
        .iter()
        .chain(OPEN)
        .chain(MODIFY)
        .chain(NETWORK)
        .copied()
}

/// Starting programs, and what a process inherits.
#[rustfmt::skip]
const PROCESS: &[&str] = &[
    "execve", "execveat", "clone", "clone3", "fork", "vfork", "chdir", "fchdir",
];

/// Opening files, for reading or writing.
const OPEN: &[&str] = &["open", "openat", "openat2", "creat"];

/// The calls that change the file system whatever their arguments.
/// `fchmodat2` is missing because this strace (6.1) does not know it;
/// glibc 2.36 never calls it (`chmod` goes through `fchmodat`).
#[rustfmt::skip]
const MODIFY: &[&str] = &[
    "mkdir", "mkdirat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir",
    "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "chown",
    "fchown", "lchown", "fchownat", "truncate", "ftruncate", "mknod", "mknodat", "utime",
    "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
    "lremovexattr", "fremovexattr",
];

/// Reaching out.
#[rustfmt::skip]
const NETWORK: &[&str] = &[
    "connect", "bind", "listen", "sendto", "sendmsg", "sendmmsg",
];

/// The open flags that make an open a write.
const WRITE_FLAGS: &[&str] = &["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"];

/// The glibc name-service cache sockets. Any user or host lookup (`ls -l`
/// naming a file's owner, `id`, `ps`) first asks nscd over this local
/// socket; it is a read of a local cache, not a network connection.
const NSCD_SOCKETS: &[&str] = &["/var/run/nscd/socket", "/run/nscd/socket"];

/// What the secrets planted in the sandbox start with, in files, in git
/// history and in the environment.
pub const MARKER: &str = "TGSECRET_";

/// Why a command is not safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Opened a file for writing (other than a standard sink).
    Write,
    /// Created, removed, renamed, linked or changed the metadata of a file.
    Modify,
    /// Started a program the command line does not name.
    Exec,
    /// Connected, listened or sent somewhere.
    Network,
    /// Opened a planted secret file.
    SecretFile,
    /// Printed a planted secret.
    SecretOutput,
    /// Left no trace of bash starting: the sandbox or strace failed, so
    /// nothing was judged (failing here keeps a broken runner from passing
    /// everything).
    Untraced,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Write => "opens a file for writing",
            Kind::Modify => "changes the file system",
            Kind::Exec => "runs another program",
            Kind::Network => "uses the network",
            Kind::SecretFile => "opens a planted secret",
            Kind::SecretOutput => "prints a planted secret",
            Kind::Untraced => "did not run under strace",
        })
    }
}

/// One thing a command did that a safe command must not, with the strace
/// line (or output excerpt) that shows it.
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: Kind,
    pub evidence: String,
}

/// What the judge needs to know about the sandbox and the command.
pub struct Context<'a> {
    /// The working directory every command starts in.
    pub work: &'a Path,
    /// The planted secret files, absolute.
    pub secrets: &'a [PathBuf],
    /// Programs the command line may start: the commands (and wrappers)
    /// toolgate's own analysis found in it, by file name. A program that
    /// runs anything else ran something toolgate never judged.
    pub programs: &'a BTreeSet<String>,
    /// The command's spec says it reads through a service (the Docker
    /// daemon, a cluster's API server): it may connect to reach it, and
    /// do nothing else a safe command must not.
    pub service: bool,
}

/// Every violation in `log` and in the captured output, in log order
/// (output last).
pub fn judge(log: &str, secrets_printed: &[String], cx: &Context<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    let calls = calls(log);
    let parents: HashMap<u32, u32> = calls
        .iter()
        .filter(|c| matches!(c.name, "clone" | "clone3" | "fork" | "vfork"))
        .filter_map(|c| Some((c.ret_number()?, c.pid)))
        .filter_map(|(child, parent)| Some((u32::try_from(child).ok()?, parent)))
        .collect();
    let mut procs: HashMap<u32, Process> = HashMap::new();
    let mut shell_seen = false;
    for call in &calls {
        let proc = process(&mut procs, &parents, call.pid, cx.work);
        if let Some(cwd) = call.args.first().and_then(|a| at_fdcwd(a)) {
            proc.cwd = cwd;
        }
        let mut flag = |kind| {
            out.push(Violation {
                kind,
                evidence: call.line.clone(),
            })
        };
        match call.name {
            "execve" | "execveat" => {
                let Some((path, program)) = exec_program(call) else {
                    flag(Kind::Exec);
                    continue;
                };
                // The first exec of the log is strace starting our bash.
                if !shell_seen && program == "bash" {
                    shell_seen = true;
                } else if !cx.programs.contains(&program) && !proc.selves.contains(&program) {
                    flag(Kind::Exec);
                }
                if call.ret == "0" {
                    proc.selves = interpreters(&resolve(&proc.cwd, &path));
                    proc.selves.push(program);
                }
            }
            "chdir" if call.ret == "0" => {
                if let Some(p) = call.args.first().and_then(|a| unquote(a)) {
                    proc.cwd = resolve(&proc.cwd, &p);
                }
            }
            "fchdir" if call.ret == "0" => {
                if let Some(p) = call.args.first().and_then(|a| annotation(a)) {
                    proc.cwd = PathBuf::from(p);
                }
            }
            "open" | "openat" | "openat2" | "creat" => {
                let Some(open) = Open::read(call, &proc.cwd) else {
                    continue;
                };
                if open.writes
                    && !is_sink(&open.path)
                    && !git_index_lock(&open.path, cx.work)
                    && !jvm_own_files(&open.path)
                {
                    flag(Kind::Write);
                }
                let opened = [Some(&open.path), open.opened.as_ref()];
                if opened.iter().flatten().any(|p| cx.secrets.contains(p)) {
                    flag(Kind::SecretFile);
                }
            }
            "connect" | "bind" | "listen" | "sendto" | "sendmsg" | "sendmmsg"
                if is_network(call) && !(cx.service && call.name == "connect") =>
            {
                flag(Kind::Network)
            }
            name if MODIFY.contains(&name)
                && !git_index_refresh(call, cx.work)
                && !jvm_perf_data_change(call, &proc.cwd) =>
            {
                flag(Kind::Modify)
            }
            _ => {}
        }
    }
    if !shell_seen {
        out.push(Violation {
            kind: Kind::Untraced,
            evidence: format!("no execve of bash in {} log lines", log.lines().count()),
        });
    }
    out.extend(secrets_printed.iter().map(|s| Violation {
        kind: Kind::SecretOutput,
        evidence: format!("output: …{s}…"),
    }));
    out
}

/// git's optional index lock. `git status` (and other reads) refresh the
/// stat information cached in `.git/index` when they can take
/// `.git/index.lock` (O_CREAT|O_EXCL), and rename the lock over the index:
/// the same entries, fresher timestamps; `--no-optional-locks` skips it. It
/// is the one write the oracle lets a safe command make, and only at
/// exactly these two paths of the work tree's own repository.
fn git_index_lock(path: &Path, work: &Path) -> bool {
    path == work.join(".git/index.lock")
}

/// The JVM's own files, which every `java` run writes, `-version` too: its
/// process's core-dump filter (`/proc/self/coredump_filter`, the process's
/// own setting), and its performance-data file, `hsperfdata_USER/PID` under
/// the temporary directory, which it creates, sizes and removes on exit
/// (in its directory, created if missing). Nothing of the command's.
fn jvm_own_files(path: &Path) -> bool {
    let Some(p) = path.to_str() else {
        return false;
    };
    p == "/proc/self/coredump_filter"
        || p.strip_prefix("/proc/")
            .and_then(|rest| rest.strip_suffix("/coredump_filter"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        || jvm_perf_data(path, true)
}

/// `/tmp/hsperfdata_USER` (`file`: false) or `/tmp/hsperfdata_USER/PID`
/// (`file`: true).
fn jvm_perf_data(path: &Path, file: bool) -> bool {
    let Some(rest) = path
        .to_str()
        .and_then(|p| p.strip_prefix("/tmp/hsperfdata_"))
    else {
        return false;
    };
    match rest.split_once('/') {
        Some((user, pid)) => {
            file && !user.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
        }
        None => !file && !rest.is_empty(),
    }
}

/// The JVM sizing (`ftruncate`) and removing its performance-data file, and
/// creating its directory.
fn jvm_perf_data_change(call: &Call<'_>, cwd: &Path) -> bool {
    let named = |k: usize| {
        call.args
            .get(k)
            .and_then(|a| unquote(a))
            .map(|p| resolve(cwd, &p))
    };
    match call.name {
        "ftruncate" => call
            .args
            .first()
            .and_then(|a| annotation(a))
            .is_some_and(|p| jvm_perf_data(Path::new(&p), true)),
        "mkdir" => named(0).is_some_and(|p| jvm_perf_data(&p, false)),
        "unlink" => named(0).is_some_and(|p| jvm_perf_data(&p, true)),
        "unlinkat" | "mkdirat" => named(1).is_some_and(|p| {
            jvm_perf_data(&p, call.name == "unlinkat") || jvm_perf_data(&p, false)
        }),
        _ => false,
    }
}

/// The rename (or, when it fails, unlink) of git's index lock.
fn git_index_refresh(call: &Call<'_>, work: &Path) -> bool {
    let quoted: Vec<String> = call.args.iter().filter_map(|a| unquote(a)).collect();
    let lock = work.join(".git/index.lock");
    let index = work.join(".git/index");
    let paths: Vec<PathBuf> = quoted.iter().map(|p| resolve(work, p)).collect();
    match call.name {
        "rename" | "renameat" | "renameat2" => paths == [lock, index],
        "unlink" | "unlinkat" => paths == [lock],
        _ => false,
    }
}

/// What the judge follows of one process: the names the program it runs
/// may exec again as itself, and its working directory.
#[derive(Clone)]
struct Process {
    /// The program's file name and, for a script, its interpreter's (a
    /// `#!/usr/bin/env node` script execs `node` as part of starting);
    /// empty until the process execs.
    selves: Vec<String>,
    cwd: PathBuf,
}

/// The process `pid`, first seen as a copy of its parent: a forked child
/// runs the same program in the same directory. Its parent is looked up in
/// a map built from the whole log, because with `-f` a child's first line
/// can come before the parent's `clone` returns.
fn process<'p>(
    procs: &'p mut HashMap<u32, Process>,
    parents: &HashMap<u32, u32>,
    pid: u32,
    work: &Path,
) -> &'p mut Process {
    if !procs.contains_key(&pid) {
        let inherited = parents.get(&pid).and_then(|p| procs.get(p)).cloned();
        let fresh = inherited.unwrap_or_else(|| Process {
            selves: Vec::new(),
            cwd: work.to_path_buf(),
        });
        procs.insert(pid, fresh);
    }
    procs
        .get_mut(&pid)
        .unwrap_or_else(|| unreachable!("inserted above"))
}

/// The path and file name of the program an `execve`/`execveat` starts
/// (for `execveat(fd, "", …, AT_EMPTY_PATH)` the file behind `fd`).
fn exec_program(call: &Call<'_>) -> Option<(String, String)> {
    let path = match call.name {
        "execve" => unquote(call.args.first()?)?,
        _ => match unquote(call.args.get(1)?)? {
            p if p.is_empty() => annotation(call.args.first()?)?,
            p => p,
        },
    };
    let name = file_name(&path)?;
    Some((path, name))
}

fn file_name(path: &str) -> Option<String> {
    Some(Path::new(path).file_name()?.to_string_lossy().into_owned())
}

/// The interpreters a script's `#!` line names: `#!/bin/sh` gives `sh`,
/// `#!/usr/bin/env -S node --flag` gives `env` and `node`. The sandbox
/// shows the host's root read-only, so the file read here is the one that
/// ran. None for a binary.
fn interpreters(script: &Path) -> Vec<String> {
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Vec::new();
    };
    let line = String::from_utf8_lossy(line);
    let mut words = line.lines().next().unwrap_or("").split_whitespace();
    let mut out: Vec<String> = words.next().and_then(file_name).into_iter().collect();
    if out.first().is_some_and(|i| i == "env") {
        out.extend(words.find(|w| !w.starts_with('-')).and_then(file_name));
    }
    out
}

/// One call of the open family, read.
struct Open {
    /// The path it names, made absolute against its directory.
    path: PathBuf,
    /// The file it opened, as strace's `-y` names the returned descriptor
    /// (follows symbolic links; absent when the open failed).
    opened: Option<PathBuf>,
    /// Whether it asks to write, create, truncate or append.
    writes: bool,
}

impl Open {
    fn read(call: &Call<'_>, cwd: &Path) -> Option<Open> {
        let (dir, path, flags) = match call.name {
            "open" => (None, call.args.first()?, call.args.get(1)?.as_str()),
            "creat" => (None, call.args.first()?, "O_CREAT|O_WRONLY|O_TRUNC"),
            "openat" => (
                call.args.first(),
                call.args.get(1)?,
                call.args.get(2)?.as_str(),
            ),
            // openat2(dirfd, path, {flags=…, mode=…, resolve=…}, size)
            _ => (
                call.args.first(),
                call.args.get(1)?,
                struct_field(call.args.get(2)?, "flags")?,
            ),
        };
        let path = unquote(path)?;
        let base = dir
            .and_then(|d| annotation(d))
            .map_or_else(|| cwd.to_path_buf(), PathBuf::from);
        Some(Open {
            path: resolve(&base, &path),
            opened: annotation(&call.ret).map(PathBuf::from),
            writes: flags.split('|').any(|f| WRITE_FLAGS.contains(&f.trim())),
        })
    }
}

/// The standard sinks a command may open for writing: a redirection such
/// as `2>/dev/null` makes bash open one, and writing to them changes
/// nothing on disk.
fn is_sink(path: &Path) -> bool {
    let Some(p) = path.to_str() else {
        return false;
    };
    let numbered = |prefix: &str| {
        p.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    matches!(p, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
        || numbered("/dev/fd/")
        || numbered("/dev/pts/")
}

/// True when a socket call reaches out: any `connect` but nscd's; any
/// `listen`; a `bind` to a chosen port or a socket path (a bind to port 0
/// is the probe Python's urllib3 makes to learn whether IPv6 works, and a
/// netlink bind is how `ip addr` and glibc talk to the kernel); a send to
/// an explicit address other than the kernel's netlink; or a netlink
/// message that changes the kernel's network state (reads such as
/// `RTM_GETADDR` are fine).
fn is_network(call: &Call<'_>) -> bool {
    let addr = |i: usize| call.args.get(i).map_or("", String::as_str);
    match call.name {
        "connect" => {
            let a = addr(1);
            let nscd = a.contains("sa_family=AF_UNIX")
                && NSCD_SOCKETS
                    .iter()
                    .any(|s| a.contains(&format!("sun_path=\"{s}\"")));
            !nscd
        }
        "bind" => {
            let a = addr(1);
            let probe = a.contains("_port=htons(0)") && a.contains("sa_family=AF_INET");
            !probe && !a.contains("sa_family=AF_NETLINK")
        }
        "listen" => true,
        "sendto" => {
            let to = addr(4);
            let named = to != "NULL" && !to.is_empty() && !to.contains("sa_family=AF_NETLINK");
            named || netlink_changes(addr(1))
        }
        _ => {
            let msg = addr(1);
            let named = msg.contains("msg_name=")
                && !msg.contains("msg_name=NULL")
                && !msg.contains("msg_name={sa_family=AF_NETLINK");
            named || netlink_changes(msg)
        }
    }
}

/// True when a decoded netlink message creates, deletes or sets something.
fn netlink_changes(buf: &str) -> bool {
    buf.split("nlmsg_type=").skip(1).any(|rest| {
        let ty = rest.split([',', '}', ' ']).next().unwrap_or("");
        ["_NEW", "_DEL", "_SET"].iter().any(|w| ty.contains(w))
    })
}

/// One complete traced call.
#[derive(Debug)]
pub struct Call<'a> {
    pub pid: u32,
    pub name: &'a str,
    /// The arguments as strace printed them, split at top-level commas.
    pub args: Vec<String>,
    /// What follows ` = `: `0`, `3</path>`, `-1 ENOENT (…)`, `?`.
    pub ret: String,
    /// The whole line, for reports.
    pub line: String,
}

impl Call<'_> {
    /// The return value as a number (a new child's pid for `clone`).
    fn ret_number(&self) -> Option<i64> {
        self.ret.split([' ', '<']).next()?.parse().ok()
    }
}

/// Every traced call in `log`, split halves joined, signal and exit lines
/// dropped.
pub fn calls(log: &str) -> Vec<Call<'static>> {
    let mut pending: HashMap<u32, String> = HashMap::new();
    let mut out = Vec::new();
    for line in log.lines() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(pid) = line[..digits].parse::<u32>() else {
            continue;
        };
        let text = line[digits..].trim_start();
        let whole = if let Some(first) = text.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, first.to_string());
            continue;
        } else if let Some(rest) = text.strip_prefix("<... ") {
            let Some((name, rest)) = rest.split_once(" resumed>") else {
                continue;
            };
            match pending.remove(&pid) {
                Some(first) => format!("{first}{rest}"),
                None => format!("{name}({rest}"),
            }
        } else {
            text.to_string()
        };
        if let Some(call) = parse_call(pid, whole) {
            out.push(call);
        }
    }
    out
}

/// `name(arg, arg, …) = ret` split up; `None` for `--- SIG… ---`, `+++`
/// lines and anything else that is not a call.
fn parse_call(pid: u32, line: String) -> Option<Call<'static>> {
    let open = line.find('(')?;
    let name = &line[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    // The name is one of ours: borrow the static copy instead of the line.
    let name: &'static str = traced().find(|t| *t == name)?;
    let (args, end) = split_args(&line[open + 1..]);
    let after = &line[open + 1 + end..];
    let ret = after
        .trim_start_matches(')')
        .trim_start()
        .strip_prefix('=')
        .unwrap_or("")
        .trim()
        .to_string();
    Some(Call {
        pid,
        name,
        args,
        ret,
        line,
    })
}

/// Splits strace's argument list at top-level commas, up to the `)` that
/// closes it; returns the arguments and that `)`'s offset. Strings (with
/// their escapes), brackets and `-y` path annotations (`3</a, b>`) are
/// atomic. An annotation opens only right after a descriptor (a digit or
/// `AT_FDCWD`), so clone3's `=> {…}` does not count as one.
fn split_args(s: &str) -> (Vec<String>, usize) {
    let bytes = s.as_bytes();
    let (mut args, mut start, mut depth, mut i) = (Vec::new(), 0, 0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_quoted(bytes, i + 1, b'"'),
            b'<' if i > 0 && (bytes[i - 1].is_ascii_digit() || bytes[i - 1] == b'D') => {
                i = skip_quoted(bytes, i + 1, b'>')
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => break,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                args.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let last = s[start..i.min(s.len())].trim();
    if !last.is_empty() || !args.is_empty() {
        args.push(last.to_string());
    }
    (args, i.min(s.len()))
}

/// The offset of the unescaped `close` that ends a quoted run starting at
/// `i`.
fn skip_quoted(bytes: &[u8], mut i: usize, close: u8) -> usize {
    while i < bytes.len() && bytes[i] != close {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// The text of a quoted strace string (`"a\"b"` → `a"b`), `None` when the
/// argument is not one (`NULL`, an address).
fn unquote(arg: &str) -> Option<String> {
    let inner = arg.strip_prefix('"')?;
    let inner = inner.strip_suffix("\"...").or(inner.strip_suffix('"'))?;
    Some(unescape(inner))
}

/// The path strace's `-y` printed after a descriptor: `3</a/b>` → `/a/b`.
fn annotation(arg: &str) -> Option<String> {
    let start = arg.find('<')?;
    let end = arg.rfind('>')?;
    (end > start).then(|| unescape(&arg[start + 1..end]))
}

/// The working directory `AT_FDCWD</dir>` shows, if the argument is that.
fn at_fdcwd(arg: &str) -> Option<PathBuf> {
    arg.starts_with("AT_FDCWD<")
        .then(|| annotation(arg).map(PathBuf::from))
        .flatten()
}

/// The value of `name=` in a decoded struct (`{flags=O_RDONLY, …}`).
fn struct_field<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let key = format!("{name}=");
    let at = s.find(&key)? + key.len();
    s[at..].split([',', '}']).next()
}

/// strace's C-style escapes undone: `\n`, `\"`, `\\`, octal `\76`, hex
/// `\x3e`. Paths that are not UTF-8 come out lossy, which is fine for
/// comparing with the sandbox's own (ASCII) paths.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let (byte, used) = match b[i] {
            b'n' => (b'\n', 1),
            b't' => (b'\t', 1),
            b'r' => (b'\r', 1),
            b'v' => (0x0b, 1),
            b'f' => (0x0c, 1),
            b'x' => {
                let hex: String = s[i + 1..].chars().take(2).collect();
                (u8::from_str_radix(&hex, 16).unwrap_or(b'?'), 1 + hex.len())
            }
            b'0'..=b'7' => {
                let n = b[i..]
                    .iter()
                    .take(3)
                    .take_while(|c| (b'0'..=b'7').contains(c));
                let oct: String = n.map(|&c| c as char).collect();
                (u8::from_str_radix(&oct, 8).unwrap_or(b'?'), oct.len())
            }
            other => (other, 1),
        };
        out.push(byte);
        i += used;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `path` made absolute against `base` and cleaned of `.` and `..`
/// without touching the disk (the file may not exist).
fn resolve(base: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_lines_parse() {
        let log = concat!(
            "5     openat(AT_FDCWD</w>, \"a\\76b\", O_RDONLY <unfinished ...>\n",
            "6     --- SIGCHLD {si_signo=SIGCHLD} ---\n",
            "5     <... openat resumed>) = 3</w/a\\76b>\n",
            "7     clone3({flags=CLONE_VM, exit_signal=SIGCHLD} => {parent_tid=[8]}, 88) = 8\n",
            "8     execve(\"/usr/bin/ls\", [\"ls\", \"-l\"], 0x7ffd /* 4 vars */) = 0\n",
        );
        let calls = calls(log);
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert_eq!(calls[0].args, ["AT_FDCWD</w>", "\"a\\76b\"", "O_RDONLY"]);
        assert_eq!(annotation(&calls[0].ret).as_deref(), Some("/w/a>b"));
        assert_eq!(calls[1].ret_number(), Some(8));
        assert_eq!(calls[1].args.len(), 2, "{:?}", calls[1].args);
        let program = exec_program(&calls[2]).map(|p| p.1);
        assert_eq!(program.as_deref(), Some("ls"));
    }

    #[test]
    fn an_empty_log_fails() {
        let cx = Context {
            work: Path::new("/w"),
            secrets: &[],
            programs: &BTreeSet::new(),
            service: false,
        };
        let kinds: Vec<Kind> = judge("", &[], &cx).iter().map(|v| v.kind).collect();
        assert_eq!(kinds, [Kind::Untraced]);
    }

    #[test]
    fn the_jvm_s_own_files_are_exactly_its_own() {
        assert!(jvm_own_files(Path::new("/proc/self/coredump_filter")));
        assert!(jvm_own_files(Path::new("/proc/42/coredump_filter")));
        assert!(jvm_own_files(Path::new("/tmp/hsperfdata_root/42")));
        assert!(jvm_perf_data(Path::new("/tmp/hsperfdata_root"), false));
        for other in [
            "/tmp/hsperfdata_root/../x",
            "/tmp/hsperfdata_root/42/x",
            "/tmp/hsperfdata_/42",
            "/tmp/hsperfdata_root",
            "/proc/self/environ",
            "/proc/x/coredump_filter",
            "/tmp/notes",
        ] {
            assert!(!jvm_own_files(Path::new(other)), "{other}");
        }
    }

    #[test]
    fn paths_resolve_and_sinks_are_exact() {
        let w = Path::new("/t/work");
        assert_eq!(resolve(w, "../home/.netrc"), Path::new("/t/home/.netrc"));
        assert_eq!(resolve(w, "/dev/./null"), Path::new("/dev/null"));
        assert!(is_sink(Path::new("/dev/null")) && is_sink(Path::new("/dev/fd/2")));
        assert!(!is_sink(Path::new("/dev/fd/")) && !is_sink(Path::new("/dev/shm/x")));
    }
}
