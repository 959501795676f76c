//! `toolgate allow|ask|deny RULE [--project[=DIR]]`: add a permission rule to the
//! file where it takes effect, after checking it.
//!
//! A user's rule goes into toolgate's config file (`TOOLGATE_CONFIG`, else
//! `$XDG_CONFIG_HOME/toolgate/config.toml` or `~/.config/toolgate/config.toml`),
//! a project's into its `.toolgate.toml`. A project can only tighten, so
//! `allow --project` is refused rather than written where it would be
//! ignored. The file is edited with `toml_edit`: every comment and key
//! stays, and the whole file is read again as the hook reads it before
//! anything is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::Args as ClapArgs;
use toolgate::gate::Rule;
use toolgate::hook::{add_rule, policy, HookConfig, ProjectPolicy};
use toolgate::install::{Applied, Change, Env};
use toolgate::rule_line::allow_rule_line;

/// Which list a rule goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// `allow`.
    Allow,
    /// `ask`.
    Ask,
    /// `deny`.
    Deny,
}

impl List {
    fn key(self) -> &'static str {
        match self {
            List::Allow => "allow",
            List::Ask => "ask",
            List::Deny => "deny",
        }
    }
}

/// Options of `toolgate allow`, `ask` and `deny`.
#[derive(Debug, ClapArgs)]
pub struct RuleArgs {
    /// The rule: `TOOL` or `TOOL:KEY=GLOB`, e.g. `shell:cmd=npm test` or
    /// `shell:cmd=git push*` (`*` matches any run of characters).
    pub rule: String,
    /// Add it to the project's `.toolgate.toml` instead of your own config:
    /// `--project` alone for the current directory's project,
    /// `--project=DIR` for the one DIR is in (the `=` is required, so the
    /// rule after `--project` is never taken for a directory). A project
    /// can only tighten: `allow --project` is refused.
    #[arg(
        long,
        value_name = "DIR",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "."
    )]
    pub project: Option<PathBuf>,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs `toolgate allow|ask|deny`.
pub fn run(list: List, args: RuleArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let rule = Rule::parse(&args.rule)?;
    if list == List::Allow && rule.key.is_none() && is_shell_tool(&rule.tool) {
        bail!(
            "`{}` would allow every shell command, destructive ones too: name the command, e.g. `shell:cmd=npm test`",
            args.rule
        );
    }
    if let Some(parts) = rule
        .command_parts()
        .filter(|_| list == List::Allow && is_shell_tool(&rule.tool))
    {
        let each: Vec<String> = parts
            .iter()
            .map(|p| format!("`{}`", toolgate::rule_line::allow_line(p)))
            .collect();
        bail!(
            "`{}` names a list or pipeline (`&&`, `||`, `;`, `|`), and an allow rule covers one plain command, so it would never match. \
             Each part is judged on its own: allow the parts themselves ({}), and let a list whose every part is safe \
             through with `compound = \"every-part-safe\"` in your config",
            args.rule,
            each.join(", ")
        );
    }
    let path = match &args.project {
        Some(dir) => {
            if list == List::Allow {
                bail!(
                    "a project's allow rules have no effect (a project can only tighten what each user allows): \
                     add it to your own config with `{}`",
                    allow_rule_line(&args.rule)
                );
            }
            project_file(dir)?
        }
        None => user_file(&Env::from_process())?,
    };
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read it", path.display())),
    };
    let new = add_rule(old.as_deref().unwrap_or(""), list.key(), &args.rule)
        .map_err(|e| anyhow::anyhow!("{}: {e}, nothing written", path.display()))?;
    let Some(new) = new else {
        writeln!(
            out,
            "{}: already has `{}` in [rules] {}, nothing written",
            path.display(),
            args.rule,
            list.key()
        )?;
        return Ok(true);
    };
    // Read back as the hook will read it, before a byte is written.
    let name = path.display().to_string();
    if args.project.is_some() {
        ProjectPolicy::parse(&name, &new)?;
    } else if let Some(e) = HookConfig::parse(&name, &new)?.rule_error(&name) {
        return Err(e.into());
    }
    let change = Change::edit(path.clone(), old, new);
    if args.dry_run {
        write!(out, "{}", change.diff())?;
        return Ok(true);
    }
    if let Applied::Written {
        backup: Some(backup),
    } = change.apply()?
    {
        let _ = std::fs::remove_file(backup);
    }
    writeln!(
        out,
        "{}: added `{}` to [rules] {}",
        path.display(),
        args.rule,
        list.key()
    )?;
    writeln!(out, "{}", meaning(list, &rule))?;
    Ok(true)
}

/// What the rule does, in a sentence.
fn meaning(list: List, rule: &Rule) -> String {
    match (&rule.key, &rule.pattern) {
        (Some(_), Some(p)) if is_shell_tool(&rule.tool) => match list {
            List::Allow => format!(
                "It allows a shell command matching `{p}` that is one plain command (never a list, a pipeline, a substitution or a redirection that writes); toolgate's self-protection still comes first."
            ),
            _ => format!("It applies to any shell command with a part matching `{p}`."),
        },
        (Some(k), Some(p)) => format!("It applies to `{}` calls whose `{k}` matches `{p}`.", rule.tool),
        _ => format!("It applies to every call of `{}`.", rule.tool),
    }
}

fn is_shell_tool(tool: &str) -> bool {
    tool == "*" || toolgate::tools::DEFAULT_SHELL_TOOLS.contains(&tool)
}

/// toolgate's config file: the one the hook reads, or where it would.
fn user_file(env: &Env) -> anyhow::Result<PathBuf> {
    if let Some(p) = &env.toolgate_config {
        return Ok(p.clone());
    }
    env.config_home()
        .map(|d| d.join("toolgate/config.toml"))
        .context("no config directory: set HOME, XDG_CONFIG_HOME or TOOLGATE_CONFIG")
}

/// The project's `.toolgate.toml`: the one the hook would find from `dir`,
/// else a new one at the repository root above `dir` (or `dir` itself).
fn project_file(dir: &Path) -> anyhow::Result<PathBuf> {
    let dir = std::path::absolute(dir).with_context(|| format!("--project={}", dir.display()))?;
    if !dir.is_dir() {
        bail!(
            "--project={}: not a directory: give a directory inside the project",
            dir.display()
        );
    }
    if let Some(found) = ProjectPolicy::find(&dir) {
        return Ok(found);
    }
    let root = dir
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&dir);
    Ok(root.join(policy::FILE_NAME))
}
