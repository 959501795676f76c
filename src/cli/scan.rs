//! `toolgate scan`: bulk classification for CI jobs and corpus work.
//!
//! Input is streamed in chunks of `--chunk` lines through the library's
//! batch engine ([`toolgate::batch::Batch::run`]): each chunk is raw bytes
//! read straight from the input with the positions of its lines, each
//! thread classifies and renders a chunk into a reused buffer, and the
//! buffers are written in input order as they are finished. Memory stays
//! bounded and small whatever the input's length.
//!
//! Inputs of the other kinds (shell scripts, workflows, Dockerfiles,
//! Makefiles, `package.json`, GitLab CI files, agent transcripts) are read
//! whole by their readers in `toolgate_scan::input`, each command with the
//! line and column where it starts. Inputs keep the order they were given
//! in, whatever their kinds.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::placement::Placement;
use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use toolgate::batch::{Batch, Source, Stopped};
use toolgate::findings::{self, Hit};
use toolgate::gate::{CompoundPolicy, Decision, Gate};
use toolgate::hook::HookConfig;
use toolgate::report::{BadLine, FileName, Location, RecordExtra};
use toolgate::scan_input::{self, Found, Kind};
use toolgate::{BlastRadius, Class, Classifier, Label};

/// How input lines are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// One command per line.
    Lines,
    /// One JSON object per line with a `command` field (and an optional
    /// absolute `cwd`).
    Jsonl,
}

/// How results are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScanFormat {
    /// One JSON object per command, in input order, with its file, line
    /// and column.
    Jsonl,
    /// Counts and the most frequent unknown commands.
    Summary,
    /// The summary as aligned tables.
    Table,
    /// SARIF 2.1.0 for code scanning: destructive commands and unreadable
    /// input (unknown ones too with `--fail-on unknown`).
    Sarif,
    /// GitHub workflow annotations (`::error file=…,line=…::…`) for the
    /// same commands as SARIF.
    Github,
}

/// When `scan` exits with status 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any destructive command (or unreadable line).
    Destructive,
    /// Any command that is not safe (or unreadable line).
    Unknown,
}

/// Options of `toolgate scan`.
#[derive(Debug, ClapArgs)]
pub struct ScanArgs {
    /// Files to read; none or `-` reads standard input.
    pub files: Vec<PathBuf>,
    /// What the inputs are (default: recognised by each file's name and
    /// first line, plain lines otherwise; plain lines on stdin).
    #[arg(long, value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(Kind::ALL.map(Kind::as_str)))]
    pub input: Option<String>,
    /// Scan the files changed since this git revision (added, copied,
    /// modified or renamed; in the work tree, against BASE) that are of a
    /// recognised kind.
    #[arg(long, value_name = "BASE")]
    pub git_diff: Option<String>,
    /// Output format (default: jsonl when stdout is not a terminal, else
    /// summary).
    #[arg(long, value_enum)]
    pub format: Option<ScanFormat>,
    /// Exit with status 1 when a command reaches this class.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Threads that read, classify and write chunks of lines (default: all
    /// cores); with one, no thread is started.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Lines per chunk.
    #[arg(long, default_value_t = 512, hide = true)]
    pub chunk: usize,
    /// The working directory the commands run in (absolute); a JSONL
    /// line's own `cwd` takes its place.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Also decide each command as the hook would, under `--mode`,
    /// `--profile`, `--config` and `--compound`: records get `decision`
    /// and `source`, the summary counts decisions.
    #[arg(long)]
    pub decide: bool,
    /// With --decide: guard, strict, balanced, restricted or autonomous.
    #[arg(long, requires = "decide")]
    pub mode: Option<String>,
    /// With --decide: a profile that decides instead of the mode.
    #[arg(long, requires = "decide")]
    pub profile: Option<String>,
    /// With --decide: a hook configuration file (mode, rules, hints,
    /// compound).
    #[arg(long, requires = "decide", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// With --decide: refuse (default) or every-part-safe.
    #[arg(long, requires = "decide")]
    pub compound: Option<String>,
    /// With --decide: look before allowing, as the hook does: what each
    /// command would read is looked at on this machine, from its `cwd`
    /// (or `--cwd`, or the current directory), and a secret found stops
    /// the allow. Without it a read only a look could clear is not allowed.
    #[arg(long, requires = "decide")]
    pub look: bool,
}

/// What a thread learnt from a chunk, in input order. The sink empties
/// it, and the batch gives it back to the thread for a later chunk.
#[derive(Default)]
struct Part {
    /// Rendered JSONL records (empty unless the format is jsonl).
    out: Vec<u8>,
    /// Every line not read cleanly, and what was wrong with it.
    errors: Vec<(LineAt, String)>,
    /// Messages for what a whole input's reader could not read.
    problems: Vec<String>,
    /// The commands SARIF, annotations or the `--fail-on` report name.
    hits: Vec<Hit>,
    summary: Summary,
}

/// Counts by class and radius are fixed arrays: adding to them costs a
/// command nothing. Category and unknown-word counts are kept only for the
/// summary formats, which print them.
#[derive(Default)]
struct Summary {
    total: u64,
    /// Lines that could not be read at all (invalid JSON, no command).
    bad: u64,
    /// Lines read lossily because they were not valid UTF-8.
    lossy: u64,
    by_class: [u64; CLASSES.len()],
    by_radius: [u64; RADII.len()],
    by_category: HashMap<String, u64>,
    unknown_words: HashMap<String, u64>,
    /// Decisions, with `--decide`.
    by_decision: [u64; DECISIONS.len()],
    by_source: HashMap<String, u64>,
}

const DECISIONS: [Decision; 4] = [
    Decision::Allow,
    Decision::NoOpinion,
    Decision::Ask,
    Decision::Deny,
];

const CLASSES: [Class; 3] = [Class::Safe, Class::Destructive, Class::Unknown];
const RADII: [BlastRadius; 5] = [
    BlastRadius::Safe,
    BlastRadius::Low,
    BlastRadius::Medium,
    BlastRadius::High,
    BlastRadius::Unknown,
];

