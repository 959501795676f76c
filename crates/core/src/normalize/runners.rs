//! What a command runs in turn: shell strings (`sh -c`, `eval`, `ssh host
//! CMD`), argument vectors (`docker exec`, `kubectl exec --`, `find -exec`),
//! interpreter code (`python -c`) and SQL (`psql -c`, a here-document fed to
//! `mysql`). The classifier labels each of these as well.

use serde::Serialize;

use super::invocation::Invocation;
use crate::shell::Word;

/// Something an invocation runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Nested {
    /// A shell script, classified like the top-level command.
    Script {
        /// Who runs it (`bash -c`, `eval`, `ssh`, …).
        runner: String,
        /// The text.
        text: String,
        /// False when the text is built by the shell at run time.
        literal: bool,
    },
    /// A command given as separate words.
    Argv {
        /// Who runs it.
        runner: String,
        /// The words.
        words: Vec<Word>,
    },
    /// Interpreter code, scanned for deletion and exec primitives.
    Code {
        /// The interpreter (`python`, `node`, …).
        lang: String,
        /// The code.
        text: String,
    },
    /// SQL sent to a database client.
    Sql {
        /// The client.
        client: String,
        /// The statements.
        text: String,
    },
    /// A shell runs a script fetched from the network.
    Remote {
        /// The downloader (`curl`, `wget`, …).
        source: String,
    },
    /// A program whose behaviour cannot be seen here (a script file, an
    /// encoded command).
    Opaque {
        /// What it is.
        what: String,
    },
}

/// Shells that run `-c STRING` or a script from stdin.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "rbash", "tcsh", "csh",
];

/// Programs that fetch from the network or hand a network peer's bytes to a
/// pipe.
pub const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "aria2c",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
];

/// True when the text mentions a downloader as a word (a run of letters,
/// digits, `-` and `_`; case-insensitive).
///
/// One pass over the text's words, each compared with the short list: for
/// fifteen names this beats building any automaton, which a hook process
/// (one `bash -c` string) would pay in full.
pub fn mentions_downloader(text: &str) -> Option<&'static str> {
    let is_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
    text.as_bytes()
        .split(|b| !is_word(b))
        .filter(|run| !run.is_empty())
        .find_map(|run| {
            DOWNLOADERS
                .iter()
                .find(|name| run.eq_ignore_ascii_case(name.as_bytes()))
                .copied()
        })
}

/// Interpreters and the options that carry inline code.
const INTERPRETERS: &[(&[&str], &[&str])] = &[
    (
        &["python", "python2", "python3", "pypy", "pypy3", "py"],
        &["-c"],
    ),
    (
        &["node", "nodejs", "bun"],
        &["-e", "--eval", "-p", "--print"],
    ),
    (&["deno"], &["eval"]),
    (&["perl"], &["-e", "-E"]),
    (&["ruby", "jruby"], &["-e"]),
    (&["php"], &["-r"]),
    (&["lua", "luajit"], &["-e"]),
    (&["rscript"], &["-e"]),
    (&["osascript"], &["-e"]),
    (&["tclsh", "wish"], &[]),
    (&["mongosh", "mongo"], &["--eval"]),
];

