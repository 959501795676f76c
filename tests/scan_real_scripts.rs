//! The shell scripts installed on this machine (under /usr/share and
//! /usr/lib), read by the shell front end as `toolgate scan` reads a
//! script: none that the system's own shell accepts may fail to parse.
//! Nothing is copied in; where the directories are absent the test says so
//! and passes. It prints the throughput in lines per second, and lists the
//! files it could not read with why.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use toolgate::scan_input::{extract, kind_by_name, sniff, Kind};

/// Files looked at, at most: a machine with a huge /usr/lib still finishes.
const MAX_FILES: usize = 200_000;

/// Every regular file below `dir` (symbolic links not followed).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_FILES {
            return;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

/// The shell that reads a script, for checking it with `-n`.
fn checker(path: &Path, head: &[u8]) -> Option<&'static str> {
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    if first.starts_with("#!") {
        if first.contains("zsh") || first.contains("ksh") {
            return None;
        }
        if first.contains("bash") {
            return Some("bash");
        }
        return Some("sh");
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    match ext {
        "bash" => Some("bash"),
        "sh" => Some("bash"),
        _ => None,
    }
}

/// Whether `shell -n` accepts the script (`None`: the shell is absent).
fn accepted(shell: &str, path: &Path) -> Option<bool> {
    std::process::Command::new(shell)
        .arg("-n")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()
        .map(|s| s.success())
}

#[test]
fn installed_shell_scripts_parse() {
    let roots = ["/usr/share", "/usr/lib"];
    let mut files = Vec::new();
    for root in roots {
        walk(Path::new(root), &mut files);
    }
    if files.is_empty() {
        eprintln!("no /usr/share or /usr/lib here: nothing to scan");
        return;
    }
    let (mut scripts, mut lines, mut bytes, mut commands) = (0u64, 0u64, 0u64, 0u64);
    let mut spent = Duration::ZERO;
    let mut unreadable: Vec<String> = Vec::new();
    let mut ours: Vec<String> = Vec::new();
    let mut invalid = 0u64;
    let mut unchecked = 0u64;
    for path in &files {
        let mut head = [0u8; 256];
        let n = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        let by_name = kind_by_name(path) == Some(Kind::Shell);
        if !by_name && sniff(path, &head[..n]) != Some(Kind::Shell) {
            continue;
        }
        scripts += 1;
        let text = match std::fs::read(path) {
            Err(e) => {
                unreadable.push(format!("{}: {e}", path.display()));
                continue;
            }
            Ok(raw) => match String::from_utf8(raw) {
                Ok(t) => t,
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    unreadable.push(format!("{}: not UTF-8 (byte {at})", path.display()));
                    continue;
                }
            },
        };
        let start = Instant::now();
        let found = extract(Kind::Shell, &text);
        spent += start.elapsed();
        lines += text.lines().count() as u64;
        bytes += text.len() as u64;
        commands += found.found.len() as u64;
        let Some(problem) = found.problems.first() else {
            continue;
        };
        match checker(path, &head[..n]).and_then(|sh| accepted(sh, path).map(|ok| (sh, ok))) {
            Some((sh, true)) => ours.push(format!(
                "{}:{}:{}: {} (`{sh} -n` accepts it)",
                path.display(),
                problem.line,
                problem.column,
                problem.message
            )),
            Some((_, false)) => {
                invalid += 1;
                unreadable.push(format!(
                    "{}:{}: {} (the shell rejects it too)",
                    path.display(),
                    problem.line,
                    problem.message
                ));
            }
            None => {
                unchecked += 1;
                unreadable.push(format!(
                    "{}:{}: {} (zsh or ksh: not checked)",
                    path.display(),
                    problem.line,
                    problem.message
                ));
            }
        }
    }
    let secs = spent.as_secs_f64().max(1e-9);
    eprintln!(
        "{scripts} scripts of {} files, {lines} lines, {bytes} bytes, {commands} commands read \
         in {secs:.3} s: {:.0} lines/s, {:.1} MB/s",
        files.len(),
        lines as f64 / secs,
        bytes as f64 / secs / 1e6,
    );
    eprintln!(
        "not read ({}; {invalid} rejected by their shell too, {unchecked} not checked):",
        unreadable.len()
    );
    for u in &unreadable {
        eprintln!("  {u}");
    }
    assert!(
        ours.is_empty(),
        "{} valid scripts the shell front end cannot read:\n{}",
        ours.len(),
        ours.join("\n")
    );
}