impl Summary {
    fn add(&mut self, label: &Label, lossy: bool, details: Option<Option<&str>>) {
        self.total += 1;
        self.lossy += u64::from(lossy);
        if let Some(i) = CLASSES.iter().position(|c| *c == label.class) {
            self.by_class[i] += 1;
        }
        if let Some(i) = RADII.iter().position(|x| *x == label.blast_radius) {
            self.by_radius[i] += 1;
        }
        let Some(unknown_word) = details else {
            return;
        };
        if !label.category.is_empty() {
            bump(&mut self.by_category, &label.category);
        }
        if let Some(w) = unknown_word {
            bump(&mut self.unknown_words, w);
        }
    }

    fn add_decision(&mut self, decision: Decision, source: &str) {
        if let Some(i) = DECISIONS.iter().position(|d| *d == decision) {
            self.by_decision[i] += 1;
        }
        bump(&mut self.by_source, source);
    }

    fn add_bad(&mut self) {
        self.total += 1;
        self.bad += 1;
    }

    fn merge(&mut self, other: Summary) {
        self.total += other.total;
        self.bad += other.bad;
        self.lossy += other.lossy;
        for (a, b) in self.by_class.iter_mut().zip(other.by_class) {
            *a += b;
        }
        for (a, b) in self.by_radius.iter_mut().zip(other.by_radius) {
            *a += b;
        }
        for (k, n) in other.by_category {
            *self.by_category.entry(k).or_default() += n;
        }
        for (k, n) in other.unknown_words {
            *self.unknown_words.entry(k).or_default() += n;
        }
        for (a, b) in self.by_decision.iter_mut().zip(other.by_decision) {
            *a += b;
        }
        for (k, n) in other.by_source {
            *self.by_source.entry(k).or_default() += n;
        }
    }

    fn count(&self, class: Class) -> u64 {
        CLASSES
            .iter()
            .position(|c| *c == class)
            .map_or(0, |i| self.by_class[i])
    }

    /// How many commands (and unreadable lines or inputs) fail
    /// `--fail-on`.
    fn failing(&self, fail_on: Option<FailOn>) -> u64 {
        match fail_on {
            None => 0,
            Some(FailOn::Destructive) => self.bad + self.lossy + self.count(Class::Destructive),
            // A line read lossily is labelled unknown: counted once.
            Some(FailOn::Unknown) => {
                self.bad + self.count(Class::Destructive) + self.count(Class::Unknown)
            }
        }
    }

    fn failed(&self, fail_on: Option<FailOn>) -> bool {
        let unreadable = self.bad + self.lossy > 0;
        match fail_on {
            None => false,
            Some(FailOn::Destructive) => unreadable || self.count(Class::Destructive) > 0,
            Some(FailOn::Unknown) => {
                unreadable || self.count(Class::Destructive) > 0 || self.count(Class::Unknown) > 0
            }
        }
    }

    fn write(&self, out: &mut dyn Write, table: bool) -> io::Result<()> {
        let pct = |n: u64| {
            if self.total == 0 {
                0.0
            } else {
                n as f64 * 100.0 / self.total as f64
            }
        };
        let section =
            |out: &mut dyn Write, title: &str, rows: Vec<(String, u64)>| -> io::Result<()> {
                if table {
                    writeln!(out, "{title:<28} {:>10} {:>7}", "count", "share")?;
                    writeln!(out, "{}", "-".repeat(47))?;
                    for (k, n) in rows {
                        writeln!(out, "{k:<28} {n:>10} {:>6.1}%", pct(n))?;
                    }
                } else {
                    writeln!(out, "{title}:")?;
                    for (k, n) in rows {
                        writeln!(out, "  {k}: {n} ({:.1}%)", pct(n))?;
                    }
                }
                writeln!(out)
            };
        writeln!(
            out,
            "{} commands, {} unreadable lines, {} not valid UTF-8\n",
            self.total - self.bad,
            self.bad,
            self.lossy
        )?;
        let classes = CLASSES
            .iter()
            .zip(self.by_class)
            .map(|(c, n)| (c.as_str().to_string(), n))
            .collect();
        section(out, "class", classes)?;
        let radii = RADII
            .iter()
            .zip(self.by_radius)
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| (r.as_str().to_string(), n))
            .collect();
        section(out, "blast radius", radii)?;
        if !self.by_source.is_empty() {
            // No opinion only where a mode gave it (guard), so that other
            // modes' summaries read as they did.
            let decisions = DECISIONS
                .iter()
                .zip(self.by_decision)
                .filter(|(d, n)| *n > 0 || **d != Decision::NoOpinion)
                .map(|(d, n)| (d.as_str().to_string(), n))
                .collect();
            section(out, "decision", decisions)?;
            let mut sources: Vec<(String, u64)> = self
                .by_source
                .iter()
                .map(|(k, n)| (k.clone(), *n))
                .collect();
            sources.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            section(out, "decided by", sources)?;
        }
        let mut cats: Vec<(String, u64)> = self
            .by_category
            .iter()
            .map(|(k, n)| (k.clone(), *n))
            .collect();
        cats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        section(out, "category", cats)?;
        let mut gaps: Vec<(String, u64)> = self
            .unknown_words
            .iter()
            .map(|(k, n)| (k.clone(), *n))
            .collect();
        gaps.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        gaps.truncate(20);
        section(out, "most frequent unknown commands (taxonomy gaps)", gaps)
    }
}

/// Adds one to `word`'s count, copying the word only the first time.
fn bump(counts: &mut HashMap<String, u64>, word: &str) {
    match counts.get_mut(word) {
        Some(n) => *n += 1,
        None => {
            counts.insert(word.to_string(), 1);
        }
    }
}

/// A chunk of input lines as raw bytes: one buffer and where each line is.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    /// Every non-blank line.
    lines: Vec<LineAt>,
}

/// Where a line is: its input (an index into the names of the inputs), its
/// number there, and its bytes in the chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LineAt {
    input: u32,
    line: u64,
    start: usize,
    end: usize,
}

/// One input: a file's name, or `None` for standard input.
type Named = (Option<String>, Box<dyn BufRead + Send>);