/// SQL clients and the options that carry statements.
const SQL_CLIENTS: &[(&str, &[&str])] = &[
    ("mysql", &["-e", "--execute"]),
    ("mariadb", &["-e", "--execute"]),
    ("psql", &["-c", "--command"]),
    ("sqlite3", &["-cmd"]),
    ("sqlcmd", &["-q", "-Q"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("clickhouse", &["-q", "--query"]),
    ("cockroach", &["-e", "--execute"]),
    ("duckdb", &["-c"]),
    ("snowsql", &["-q", "--query"]),
    ("bq", &["query"]),
    ("cqlsh", &["-e", "--execute"]),
    ("usql", &["-c", "--command"]),
];

/// Statements typed straight into a shell (`DROP DATABASE x;`).
const SQL_KEYWORDS: &[&str] = &["drop", "truncate", "delete", "alter", "update", "insert"];

/// Command words that run their argument as a script.
const EVALS: &[&str] = &["eval", "iex", "invoke-expression"];
/// Command words that read a file as a script.
const SOURCES: &[&str] = &["source", "."];
/// Container runtimes (`docker exec`, `docker run`).
const CONTAINERS: &[&str] = &["docker", "podman", "nerdctl", "docker-compose"];
/// Kubernetes clients (`kubectl exec`).
const KUBE_CLIENTS: &[&str] = &["kubectl", "oc"];
/// PowerShell hosts.
const POWERSHELLS: &[&str] = &["pwsh", "powershell"];
/// The awk family.
const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];
/// Command words with a runner of their own.
const OTHER_RUNNERS: &[&str] = &["busybox", "trap", "ssh", "find", "cmd", "redis-cli"];

/// A cheap test that lets most command words skip [`nested`]'s chain of
/// comparisons: a bit per hash of every word the chain looks for, so a
/// word whose bit is clear is none of them. (Bits of other words are set
/// too, about one corpus command in sixteen: those go through the chain,
/// which decides.)
struct RunnerFilter([u64; 16]);

impl RunnerFilter {
    const fn slot(word: &[u8]) -> usize {
        let (first, last) = match word {
            [] => (0, 0),
            [first, .., last] => (*first as usize, *last as usize),
            [only] => (*only as usize, *only as usize),
        };
        (word.len().wrapping_mul(31) ^ first.wrapping_mul(7) ^ last.wrapping_mul(131)) & 1023
    }

    const fn with(mut self, words: &[&str]) -> RunnerFilter {
        let mut i = 0;
        while i < words.len() {
            let slot = Self::slot(words[i].as_bytes());
            self.0[slot / 64] |= 1 << (slot % 64);
            i += 1;
        }
        self
    }

    const fn with_interpreters(mut self) -> RunnerFilter {
        let mut i = 0;
        while i < INTERPRETERS.len() {
            self = self.with(INTERPRETERS[i].0);
            i += 1;
        }
        self
    }

    const fn with_sql_clients(mut self) -> RunnerFilter {
        let mut i = 0;
        while i < SQL_CLIENTS.len() {
            self = self.with(&[SQL_CLIENTS[i].0]);
            i += 1;
        }
        self
    }

    fn may_hold(&self, word: &str) -> bool {
        let slot = Self::slot(word.as_bytes());
        self.0[slot / 64] & (1 << (slot % 64)) != 0
    }
}

/// Every word [`nested`] looks for.
const RUNNER_WORDS: RunnerFilter = RunnerFilter([0; 16])
    .with(SHELLS)
    .with(EVALS)
    .with(SOURCES)
    .with(CONTAINERS)
    .with(KUBE_CLIENTS)
    .with(POWERSHELLS)
    .with(AWKS)
    .with(OTHER_RUNNERS)
    .with(SQL_KEYWORDS)
    .with_interpreters()
    .with_sql_clients();

fn join(words: &[Word]) -> (String, bool) {
    let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    (text.join(" "), words.iter().all(|w| w.literal))
}

/// The nested work of one invocation. `stdin` is text the script itself
/// feeds it (a here-document, here-string, or `echo … |`).
pub fn nested(
    inv: &Invocation<'_>,
    stdin: Option<&str>,
    stdin_source: Option<&str>,
) -> Vec<Nested> {
    let mut out = Vec::new();
    if let Some(script) = &inv.wrapper_script {
        out.push(Nested::Script {
            runner: inv.wrappers.last().cloned().unwrap_or_default(),
            text: script.text.to_string(),
            literal: script.literal,
        });
    }
    let name: &str = &inv.name;
    let args = &inv.args;
    // Every word the chain below compares with is in one of the lists the
    // filter is built from. Debug builds (the tests) run the chain anyway
    // and check that it found nothing for a word the filter turns away.
    let turned_away = !RUNNER_WORDS.may_hold(name);
    if turned_away && !cfg!(debug_assertions) {
        return out;
    }
    let found_before = out.len();
    if SHELLS.contains(&name) || (name == "busybox" && args.first().is_some_and(|a| a.text == "sh"))
    {
        shell(inv, stdin, stdin_source, &mut out);
    } else if EVALS.contains(&name) {
        let (text, literal) = join(args);
        if let Some(d) = mentions_downloader(&text) {
            out.push(Nested::Remote { source: d.into() });
        }
        out.push(Nested::Script {
            runner: name.into(),
            text,
            literal,
        });
    } else if SOURCES.contains(&name) {
        match args.first() {
            Some(a) if a.text.starts_with("<(") => {
                if let Some(d) = mentions_downloader(&a.text) {
                    out.push(Nested::Remote { source: d.into() });
                }
            }
            Some(a) => out.push(Nested::Opaque {
                what: format!("sources the file {}", a.text),
            }),
            None => {}
        }
    } else if name == "trap" {
        if let Some(a) = args.first().filter(|a| !a.text.starts_with('-')) {
            out.push(Nested::Script {
                runner: "trap".into(),
                text: a.text.to_string(),
                literal: a.literal,
            });
        }
    } else if name == "ssh" {
        ssh(args, &mut out);
    } else if CONTAINERS.contains(&name) {
        container(name, args, &mut out);
    } else if KUBE_CLIENTS.contains(&name) {
        kube(args, &mut out);
    } else if name == "find" {
        find(args, &mut out);
    } else if POWERSHELLS.contains(&name) {
        powershell(args, &mut out);
    } else if name == "cmd" {
        if let Some(i) = args
            .iter()
            .position(|a| a.text.eq_ignore_ascii_case("/c") || a.text.eq_ignore_ascii_case("/k"))
        {
            let (text, literal) = join(&args[i + 1..]);
            out.push(Nested::Script {
                runner: "cmd /c".into(),
                text,
                literal,
            });
        }
    } else if AWKS.contains(&name) {
        awk(args, &mut out);
    } else if let Some((_, flags)) = INTERPRETERS.iter().find(|(names, _)| names.contains(&name)) {
        interpreter(name, flags, args, stdin, &mut out);
    } else if let Some((_, flags)) = SQL_CLIENTS.iter().find(|(c, _)| *c == name) {
        sql_client(name, flags, args, stdin, &mut out);
    } else if name == "redis-cli" {
        if let Some(text) = stdin {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let mut words = vec![Word::literal("redis-cli")];
                words.extend(line.split_whitespace().map(Word::literal));
                out.push(Nested::Argv {
                    runner: "redis-cli stdin".into(),
                    words,
                });
            }
        }
    } else if SQL_KEYWORDS.contains(&name) && inv.plain_name {
        let (text, _) = join(args);
        out.push(Nested::Sql {
            client: "shell".into(),
            text: format!("{} {}", inv.written, text),
        });
    }
    debug_assert!(
        !turned_away || out.len() == found_before,
        "`{name}` runs nested work, but the runner filter turns it away"
    );
    out
}

