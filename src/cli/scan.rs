//! `toolgate scan`: bulk classification for CI jobs and corpus work.
//!
//! Input is streamed in chunks of `--chunk` lines through the library's
//! batch engine ([`toolgate::batch::Batch::run`]): each chunk is raw bytes
//! read straight from the input with the positions of its lines, each
//! thread classifies and renders a chunk into a reused buffer, and the
//! buffers are written in input order as they are finished. Memory stays
//! bounded and small whatever the input's length.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;

use super::placement::Placement;
use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use toolgate::batch::{Batch, Source, Stopped};
use toolgate::gate::{CompoundPolicy, Decision, Gate};
use toolgate::hook::HookConfig;
use toolgate::report::{BadLine, RecordExtra};
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
    /// One JSON object per input line, in input order.
    Jsonl,
    /// Counts and the most frequent unknown commands.
    Summary,
    /// The summary as aligned tables.
    Table,
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
    /// Input format.
    #[arg(long, value_enum, default_value_t = InputFormat::Lines)]
    pub input: InputFormat,
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
                let Some(newline) = find_newline(&buf[taken..]) else {
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

/// The position of the first `\n`, eight bytes at a time.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(Ok(chunk)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let v = u64::from_le_bytes(chunk) ^ (ONES * u64::from(b'\n'));
        // The lowest byte flagged here is the first zero byte of `v`
        // exactly (bytes above it may be flagged falsely).
        let zero = v.wrapping_sub(ONES) & !v & HIGH;
        if zero != 0 {
            return Some(i + zero.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

/// What a thread needs besides the lines.
struct Job<'a> {
    classifier: &'a Classifier,
    /// The gate deciding each command, with `--decide`.
    gate: Option<Gate<'a>>,
    /// The working directory of lines that give none.
    cwd: Option<&'a str>,
    /// The inputs' names (`None` for standard input), by index.
    names: &'a [Option<String>],
    input: InputFormat,
    format: ScanFormat,
}

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
        if let (Some(text), ScanFormat::Jsonl) = (valid, self.format) {
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
        let mut terse = Vec::new().into_iter();
        if self.format == ScanFormat::Jsonl {
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
            terse = self.classifier.classify_terse_all(&commands).into_iter();
        }
        for line in lines {
            match line {
                Read::Command {
                    at,
                    text,
                    cwd,
                    lossy,
                } => self.command(part, at, &text, cwd.as_deref(), lossy, terse.next()),
                Read::Bad { at, message } => {
                    part.summary.add_bad();
                    if self.format == ScanFormat::Jsonl {
                        let error = Some(self.bad_line(at, &message));
                        toolgate::report::push_record(&mut part.out, "", None, error);
                    }
                    part.errors.push((at, message));
                }
            }
        }
    }

    /// Writes a chunk's errors and records, and adds its counts to
    /// `summary`, leaving `part` empty for the chunk its buffers go to next.
    fn write(
        &self,
        part: &mut Part,
        summary: &mut Summary,
        out: &mut dyn Write,
    ) -> anyhow::Result<()> {
        summary.merge(std::mem::take(&mut part.summary));
        if !part.errors.is_empty() {
            let mut stderr = io::stderr().lock();
            for (at, e) in part.errors.drain(..) {
                writeln!(stderr, "toolgate scan: {}", self.bad_line(at, &e))?;
            }
        }
        out.write_all(&part.out)?;
        part.out.clear();
        Ok(())
    }

    /// What a JSONL record says of a line not read cleanly.
    fn bad_line<'m>(&'m self, at: LineAt, message: &'m str) -> BadLine<'m> {
        BadLine {
            file: self.names.get(at.input as usize).and_then(|n| n.as_deref()),
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
        let summary = self.format != ScanFormat::Jsonl;
        let ctx = toolgate::Context { cwd };
        let (mut label, unknown_word) = if summary {
            let a = self.classifier.analyze_in(text, &ctx);
            let word = (a.label.class == Class::Unknown)
                .then(|| {
                    a.commands
                        .first()
                        .map(|c| c.command.split(' ').next().unwrap_or("").to_string())
                })
                .flatten();
            (a.label, word)
        } else {
            let label = terse.unwrap_or_else(|| self.classifier.classify_terse_in(text, &ctx));
            (label, None)
        };
        let verdict = self.gate.as_ref().map(|gate| {
            let call = serde_json::json!({ "command": text });
            let assessed = gate.assess_in(SCAN_TOOL, &call, None, &ctx);
            let v = gate.decide_assessed(SCAN_TOOL, &call, None, None, assessed.clone());
            // With `--look` the gate noted what the command reads; look at
            // it from where the command runs.
            let v = if assessed.reach.is_some() {
                let here = std::env::current_dir().ok();
                let dir = match cwd {
                    Some(c) => toolgate::look::native_dir(c),
                    None => here,
                };
                toolgate::look::settle(
                    gate,
                    v,
                    &assessed,
                    SCAN_TOOL,
                    &call,
                    dir.as_deref(),
                    None,
                    &toolgate::look::Budget::default(),
                )
            } else {
                v
            };
            // Bytes that are not what was read are never let through on
            // what was read.
            if lossy && v.decision == Decision::Allow {
                (Decision::Ask, "fail_closed".to_string())
            } else {
                (v.decision, v.source)
            }
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
        if !summary {
            let error = lossy.then(|| self.bad_line(at, LOSSY));
            let extra = RecordExtra {
                cwd,
                decision: verdict.as_ref().map(|(d, s)| (*d, s.as_str())),
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

/// Runs `scan`; returns whether `--fail-on` was triggered.
pub fn run(
    classifier: &Classifier,
    args: ScanArgs,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<bool> {
    let mut inputs: std::collections::VecDeque<Named> = Default::default();
    let mut total_bytes = 0u64;
    if args.files.is_empty() || args.files.iter().any(|f| f.as_os_str() == "-") {
        if args.files.len() > 1 {
            anyhow::bail!("`-` (standard input) cannot be mixed with files");
        }
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
    } else {
        for f in &args.files {
            let file = File::open(f).with_context(|| format!("opening {}", f.display()))?;
            total_bytes += file.metadata().map(|m| m.len()).unwrap_or(0);
            let name = f.display().to_string();
            inputs.push_back((
                Some(name),
                Box::new(BufReader::with_capacity(1 << 16, file)),
            ));
        }
    }
    let names: Vec<Option<String>> = inputs.iter().map(|i| i.0.clone()).collect();
    let format = args.format.unwrap_or(if io::stdout().is_terminal() {
        ScanFormat::Summary
    } else {
        ScanFormat::Jsonl
    });
    let threads = match args.threads {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
    };
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
    // Checked as classify and explain check it.
    super::context(args.cwd.as_deref())?;
    let gate = args
        .decide
        .then(|| scan_gate(classifier, &args).map(|g| g.reaching(args.look)))
        .transpose()?;
    let job = Job {
        classifier,
        gate,
        cwd: args.cwd.as_deref(),
        names: &names,
        input: args.input,
        format,
    };
    let batch = Batch {
        threads,
        chunk: args.chunk.max(1),
    };
    let input = Input {
        lines: &mut source,
        progress: progress.as_ref(),
    };
    let mut summary = Summary::default();
    let placement = Placement::new();
    let run = batch.run(
        input,
        |chunk, part| job.run(chunk, part),
        |part| job.write(part, &mut summary, out),
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
    match format {
        ScanFormat::Jsonl => {}
        ScanFormat::Summary => summary.write(out, false)?,
        ScanFormat::Table => summary.write(out, true)?,
    }
    // Everything read before an input failed is out; now the failure.
    match source.failure {
        Some(e) => Err(e),
        None => Ok(summary.failed(args.fail_on)),
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
    fn find_newline_finds_the_first_one() {
        for len in 0..40 {
            let mut bytes: Vec<u8> = (0..len).map(|i| b"a\x8a\x0b\xff"[i % 4]).collect();
            assert_eq!(find_newline(&bytes), None, "{bytes:?}");
            for at in 0..len {
                bytes[at] = b'\n';
                if at + 1 < len {
                    bytes[at + 1] = b'\n';
                }
                assert_eq!(find_newline(&bytes), Some(at), "{bytes:?}");
                bytes[at] = b'a';
                if at + 1 < len {
                    bytes[at + 1] = b'a';
                }
            }
        }
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
