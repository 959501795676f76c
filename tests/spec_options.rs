//! Every option an installed tool documents is classified by its spec.
//!
//! A spec must list every option of its tool: an option it does not know
//! is refused, but it also changes how abbreviations resolve (`--col` is
//! `--color` only while no `--column` exists), and a new option that
//! writes or runs programs would go unseen by whoever reads the spec. So
//! this test runs each installed tool's own help (`CMD --help`, and
//! `git SUB -h` for git's subcommands), reads the option names it
//! documents, and fails, naming them per command, when a spec lacks one.
//! A tool that is not installed is skipped (and says so).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use toolgate::spec::{Spec, Syntax};
use toolgate::Taxonomy;

/// Words the parser picks up from a command's help that are not options
/// of it, as `(command, word)`. Keep this tiny: every entry hides a name
/// from the check, so each is tied to one command and says why. (`-`,
/// `--` and rules such as `-----` never count as names; see `name_at`.)
const NOT_OPTIONS: &[(&str, &str)] = &[
    // Their help explains the range syntax of `-f LIST` in the layout of
    // an option line: `  -M    from first to M'th (included) byte, …`.
    ("cut", "-M"),
    ("numfmt", "-M"),
    // exa writes `--colo[u]r` for `--color` and `--colour` (both in its
    // spec); the parser stops at the bracket.
    ("exa", "--colo"),
    // xxd knows an option by its first letter: its help's `-ps` is `-p`
    // (in its spec; read here as the bundle `-p -s`, which its spec makes
    // no more than `-p`).
    ("xxd", "-ps"),
    // binutils writes the two spellings of an option with a value as one
    // word: objdump's `-EB`/`-EL` are `-E B`/`-E L`, and `-Wk`, `-WK`,
    // `-WN` (readelf: `-wk`, `-wK`, `-wN`) are `-W`/`-w` with the letters
    // of the debug sections or link handling as its value. `-E`, `-W` and
    // `-w` are in their specs.
    ("objdump", "-EB"),
    ("objdump", "-EL"),
    ("objdump", "-Wk"),
    ("objdump", "-WK"),
    ("objdump", "-WN"),
    ("readelf", "-wk"),
    ("readelf", "-wK"),
    ("readelf", "-wN"),
];

/// Option names that a help text writes with a placeholder in them, and
/// the names the same help text says it stands for: each of those must be
/// in the spec.
const PLACEHOLDER_NAMES: &[(&str, &[&str])] = &[
    // diff: "LTYPE is 'old', 'new', or 'unchanged'.  GTYPE is LTYPE or
    // 'changed'."
    (
        "--GTYPE-group-format",
        &[
            "--old-group-format",
            "--new-group-format",
            "--unchanged-group-format",
            "--changed-group-format",
        ],
    ),
    (
        "--LTYPE-line-format",
        &[
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
        ],
    ),
];

/// How long a tool may take to print its help: far past what any needs
/// (`aws --help` takes 2.5 s on an idle machine, and four times that
/// while the sandbox oracle and the other tests share its two cores), so
/// that only a tool that hangs is reported.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The option names a help text documents.
///
/// Three kinds of line are read:
///
/// * Usage lines (`Usage: …`, `usage: …` and their indented continuations,
///   `or: …`): every `--long` word, and every `-x` of a single character
///   (`[-H]`, `[-e]`, `-O<file>`). A longer single-dash word there is
///   left alone: it may be a bundle (`[-abc]`), a short option with its
///   value attached (`[-Olevel]`) or a word option, and the usage line
///   cannot say which.
/// * Option lines (indentation, then a dash: GNU's
///   `  -k, --key=KEYDEF  text`, git's `    -q, --[no-]quiet  text`,
///   clap's `  -e, --regexp <PATTERN>`): the option words at the start
///   of the line, past value placeholders (`KEYDEF`, `<n>`, `[=WHEN]`),
///   up to the first word of the description.
/// * For a single-dash tool (`find`), whose help lists its primaries as
///   paragraphs (`      -amin N -anewer FILE …`): every word that starts
///   with a dash on an indented line.
///
/// `--[no-]name` yields `--name` and `--no-name`. A name is taken up to
/// its value (`--key=KEYDEF`, `--color[=WHEN]`, `-l<n>`, `--stat-width`
/// stays whole). A name written with a placeholder in it (diff's
/// `--LTYPE-line-format`) becomes the names it stands for
/// ([`PLACEHOLDER_NAMES`]).
fn documented_options(help: &str, single_dash: bool) -> BTreeSet<String> {
    documented_options_with(help, single_dash, true)
}