fn shell(
    inv: &Invocation<'_>,
    stdin: Option<&str>,
    stdin_source: Option<&str>,
    out: &mut Vec<Nested>,
) {
    let args = &inv.args;
    let mut i = usize::from(inv.name == "busybox");
    let mut has_c = false;
    let mut has_s = false;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "--" || t == "-" {
            i += 1;
            break;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
                i += 2;
                continue;
            }
            if !t.starts_with("--") && t[1..].contains('c') {
                has_c = true;
            }
            if !t.starts_with("--") && t[1..].contains('s') {
                has_s = true;
            }
            i += 1;
            continue;
        }
        break;
    }
    let runner = format!("{} -c", inv.name);
    let script_arg = if has_s && !has_c { None } else { args.get(i) };
    match script_arg {
        Some(script) if has_c => {
            if let Some(d) = mentions_downloader(&script.text).filter(|_| script.substitution) {
                out.push(Nested::Remote { source: d.into() });
            }
            out.push(Nested::Script {
                runner,
                text: script.text.to_string(),
                literal: script.literal,
            });
        }
        Some(file) => {
            if file.text.starts_with("<(") {
                if let Some(d) = mentions_downloader(&file.text) {
                    out.push(Nested::Remote { source: d.into() });
                }
            }
            out.push(Nested::Opaque {
                what: format!("runs the script {}", file.text),
            });
        }
        None => {
            if let Some(source) = stdin_source {
                out.push(Nested::Remote {
                    source: source.into(),
                });
            }
            if let Some(text) = stdin {
                out.push(Nested::Script {
                    runner: format!("{} stdin", inv.name),
                    text: text.to_string(),
                    literal: true,
                });
            }
        }
    }
}

