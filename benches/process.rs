//! Whole-process latency: one `toolgate` process per call, next to an empty
//! Rust program that reads stdin and writes a line (the floor for a hook),
//! and one `toolgate scan --format jsonl` over the shared corpus next to a
//! program that only reads the same lines and writes each back as JSON (the
//! floor for a scan).
//!
//! `cargo bench --bench process` (`-- scan` for the scan group alone). Both
//! floors are compiled here with the same `rustc` and `-O`, so every side
//! comes from one toolchain. After the criterion groups, a sweep runs
//! `toolgate classify` once per command of `corpus/` and prints the mean,
//! median and 99th percentile against the baseline, then times every command
//! above 1.5x again.
//!
//! The binary Cargo builds for a bench is not quite the one users get:
//! dev-dependencies (proptest) turn on regex-syntax's Unicode tables, about
//! 8.8 k more relocations at start-up. To measure the user's binary:
//! `cargo build --release --locked && cp target/release/toolgate /tmp/tg &&
//! TOOLGATE_BIN=/tmp/tg cargo bench --bench process`.
//!
//! A change's cost is a ratio taken in one run: with `TOOLGATE_START_BIN`
//! naming the binary built before the change, every toolgate bench has a
//! `start_` twin timed in the same group, on the same machine minutes
//! apart at most (`git worktree add /tmp/start REV && cargo build --release
//! --locked` there, then `TOOLGATE_START_BIN=/tmp/start/target/release/toolgate`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

const BASELINE: &str = r#"
use std::io::{Read, Write};
fn main() {
    let mut s = String::new();
    let _ = std::io::stdin().read_to_string(&mut s);
    let _ = writeln!(std::io::stdout(), "{{\"len\":{}}}", s.len());
}
"#;

/// The scan floor: each line of the file named by the first argument
/// written back as a JSON object holding it as a string, as `scan` writes
/// `command`, with the same escapes.
const JSON_ECHO: &str = r#"
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, BufWriter, Write};
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let file = std::fs::File::open(&path).expect("a file of lines");
    let mut reader = BufReader::new(file);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let (mut line, mut record) = (String::new(), String::new());
    while reader.read_line(&mut line).unwrap_or(0) > 0 {
        record.clear();
        record.push_str("{\"command\":\"");
        for c in line.trim_end_matches(['\n', '\r']).chars() {
            match c {
                '"' => record.push_str("\\\""),
                '\\' => record.push_str("\\\\"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(record, "\\u{:04x}", c as u32);
                }
                c => record.push(c),
            }
        }
        record.push_str("\"}\n");
        let _ = out.write_all(record.as_bytes());
        line.clear();
    }
}
"#;

/// Compiles one of the floor programs above.
fn floor_program(name: &str, source: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-baseline");
    let _ = std::fs::create_dir_all(&dir);
    let src = dir.join(format!("{name}.rs"));
    let exe = dir.join(name);
    let _ = std::fs::write(&src, source);
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let status = Command::new(rustc)
        .args(["-O", "--edition", "2021", "-o"])
        .arg(&exe)
        .arg(&src)
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "could not compile {}",
        src.display()
    );
    exe
}

/// The lines `scan` is timed on, in one file: every `.txt` of the shared
/// corpora, or the commands of our own corpus when they are absent.
fn scan_input() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("../shared/corpus"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut text = String::new();
    for f in &files {
        text.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    if text.is_empty() {
        for command in own_commands() {
            text.push_str(&command.replace('\n', " "));
            text.push('\n');
        }
    }
    let path = root.join("target/bench-baseline/scan-input.txt");
    let _ = std::fs::write(&path, text);
    path
}

/// Every command of `corpus/`.
fn own_commands() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut commands = Vec::new();
    for f in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap_or_default();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            commands.extend(v["command"].as_str().map(String::from));
        }
    }
    commands
}

fn run(exe: &Path, args: &[&str], stdin: &[u8]) {
    run_env(exe, args, stdin, &[("TOOLGATE_LOG", "0")]);
}

/// [`run`] with environment variables set.
fn run_env(exe: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) {
    let mut child = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin);
    }
    let _ = child.wait();
}

fn payload() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/protocols/claude-code-2.1.332-PreToolUse-Bash.json");
    std::fs::read(path).unwrap_or_else(|_| {
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#.to_vec()
    })
}

/// A repository with a project policy at its root, and the directory two
/// levels down that the logged hook's call is made in.
fn project_dir() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-baseline/project");
    let deep = root.join("src/module");
    let _ = std::fs::create_dir_all(root.join(".git"));
    let _ = std::fs::create_dir_all(&deep);
    let _ = std::fs::write(
        root.join(".toolgate.toml"),
        "mode = \"strict\"\n[rules]\ndeny = [\"shell:cmd=terraform destroy *\"]\n",
    );
    deep
}

