//! The sandbox oracle: every command toolgate labels safe is run for real,
//! in a sandbox, under strace, and must not do anything a safe command
//! must never do.
//!
//! The other tests check labels against what people wrote down; this one
//! checks them against what the programs on this machine actually do. A
//! false *safe* is the one unforgivable error, and here it shows up as a
//! system call.
//!
//! - [`collect`]: the candidates (the project corpus, the taxonomy's
//!   examples and near misses, the shared corpora with
//!   `TOOLGATE_ORACLE_SHARED=1`, and [`extra_cases`]).
//! - [`sandbox`]: a throw-away work tree with planted secrets, and the
//!   runner (`bwrap` + `strace -f` + `bash -c`).
//! - [`judge`]: reads the strace log and the output, and names every write,
//!   file-system change, foreign program, network use, secret file opened
//!   and secret printed.
//!
//! `TOOLGATE_ORACLE_ONLY=PREFIX[,PREFIX…]` runs only the candidates that
//! start with one of the prefixes (`ip ,ss `): for whoever is writing the
//! specs of a few commands and wants their verdict in seconds.
//!
//! Only commands the embedded classifier labels safe are run, and lists
//! and pipelines whose every part it finds safe (which a gate with
//! `compound = every-part-safe` lets through): [`sandbox::Tree::run_safe`]
//! refuses anything else. The self-test
//! [`oracle_catches_misbehaviour`] is the one exception: it runs a fixed
//! list of bad fixtures to prove the judge can fail.
//!
//! Without `bwrap` or `strace`, or where a sandbox cannot start (no user
//! namespaces, ptrace blocked), both tests print `oracle skipped: …` and
//! pass. A sandbox that starts and a command that misbehaves in it always
//! fails.

mod collect;
mod judge;
mod sandbox;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use toolgate::{Class, Classifier, Label};

use judge::{Kind, Violation};
use sandbox::{Sandbox, Tools};

/// Cases beyond the corpus and the taxonomy: the command specs' examples
/// and every spec's options tried one by one (by each name, abbreviated,
/// bundled, with values attached and apart).
fn extra_cases() -> Vec<String> {
    let mut cases = toolgate::taxonomy::embedded_oracle_cases();
    cases.extend(compound_cases(&cases));
    cases
}

/// Lists and pipelines of safe commands, as agents chain them: every
/// seventh spec example joined to the next two by each operator a gate
/// with `compound = every-part-safe` accepts.
fn compound_cases(singles: &[String]) -> Vec<String> {
    const OPERATORS: [&str; 6] = [" && ", " | ", "; ", " || ", " |& ", "\n"];
    let classifier = classifier();
    let safe: Vec<&String> = singles
        .iter()
        .filter(|c| !c.contains('\n') && classifier.classify(c).class == Class::Safe)
        .collect();
    let mut out = Vec::new();
    for (n, group) in safe.chunks(3).enumerate().filter(|(n, _)| n % 7 == 0) {
        let op = OPERATORS[(n / 7) % OPERATORS.len()];
        let parts: Vec<&str> = group.iter().map(|s| s.as_str()).collect();
        out.push(parts.join(op));
    }
    // A directory change, then reads there.
    out.extend(
        [
            "cd src && ls -la && cat main.rs | head -3",
            "cd src; wc -l *.rs",
            "ls 2>/dev/null; cat src/*.rs | grep -n fn",
            "grep -n main src/*.rs || true",
            "nl -ba src/main.rs | sed -n '1,5p'",
        ]
        .map(String::from),
    );
    out
}

/// The environment variable that narrows the candidates to those starting
/// with one of its comma-separated prefixes.
const ONLY_ENV: &str = "TOOLGATE_ORACLE_ONLY";

/// How many commands of each service reader (aws, kubectl, docker …) run.
const SERVICE_SAMPLE: usize = 40;

/// At most this many commands run at once: the test machines have two
/// cores, and strace slows every traced process down.
const WORKERS: usize = 2;

/// Each command's violations of one kind shown in a report, at most.
const EVIDENCE_LINES: usize = 3;