const SSH_VALUE_FLAGS: &[&str] = &[
    "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q",
    "-R", "-S", "-W", "-w", "-B",
];

fn ssh(args: &[Word], out: &mut Vec<Nested>) {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if t.starts_with('-') && t.len() > 1 {
            i += if SSH_VALUE_FLAGS.contains(&t) { 2 } else { 1 };
            continue;
        }
        break;
    }
    // args[i] is the host; the rest is the remote command line.
    if i + 1 < args.len() {
        let (text, literal) = join(&args[i + 1..]);
        out.push(Nested::Script {
            runner: "ssh".into(),
            text,
            literal,
        });
    }
}

const DOCKER_EXEC_VALUE: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
    "--index",
];

const DOCKER_RUN_VALUE: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--blkio-weight",
    "--cap-add",
    "--cap-drop",
    "--cgroupns",
    "--cidfile",
    "--cpu-shares",
    "-c",
    "--cpus",
    "--cpuset-cpus",
    "--device",
    "--dns",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "-h",
    "--hostname",
    "--ip",
    "--ipc",
    "-l",
    "--label",
    "--link",
    "--log-driver",
    "--log-opt",
    "-m",
    "--memory",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--pid",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--tmpfs",
    "-u",
    "--user",
    "--ulimit",
    "-v",
    "--volume",
    "--volumes-from",
    "-w",
    "--workdir",
    "--uts",
    "--userns",
];