/// [`documented_options`], reading the usage lines only when `usage`: the
/// usage of a command with subcommands (`git remote`, `git stash`) lists
/// each subcommand's options, which belong to those subcommands' specs.
fn documented_options_with(help: &str, single_dash: bool, usage: bool) -> BTreeSet<String> {
    let text = strip_overstrike(help);
    let mut out = BTreeSet::new();
    let mut in_usage = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indented = trimmed.len() < line.len();
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("usage:") {
            in_usage = true;
            if usage {
                usage_words(&trimmed["usage:".len()..], &mut out);
            }
            continue;
        }
        if in_usage && indented && !trimmed.is_empty() && !trimmed.starts_with('-') {
            if usage {
                usage_words(trimmed, &mut out);
            }
            continue;
        }
        in_usage = false;
        // An unindented line is prose, even when it starts with a dash
        // (nice's `-20 (most favorable …`, stat's `--terse is …`).
        if !indented {
            continue;
        }
        if single_dash {
            paragraph_words(trimmed, &mut out);
        } else if trimmed.starts_with('-') {
            option_line(trimmed, &mut out);
        }
    }
    for (placeholder, names) in PLACEHOLDER_NAMES {
        if out.remove(*placeholder) {
            out.extend(names.iter().map(|n| n.to_string()));
        }
    }
    out
}

/// Drops the `X\bX` and `_\bX` pairs of man-style bold and underline.
fn strip_overstrike(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out
}

/// `--[no-]name…` → `--name…`, `--no-name…`; any other word as it is.
fn negations(word: &str) -> Vec<String> {
    match word.find("[no-]") {
        Some(i) => vec![
            format!("{}{}", &word[..i], &word[i + 5..]),
            format!("{}no-{}", &word[..i], &word[i + 5..]),
        ],
        None => vec![word.to_string()],
    }
}

/// Whether a byte can be part of an option's name.
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'
}

/// The option name at the start of `word` (which starts with a dash) and
/// the length of the text it took, or `None` when the dashes start no
/// name (`-`, `--`, `---------`, `-<flag>`).
fn name_at(word: &str) -> Option<(String, usize)> {
    let b = word.as_bytes();
    let dashes = if word.starts_with("--") { 2 } else { 1 };
    let first = *b.get(dashes)?;
    if dashes == 1 && matches!(first, b'?' | b'@' | b'#') {
        // `-?`, `-@`, `-#`: one-character options named by punctuation.
        return Some((word[..2].to_string(), 2));
    }
    if !first.is_ascii_alphanumeric() {
        return None;
    }
    let mut end = dashes;
    while end < b.len() && name_byte(b[end]) {
        end += 1;
    }
    // A sentence's full stop or a trailing dash is not part of the name.
    let name = word[..end].trim_end_matches(['.', '-']);
    Some((name.to_string(), end))
}

/// The options in a usage line: `--long` words, and `-x` words of one
/// character.
fn usage_words(line: &str, out: &mut BTreeSet<String>) {
    for word in line.split_whitespace() {
        for variant in negations(word) {
            for piece in variant.split(['[', ']', '|', '(', ')', '{', '}']) {
                if !piece.starts_with('-') {
                    continue;
                }
                let Some((name, _)) = name_at(piece) else {
                    continue;
                };
                if name.starts_with("--") || name.len() == 2 {
                    out.insert(name);
                }
            }
        }
    }
}

/// The options at the start of an option line, up to its description.
fn option_line(line: &str, out: &mut BTreeSet<String>) {
    for word in line.split_whitespace() {
        if word.starts_with('-') {
            for variant in negations(word) {
                option_word(&variant, out);
            }
        } else if !placeholder(word) {
            // The first word of the description.
            return;
        }
    }
}

