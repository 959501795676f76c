//! `toolgate log`: the decision log, read back and filtered.

use std::io::Write;
use std::time::SystemTime;

use anyhow::Context as _;
use clap::{Args as ClapArgs, ValueEnum};
use toolgate::decision_log::{parse_since, state_dir, DecisionLog, Entry, Filter};
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
}

/// `--decision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DecisionArg {
    /// Allowed calls.
    Allow,
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
    let since = match args.since.as_deref() {
        None => None,
        Some(s) => Some(parse_since(s, SystemTime::now()).with_context(|| {
            format!("--since `{s}`: give a duration (`30m`, `2h`, `7d`) or a time (`2025-01-02T03:04:05Z`, `2025-01-02`)")
        })?),
    };
    let filter = Filter {
        since,
        decision: args.decision.map(|d| match d {
            DecisionArg::Allow => Decision::Allow,
            DecisionArg::Ask => Decision::Ask,
            DecisionArg::Deny => Decision::Deny,
        }),
    };
    let dir = state_dir(|k| std::env::var(k).ok())
        .context("no state directory: set TOOLGATE_STATE_DIR, XDG_STATE_HOME or HOME")?;
    let (entries, skipped) = DecisionLog::new(dir).read()?;
    let shown: Vec<&Entry> = entries.iter().filter(|e| filter.matches(e)).collect();
    match args.format {
        LogFormat::Json => {
            for e in shown {
                serde_json::to_writer(&mut *out, e)?;
                out.write_all(b"\n")?;
            }
        }
        LogFormat::Table => table(&shown, out)?,
    }
    if skipped > 0 {
        eprintln!("toolgate: {skipped} line(s) of the log could not be read and were skipped");
    }
    Ok(true)
}

/// One entry a line: time, decision, label, client, tool, command (one
/// line, cut at 80 characters).
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
    for row in std::iter::once(&header).chain(&rows) {
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
    }
    Ok(())
}
