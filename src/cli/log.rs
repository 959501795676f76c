//! `toolgate log`: the decision log, read back and filtered.

use std::io::Write;
use std::time::SystemTime;

use anyhow::Context as _;
use clap::{Args as ClapArgs, ValueEnum};
use toolgate::decision_log::{
    parse_since, state_dir, stats, suggest, DecisionLog, Entry, Filter, Stats,
};
use toolgate::gate::Decision;

/// Options of `toolgate log`.
#[derive(Debug, ClapArgs)]
pub struct LogArgs {
    /// Only entries from this long ago (`30m`, `2h`, `7d`, `1h30m`) or since
    /// this time (RFC 3339, `2025-01-02T03:04:05Z`, or a date).
    #[arg(long, value_name = "DURATION|TIME")]
    pub since: Option<String>,
    /// Only entries with this decision.
    #[arg(long, value_enum)]
    pub decision: Option<DecisionArg>,
    /// table (for people) or json (one object a line, as logged).
    #[arg(long, value_enum, default_value_t = LogFormat::Table)]
    pub format: LogFormat,
    /// Counts instead of entries: by decision, client, category and
    /// command word.
    #[arg(long)]
    pub stats: bool,
}

/// Options of `toolgate suggest`.
#[derive(Debug, ClapArgs)]
pub struct SuggestArgs {
    /// Only entries from this long ago or since this time, as for `log`.
    #[arg(long, value_name = "DURATION|TIME")]
    pub since: Option<String>,
    /// At most this many rules.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
}

/// `--decision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DecisionArg {
    /// Allowed calls.
    Allow,
    /// Calls left to the client's own permissions (`no_opinion`, as the
    /// log prints it, is accepted too).
    #[value(alias = "no_opinion")]
    NoOpinion,
    /// Calls that asked for confirmation.
    Ask,
    /// Denied calls.
    Deny,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Aligned columns.
    Table,
    /// One JSON object a line.
    Json,
}

/// Prints the entries that pass the filter, oldest first.
pub fn run(args: LogArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let since = since(args.since.as_deref())?;
    let filter = Filter {
        since,
        decision: args.decision.map(|d| match d {
            DecisionArg::Allow => Decision::Allow,
            DecisionArg::NoOpinion => Decision::NoOpinion,
            DecisionArg::Ask => Decision::Ask,
            DecisionArg::Deny => Decision::Deny,
        }),
    };
    let (entries, skipped) = read_log()?;
    let shown: Vec<&Entry> = entries.iter().filter(|e| filter.matches(e)).collect();
    if args.stats {
        print_stats(&stats(shown.iter().copied()), args.format, out)?;
        warn_skipped(skipped);
        return Ok(true);
    }
    match args.format {
        LogFormat::Json => {
            for e in shown {
                serde_json::to_writer(&mut *out, e)?;
                out.write_all(b"\n")?;
            }
        }
        LogFormat::Table => table(&shown, out)?,
    }
    warn_skipped(skipped);
    Ok(true)
}

fn warn_skipped(skipped: usize) {
    if skipped > 0 {
        eprintln!("toolgate: {skipped} line(s) of the log could not be read and were skipped");
    }
}

fn since(text: Option<&str>) -> anyhow::Result<Option<SystemTime>> {
    match text {
        None => Ok(None),
        Some(s) => Ok(Some(parse_since(s, SystemTime::now()).with_context(|| {
            format!("--since `{s}`: give a duration (`30m`, `2h`, `7d`) or a time (`2025-01-02T03:04:05Z`, `2025-01-02`)")
        })?)),
    }
}

fn read_log() -> anyhow::Result<(Vec<Entry>, usize)> {
    let dir = state_dir(|k| std::env::var(k).ok())
        .context("no state directory: set TOOLGATE_STATE_DIR, XDG_STATE_HOME or HOME")?;
    Ok(DecisionLog::new(dir).read()?)
}

/// Prints the counts: a section per key, or one JSON object.
fn print_stats(s: &Stats, format: LogFormat, out: &mut dyn Write) -> anyhow::Result<()> {
    let sections = [
        ("decision", &s.decision),
        ("client", &s.client),
        ("category", &s.category),
        ("command word", &s.word),
    ];
    if format == LogFormat::Json {
        let mut obj = serde_json::Map::new();
        obj.insert("total".into(), s.total.into());
        for (name, rows) in sections {
            let counts: serde_json::Map<String, serde_json::Value> =
                rows.iter().map(|(k, n)| (k.clone(), (*n).into())).collect();
            obj.insert(name.replace(' ', "_"), counts.into());
        }
        writeln!(out, "{}", serde_json::Value::Object(obj))?;
        return Ok(());
    }
    writeln!(out, "{} entries", s.total)?;
    for (name, rows) in sections {
        writeln!(out, "\nby {name}:")?;
        for (k, n) in rows.iter().take(20) {
            writeln!(out, "  {n:>7}  {k}")?;
        }
    }
    Ok(())
}

/// Runs `toolgate suggest`: rules for the commands asked about most.
pub fn run_suggest(args: SuggestArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let filter = Filter {
        since: since(args.since.as_deref())?,
        decision: None,
    };
    let (entries, skipped) = read_log()?;
    let found = suggest(entries.iter().filter(|e| filter.matches(e)), args.limit);
    // The guard mode never asks about an unknown command: it leaves it to
    // the client, so its log has nothing for `suggest` to offer.
    let left_by_guard = entries
        .iter()
        .filter(|e| filter.matches(e))
        .filter(|e| {
            e.decision == Some(Decision::NoOpinion)
                && e.source == "mode_guard"
                && e.label.as_deref() == Some("unknown")
        })
        .count();
    if found.is_empty() && left_by_guard > 0 {
        writeln!(
            out,
            "nothing to suggest: the hook runs in the guard mode, which never asks about an unknown \
             command; it left {left_by_guard} to your client's own permissions, so allow those \
             in the client (`toolgate log --decision no-opinion` lists them)"
        )?;
    } else if found.is_empty() {
        writeln!(
            out,
            "nothing to suggest: no unknown command was asked about (destructive commands, \
             secret reads and the guard's own files are never suggested)"
        )?;
    }
    for s in &found {
        writeln!(out, "{:>5}× {}\n       {}", s.count, s.command, s.line)?;
    }
    warn_skipped(skipped);
    Ok(true)
}

/// One entry a line: time, decision, label, client, tool, command (one
/// line, cut at 80 characters); under it, its source and reason.
fn table(entries: &[&Entry], out: &mut dyn Write) -> anyhow::Result<()> {
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|e| {
            let command: String = e.command.as_deref().unwrap_or("").replace('\n', " ⏎ ");
            let command = if command.chars().count() > 80 {
                let cut: String = command.chars().take(79).collect();
                format!("{cut}…")
            } else {
                command
            };
            [
                e.time.clone(),
                e.decision.map_or("-", Decision::as_str).to_string(),
                e.label.clone().unwrap_or_else(|| "-".into()),
                e.client.clone(),
                e.tool.clone().unwrap_or_else(|| "-".into()),
                command,
            ]
        })
        .collect();
    let header = ["TIME", "DECISION", "LABEL", "CLIENT", "TOOL", "COMMAND"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for (n, row) in std::iter::once(&header).chain(&rows).enumerate() {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', w - cell.chars().count() + 2));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
        // Under each entry, what decided and why.
        if let Some(e) = n.checked_sub(1).and_then(|i| entries.get(i)) {
            writeln!(out, "    {}: {}", e.source, e.reason.replace('\n', " "))?;
        }
    }
    Ok(())
}