/// The captured payload with its `cwd` set to `dir`.
fn payload_in(dir: &Path) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(&payload()).unwrap_or_default();
    v["cwd"] = serde_json::Value::from(dir.to_string_lossy().into_owned());
    serde_json::to_vec(&v).unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let base = floor_program("baseline", BASELINE);
    let toolgate = std::env::var_os("TOOLGATE_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_toolgate")),
        PathBuf::from,
    );
    eprintln!("measuring {}", toolgate.display());
    // (name, binary): the binary measured, then the one it is compared with.
    let mut sides = vec![("", toolgate)];
    if let Some(start) = std::env::var_os("TOOLGATE_START_BIN") {
        eprintln!("side by side with {}", Path::new(&start).display());
        sides.push(("start_", PathBuf::from(start)));
    }
    let payload = payload();
    let mut g = c.benchmark_group("process");
    g.sample_size(50);
    g.bench_function("empty_baseline", |b| b.iter(|| run(&base, &[], &payload)));
    // The whole of a hook's work: the decision log on (the answer, then one
    // line appended, rotated at 1 MiB so the file stays small), and the call
    // made two directories deep in a repository whose root holds a
    // `.toolgate.toml`, so the project file is looked up, read and applied.
    let state = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-baseline/state");
    let state = state.to_str().unwrap_or_default().to_string();
    let in_project = payload_in(&project_dir());
    for (side, exe) in &sides {
        g.bench_function(format!("{side}hook_claude"), |b| {
            b.iter(|| {
                run(
                    exe,
                    &["hook", "--protocol", "claude", "--mode", "balanced"],
                    &payload,
                )
            })
        });
        g.bench_function(format!("{side}hook_claude_logged"), |b| {
            b.iter(|| {
                run_env(
                    exe,
                    &["hook", "--protocol", "claude", "--mode", "balanced"],
                    &in_project,
                    &[("TOOLGATE_LOG", "1"), ("TOOLGATE_STATE_DIR", &state)],
                )
            })
        });
        g.bench_function(format!("{side}classify_git_status"), |b| {
            b.iter(|| run(exe, &["classify", "git status"], b""))
        });
    }
    g.finish();

    // The whole corpus through one `scan` process (all cores), next to the
    // floor for the job reading and writing the same lines.
    let echo = floor_program("json_echo", JSON_ECHO);
    let input = scan_input();
    let input = input.to_str().unwrap_or_default();
    let mut g = c.benchmark_group("scan");
    g.sample_size(30);
    g.bench_function("floor_json_echo", |b| b.iter(|| run(&echo, &[input], b"")));
    for (side, exe) in &sides {
        g.bench_function(format!("{side}scan_jsonl"), |b| {
            b.iter(|| run(exe, &["scan", "--format", "jsonl", input], b""))
        });
        g.bench_function(format!("{side}scan_jsonl_one_thread"), |b| {
            b.iter(|| {
                run(
                    exe,
                    &["scan", "--format", "jsonl", "--threads", "1", input],
                    b"",
                )
            })
        });
    }
    g.finish();

    // `cargo bench --bench process -- scan` (any filter that does not
    // name the sweep) leaves the sweep out: it takes minutes.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_none_or(|f| "sweep".contains(f.as_str())) {
        sweep(&base, &sides[0].1);
    }
}

/// Every command of `corpus/` in its own `toolgate classify` process.
fn sweep(base: &Path, toolgate: &Path) {
    let commands = own_commands();
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    // Each process is timed `n` times and its fastest run kept: the machine
    // is shared, and one slow run says nothing about the command.
    let fastest = |n: usize, f: &dyn Fn()| (0..n).map(|_| time(f)).min().unwrap_or_default();
    // One command, fastest of `n`, against the empty program timed the same
    // way just before it: (ratio, its time, the empty program's).
    let judge = |n: usize, cmd: &str| {
        let b = fastest(n, &|| run(base, &[], b""));
        let t = fastest(n, &|| run(toolgate, &["classify", cmd], b""));
        (t.as_secs_f64() / b.as_secs_f64(), t, b)
    };
    // The empty program is timed right before each command, the same way,
    // and each command is judged against that: the machine's load drifts
    // over the minutes a sweep takes.
    let mut times: Vec<(f64, Duration, Duration, &String)> = commands
        .iter()
        .map(|cmd| {
            let (ratio, t, b) = judge(3, cmd);
            (ratio, t, b, cmd)
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    if times.is_empty() {
        return;
    }
    let n = times.len();
    let mean = times.iter().map(|t| t.0).sum::<f64>() / n as f64;
    let mean_time = times.iter().map(|t| t.1).sum::<Duration>() / u32::try_from(n).unwrap_or(1);
    let mean_base = times.iter().map(|t| t.2).sum::<Duration>() / u32::try_from(n).unwrap_or(1);
    println!(
        "sweep: {n} corpus commands, one process each (fastest of 3, against the empty program timed likewise just before): mean ratio {mean:.2}x ({mean_time:?} against {mean_base:?}), median {:.2}x, 99th percentile {:.2}x",
        times[n / 2].0,
        times[n * 99 / 100].0,
    );
    // A command above 1.5x is timed again, fastest of 15, next to the empty
    // program timed the same way at the same moment: a command that is slow
    // stays slow, one that met a busy machine does not.
    let over: Vec<&String> = times.iter().filter(|t| t.0 > 1.5).map(|t| t.3).collect();
    let mut rechecked: Vec<(f64, &String)> =
        over.iter().map(|cmd| (judge(15, cmd).0, *cmd)).collect();
    rechecked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let still = rechecked.iter().filter(|(r, _)| *r > 1.5).count();
    match rechecked.last() {
        Some((r, cmd)) => println!(
            "sweep: {} above 1.5x at first; timed again (fastest of 15 each, empty program likewise): {still} still above, slowest {r:.2}x: {cmd:?}",
            over.len()
        ),
        None => println!("sweep: none above 1.5x"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