/// Reads lines as raw bytes so that invalid UTF-8 is reported, not fatal.
struct LineSource {
    /// The inputs not read to the end yet, in order.
    inputs: std::collections::VecDeque<Named>,
    /// The index of the first of `inputs` among all the inputs.
    input: u32,
    /// The number of the last line read from it.
    line: u64,
    bytes_read: u64,
    /// Why reading stopped early. The lines read before it are classified
    /// and written first: a bad input loses nothing that came before.
    failure: Option<anyhow::Error>,
}

impl LineSource {
    /// Reads up to `max` non-blank lines into `batch`, replacing what it
    /// held: its buffers are those of a chunk already written, so that a
    /// long scan stays on memory it has touched before. Whole lines are
    /// taken from the reader's buffer in one copy; a line the buffer does
    /// not hold whole (longer than it, or last and without a newline) is
    /// read on its own.
    fn next_batch(&mut self, max: usize, batch: &mut Chunk) {
        batch.bytes.clear();
        batch.lines.clear();
        while batch.lines.len() < max {
            if let Err(e) = self.read_lines(max, batch) {
                let what = self.inputs.front().and_then(|i| i.0.clone());
                let what = what.unwrap_or_else(|| "standard input".to_string());
                self.failure = Some(anyhow::Error::new(e).context(format!("reading {what}")));
                self.inputs.clear();
            }
            if self.inputs.is_empty() {
                break;
            }
        }
    }

    /// Reads from the current input until `batch` holds `max` lines or the
    /// input ends (then the next one becomes current).
    fn read_lines(&mut self, max: usize, batch: &mut Chunk) -> io::Result<()> {
        while batch.lines.len() < max {
            let Some((_, reader)) = self.inputs.front_mut() else {
                return Ok(());
            };
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                // A signal, not a failure: `read_until` retries too.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                self.inputs.pop_front();
                self.input += 1;
                self.line = 0;
                return Ok(());
            }
            let base = batch.bytes.len();
            let mut taken = 0;
            while batch.lines.len() < max {
                let Some(newline) = memchr::memchr(b'\n', &buf[taken..]) else {
                    break;
                };
                let end = taken + newline + 1;
                self.line += 1;
                if let Some(len) = content_len(&buf[taken..end]) {
                    batch.lines.push(LineAt {
                        input: self.input,
                        line: self.line,
                        start: base + taken,
                        end: base + taken + len,
                    });
                }
                taken = end;
            }
            if taken > 0 {
                batch.bytes.extend_from_slice(&buf[..taken]);
                reader.consume(taken);
                self.bytes_read += taken as u64;
                continue;
            }
            let n = reader.read_until(b'\n', &mut batch.bytes)?;
            self.bytes_read += n as u64;
            self.line += 1;
            match content_len(&batch.bytes[base..]) {
                Some(len) => batch.lines.push(LineAt {
                    input: self.input,
                    line: self.line,
                    start: base,
                    end: base + len,
                }),
                None => batch.bytes.truncate(base),
            }
        }
        Ok(())
    }
}

/// The length of a line without its line ending (any trailing `\n` and
/// `\r`), or `None` when it holds only white space.
fn content_len(line: &[u8]) -> Option<usize> {
    let len = line
        .iter()
        .rposition(|&b| b != b'\n' && b != b'\r')
        .map_or(0, |i| i + 1);
    (!line[..len].iter().all(u8::is_ascii_whitespace)).then_some(len)
}

/// What a thread needs besides the lines.
struct Job<'a> {
    classifier: &'a Classifier,
    /// The gate deciding each command, with `--decide`.
    gate: Option<&'a Gate<'a>>,
    /// The working directory of lines that give none.
    cwd: Option<&'a str>,
    /// The inputs' names (`None` for standard input), by index.
    names: &'a [Option<FileName>],
    input: InputFormat,
    format: ScanFormat,
    fail_on: Option<FailOn>,
    /// Whether hits are gathered (for SARIF, annotations or `--fail-on`).
    collect: bool,
}

/// Where a command is, for its record and its hit.
#[derive(Clone, Copy)]
struct Where<'a> {
    file: Option<&'a FileName>,
    line: u64,
    column: u64,
    names: &'a [(&'static str, String)],
}

/// Hits kept for the `--fail-on` report when no format needs them all.
const REPORTED: usize = 20;

/// What a JSONL record adds to its command, about: the keys, an unknown
/// label's values and the punctuation take 64 bytes; a label with a
/// category and a reason takes more.
const RECORD_BYTES: usize = 80;