/// The names in one option word: `-k,`, `--key=KEYDEF`, `-h|--help`,
/// `-h/--help`.
fn option_word(word: &str, out: &mut BTreeSet<String>) {
    let mut rest = word;
    while let Some((name, used)) = name_at(rest) {
        out.insert(name);
        let tail = &rest[used..];
        // `-h|--help`, `-h/--help`, `-v,-V`: another name joined on.
        let Some(next) = tail
            .find(['|', '/', ','])
            .filter(|&i| tail[i + 1..].starts_with('-'))
        else {
            return;
        };
        rest = &tail[next + 1..];
    }
}

/// Whether a word of an option line stands for a value (or separates
/// names) instead of starting the description: `KEYDEF`, `<n>`,
/// `[=WHEN]`, `{o,d,x}`, `=NUM`, `|`, `........`.
fn placeholder(word: &str) -> bool {
    word.starts_with(['<', '[', '{', '=']) || !word.bytes().any(|b| b.is_ascii_lowercase())
}

/// Every dash word of a single-dash tool's paragraph line.
fn paragraph_words(line: &str, out: &mut BTreeSet<String>) {
    for word in line.split_whitespace() {
        if !word.starts_with('-') {
            continue;
        }
        for variant in negations(word) {
            if let Some((name, _)) = name_at(&variant) {
                out.insert(name);
            }
        }
    }
}

/// `-NUM`, `-COLUMN`: a placeholder for a count given as an option
/// (`head -5`), which a spec says with `numeric_option`.
fn numeric_placeholder(name: &str) -> bool {
    let body = &name[1..];
    !name.starts_with("--") && body.len() > 1 && body.bytes().all(|b| b.is_ascii_uppercase())
}

/// The options of `command`'s help text that `spec` does not classify. `extra`
/// holds further names that count as known (git's `-h` for its
/// subcommands).
fn unclassified(
    command: &str,
    spec: &Spec,
    documented: &BTreeSet<String>,
    extra: &[String],
) -> Vec<String> {
    let mut known: BTreeSet<&str> = BTreeSet::new();
    known.extend(spec.options.names());
    known.extend(spec.help.iter());
    known.extend(spec.operators.iter());
    known.extend(extra.iter().map(String::as_str));
    documented
        .iter()
        .filter(|name| !known.contains(name.as_str()))
        .filter(|name| !NOT_OPTIONS.contains(&(command, name.as_str())))
        .filter(|name| !(numeric_placeholder(name) && spec.numeric_option))
        .cloned()
        .collect()
}

/// The executable `name` in `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| executable(p))
}

#[cfg(unix)]
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(path: &Path) -> bool {
    path.is_file()
}

/// A scratch directory, outside any git repository, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolgate-spec-options-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("cwd"))
            .unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `program args` in `dir` with no input, C locale, no pager and no