fn container(name: &str, args: &[Word], out: &mut Vec<Nested>) {
    // Skip global options such as `-H host`, `--context x`.
    let mut i = 0;
    while i < args.len() && args[i].text.starts_with('-') {
        let t = args[i].text.as_str();
        i += if matches!(
            t,
            "-H" | "--host"
                | "-c"
                | "--context"
                | "--config"
                | "-f"
                | "--file"
                | "-p"
                | "--project-name"
        ) {
            2
        } else {
            1
        };
    }
    let mut sub = args.get(i).map(|w| w.text.as_str());
    if sub == Some("compose") || sub == Some("container") {
        i += 1;
        while i < args.len() && args[i].text.starts_with('-') {
            let t = args[i].text.as_str();
            i += if matches!(
                t,
                "-f" | "--file" | "-p" | "--project-name" | "--profile" | "--env-file"
            ) {
                2
            } else {
                1
            };
        }
        sub = args.get(i).map(|w| w.text.as_str());
    }
    let value_flags = match sub {
        Some("exec") => DOCKER_EXEC_VALUE,
        Some("run") => DOCKER_RUN_VALUE,
        _ => return,
    };
    i += 1;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if t.starts_with('-') && t.len() > 1 {
            i += if !t.contains('=') && value_flags.contains(&t) {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    // args[i] is the container (exec), service (compose) or image (run).
    if i + 1 < args.len() {
        out.push(Nested::Argv {
            runner: format!("{name} {}", sub.unwrap_or_default()),
            words: args[i + 1..].to_vec(),
        });
    }
}

fn kube(args: &[Word], out: &mut Vec<Nested>) {
    let Some(exec) = args
        .iter()
        .position(|a| a.text == "exec" || a.text == "debug")
    else {
        return;
    };
    if let Some(dd) = args[exec..].iter().position(|a| a.text == "--") {
        let start = exec + dd + 1;
        if start < args.len() {
            out.push(Nested::Argv {
                runner: "kubectl exec".into(),
                words: args[start..].to_vec(),
            });
        }
    }
}

fn find(args: &[Word], out: &mut Vec<Nested>) {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while end < args.len() && args[end].text != ";" && args[end].text != "+" {
                end += 1;
            }
            if end > start {
                out.push(Nested::Argv {
                    runner: format!("find {t}"),
                    words: args[start..end].to_vec(),
                });
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
}

fn powershell(args: &[Word], out: &mut Vec<Nested>) {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.to_ascii_lowercase();
        if matches!(
            t.as_str(),
            "-command" | "-c" | "/c" | "-commandwithargs" | "-cwa"
        ) {
            i += 1;
            break;
        }
        if matches!(t.as_str(), "-encodedcommand" | "-enc" | "-e" | "-ec") {
            out.push(Nested::Opaque {
                what: "an encoded PowerShell command".into(),
            });
            return;
        }
        if matches!(t.as_str(), "-file" | "-f") {
            out.push(Nested::Opaque {
                what: "a PowerShell script file".into(),
            });
            return;
        }
        if t.starts_with('-') {
            i += if matches!(
                t.as_str(),
                "-executionpolicy"
                    | "-ex"
                    | "-ep"
                    | "-windowstyle"
                    | "-w"
                    | "-workingdirectory"
                    | "-wd"
                    | "-outputformat"
                    | "-inputformat"
                    | "-configurationname"
            ) {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    if i < args.len() {
        let (text, literal) = join(&args[i..]);
        out.push(Nested::Code {
            lang: "powershell".into(),
            text: text.clone(),
        });
        out.push(Nested::Script {
            runner: "powershell -Command".into(),
            text,
            literal,
        });
    }
}

fn awk(args: &[Word], out: &mut Vec<Nested>) {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if matches!(
            t,
            "-F" | "-v" | "-f" | "--file" | "--assign" | "--field-separator"
        ) {
            if t == "-f" || t == "--file" {
                out.push(Nested::Opaque {
                    what: "an awk program file".into(),
                });
                return;
            }
            i += 2;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            i += 1;
            continue;
        }
        break;
    }
    if let Some(program) = args.get(i) {
        let text = program.text.as_str();
        if text.contains("system")
            || text.contains('|')
            || text.contains('>')
            || text.contains("getline")
        {
            out.push(Nested::Code {
                lang: "awk".into(),
                text: text.to_string(),
            });
        }
    }
}

fn interpreter(
    name: &str,
    flags: &[&str],
    args: &[Word],
    stdin: Option<&str>,
    out: &mut Vec<Nested>,
) {
    let mut found = false;
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        // `-ne`, `-lpe`: a bundle of letters ending in the code flag.
        let bundle_has = |f: &str| {
            f.len() == 2
                && t.len() > 2
                && t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].bytes().all(|b| b.is_ascii_alphabetic())
                && t.ends_with(&f[1..])
        };
        if flags.iter().any(|f| t == *f || bundle_has(f)) {
            if let Some(code) = args.get(i + 1) {
                found = true;
                out.push(Nested::Code {
                    lang: name.into(),
                    text: code.text.to_string(),
                });
            }
            i += 2;
            continue;
        }
        if !t.starts_with('-') && !matches!(name, "mongosh" | "mongo") {
            break;
        }
        i += 1;
    }
    if !found {
        if let Some(text) = stdin {
            out.push(Nested::Code {
                lang: name.into(),
                text: text.to_string(),
            });
        }
    }
}

fn sql_client(
    client: &str,
    flags: &[&str],
    args: &[Word],
    stdin: Option<&str>,
    out: &mut Vec<Nested>,
) {
    let mut positionals = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        let glued = flags.iter().find_map(|f| {
            t.strip_prefix(f)
                .filter(|rest| !rest.is_empty())
                .map(|rest| rest.trim_start_matches('='))
                .filter(|_| f.starts_with("--") || f.len() == 2)
        });
        if flags.contains(&t) {
            if let Some(v) = args.get(i + 1) {
                out.push(Nested::Sql {
                    client: client.into(),
                    text: v.text.to_string(),
                });
            }
            i += 2;
            continue;
        }
        if let Some(v) = glued {
            out.push(Nested::Sql {
                client: client.into(),
                text: v.to_string(),
            });
        } else if !t.starts_with('-') {
            positionals.push(t);
        }
        i += 1;
    }
    // sqlite3 DB "SQL", duckdb DB "SQL", bq query "SQL": statements as a
    // positional.
    if matches!(client, "sqlite3" | "duckdb" | "bq") && positionals.len() >= 2 {
        out.push(Nested::Sql {
            client: client.into(),
            text: positionals[1..].join(" "),
        });
    }
    if let Some(text) = stdin {
        out.push(Nested::Sql {
            client: client.into(),
            text: text.to_string(),
        });
    }
}

#[cfg(test)]
mod downloader_tests {
    use super::mentions_downloader;

    #[test]
    fn downloaders_are_whole_words_in_any_case() {
        assert_eq!(mentions_downloader("x=$(CURL -s u)"), Some("curl"));
        assert_eq!(mentions_downloader("a;wget\tb"), Some("wget"));
        assert_eq!(
            mentions_downloader("Invoke-WebRequest u"),
            Some("invoke-webrequest")
        );
        assert_eq!(mentions_downloader("nc -l 1 | sh"), Some("nc"));
        // Inside a longer word, or joined by `-`/`_`, it is another word.
        for text in ["curling", "my-curl", "wget_x", "ncurses", "", "   "] {
            assert_eq!(mentions_downloader(text), None, "{text}");
        }
        // The first one in the text is named.
        assert_eq!(mentions_downloader("echo; wget a; curl b"), Some("wget"));
    }
}

#[cfg(test)]
mod filter_tests {
    use super::*;

    #[test]
    fn the_runner_filter_holds_every_runner_and_turns_common_words_away() {
        let lists = [
            SHELLS,
            EVALS,
            SOURCES,
            CONTAINERS,
            KUBE_CLIENTS,
            POWERSHELLS,
            AWKS,
            OTHER_RUNNERS,
            SQL_KEYWORDS,
        ];
        let interpreters = INTERPRETERS.iter().flat_map(|(names, _)| names.iter());
        let clients = SQL_CLIENTS.iter().map(|(name, _)| name);
        for word in lists
            .iter()
            .flat_map(|l| l.iter())
            .chain(interpreters)
            .chain(clients)
        {
            assert!(RUNNER_WORDS.may_hold(word), "{word}");
        }
        // Words no runner has, most of them turned away (a filter that lets
        // everything through would be no filter).
        let others = [
            "git",
            "ls",
            "rm",
            "cat",
            "grep",
            "cp",
            "mv",
            "npm",
            "cargo",
            "make",
            "echo",
            "sed",
            "curl",
            "tar",
            "chmod",
            "mkdir",
            "kill",
            "go",
            "helm",
            "terraform",
        ];
        let through = others.iter().filter(|w| RUNNER_WORDS.may_hold(w)).count();
        assert!(
            through <= 2,
            "{through} of {} common words let through",
            others.len()
        );
    }
}