impl Job<'_> {
    /// Classifies a chunk's lines and renders what will be written, into
    /// `part` (empty, as the sink left it): the records, the errors and the
    /// counts.
    fn run(&self, batch: &Chunk, part: &mut Part) {
        let bytes = &batch.bytes;
        if self.format == ScanFormat::Jsonl {
            // Room for the records at once: grown by doubling, a new buffer
            // was copied five or six times into memory never touched before
            // (a quarter of a scan's page faults).
            part.out
                .reserve(bytes.len() + batch.lines.len() * RECORD_BYTES);
        }
        // Plain lines are checked as UTF-8 all at once, which is quicker
        // than line by line; lines end at ASCII bytes, so each is then
        // valid too.
        let valid = match self.input {
            InputFormat::Lines => std::str::from_utf8(bytes).ok(),
            InputFormat::Jsonl => None,
        };
        let terse = !matches!(self.format, ScanFormat::Summary | ScanFormat::Table);
        if let (Some(text), true) = (valid, terse) {
            // The usual scan: every line a command as it stands. Their
            // texts go to the classifier as they are, with nothing built
            // per line (a line read into a `Read` first cost a corpus scan
            // 3 M instructions of moves).
            let ctx = toolgate::Context { cwd: self.cwd };
            let commands: Vec<(&str, toolgate::Context)> = batch
                .lines
                .iter()
                .map(|at| (text.get(at.start..at.end).unwrap_or(""), ctx))
                .collect();
            let labels = self.classifier.classify_terse_all(&commands);
            for ((&at, (text, _)), label) in batch.lines.iter().zip(&commands).zip(labels) {
                self.command(part, at, text, self.cwd, false, Some(label));
            }
            return;
        }
        let mut lines = Vec::with_capacity(batch.lines.len());
        for &at in &batch.lines {
            let (start, end) = (at.start, at.end);
            let raw = &bytes[start..end];
            lines.push(match self.input {
                InputFormat::Lines => {
                    let (text, lossy) = match valid.and_then(|v| v.get(start..end)) {
                        Some(s) => (Cow::Borrowed(s), false),
                        None => match std::str::from_utf8(raw) {
                            Ok(s) => (Cow::Borrowed(s), false),
                            Err(_) => (String::from_utf8_lossy(raw), true),
                        },
                    };
                    Read::Command {
                        at,
                        text,
                        cwd: self.cwd.map(Cow::Borrowed),
                        lossy,
                    }
                }
                InputFormat::Jsonl => match command_field(raw) {
                    Ok((c, cwd)) => Read::Command {
                        at,
                        text: Cow::Owned(c),
                        cwd: cwd.map(Cow::Owned).or(self.cwd.map(Cow::Borrowed)),
                        lossy: false,
                    },
                    Err(message) => Read::Bad { at, message },
                },
            });
        }
        // JSONL shows no reason for an unknown label, so none is built; and
        // the chunk's commands are labelled as one run, which reads them
        // all as shell before it judges them.
        let mut terse_labels = Vec::new().into_iter();
        if terse {
            let commands: Vec<(&str, toolgate::Context)> = lines
                .iter()
                .filter_map(|l| match l {
                    Read::Command { text, cwd, .. } => Some((
                        text.as_ref(),
                        toolgate::Context {
                            cwd: cwd.as_deref(),
                        },
                    )),
                    Read::Bad { .. } => None,
                })
                .collect();
            terse_labels = self.classifier.classify_terse_all(&commands).into_iter();
        }
        for line in lines {
            match line {
                Read::Command {
                    at,
                    text,
                    cwd,
                    lossy,
                } => self.command(part, at, &text, cwd.as_deref(), lossy, terse_labels.next()),
                Read::Bad { at, message } => {
                    part.summary.add_bad();
                    if self.format == ScanFormat::Jsonl {
                        let error = Some(self.bad_line(at, &message));
                        let extra = RecordExtra {
                            location: Some(Location {
                                file: self.name(at),
                                line: at.line,
                                column: 1,
                                names: &[],
                            }),
                            ..RecordExtra::default()
                        };
                        toolgate::report::push_record_with(&mut part.out, "", None, error, extra);
                    }
                    let place = self.line_place(at, "");
                    self.hit(part, place, &message, None);
                    part.errors.push((at, message));
                }
            }
        }
    }

    /// Writes a chunk's errors and records, and adds its counts to
    /// `summary`, leaving `part` empty for the chunk its buffers go to next.
    fn write(&self, part: &mut Part, sink: &mut Sink, out: &mut dyn Write) -> anyhow::Result<()> {
        sink.summary.merge(std::mem::take(&mut part.summary));
        if !part.errors.is_empty() || !part.problems.is_empty() {
            let mut stderr = io::stderr().lock();
            for (at, e) in part.errors.drain(..) {
                writeln!(stderr, "toolgate scan: {}", self.bad_line(at, &e))?;
            }
            for p in part.problems.drain(..) {
                writeln!(stderr, "toolgate scan: {p}")?;
            }
        }
        out.write_all(&part.out)?;
        part.out.clear();
        for hit in part.hits.drain(..) {
            if self.format == ScanFormat::Github {
                writeln!(out, "{}", findings::annotation(&hit))?;
            }
            // SARIF names every hit; the `--fail-on` report the first
            // failing ones.
            let reported = sink.hits.len() < REPORTED && self.failing(hit.label.as_ref());
            if self.format == ScanFormat::Sarif || reported {
                sink.hits.push(hit);
            }
        }
        Ok(())
    }

    /// Whether a label (`None`: input not read) fails `--fail-on`.
    fn failing(&self, label: Option<&Label>) -> bool {
        match (self.fail_on, label) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(FailOn::Destructive), Some(l)) => l.class == Class::Destructive,
            (Some(FailOn::Unknown), Some(l)) => l.class != Class::Safe,
        }
    }

    /// Gathers a hit for a command (or an unreadable input, `label`
    /// `None`) that a report names: destructive ones and unreadable input
    /// always, unknown ones with `--fail-on unknown`.
    fn hit(&self, part: &mut Part, place: Where, command: &str, label: Option<&Label>) {
        if !self.collect {
            return;
        }
        let named = match label {
            None => true,
            Some(l) => l.class == Class::Destructive || self.failing(Some(l)),
        };
        if named {
            part.hits.push(Hit {
                file: place.file.map(|f| f.as_str().to_string()),
                line: place.line,
                column: place.column,
                command: command.to_string(),
                label: label.cloned(),
                names: place.names.to_vec(),
            });
        }
    }

    /// Where a line of a line-based input is: its first non-blank
    /// character.
    fn line_place(&self, at: LineAt, text: &str) -> Where<'_> {
        // Columns count characters: leading blanks may be any of Unicode's.
        let column = match (self.input, text.as_bytes().first()) {
            // Nearly every line starts with an ASCII byte that is not
            // white space (as `trim_start` reads it): column 1, with no
            // characters to decode.
            (InputFormat::Lines, Some(&b)) if b.is_ascii() && !char::from(b).is_whitespace() => 0,
            (InputFormat::Lines, _) => {
                let lead = text.len() - text.trim_start().len();
                text[..lead].chars().count()
            }
            (InputFormat::Jsonl, _) => 0,
        };
        Where {
            file: self.name(at),
            line: at.line,
            column: column as u64 + 1,
            names: &[],
        }
    }

    /// Labels, counts and renders every command a whole input's reader
    /// found, and reports what it could not read.
    fn whole(&self, part: &mut Part, file: Option<&FileName>, extract: scan_input::Extract) {
        let labels = match self.format {
            ScanFormat::Summary | ScanFormat::Table => Vec::new(),
            _ => {
                let commands: Vec<(&str, toolgate::Context)> = extract
                    .found
                    .iter()
                    .map(|f| {
                        let cwd = f.cwd.as_deref().or(self.cwd);
                        (f.classify.as_str(), toolgate::Context { cwd })
                    })
                    .collect();
                self.classifier.classify_terse_all(&commands)
            }
        };
        let mut labels = labels.into_iter();
        for found in &extract.found {
            let place = Where {
                file,
                line: found.line,
                column: found.column,
                names: &found.names,
            };
            let cwd = found.cwd.as_deref().or(self.cwd);
            self.judge(part, place, found, cwd, labels.next());
        }
        for p in extract.problems {
            part.summary.add_bad();
            let place = Where {
                file,
                line: p.line,
                column: p.column,
                names: &[],
            };
            if self.format == ScanFormat::Jsonl {
                let error = BadLine {
                    file: file.map(FileName::as_str),
                    line: p.line,
                    message: &p.message,
                };
                let extra = RecordExtra {
                    location: Some(Location {
                        file,
                        line: p.line,
                        column: p.column,
                        names: &[],
                    }),
                    ..RecordExtra::default()
                };
                toolgate::report::push_record_with(&mut part.out, "", None, Some(error), extra);
            }
            self.hit(part, place, &p.message, None);
            let at = match file {
                Some(f) => format!("{}:{}:{}", f.as_str(), p.line, p.column),
                None => format!("line {}, column {}", p.line, p.column),
            };
            part.problems.push(format!("{at}: {}", p.message));
        }
    }

    /// A command's label for a summary or table, and, when it is unknown,
    /// the first command's name, which they count. The label's reasons are
    /// built only where a failure report may print them.
    fn counted(&self, command: &str, ctx: &toolgate::Context) -> (Label, Option<String>) {
        use toolgate::classify::{Detail, Options};
        let options = Options {
            context: *ctx,
            detail: if self.collect {
                Detail::Label
            } else {
                Detail::Named
            },
            reach: false,
        };
        let a = self.classifier.assess(command, &options);
        let word = (a.label.class == Class::Unknown)
            .then(|| {
                let name = a.first_command.as_deref()?;
                Some(name.split(' ').next().unwrap_or("").to_string())
            })
            .flatten();
        (a.label, word)
    }

    /// Labels, decides, counts and renders one command a whole input's
    /// reader found.
    fn judge(
        &self,
        part: &mut Part,
        place: Where,
        found: &Found,
        cwd: Option<&str>,
        terse: Option<Label>,
    ) {
        let ctx = toolgate::Context { cwd };
        let summary = matches!(self.format, ScanFormat::Summary | ScanFormat::Table);
        let (label, unknown_word) = match terse {
            Some(label) => (scan_input::adjust(label, found), None),
            None if summary && found.not_shell.is_none() => {
                let (label, word) = self.counted(&found.classify, &ctx);
                (scan_input::adjust(label, found), word)
            }
            None => (scan_input::label(self.classifier, found, self.cwd), None),
        };
        let verdict = self.gate.as_ref().map(|gate| {
            // Text another tool fills in, or no POSIX shell reads, is not
            // what the gate judged: it never lets it through on that.
            let unsure = found.substituted || found.not_shell.is_some();
            decide_looking(gate, &found.classify, &ctx, unsure)
        });
        if let Some((decision, source)) = &verdict {
            part.summary.add_decision(*decision, source);
        }
        part.summary
            .add(&label, false, summary.then_some(unknown_word.as_deref()));
        self.hit(part, place, &found.command, Some(&label));
        if self.format == ScanFormat::Jsonl {
            let extra = RecordExtra {
                cwd,
                decision: verdict.as_ref().map(|(d, s)| (*d, s.as_str())),
                location: Some(Location {
                    file: place.file,
                    line: place.line,
                    column: place.column,
                    names: place.names,
                }),
            };
            toolgate::report::push_record_with(
                &mut part.out,
                &found.command,
                Some(&label),
                None,
                extra,
            );
        }
    }

    /// The name of the input a line is of.
    fn name(&self, at: LineAt) -> Option<&FileName> {
        self.names.get(at.input as usize).and_then(Option::as_ref)
    }

    /// What a JSONL record says of a line not read cleanly.
    fn bad_line<'m>(&'m self, at: LineAt, message: &'m str) -> BadLine<'m> {
        BadLine {
            file: self.name(at).map(FileName::as_str),
            line: at.line,
            message,
        }
    }

    /// Labels, counts and renders one command; `terse` is its terse label
    /// when that was found already.
    fn command(
        &self,
        part: &mut Part,
        at: LineAt,
        text: &str,
        cwd: Option<&str>,
        lossy: bool,
        terse: Option<Label>,
    ) {
        const LOSSY: &str = "invalid UTF-8 (read lossily)";
        let summary = matches!(self.format, ScanFormat::Summary | ScanFormat::Table);
        let ctx = toolgate::Context { cwd };
        let (mut label, unknown_word) = if summary {
            self.counted(text, &ctx)
        } else {
            let label = terse.unwrap_or_else(|| self.classifier.classify_terse_in(text, &ctx));
            (label, None)
        };
        let verdict = self.gate.as_ref().map(|gate| {
            // Bytes that are not what was read are never let through on
            // what was read.
            decide_looking(gate, text, &ctx, lossy)
        });
        if let Some((decision, source)) = &verdict {
            part.summary.add_decision(*decision, source);
        }
        if lossy && label.class == Class::Safe {
            label = Label::unknown("the command is not valid UTF-8");
        }
        if lossy {
            part.errors.push((at, LOSSY.to_string()));
        }
        part.summary
            .add(&label, lossy, summary.then_some(unknown_word.as_deref()));
        let place = self.line_place(at, text);
        match lossy {
            true => self.hit(part, place, LOSSY, None),
            false => self.hit(part, place, text, Some(&label)),
        }
        if self.format == ScanFormat::Jsonl {
            let error = lossy.then(|| self.bad_line(at, LOSSY));
            let extra = RecordExtra {
                cwd,
                decision: verdict.as_ref().map(|(d, s)| (*d, s.as_str())),
                location: Some(Location {
                    file: place.file,
                    line: place.line,
                    column: place.column,
                    names: &[],
                }),
            };
            toolgate::report::push_record_with(&mut part.out, text, Some(&label), error, extra);
        }
    }
}