#[test]
fn safe_commands_behave_in_the_sandbox() {
    let Some(sandbox) = start() else {
        return;
    };
    let started = Instant::now();
    let classifier = classifier();
    let mut candidates = collect::candidates(extra_cases());
    if let Ok(only) = std::env::var(ONLY_ENV) {
        let prefixes: Vec<&str> = only.split(',').filter(|p| !p.is_empty()).collect();
        candidates.retain(|c| prefixes.iter().any(|p| c.starts_with(p)));
    }
    let jobs: Vec<Job> = candidates
        .iter()
        .filter_map(|c| {
            let assessed = classifier.assess_in(c, &toolgate::Context::default());
            let label = assessed.label;
            let runs = label.class == Class::Safe || assessed.every_part_safe;
            runs.then(|| Job {
                every_part_safe: assessed.every_part_safe,
                programs: programs(classifier, c),
                service: service(classifier, c),
                command: c.clone(),
                label,
            })
        })
        .collect();
    // Service readers share one parser per command and each run of some
    // (aws: a Python start-up) costs a second: the first few of each
    // command stand for the rest.
    let mut per_service: std::collections::HashMap<String, usize> = Default::default();
    let before = jobs.len();
    let jobs: Vec<Job> = jobs
        .into_iter()
        .filter(|j| {
            if j.service.is_none() {
                return true;
            }
            let word = j
                .command
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            let n = per_service.entry(word).or_default();
            *n += 1;
            *n <= SERVICE_SAMPLE
        })
        .collect();
    let sampled_out = before - jobs.len();
    let outcomes = run_all(&sandbox, &jobs);
    let timeouts: Vec<&Outcome> = outcomes.iter().filter(|o| o.timed_out).collect();
    let failures: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.violations.is_empty())
        .collect();
    let secs = started.elapsed().as_secs_f64();
    let mut report = String::new();
    for t in &timeouts {
        report.push_str(&format!(
            "oracle timeout (killed after {}s, not a failure by itself): {}\n",
            sandbox::TIME_LIMIT.as_secs(),
            t.command
        ));
    }
    report.push_str(&format!(
        "oracle: {} candidates, {} labelled safe, {} executed ({sampled_out} more service reads not run), {} timeouts, {} failures, {secs:.1}s\n",
        candidates.len(),
        jobs.len() + sampled_out,
        outcomes.len(),
        timeouts.len(),
        failures.len(),
    ));
    // Straight to stderr, past the test harness's capture: the summary is
    // wanted on passing runs too.
    let _ = std::io::stderr().write_all(report.as_bytes());
    if !failures.is_empty() {
        let mut msg = format!(
            "{} of {} commands labelled safe misbehaved in the sandbox:\n",
            failures.len(),
            outcomes.len()
        );
        for f in failures {
            msg.push_str(&describe(f));
        }
        panic!("{msg}");
    }
}

