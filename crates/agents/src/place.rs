//! Where things are: whose settings (the user's or a project's) and the
//! environment that says where homes and toolgate's own settings are.

use std::path::PathBuf;

/// Whose settings: the user's, or one project's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's settings, under `$HOME` (or `$XDG_CONFIG_HOME`).
    User,
    /// A project's settings, under this directory.
    Project(PathBuf),
}

/// The environment the paths and the hook's own settings come from, read
/// once ([`Env::from_process`]) so that tests can give their own.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$TOOLGATE_CONFIG`.
    pub toolgate_config: Option<PathBuf>,
    /// `$TOOLGATE_MODE`.
    pub toolgate_mode: Option<String>,
    /// `$TOOLGATE_PROFILE`.
    pub toolgate_profile: Option<String>,
    /// `$TOOLGATE_HEADLESS` is set and not `0` or `false`.
    pub toolgate_headless: bool,
}

impl Env {
    /// Reads the process environment (blank values count as unset, as in
    /// the hook).
    pub fn from_process() -> Env {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        Env {
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            toolgate_config: var("TOOLGATE_CONFIG").map(PathBuf::from),
            toolgate_mode: var("TOOLGATE_MODE"),
            toolgate_profile: var("TOOLGATE_PROFILE"),
            toolgate_headless: var("TOOLGATE_HEADLESS").is_some_and(|v| v != "0" && v != "false"),
        }
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub fn config_home(&self) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(x), _) => Some(x.clone()),
            (None, Some(h)) => Some(h.join(".config")),
            (None, None) => None,
        }
    }

    /// The config file the hook reads when its command gives none:
    /// `$TOOLGATE_CONFIG`, else `toolgate/config.toml` in
    /// [`config_home`](Env::config_home) when it exists.
    pub fn toolgate_config_path(&self) -> Option<PathBuf> {
        if let Some(p) = &self.toolgate_config {
            return Some(p.clone());
        }
        let p = self.config_home()?.join("toolgate/config.toml");
        p.is_file().then_some(p)
    }
}