/// One line of a chunk as read: a command, or a `--input jsonl` line that
/// holds none.
enum Read<'a> {
    Command {
        at: LineAt,
        text: Cow<'a, str>,
        cwd: Option<Cow<'a, str>>,
        lossy: bool,
    },
    Bad {
        at: LineAt,
        message: String,
    },
}

/// Decides one scanned command as the shell tool's call, with the source
/// that decided; with `--look` (a gate that notes what each command reads)
/// after a look at it from where the command runs: its `cwd`, or the
/// current directory. `unsure`: the text is not exactly what will run
/// (invalid UTF-8 read lossily, text another tool fills in), so an allow
/// becomes a fail-closed ask.
fn decide_looking(
    gate: &Gate<'_>,
    command: &str,
    ctx: &toolgate::Context<'_>,
    unsure: bool,
) -> (Decision, String) {
    let call = serde_json::json!({ "command": command });
    let assessed = gate.assess_in(SCAN_TOOL, &call, None, ctx);
    let mut verdict = gate.decide_assessed(SCAN_TOOL, &call, None, None, assessed.clone());
    if assessed.reach.is_some() {
        let dir = match ctx.cwd {
            Some(c) => toolgate::look::native_dir(c),
            None => std::env::current_dir().ok(),
        };
        verdict = toolgate::look::settle(
            gate,
            verdict,
            &assessed,
            SCAN_TOOL,
            &call,
            dir.as_deref(),
            None,
            &toolgate::look::Budget::default(),
        );
    }
    if unsure && verdict.decision == Decision::Allow {
        (Decision::Ask, "fail_closed".to_string())
    } else {
        (verdict.decision, verdict.source)
    }
}

