//! `toolgate install`, `uninstall` and `doctor`: flags in, the library's
//! [`toolgate::install`] plans out, printed or applied.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use clap::Args as ClapArgs;
use toolgate::client::Client;
use toolgate::gate::{Gate, GateConfig, ModeSetting};
use toolgate::install::{self, doctor, Applied, Change, Env, HookSpec, InstallError, Scope};
use toolgate::Classifier;

/// Options of `toolgate install`.
#[derive(Debug, ClapArgs)]
pub struct InstallArgs {
    /// claude, codex, gemini, copilot, qwen, cline, opencode, cursor or
    /// windsurf.
    pub client: String,
    /// The hook's mode: strict, balanced, restricted or autonomous (without
    /// one, the hook takes TOOLGATE_MODE or the config file's).
    #[arg(long, conflicts_with = "profile")]
    pub mode: Option<String>,
    /// An automation or action-class profile that decides instead of a mode.
    #[arg(long)]
    pub profile: Option<String>,
    /// Install into this project's settings instead of the user's.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `toolgate uninstall`.
#[derive(Debug, ClapArgs)]
pub struct UninstallArgs {
    /// The client, as for `install`.
    pub client: String,
    /// Remove it from this project's settings instead of the user's.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `toolgate doctor`.
#[derive(Debug, ClapArgs)]
pub struct DoctorArgs {
    /// Check this project's settings too.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

fn client(name: &str) -> anyhow::Result<&'static dyn Client> {
    install::client(name).ok_or_else(|| {
        let names: Vec<&str> = install::clients().map(|c| c.name()).collect();
        anyhow::anyhow!("unknown client `{name}`: use one of {}", names.join(", "))
    })
}

fn scope(project: Option<PathBuf>) -> anyhow::Result<Scope> {
    match project {
        None => Ok(Scope::User),
        Some(dir) => {
            let dir = std::path::absolute(&dir)
                .with_context(|| format!("--project {}", dir.display()))?;
            if !dir.is_dir() {
                bail!(
                    "--project {}: not a directory: give the project's root",
                    dir.display()
                );
            }
            Ok(Scope::Project(dir))
        }
    }
}

/// Prints or applies a change, and says what happened.
fn finish(change: &Change, dry_run: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    if dry_run {
        if change.is_noop() {
            writeln!(out, "{}: nothing to change", change.path.display())?;
        } else {
            write!(out, "{}", change.diff())?;
        }
        return Ok(());
    }
    match change.apply()? {
        Applied::Unchanged => writeln!(
            out,
            "{}: already as it should be, nothing written",
            change.path.display()
        )?,
        Applied::Written { backup } => {
            writeln!(out, "{}: written", change.path.display())?;
            if let Some(b) = backup {
                writeln!(out, "  the previous file is at {}", b.display())?;
            }
        }
        Applied::Removed { backup } => writeln!(
            out,
            "{}: removed (it held only toolgate's hook); the previous file is at {}",
            change.path.display(),
            backup.display()
        )?,
    }
    Ok(())
}

/// Runs `install`.
pub fn run_install(
    classifier: &Classifier,
    args: InstallArgs,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let client = client(&args.client)?;
    let scope = scope(args.project)?;
    // A name the gate does not know would make the hook strict without a
    // word: refuse it here, where someone reads the message.
    let probe = Gate::new(
        classifier,
        toolgate::profile::apply_profile(
            GateConfig {
                mode: ModeSetting::from_name(args.mode.as_deref()),
                ..GateConfig::default()
            },
            args.profile.as_deref(),
        ),
    );
    if let Some(bad) = probe.unrecognised() {
        return Err(InstallError::BadChoice(format!(
            "{bad} is not one toolgate knows: use strict, balanced, restricted or autonomous, or a profile `toolgate profile list` shows"
        ))
        .into());
    }
    let binary = std::env::current_exe().map_err(InstallError::NoBinary)?;
    let binary = binary.canonicalize().unwrap_or(binary);
    let spec = HookSpec {
        binary,
        mode: args.mode,
        profile: args.profile,
    };
    let change = install::plan_install(client, &scope, &Env::from_process(), &spec)?;
    finish(&change, args.dry_run, out)?;
    if !args.dry_run {
        if let Some(note) = client.after_install(&scope) {
            writeln!(out, "{note}")?;
        }
        writeln!(
            out,
            "Check it with `toolgate doctor`{}.",
            match &scope {
                Scope::User => String::new(),
                Scope::Project(d) => format!(" --project {}", d.display()),
            }
        )?;
    }
    Ok(true)
}

/// Runs `uninstall`.
pub fn run_uninstall(args: UninstallArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let client = client(&args.client)?;
    let scope = scope(args.project)?;
    let change = install::plan_uninstall(client, &scope, &Env::from_process())?;
    if change.old.is_none() {
        writeln!(
            out,
            "{}: does not exist, nothing to remove",
            change.path.display()
        )?;
        return Ok(true);
    }
    if change.is_noop() {
        writeln!(
            out,
            "{}: has no toolgate hook, nothing to remove",
            change.path.display()
        )?;
        return Ok(true);
    }
    finish(&change, args.dry_run, out)?;
    Ok(true)
}

/// Runs `doctor`: exit 0 when every installed hook is live.
pub fn run_doctor(
    classifier: &Classifier,
    args: DoctorArgs,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let project = match args.project {
        None => None,
        Some(p) => match scope(Some(p))? {
            Scope::Project(d) => Some(d),
            Scope::User => None,
        },
    };
    let report = doctor::run(classifier, &Env::from_process(), project.as_deref());
    write!(out, "{}", report.render())?;
    Ok(report.is_healthy())
}
