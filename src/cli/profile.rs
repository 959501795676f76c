//! `toolgate profile`: list, show, add and remove profiles.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use toolgate::compile_pattern;

use toolgate::install::risk::{unasked_destructive, NOT_ENFORCED};
use toolgate::profile::{catalogue, entries, AnyProfile, Entry, Store};

/// Output formats of the profile commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileFormat {
    /// JSON.
    Json,
    /// YAML.
    Yaml,
    /// Names only (list) or `key: value` lines (show).
    Plain,
    /// Aligned columns.
    Table,
    /// Aligned columns with a bold header, for terminals.
    Rich,
}

/// Arguments of `toolgate profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The custom profile store (default: `TOOLGATE_PROFILE_DIR`, else
    /// `~/.config/toolgate/profiles`).
    #[arg(long, value_name = "DIR", global = true)]
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ProfileFormat::Table, global = true)]
    format: ProfileFormat,
    #[command(subcommand)]
    action: ProfileAction,
}

#[derive(Debug, Subcommand)]
enum ProfileAction {
    /// List the built-in and custom profiles.
    List {
        /// Only names matching this regular expression.
        regex: Option<String>,
        /// Only this namespace (`builtin` for the built-ins).
        #[arg(long, value_name = "NS")]
        namespace: Option<String>,
    },
    /// Show one profile in full.
    Show {
        /// Its name.
        name: String,
    },
    /// Add a custom profile from a YAML file (its `name` is
    /// `namespace/name`).
    Add {
        /// The profile file.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Replace a custom profile of the same name.
        #[arg(long)]
        update: bool,
    },
    /// Remove a custom profile.
    Remove {
        /// Its name.
        name: String,
        /// Confirm the removal.
        #[arg(long)]
        yes: bool,
    },
}

fn store(dir: Option<PathBuf>) -> anyhow::Result<Store> {
    match dir {
        Some(d) => Ok(Store::new(d)),
        None => Store::default_location()
            .context("no profile store: pass --dir or set TOOLGATE_PROFILE_DIR or HOME"),
    }
}

/// Runs a profile command.
pub fn run(args: ProfileArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let store = store(args.dir)?;
    let format = args.format;
    match args.action {
        ProfileAction::List { regex, namespace } => {
            let re = regex
                .as_deref()
                .map(|r| compile_pattern(r).with_context(|| format!("invalid REGEX `{r}`")))
                .transpose()?;
            let all = catalogue(Some(&store))?;
            let rows: Vec<Entry> = entries(&all)
                .into_iter()
                .filter(|e| re.as_ref().is_none_or(|re| re.is_match(&e.name)))
                .filter(|e| namespace.as_deref().is_none_or(|ns| e.namespace == ns))
                .collect();
            write_list(&rows, format, out)?;
        }
        ProfileAction::Show { name } => {
            let all = catalogue(Some(&store))?;
            let wanted = name.trim().to_ascii_lowercase();
            let wanted = if wanted == "full_auto" {
                "full-auto".into()
            } else {
                wanted
            };
            let Some((p, builtin)) = all.iter().find(|(p, _)| p.name() == wanted) else {
                bail!("no profile `{name}` (see `toolgate profile list`)");
            };
            write_show(p, *builtin, format, out)?;
        }
        ProfileAction::Add { config, update } => {
            let p = store.add(&config, update)?;
            let row = entries(&[(p, false)]);
            write_list(&row, format, out)?;
        }
        ProfileAction::Remove { name, yes } => {
            if !yes {
                bail!("pass --yes to remove profile `{name}`");
            }
            store.remove(&name)?;
            if format == ProfileFormat::Json {
                writeln!(out, "{}", serde_json::json!({"removed": name}))?;
            } else {
                writeln!(out, "removed {name}")?;
            }
        }
    }
    Ok(true)
}

fn write_list(rows: &[Entry], format: ProfileFormat, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        ProfileFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(rows)?)?,
        ProfileFormat::Yaml => write!(out, "{}", serde_yaml_ng::to_string(rows)?)?,
        ProfileFormat::Plain => {
            for r in rows {
                writeln!(out, "{}", r.name)?;
            }
        }
        ProfileFormat::Table | ProfileFormat::Rich => {
            let table: Vec<[String; 5]> = rows
                .iter()
                .map(|r| {
                    [
                        r.name.clone(),
                        r.kind.as_str().into(),
                        r.version.clone(),
                        r.namespace.clone(),
                        r.description.clone(),
                    ]
                })
                .collect();
            write_table(
                ["NAME", "KIND", "VERSION", "NAMESPACE", "DESCRIPTION"],
                &table,
                format == ProfileFormat::Rich,
                out,
            )?;
            if rows.iter().any(|r| r.kind.as_str() == "automation") {
                let fields: Vec<&str> = NOT_ENFORCED.iter().map(|(f, _)| *f).collect();
                writeln!(
                    out,
                    "\ntoolgate enforces each profile's decisions on calls; it does not enforce {} \
                     (`toolgate profile show NAME` says how a caller can, and which destructive \
                     categories the profile lets run unasked)",
                    fields.join(", ")
                )?;
            }
        }
    }
    Ok(())
}

fn write_table(
    header: [&str; 5],
    rows: &[[String; 5]],
    bold: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut width = header.map(str::len);
    for r in rows {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s
    };
    let head = line(header);
    if bold {
        writeln!(out, "\x1b[1m{head}\x1b[0m")?;
    } else {
        writeln!(out, "{head}")?;
    }
    for r in rows {
        writeln!(out, "{}", line(r.each_ref().map(String::as_str)))?;
    }
    Ok(())
}

fn write_show(
    p: &AnyProfile,
    builtin: bool,
    format: ProfileFormat,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    match format {
        ProfileFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(p)?)?,
        ProfileFormat::Yaml => write!(out, "{}", serde_yaml_ng::to_string(p)?)?,
        ProfileFormat::Plain | ProfileFormat::Table | ProfileFormat::Rich => {
            let e = &entries(&[(p.clone(), builtin)])[0];
            let bold = |s: &str| {
                if format == ProfileFormat::Rich {
                    format!("\x1b[1m{s}\x1b[0m")
                } else {
                    s.to_string()
                }
            };
            writeln!(out, "{}: {}", bold("name"), e.name)?;
            writeln!(out, "{}: {}", bold("kind"), e.kind.as_str())?;
            writeln!(out, "{}: {}", bold("version"), e.version)?;
            writeln!(out, "{}: {}", bold("namespace"), e.namespace)?;
            writeln!(out, "{}: {}", bold("builtin"), e.builtin)?;
            writeln!(out, "{}: {}", bold("description"), e.description)?;
            let unasked = unasked_destructive(&e.name);
            if unasked.is_empty() {
                writeln!(
                    out,
                    "{}: none (every destructive call asks or is denied)",
                    bold("destructive, run unasked")
                )?;
            } else {
                writeln!(out, "{}:", bold("destructive, run unasked"))?;
                for u in &unasked {
                    writeln!(out, "  {u}")?;
                }
            }
            if matches!(p, AnyProfile::Automation(_)) {
                writeln!(out, "{}:", bold("not enforced by toolgate"))?;
                for (field, how) in NOT_ENFORCED {
                    writeln!(out, "  {field}: {how}")?;
                }
            }
            if !matches!(p, AnyProfile::Mode { .. }) {
                writeln!(out, "{}:", bold("settings"))?;
                for l in serde_yaml_ng::to_string(p)?.lines() {
                    writeln!(out, "  {l}")?;
                }
            }
        }
    }
    Ok(())
}