/// The tool name a scanned command is decided as: the shell tool.
const SCAN_TOOL: &str = "shell";

/// The `command` and optional `cwd` fields of one `--input jsonl` line.
fn command_field(raw: &[u8]) -> Result<(String, Option<String>), String> {
    #[derive(serde::Deserialize)]
    struct Line {
        command: Option<Value>,
        cwd: Option<Value>,
    }
    let line = serde_json::from_slice::<Line>(raw).map_err(|e| format!("invalid JSON: {e}"))?;
    let Some(Value::String(command)) = line.command else {
        return Err("no string `command` field".into());
    };
    let cwd = match line.cwd {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if c.starts_with('/') => Some(c),
        Some(Value::String(c)) => {
            return Err(format!("`cwd` `{c}` is not an absolute path"));
        }
        Some(_) => return Err("`cwd` is not a string".into()),
    };
    Ok((command, cwd))
}

/// The gate `--decide` asks, from `--mode`, `--profile`, `--config` and
/// `--compound`. Unlike the hook, which answers fail-closed, a mistyped
/// name here is an error.
fn scan_gate<'c>(classifier: &'c Classifier, args: &ScanArgs) -> anyhow::Result<Gate<'c>> {
    let compound = args
        .compound
        .as_deref()
        .map(str::parse::<CompoundPolicy>)
        .transpose()
        .context("--compound")?;
    let file = match &args.config {
        Some(path) => HookConfig::load(path)?,
        None => HookConfig::default(),
    };
    let name = args
        .config
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let config = file.gate_config(&name, args.mode.clone(), args.profile.clone(), compound)?;
    let gate = Gate::new(classifier, config);
    if let Some(bad) = gate.unrecognised() {
        anyhow::bail!(
            "unknown {bad}: use guard, strict, balanced, restricted or autonomous, or a profile \
             from `toolgate profile list`"
        );
    }
    Ok(gate)
}

/// The input as a batch reads it: chunks of lines, with the progress bar
/// moved as they are read.
struct Input<'a> {
    lines: &'a mut LineSource,
    progress: Option<&'a ProgressBar>,
}

impl Source for Input<'_> {
    type Chunk = Chunk;

    fn fill(&mut self, max: usize, chunk: &mut Chunk) -> bool {
        self.lines.next_batch(max, chunk);
        if chunk.lines.is_empty() {
            return false;
        }
        if let Some(bar) = self.progress {
            bar.set_position(self.lines.bytes_read);
        }
        true
    }
}

/// What the sink gathers across chunks and inputs.
#[derive(Default)]
struct Sink {
    summary: Summary,
    /// Every hit for SARIF; else the first failing ones for the `--fail-on`
    /// report.
    hits: Vec<Hit>,
}

/// One input to read: its name (`None` for standard input), its kind, and
/// its path.
struct Planned {
    name: Option<String>,
    kind: Kind,
    path: Option<PathBuf>,
}

/// The inputs of a scan, in order, each with its kind: forced by
/// `--input`, else by name, else by its first bytes, else plain lines.
/// With `--git-diff`, the changed files of a recognised kind.
fn plan(args: &ScanArgs, forced: Option<Kind>) -> anyhow::Result<Vec<Planned>> {
    if let Some(base) = &args.git_diff {
        if !args.files.is_empty() {
            anyhow::bail!("--git-diff chooses the files itself: give no files with it");
        }
        let mut planned = Vec::new();
        for path in changed_files(base)? {
            let kind = match forced {
                Some(k) => Some(k),
                None => recognised(&path),
            };
            if let Some(kind) = kind.filter(|k| forced.is_some() || !k.is_line_based()) {
                planned.push(Planned {
                    name: Some(path.display().to_string()),
                    kind,
                    path: Some(path),
                });
            }
        }
        return Ok(planned);
    }
    if args.files.is_empty() || args.files.iter().any(|f| f.as_os_str() == "-") {
        if args.files.len() > 1 {
            anyhow::bail!("`-` (standard input) cannot be mixed with files");
        }
        return Ok(vec![Planned {
            name: None,
            kind: forced.unwrap_or(Kind::Lines),
            path: None,
        }]);
    }
    Ok(args
        .files
        .iter()
        .map(|f| Planned {
            name: Some(f.display().to_string()),
            kind: forced.or_else(|| recognised(f)).unwrap_or(Kind::Lines),
            path: Some(f.clone()),
        })
        .collect())
}