/// The oracle can fail: each bad fixture is caught for the reason it
/// stands for, and ordinary reads are not flagged. The fixtures skip the
/// classifier (they are not safe, that is the point) and run only here,
/// inside the sandbox.
#[test]
fn oracle_catches_misbehaviour() {
    let Some(sandbox) = start() else {
        return;
    };
    let git = sandbox.has_git();
    #[rustfmt::skip]
    let bad: &[(&str, Kind, bool)] = &[
        ("touch x", Kind::Write, true),
        ("sort -o out.txt data.txt", Kind::Write, true),
        ("mkdir newdir", Kind::Modify, true),
        ("ln -s file.txt link", Kind::Modify, true),
        // `sh -c true` would not do: `true` is built into sh, nothing else
        // runs. `/bin/true` is a program.
        ("sh -c /bin/true", Kind::Exec, true),
        // GNU xargs with no input still runs `echo` once: a program the
        // line never names.
        ("xargs", Kind::Exec, true),
        ("cat .env", Kind::SecretFile, true),
        ("cat .env", Kind::SecretOutput, true),
        // A relative path, and one reached after `cd`.
        ("head -c 1 ../home/.netrc", Kind::SecretFile, true),
        ("cd .ssh && wc -c id_ed25519", Kind::SecretFile, true),
        ("echo $TOOLGATE_ORACLE_SECRET", Kind::SecretOutput, true),
        ("echo hi > /dev/tcp/127.0.0.1/9", Kind::Network, true),
        ("git show HEAD~3:.env.production", Kind::SecretOutput, git),
    ];
    let good: &[(&str, bool)] = &[
        ("cat file.txt", true),
        ("ls -la", true),
        ("ls -l 2>/dev/null", true),
        ("id", true),
        ("timeout 5 cat a.txt", true),
        ("git log --oneline", git),
        ("git show HEAD", git),
    ];
    let classifier = classifier();
    let mut tree = sandbox.tree(0);
    let mut wrong = Vec::new();
    for &(command, kind, _) in bad.iter().filter(|b| b.2) {
        let run = tree.run_fixture_bypassing_label_gate(command);
        let found = tree.judge_and_restore(&run, &programs(classifier, command), false);
        if !found.iter().any(|v| v.kind == kind) {
            wrong.push(format!(
                "{command:?} should be caught ({kind}), got {:?}\nstderr: {}\nlog:\n{}",
                found.iter().map(|v| v.kind).collect::<Vec<_>>(),
                run.stderr_head,
                run.log
            ));
        }
    }
    for &(command, _) in good.iter().filter(|g| g.1) {
        let run = tree.run_fixture_bypassing_label_gate(command);
        let found = tree.judge_and_restore(&run, &programs(classifier, command), false);
        if !found.is_empty() || run.timed_out {
            wrong.push(format!(
                "{command:?} should pass, got:\n{}",
                evidence(&found)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Commands that name the work tree by its absolute path, classified with
/// the tree as the working directory (as the hook does with a payload's
/// `cwd`): every one must be safe there, or made of safe parts, and behave.
#[test]
fn absolute_paths_inside_the_working_directory_behave() {
    let Some(sandbox) = start() else {
        return;
    };
    const TEMPLATES: &[&str] = &[
        "cat {W}/src/main.rs",
        "head -n 3 {W}/file.txt",
        "wc -l {W}/src/*.rs",
        "ls -la {W}/src",
        "grep -n fn {W}/src/main.rs",
        "nl -ba {W}/src/main.rs | sed -n '1,5p'",
        "cd {W}/src && ls && cat main.rs | head -3",
        "cd {W} && git status --short",
        "ls {W} 2>/dev/null; cat {W}/file.txt",
        "tar -tf {W}/demo.tar",
        "cat {W}/src/../file.txt",
    ];
    let classifier = classifier();
    let mut tree = sandbox.tree(7);
    let work = tree.work.to_string_lossy().into_owned();
    let ctx = toolgate::Context { cwd: Some(&work) };
    let mut wrong = Vec::new();
    for t in TEMPLATES {
        let command = t.replace("{W}", &work);
        let a = classifier.assess_in(&command, &ctx);
        if a.label.class != Class::Safe && !a.every_part_safe {
            if !t.starts_with("cd {W} && git") && !t.starts_with("tar") {
                wrong.push(format!(
                    "{command:?} is not safe in {work}: {}",
                    a.label.reason
                ));
            }
            continue;
        }
        let run = tree.run_safe(&command, &a.label, a.every_part_safe);
        let found = tree.judge_and_restore(&run, &programs(classifier, &command), false);
        if !found.is_empty() {
            wrong.push(format!("{command:?} misbehaved:\n{}", evidence(&found)));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// One command to run, cleared by its label.
struct Job {
    command: String,
    label: Label,
    /// A list or pipeline whose every part is safe (its label is unknown).
    every_part_safe: bool,
    programs: BTreeSet<String>,
    /// The service its spec says it reads through, which it may connect
    /// to.
    service: Option<String>,
}

/// What running one job showed.
struct Outcome {
    index: usize,
    command: String,
    label: Label,
    violations: Vec<Violation>,
    timed_out: bool,
}

/// Runs every job on up to [`WORKERS`] threads, each with its own tree;
/// outcomes in job order.
fn run_all(sandbox: &Sandbox, jobs: &[Job]) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(WORKERS));
    let mut outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let next = &next;
                s.spawn(move || {
                    let mut tree = sandbox.tree(w);
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(index) else {
                            return done;
                        };
                        let run = tree.run_safe(&job.command, &job.label, job.every_part_safe);
                        done.push(Outcome {
                            index,
                            command: job.command.clone(),
                            label: job.label.clone(),
                            violations: tree.judge_and_restore(
                                &run,
                                &job.programs,
                                job.service.is_some(),
                            ),
                            timed_out: run.timed_out,
                        });
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("an oracle worker panicked"))
            })
            .collect()
    });
    outcomes.sort_by_key(|o| o.index);
    outcomes
}

/// The programs `command` may start: the file names of the commands, and
/// of the wrappers around them (`nice`, `timeout`), that toolgate's own
/// analysis found written at its top level. A program outside this set
/// ran without toolgate ever judging it.
fn programs(classifier: &Classifier, command: &str) -> BTreeSet<String> {
    let name = |word: &str| {
        Path::new(word)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    let first = |line: &str| {
        line.split_whitespace()
            .find(|w| !w.contains('='))
            .and_then(name)
    };
    let mut out = BTreeSet::new();
    for e in classifier
        .analyze(command)
        .commands
        .iter()
        .filter(|e| e.depth == 0)
    {
        out.extend(first(&e.canonical));
        out.extend(first(&e.command));
        out.extend(e.wrappers.iter().filter_map(|w| first(w)));
        // The programs its spec says it runs as part of itself, and the
        // commands of the wrapper chain its spec walked (`nice --adj 5
        // uptime` runs uptime, which the older peeler cannot see).
        out.extend(e.helpers.iter().cloned());
        if !e.safe.is_empty() {
            out.extend(
                command
                    .split_whitespace()
                    .filter(|w| classifier.taxonomy().specs.get(w).is_some())
                    .map(String::from),
            );
        }
    }
    out
}

/// The service the spec of a top-level command says it reads through:
/// of any part of a list or pipeline (`jq . a.json | kubectl -h`: kubectl,
/// even for its help, asks the API server what it serves). Each part also
/// runs alone, judged as itself.
fn service(classifier: &Classifier, command: &str) -> Option<String> {
    classifier
        .analyze(command)
        .commands
        .iter()
        .filter(|e| e.depth == 0)
        .find_map(|e| e.service.clone())
}

/// One failure for the report: the command, its label and the evidence.
fn describe(o: &Outcome) -> String {
    format!(
        "\n`{}`  (labelled {}: {}: {})\n{}",
        o.command,
        o.label.class,
        o.label.category,
        o.label.reason,
        evidence(&o.violations)
    )
}

/// Violations grouped by kind, a few lines each.
fn evidence(found: &[Violation]) -> String {
    let kinds: BTreeSet<Kind> = found.iter().map(|v| v.kind).collect();
    let mut out = String::new();
    for kind in kinds {
        let lines: Vec<&str> = found
            .iter()
            .filter(|v| v.kind == kind)
            .map(|v| v.evidence.as_str())
            .collect();
        out.push_str(&format!("  {kind}:\n"));
        for l in lines.iter().take(EVIDENCE_LINES) {
            out.push_str(&format!("    {l}\n"));
        }
        if lines.len() > EVIDENCE_LINES {
            out.push_str(&format!(
                "    (and {} more)\n",
                lines.len() - EVIDENCE_LINES
            ));
        }
    }
    out
}

fn classifier() -> &'static Classifier {
    Classifier::embedded().unwrap_or_else(|e| panic!("the embedded classifier: {e}"))
}

/// The sandbox, or `None` after saying on stderr why the oracle cannot run
/// here. The tools are looked for (and installed) once per test process.
fn start() -> Option<Sandbox> {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    match TOOLS.get_or_init(sandbox::tools) {
        Ok(tools) => Some(Sandbox::new(tools.clone())),
        Err(why) => {
            let _ = writeln!(std::io::stderr(), "oracle skipped: {why}");
            None
        }
    }
}