/// git configuration, and returns its standard output and error together
/// (whatever its exit status: `git SUB -h` exits 129), or why it could
/// not.
fn help_text(
    program: &Path,
    args: &[&str],
    dir: &Path,
    scratch: &Scratch,
) -> Result<String, String> {
    let capture = scratch.0.join("out");
    let file =
        File::create(&capture).map_err(|e| format!("creating {}: {e}", capture.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("MANPAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CEILING_DIRECTORIES", &scratch.0)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run: {e}"))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not finish within {} s", TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting: {e}")),
        }
    }
    let bytes = std::fs::read(&capture).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What the test checks for one command: the spec's name or path, the
/// program, and the help invocations whose texts are read together.
struct Check {
    name: String,
    program: PathBuf,
    /// `(arguments, run inside this crate's git repository)`.
    runs: Vec<(Vec<String>, bool)>,
}

/// The commands to check, and the names of those not installed.
fn checks(tax: &Taxonomy) -> (Vec<Check>, BTreeSet<String>) {
    let mut out = Vec::new();
    let mut absent = BTreeSet::new();
    for name in tax.specs.names() {
        let Some(spec) = tax.specs.get(&name) else {
            continue;
        };
        if spec.help_only {
            continue;
        }
        let words: Vec<&str> = name.split(' ').collect();
        let (program, runs) = match words.as_slice() {
            [one] => (*one, vec![(vec!["--help".to_string()], false)]),
            // Git's parse-options usage. `git diff -h` lists every diff
            // option outside a repository and the revision forms
            // (`--cached`, `--merge-base`) inside one: both are read.
            ["git", sub @ ..] => {
                let mut args: Vec<String> = sub.iter().map(|s| s.to_string()).collect();
                args.push("-h".into());
                ("git", vec![(args.clone(), false), (args, true)])
            }
            _ => continue,
        };
        match which(program) {
            Some(path) => out.push(Check {
                name: name.to_string(),
                program: path,
                runs,
            }),
            None => {
                absent.insert(program.to_string());
            }
        }
    }
    (out, absent)
}

#[test]
fn installed_tools_options_are_all_in_their_specs() {
    let tax = Taxonomy::embedded().unwrap_or_else(|e| panic!("{e}"));
    let scratch = Scratch::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (checks, absent) = checks(tax);
    for name in &absent {
        println!("skipped: {name} not installed");
    }
    let mut missing: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let mut broken = Vec::new();
    for check in &checks {
        let Some(spec) = tax.specs.get(&check.name) else {
            continue;
        };
        let mut documented = BTreeSet::new();
        for (args, in_repo) in &check.runs {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let dir = if *in_repo {
                repo.to_path_buf()
            } else {
                scratch.0.join("cwd")
            };
            match help_text(&check.program, &args, &dir, &scratch) {
                Ok(text) => documented.extend(documented_options_with(
                    &text,
                    spec.syntax == Syntax::SingleDash,
                    !spec.subcommands,
                )),
                Err(e) => broken.push(format!("{} {}: {e}", check.name, args.join(" "))),
            }
        }
        // Git's subcommands honour the help forms the `git` spec grants
        // them (`-h`), which their own usage does not list.
        let extra: Vec<String> = match check.name.strip_prefix("git ") {
            Some(_) => tax
                .specs
                .get("git")
                .map(|g| g.subcommand_help.iter().map(|h| h.to_string()).collect())
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let lacking = unclassified(&check.name, spec, &documented, &extra);
        println!(
            "checked: {} ({} options documented, {} not in its spec)",
            check.name,
            documented.len(),
            lacking.len()
        );
        if !lacking.is_empty() {
            missing.insert(
                check.name.clone(),
                (format!("{}:{}", spec.file, spec.line), lacking),
            );
        }
    }
    let mut report = String::new();
    for (name, (at, lacking)) in &missing {
        report.push_str(&format!("  {name} ({at}): {}\n", lacking.join(" ")));
    }
    for e in &broken {
        report.push_str(&format!("  {e}\n"));
    }
    assert!(
        report.is_empty(),
        "options the installed tools document that their specs do not classify:\n{report}"
    );
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn parser_reads_gnu_help() {
    let help = "\
Usage: sort [OPTION]... [FILE]...
  or:  sort [OPTION]... --files0-from=F
Write sorted concatenation of all FILE(s) to standard output.

Mandatory arguments to long options are mandatory for short options too.
Ordering options:

  -b, --ignore-leading-blanks  ignore leading blanks
  -g, --general-numeric-sort  compare according to general numerical value
      --sort=WORD               sort according to WORD:
                                  general-numeric -g, human-numeric -h, month -M,
  -c, --check, --check=diagnose-first  check for sorted input; do not sort
      --color[=WHEN]         colorize the output; WHEN can be 'always'
  -k, --key=KEYDEF          sort via a key; KEYDEF gives location and type
  -n, --lines=[-]NUM       print the first NUM lines instead of the first 10;
  -NUM                      same as --context=NUM
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -1                         list one file per line
      --LTYPE-line-format=LFMT    format LTYPE input lines with LFMT
      --help        display this help and exit
      --version     output version information and exit

--check is also the default when the input
-20 (most favorable to the process) to 19.
KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a
field number and C a character position in the field; -t and -b apply to
the options.
";
    assert_eq!(
        documented_options(help, false),
        set(&[
            "--check",
            "--color",
            "--extended-regexp",
            "--files0-from",
            "--general-numeric-sort",
            "--help",
            "--ignore-leading-blanks",
            "--key",
            "--lines",
            "--new-line-format",
            "--old-line-format",
            "--sort",
            "--unchanged-line-format",
            "--version",
            "-1",
            "-E",
            "-NUM",
            "-b",
            "-c",
            "-g",
            "-k",
            "-n",
        ])
    );
}

#[test]
fn parser_reads_git_parse_options_usage() {
    let help = "\
usage: git diff [<options>] [<commit>] [--] [<path>...]
   or: git diff [<options>] --cached [--merge-base] [<commit>] [--] [<path>...]
   or: git grep [<options>] [-e] <pattern> [<rev>...] [[--] <path>...]

    -q, --[no-]quiet      suppress diff output
    --[no-]decorate[=...] decorate options
    -L <range:file>       trace the evolution of line range <start>,<end>
    -U, --unified[=<n>]   generate diffs with <n> lines context
    -W, --[no-]function-context
                          generate diffs with <n> lines context
    --stat-width <width>  generate diffstat with a given width
    -X, --dirstat[=<param1>,<param2>...]
                          output the distribution of relative amount of changes
    --no-renames          do not detect renames
  -l<n>         limit rename attempts up to <n> paths.
  -a  --text    treat all files as text.
";
    assert_eq!(
        documented_options(help, false),
        set(&[
            "--cached",
            "--decorate",
            "--dirstat",
            "--function-context",
            "--merge-base",
            "--no-decorate",
            "--no-function-context",
            "--no-quiet",
            "--no-renames",
            "--quiet",
            "--stat-width",
            "--text",
            "--unified",
            "-L",
            "-U",
            "-W",
            "-X",
            "-a",
            "-e",
            "-l",
            "-q",
        ])
    );
}

#[test]
fn parser_reads_find_paragraphs() {
    let help = "\
Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]

Default path is the current directory; default expression is -print.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2

Normal options (always true, specified before other expressions):
      -depth -files0-from FILE -maxdepth LEVELS -mindepth LEVELS
       -mount -noleaf -xdev -ignore_readdir_race -noignore_readdir_race

Tests (N can be +N or -N or N):
      -nouser -nogroup -path PATTERN -perm [-/]MODE -regex PATTERN
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;

Other common options:
      --help                   display this help and exit
";
    assert_eq!(
        documented_options(help, true),
        set(&[
            "--help",
            "-D",
            "-H",
            "-L",
            "-P",
            "-a",
            "-and",
            "-depth",
            "-exec",
            "-files0-from",
            "-ignore_readdir_race",
            "-maxdepth",
            "-mindepth",
            "-mount",
            "-nogroup",
            "-noignore_readdir_race",
            "-noleaf",
            "-not",
            "-nouser",
            "-ok",
            "-path",
            "-perm",
            "-regex",
            "-xdev",
        ])
    );
}

#[test]
fn parser_reads_other_layouts() {
    // clap, binutils and util-linux layouts; man-style overstrike; rules
    // and `-` separators that name nothing.
    let help = "\
Usage:
 hexdump [options] <file>...

Options:
  -e, --regexp <PATTERN>  A pattern to search for
  -a - --all                Scan the entire file
  -t --radix={o,d,x}        Print the location of the string
  -h|--help                 Display this information
  -? ........  --quit-help
 -L, --color[=<mode>]      interpret color formatting specifiers
 ---------------------------------------------------------------------------
  -<flag>              Toggle a command line option
  -\u{8}--\u{8}-b\u{8}bo\u{8}ol\u{8}ld\u{8}d    bold overstrike
";
    assert_eq!(
        documented_options(help, false),
        set(&[
            "--all",
            "--bold",
            "--color",
            "--help",
            "--quit-help",
            "--radix",
            "--regexp",
            "-?",
            "-L",
            "-a",
            "-e",
            "-h",
            "-t",
        ])
    );
}

#[test]
fn unclassified_options_are_reported() {
    let tax = Taxonomy::embedded().unwrap_or_else(|e| panic!("{e}"));
    let spec = tax
        .specs
        .get("cat")
        .unwrap_or_else(|| panic!("the embedded taxonomy has a spec of cat"));
    let documented = set(&[
        "-n",
        "--number",
        "--help",
        "--version",
        "--pager",
        "-NUM",
        "-M",
    ]);
    // `-NUM` needs `numeric_option`, which cat's spec does not set; the
    // skip list holds `-M` for cut, not for cat.
    assert_eq!(
        unclassified("cat", spec, &documented, &[]),
        vec!["--pager".to_string(), "-M".to_string(), "-NUM".to_string()]
    );
    assert_eq!(
        unclassified("cut", spec, &documented, &["--pager".to_string()]),
        vec!["-NUM".to_string()]
    );
}