/// A file's kind by its name or first bytes, or `None` when neither says.
fn recognised(path: &Path) -> Option<Kind> {
    if let Some(kind) = scan_input::kind_by_name(path) {
        return Some(kind);
    }
    let mut head = [0u8; 4096];
    let n = File::open(path)
        .and_then(|mut f| io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    scan_input::sniff(path, &head[..n])
}

/// The files changed since `base` (added, copied, modified, renamed),
/// relative to the working directory.
fn changed_files(base: &str) -> anyhow::Result<Vec<PathBuf>> {
    let git = |args: &[&str]| -> anyhow::Result<Vec<u8>> {
        let o = std::process::Command::new("git")
            .args(args)
            .output()
            .context("running git for --git-diff")?;
        if !o.status.success() {
            anyhow::bail!(
                "--git-diff {base}: git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr).trim()
            );
        }
        Ok(o.stdout)
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim_end_matches('\n'));
    let names = git(&[
        "diff",
        "--name-only",
        "-z",
        "--diff-filter=ACMR",
        base,
        "--",
    ])?;
    let here = std::env::current_dir().context("the working directory")?;
    Ok(names
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| {
            let path = top.join(String::from_utf8_lossy(n).as_ref());
            path.strip_prefix(&here)
                .map(Path::to_path_buf)
                .unwrap_or(path)
        })
        .collect())
}

/// Runs `scan`; returns whether `--fail-on` was triggered.
pub fn run(
    classifier: &Classifier,
    args: ScanArgs,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<bool> {
    let forced = args.input.as_deref().and_then(Kind::from_name);
    let planned = plan(&args, forced)?;
    let format = args.format.unwrap_or(if io::stdout().is_terminal() {
        ScanFormat::Summary
    } else {
        ScanFormat::Jsonl
    });
    let threads = match args.threads {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
    };
    // Checked as classify and explain check it.
    super::context(args.cwd.as_deref())?;
    let gate = args
        .decide
        .then(|| scan_gate(classifier, &args).map(|g| g.reaching(args.look)))
        .transpose()?;
    let collect =
        args.fail_on.is_some() || matches!(format, ScanFormat::Sarif | ScanFormat::Github);
    let mut sink = Sink::default();
    let mut failure = None;
    let mut i = 0;
    while i < planned.len() && failure.is_none() {
        let kind = planned[i].kind;
        let group = match kind.is_line_based() {
            true => planned[i..].iter().take_while(|p| p.kind == kind).count(),
            false => 1,
        };
        let inputs = &planned[i..i + group];
        i += group;
        let names: Vec<Option<FileName>> = inputs
            .iter()
            .map(|p| p.name.as_deref().map(FileName::new))
            .collect();
        let job = Job {
            classifier,
            gate: gate.as_ref(),
            cwd: args.cwd.as_deref(),
            names: &names,
            input: match kind {
                Kind::Jsonl => InputFormat::Jsonl,
                _ => InputFormat::Lines,
            },
            format,
            fail_on: args.fail_on,
            collect,
        };
        if !kind.is_line_based() {
            let Some(path) = &inputs[0].path else {
                let mut text = String::new();
                io::Read::read_to_string(&mut io::stdin(), &mut text)
                    .context("reading standard input")?;
                whole(&job, None, kind, &text, &mut sink, out)?;
                continue;
            };
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let name = names[0].as_ref();
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let mut part = Part::default();
                    part.summary.add_bad();
                    let place = Where {
                        file: name,
                        line: 1,
                        column: 1,
                        names: &[],
                    };
                    job.hit(
                        &mut part,
                        place,
                        "invalid UTF-8: the file is not read",
                        None,
                    );
                    part.problems.push(format!(
                        "{}: invalid UTF-8 (byte {}): the file is not read",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    ));
                    job.write(&mut part, &mut sink, out)?;
                    continue;
                }
            };
            whole(&job, name, kind, &text, &mut sink, out)?;
            continue;
        }
        failure = lines(&job, inputs, threads, args.chunk, &mut sink, out)?;
    }
    match format {
        ScanFormat::Jsonl | ScanFormat::Github => {}
        ScanFormat::Summary => sink.summary.write(out, false)?,
        ScanFormat::Table => sink.summary.write(out, true)?,
        ScanFormat::Sarif => {
            let rules = findings::rules(classifier.taxonomy());
            let root = repository_root();
            for hit in &mut sink.hits {
                if let (Some(file), Some(root)) = (&hit.file, &root) {
                    hit.file = Some(relative_to(file, root));
                }
            }
            let log = findings::sarif(&sink.hits, &rules, env!("CARGO_PKG_VERSION"));
            serde_json::to_writer_pretty(&mut *out, &log)?;
            writeln!(out)?;
        }
    }
    let failed = sink.summary.failed(args.fail_on);
    if failed {
        let what = match args.fail_on {
            Some(FailOn::Unknown) => "unknown",
            _ => "destructive",
        };
        let job = Job {
            classifier,
            gate: None,
            cwd: None,
            names: &[],
            input: InputFormat::Lines,
            format,
            fail_on: args.fail_on,
            collect,
        };
        let failing: Vec<Hit> = sink
            .hits
            .into_iter()
            .filter(|h| job.failing(h.label.as_ref()))
            .collect();
        let total = sink.summary.failing(args.fail_on);
        eprint!(
            "{}",
            findings::failure_report(what, &failing, total, REPORTED)
        );
    }
    // Everything read before an input failed is out; now the failure.
    match failure {
        Some(e) => Err(e),
        None => Ok(failed),
    }
}

/// Reads a whole input of a kind that is not line based, and writes what
/// it found.
fn whole(
    job: &Job,
    name: Option<&FileName>,
    kind: Kind,
    text: &str,
    sink: &mut Sink,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let extract = scan_input::extract(kind, text);
    let mut part = Part::default();
    job.whole(&mut part, name, extract);
    job.write(&mut part, sink, out)
}

