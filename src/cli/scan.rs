//! `toolgate scan`: bulk classification for CI jobs and corpus work.
//!
//! Input is streamed in chunks; each chunk is classified on all cores and
//! written in input order before the next is read, so memory stays bounded
//! by the chunk size whatever the input's length.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::Value;
use toolgate::{Class, Classifier, Label};

/// How input lines are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// One command per line.
    Lines,
    /// One JSON object per line with a `command` field.
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
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Lines classified per batch.
    #[arg(long, default_value_t = 16_384, hide = true)]
    pub chunk: usize,
}

/// One input line, read but not yet classified.
enum Item {
    Command { text: String, lossy: bool },
    Bad { message: String },
}

/// One result, ready to write.
struct Outcome {
    line: u64,
    command: String,
    label: Option<Label>,
    error: Option<String>,
    unknown_word: Option<String>,
}

#[derive(Default)]
struct Summary {
    total: u64,
    /// Lines that could not be read at all (invalid JSON, no command).
    bad: u64,
    /// Lines read lossily because they were not valid UTF-8.
    lossy: u64,
    by_class: BTreeMap<&'static str, u64>,
    by_radius: BTreeMap<&'static str, u64>,
    by_category: BTreeMap<String, u64>,
    unknown_words: HashMap<String, u64>,
}

impl Summary {
    fn add(&mut self, o: &Outcome) {
        self.total += 1;
        if o.label.is_some() && o.error.is_some() {
            self.lossy += 1;
        }
        let Some(label) = &o.label else {
            self.bad += 1;
            return;
        };
        *self.by_class.entry(label.class.as_str()).or_default() += 1;
        if let Some(r) = label.blast_radius {
            *self.by_radius.entry(r.as_str()).or_default() += 1;
        }
        if !label.category.is_empty() {
            *self.by_category.entry(label.category.clone()).or_default() += 1;
        }
        if let Some(w) = &o.unknown_word {
            *self.unknown_words.entry(w.clone()).or_default() += 1;
        }
    }

