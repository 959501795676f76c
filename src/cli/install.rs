//! `toolgate install`, `uninstall` and `doctor`: flags in, the library's
//! [`toolgate::install`] plans out, printed or applied.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use clap::Args as ClapArgs;
use toolgate::client::Client;
use toolgate::gate::{Gate, GateConfig, Mode, ModeSetting};
use toolgate::hook::HookConfig;
use toolgate::install::{self, doctor, risk, Applied, Change, Env, HookSpec, InstallError, Scope};
use toolgate::Classifier;

/// Options of `toolgate install`.
#[derive(Debug, ClapArgs)]
pub struct InstallArgs {
    /// claude, codex, gemini, copilot, qwen, cline, opencode, cursor or
    /// windsurf.
    pub client: String,
    /// The hook's mode: guard, strict, balanced, restricted or autonomous.
    /// Without one (and no --profile) it is guard: safe runs, destructive
    /// is asked about (denied where the client cannot ask), unknown is left
    /// to the client's own permissions; unless the config file names a
    /// mode or profile, which the hook then takes.
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
    /// Install a profile that lets destructive calls run unasked.
    #[arg(long)]
    pub yes: bool,
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
    /// Check this project's settings too (default: the repository the
    /// current directory is in, if any).
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
        Applied::Removed { backup } => {
            writeln!(
                out,
                "{}: removed (it held only toolgate's hook)",
                change.path.display()
            )?;
            if let Some(b) = backup {
                writeln!(out, "  the previous file is at {}", b.display())?;
            }
        }
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
            "{bad} is not one toolgate knows: use guard, strict, balanced, restricted or autonomous, or a profile `toolgate profile list` shows"
        ))
        .into());
    }
    let chosen = args.profile.as_deref().or(args.mode.as_deref());
    let unasked = chosen.map(risk::unasked_destructive).unwrap_or_default();
    if let Some(name) = chosen.filter(|_| !unasked.is_empty()) {
        writeln!(
            out,
            "{name} lets these destructive categories run with nobody asked:"
        )?;
        for u in &unasked {
            writeln!(out, "  {u}")?;
        }
        if !args.yes && !args.dry_run {
            out.flush()?;
            bail!(
                "{name} lets destructive calls run unasked (listed above): pass --yes to install it anyway, \
                 or install without --profile for the guard mode"
            );
        }
    }
    let env = Env::from_process();
    let (mode, from_config) = default_mode(&env, args.mode, args.profile.as_deref())?;
    let binary = std::env::current_exe().map_err(InstallError::NoBinary)?;
    let binary = binary.canonicalize().unwrap_or(binary);
    let spec = HookSpec {
        binary,
        mode,
        profile: args.profile,
    };
    let change = install::plan_install(client, &scope, &env, &spec)?;
    finish(&change, args.dry_run, out)?;
    let cwd = match &scope {
        Scope::Project(d) => d.clone(),
        // Where doctor runs a user hook's canaries: the home directory.
        Scope::User => env.home.clone().unwrap_or_else(|| PathBuf::from("/")),
    };
    let row = doctor::effective_row(
        classifier,
        &env,
        client,
        spec.mode.as_deref(),
        spec.profile.as_deref(),
        &cwd,
    );
    let named = match (&spec.mode, &spec.profile, &from_config) {
        (_, Some(p), _) => format!("profile {p}"),
        (Some(m), None, _) => format!("mode {m}"),
        (None, None, Some(file)) => format!("the mode or profile of {}", file.display()),
        (None, None, None) => "no mode".into(),
    };
    if !args.dry_run {
        writeln!(out, "{} under {named}: {row}", client.title())?;
        if row.leaves_unknown_to_client() {
            if let Some(note) = client.no_opinion_note() {
                writeln!(out, "{note}")?;
            }
        }
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

/// The mode to install: the one asked for; with neither a mode nor a
/// profile, guard, unless toolgate's config file names a mode or profile
/// (the hook then takes that one, and its file is returned to say so).
fn default_mode(
    env: &Env,
    mode: Option<String>,
    profile: Option<&str>,
) -> anyhow::Result<(Option<String>, Option<PathBuf>)> {
    if mode.is_some() || profile.is_some() {
        return Ok((mode, None));
    }
    if let Some(path) = env.toolgate_config_path() {
        let file = HookConfig::load(&path)?;
        if file.mode.is_some() || file.profile.is_some() {
            return Ok((None, Some(path)));
        }
    }
    Ok((Some(Mode::Guard.as_str().to_string()), None))
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
    let env = Env::from_process();
    let project = match args.project {
        None => std::env::current_dir()
            .ok()
            .and_then(|d| enclosing_project(&d, env.home.as_deref())),
        Some(p) => match scope(Some(p))? {
            Scope::Project(d) => Some(d),
            Scope::User => None,
        },
    };
    let report = doctor::run(classifier, &env, project.as_deref());
    write!(out, "{}", report.render())?;
    Ok(report.is_healthy())
}

/// The project `dir` is in: the nearest directory at or above it that
/// holds `.git` or a `.toolgate.toml`, unless that is the home directory
/// (whose settings are the user's, checked anyway).
fn enclosing_project(dir: &std::path::Path, home: Option<&std::path::Path>) -> Option<PathBuf> {
    let found = dir
        .ancestors()
        .find(|d| d.join(".git").exists() || d.join(toolgate::hook::policy::FILE_NAME).is_file())?;
    (Some(found) != home).then(|| found.to_path_buf())
}