/// Streams a run of line-based inputs of one kind through the batch
/// engine; returns why reading stopped early, if it did.
fn lines(
    job: &Job,
    planned: &[Planned],
    threads: usize,
    chunk: usize,
    sink: &mut Sink,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<Option<anyhow::Error>> {
    let mut inputs: std::collections::VecDeque<Named> = Default::default();
    let mut total_bytes = 0u64;
    for p in planned {
        match &p.path {
            None => {
                if io::stdin().is_terminal() {
                    eprintln!(
                        "toolgate scan: reading commands from stdin, one per line (end with Ctrl-D; \
                         or give files to read)"
                    );
                }
                inputs.push_back((
                    None,
                    Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
                ));
            }
            Some(f) => {
                let file = File::open(f).with_context(|| format!("opening {}", f.display()))?;
                total_bytes += file.metadata().map(|m| m.len()).unwrap_or(0);
                inputs.push_back((
                    p.name.clone(),
                    Box::new(BufReader::with_capacity(1 << 16, file)),
                ));
            }
        }
    }
    let progress = (io::stderr().is_terminal() && total_bytes > 4 << 20).then(|| {
        let bar = ProgressBar::new(total_bytes);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
        {
            bar.set_style(style);
        }
        bar
    });
    let mut source = LineSource {
        inputs,
        input: 0,
        line: 0,
        bytes_read: 0,
        failure: None,
    };
    let batch = Batch {
        threads,
        chunk: chunk.max(1),
    };
    let input = Input {
        lines: &mut source,
        progress: progress.as_ref(),
    };
    let placement = Placement::new();
    let run = batch.run(
        input,
        |chunk, part| job.run(chunk, part),
        |part| job.write(part, sink, out),
        |_| placement.arrive(),
    );
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    match run {
        Ok(()) => {}
        Err(Stopped::Sink(e)) => return Err(e),
        Err(Stopped::Panic(_)) => anyhow::bail!("internal: a scan task panicked"),
    }
    Ok(source.failure)
}

/// The root of the git work tree holding the working directory, if any:
/// SARIF locations are relative to it.
fn repository_root() -> Option<PathBuf> {
    let here = std::env::current_dir().ok()?;
    here.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// `file` relative to `root` when it is inside it, as given otherwise.
fn relative_to(file: &str, root: &Path) -> String {
    let absolute = std::fs::canonicalize(file).ok();
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    match absolute.as_deref().and_then(|a| a.strip_prefix(&root).ok()) {
        Some(rel) => rel.display().to_string(),
        None => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives some bytes, then is interrupted once by a
    /// signal, then fails.
    struct Failing(Option<&'static [u8]>, bool);

    impl io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(bytes) => {
                    buf[..bytes.len()].copy_from_slice(bytes);
                    Ok(bytes.len())
                }
                None if !self.1 => {
                    self.1 = true;
                    Err(io::ErrorKind::Interrupted.into())
                }
                None => Err(io::Error::other("disk on fire")),
            }
        }
    }

    #[test]
    fn a_failing_input_keeps_the_lines_before_it_and_names_itself() {
        let mut source = LineSource {
            inputs: [
                (
                    Some("good.txt".to_string()),
                    Box::new(io::Cursor::new("ls\npwd\n")) as Box<dyn BufRead + Send>,
                ),
                (
                    Some("bad.txt".to_string()),
                    Box::new(BufReader::new(Failing(Some(b"git status\n"), false))),
                ),
                (
                    Some("never.txt".to_string()),
                    Box::new(io::Cursor::new("rm x\n")),
                ),
            ]
            .into(),
            input: 0,
            line: 0,
            bytes_read: 0,
            failure: None,
        };
        let mut batch = Chunk::default();
        source.next_batch(100, &mut batch);
        let lines: Vec<(u32, u64)> = batch.lines.iter().map(|l| (l.input, l.line)).collect();
        assert_eq!(lines, [(0, 1), (0, 2), (1, 1)]);
        let failure = source.failure.as_ref().map(|e| format!("{e:#}"));
        assert_eq!(failure.as_deref(), Some("reading bad.txt: disk on fire"));
        source.next_batch(100, &mut batch);
        assert!(batch.lines.is_empty());
    }

    #[test]
    fn batches_hold_whole_lines_whatever_the_reader_buffer() {
        let long = format!("echo {}", "x".repeat(100));
        let text = format!("ls a\n\n  \r\n{long}\r\ngit status\nrm -rf x");
        // Buffers smaller than a line, and larger than the input.
        for capacity in [1, 3, 16, 64, 1 << 16] {
            for max in [1, 2, 1000] {
                let reader = BufReader::with_capacity(capacity, io::Cursor::new(text.clone()));
                let second = BufReader::with_capacity(capacity, io::Cursor::new("pwd\n"));
                let mut source = LineSource {
                    inputs: [
                        (
                            Some("a".to_string()),
                            Box::new(reader) as Box<dyn BufRead + Send>,
                        ),
                        (Some("b".to_string()), Box::new(second)),
                    ]
                    .into(),
                    input: 0,
                    line: 0,
                    bytes_read: 0,
                    failure: None,
                };
                let mut got = Vec::new();
                let mut batch = Chunk::default();
                loop {
                    source.next_batch(max, &mut batch);
                    if batch.lines.is_empty() {
                        break;
                    }
                    assert!(batch.lines.len() <= max);
                    for at in &batch.lines {
                        let text = &batch.bytes[at.start..at.end];
                        got.push((at.input, at.line, String::from_utf8_lossy(text).to_string()));
                    }
                }
                let want: Vec<(u32, u64, String)> = vec![
                    (0, 1, "ls a".into()),
                    (0, 4, long.clone()),
                    (0, 5, "git status".into()),
                    (0, 6, "rm -rf x".into()),
                    (1, 1, "pwd".into()),
                ];
                assert_eq!(got, want, "capacity {capacity}, max {max}");
                assert_eq!(source.bytes_read, text.len() as u64 + 4);
                assert!(source.failure.is_none());
            }
        }
    }
}