    fn failed(&self, fail_on: Option<FailOn>) -> bool {
        let count = |c: &str| self.by_class.get(c).copied().unwrap_or(0);
        match fail_on {
            None => false,
            Some(FailOn::Destructive) => self.bad + self.lossy > 0 || count("destructive") > 0,
            Some(FailOn::Unknown) => {
                self.bad + self.lossy > 0 || count("destructive") > 0 || count("unknown") > 0
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
        let classes = ["safe", "destructive", "unknown"]
            .iter()
            .map(|c| (c.to_string(), self.by_class.get(c).copied().unwrap_or(0)))
            .collect();
        section(out, "class", classes)?;
        let radii = ["safe", "low", "medium", "high", "unknown"]
            .iter()
            .filter_map(|r| self.by_radius.get(r).map(|n| (r.to_string(), *n)))
            .collect();
        section(out, "blast radius", radii)?;
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

/// Reads lines as raw bytes so that invalid UTF-8 is reported, not fatal.
struct LineSource {
    readers: Vec<Box<dyn BufRead>>,
    line: u64,
    input: InputFormat,
}

impl LineSource {
    fn next_batch(&mut self, max: usize, bytes_read: &mut u64) -> io::Result<Vec<(u64, Item)>> {
        let mut batch = Vec::with_capacity(max.min(65_536));
        let mut buf = Vec::new();
        while batch.len() < max {
            let Some(reader) = self.readers.first_mut() else {
                break;
            };
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf)?;
            if n == 0 {
                self.readers.remove(0);
                continue;
            }
            *bytes_read += n as u64;
            self.line += 1;
            while buf.last() == Some(&b'\n') || buf.last() == Some(&b'\r') {
                buf.pop();
            }
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            batch.push((self.line, self.item(&buf)));
        }
        Ok(batch)
    }

    fn item(&self, bytes: &[u8]) -> Item {
        match self.input {
            InputFormat::Lines => match std::str::from_utf8(bytes) {
                Ok(s) => Item::Command {
                    text: s.to_string(),
                    lossy: false,
                },
                Err(e) => Item::Command {
                    text: String::from_utf8_lossy(bytes).into_owned(),
                    lossy: e.valid_up_to() < bytes.len(),
                },
            },
            InputFormat::Jsonl => match serde_json::from_slice::<Value>(bytes) {
                Ok(v) => match v.get("command").and_then(Value::as_str) {
                    Some(c) => Item::Command {
                        text: c.to_string(),
                        lossy: false,
                    },
                    None => Item::Bad {
                        message: "no string `command` field".into(),
                    },
                },
                Err(e) => Item::Bad {
                    message: format!("invalid JSON: {e}"),
                },
            },
        }
    }
}

fn classify_item(classifier: &Classifier, line: u64, item: Item, want_gaps: bool) -> Outcome {
    match item {
        Item::Bad { message } => Outcome {
            line,
            command: String::new(),
            label: None,
            error: Some(message),
            unknown_word: None,
        },
        Item::Command { text, lossy } => {
            let (mut label, unknown_word) = if want_gaps {
                let a = classifier.analyze(&text);
                let word = (a.label.class == Class::Unknown)
                    .then(|| {
                        a.commands
                            .first()
                            .map(|c| c.command.split(' ').next().unwrap_or("").to_string())
                    })
                    .flatten();
                (a.label, word)
            } else {
                (classifier.classify(&text), None)
            };
            if lossy && label.class == Class::Safe {
                label = Label::unknown("the command is not valid UTF-8");
            }
            Outcome {
                line,
                command: text,
                label: Some(label),
                error: lossy.then(|| "invalid UTF-8 (read lossily)".to_string()),
                unknown_word,
            }
        }
    }
}

fn write_jsonl(out: &mut dyn Write, o: &Outcome) -> io::Result<()> {
    let error = o.error.as_deref().map(|e| (o.line, e));
    toolgate::report::write_record(&mut &mut *out, &o.command, o.label.as_ref(), error)
}

/// Runs `scan`; returns whether `--fail-on` was triggered.
pub fn run(classifier: &Classifier, args: ScanArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let mut readers: Vec<Box<dyn BufRead>> = Vec::new();
    let mut total_bytes = 0u64;
    if args.files.is_empty() || args.files.iter().any(|f| f.as_os_str() == "-") {
        if args.files.len() > 1 {
            anyhow::bail!("`-` (standard input) cannot be mixed with files");
        }
        readers.push(Box::new(BufReader::with_capacity(1 << 16, io::stdin())));
    } else {
        for f in &args.files {
            let file = File::open(f).with_context(|| format!("opening {}", f.display()))?;
            total_bytes += file.metadata().map(|m| m.len()).unwrap_or(0);
            readers.push(Box::new(BufReader::with_capacity(1 << 16, file)) as Box<dyn BufRead>);
        }
    }
    let format = args.format.unwrap_or(if io::stdout().is_terminal() {
        ScanFormat::Summary
    } else {
        ScanFormat::Jsonl
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
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
        readers,
        line: 0,
        input: args.input,
    };
    let want_gaps = format != ScanFormat::Jsonl;
    let mut summary = Summary::default();
    let mut bytes_read = 0u64;
    let chunk = args.chunk.max(1);
    let mut stderr = io::stderr().lock();
    loop {
        let batch = source
            .next_batch(chunk, &mut bytes_read)
            .context("reading input")?;
        if batch.is_empty() {
            break;
        }
        let outcomes: Vec<Outcome> = pool.install(|| {
            batch
                .into_par_iter()
                .map(|(line, item)| classify_item(classifier, line, item, want_gaps))
                .collect()
        });
        for o in &outcomes {
            if let Some(e) = &o.error {
                writeln!(stderr, "toolgate scan: line {}: {e}", o.line)?;
            }
            summary.add(o);
            if format == ScanFormat::Jsonl {
                write_jsonl(out, o)?;
            }
        }
        if let Some(bar) = &progress {
            bar.set_position(bytes_read);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    match format {
        ScanFormat::Jsonl => {}
        ScanFormat::Summary => summary.write(out, false)?,
        ScanFormat::Table => summary.write(out, true)?,
    }
    Ok(summary.failed(args.fail_on))
}
