//! The profile catalogue: the seventeen built-ins (five safety modes, eight
//! automation profiles, four action-class profiles) and custom profiles,
//! stored as `NAMESPACE/NAME.yaml` files under a directory.
//!
//! A custom profile has the schema of a built-in of its kind: a file with
//! `thresholds` is an automation profile, one with `classes` an
//! action-class profile. Parsing is strict (unknown keys and out-of-range
//! values are rejected with the file, field and reason). Built-ins cannot
//! be removed or overwritten: custom names always carry a namespace.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::action::ActionProfile;
use super::automation::AutomationProfile;
use super::builtin::{
    builtin_action, builtin_automation, parse_action, parse_automation, ProfileError,
};
use toolgate_core::gate::Mode;

/// The kinds of profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileKind {
    /// A safety mode (strict, balanced, restricted, autonomous).
    SafetyMode,
    /// An automation profile (thresholds and a safety sub-profile).
    Automation,
    /// An action-class profile (class table and named rules).
    ActionClass,
}

impl ProfileKind {
    /// The name used in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileKind::SafetyMode => "safety_mode",
            ProfileKind::Automation => "automation",
            ProfileKind::ActionClass => "action_class",
        }
    }
}

/// A profile of any kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AnyProfile {
    /// A safety mode.
    Mode {
        /// Its name.
        name: String,
        /// What it does.
        description: String,
    },
    /// An automation profile.
    Automation(AutomationProfile),
    /// An action-class profile.
    Action(ActionProfile),
}

impl AnyProfile {
    /// Its name.
    pub fn name(&self) -> &str {
        match self {
            AnyProfile::Mode { name, .. } => name,
            AnyProfile::Automation(p) => &p.name,
            AnyProfile::Action(p) => &p.name,
        }
    }

    /// What it is for.
    pub fn description(&self) -> &str {
        match self {
            AnyProfile::Mode { description, .. } => description,
            AnyProfile::Automation(p) => &p.description,
            AnyProfile::Action(p) => &p.description,
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ProfileKind {
        match self {
            AnyProfile::Mode { .. } => ProfileKind::SafetyMode,
            AnyProfile::Automation(_) => ProfileKind::Automation,
            AnyProfile::Action(_) => ProfileKind::ActionClass,
        }
    }

    /// Its version as written.
    pub fn version(&self) -> String {
        match self {
            AnyProfile::Mode { .. } => "1".into(),
            AnyProfile::Automation(p) => p.version.to_string(),
            AnyProfile::Action(p) => p.version.clone(),
        }
    }

    /// Its namespace (`builtin` for the built-ins).
    pub fn namespace(&self) -> &str {
        self.name().split_once('/').map_or("builtin", |(ns, _)| ns)
    }
}

/// One row of the catalogue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The profile's name.
    pub name: String,
    /// Its namespace (`builtin` for the built-ins).
    pub namespace: String,
    /// Its kind.
    pub kind: ProfileKind,
    /// Its version.
    pub version: String,
    /// Built in (cannot be removed or overwritten).
    pub builtin: bool,
    /// What it is for.
    pub description: String,
}

impl Entry {
    fn of(p: &AnyProfile, builtin: bool) -> Entry {
        Entry {
            name: p.name().to_string(),
            namespace: p.namespace().to_string(),
            kind: p.kind(),
            version: p.version(),
            builtin,
            description: p.description().to_string(),
        }
    }
}

/// The five safety modes as profiles.
pub fn builtin_modes() -> Vec<AnyProfile> {
    MODES
        .into_iter()
        .map(|(m, d)| AnyProfile::Mode {
            name: m.as_str().into(),
            description: d.into(),
        })
        .collect()
}

/// The five safety modes that are profiles, with what they do.
const MODES: [(Mode, &str); 5] = [
    (
        Mode::Guard,
        "The default install: allow calls labelled safe (and compound shell of safe parts), ask for destructive ones (deny where the client cannot ask), leave the rest to the client's own permissions.",
    ),
    (Mode::Strict, "Ask for every call."),
    (
        Mode::Balanced,
        "Allow calls labelled safe, ask for the rest.",
    ),
    (
        Mode::Restricted,
        "Allow calls labelled safe, deny the rest.",
    ),
    (Mode::Autonomous, "Allow every call."),
];

/// The seventeen built-ins, modes first.
pub fn builtins() -> Vec<AnyProfile> {
    let mut all = builtin_modes();
    all.extend(
        builtin_automation()
            .iter()
            .cloned()
            .map(AnyProfile::Automation),
    );
    all.extend(builtin_action().iter().cloned().map(AnyProfile::Action));
    all
}

fn is_builtin(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    // Names only: no built-in is built or copied to answer this.
    MODES.iter().any(|(m, _)| m.as_str() == name)
        || builtin_automation().iter().any(|p| p.name == name)
        || builtin_action().iter().any(|p| p.name == name)
        || name == "full_auto"
        || name == "legacy"
}

/// Checks a custom name: `namespace/name`, each part lower-case letters,
/// digits, `-` and `_`, starting with a letter; the namespace is not
/// `builtin`.
pub fn check_custom_name(name: &str) -> Result<(), String> {
    let part_ok = |p: &str| {
        p.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    };
    match name.split_once('/') {
        Some(("builtin", _)) => Err(format!("`{name}`: the namespace `builtin` is reserved")),
        Some((ns, n)) if part_ok(ns) && part_ok(n) => Ok(()),
        _ if is_builtin(name) => Err(format!(
            "`{name}` is a built-in profile; built-ins cannot be overwritten (use a name such as `acme/{name}`)"
        )),
        _ => Err(format!(
            "`{name}` is not `namespace/name` (lower-case letters, digits, `-`, `_`)"
        )),
    }
}

/// Parses a custom profile file strictly; the error names the file and
/// field.
pub fn parse_custom(file: &str, text: &str) -> Result<AnyProfile, ProfileError> {
    let err = |message: String| ProfileError {
        file: file.to_string(),
        message,
    };
    let value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
    let has = |k: &str| value.get(k).is_some();
    let profile = if has("thresholds") {
        AnyProfile::Automation(parse_automation(file, text)?)
    } else if has("classes") {
        AnyProfile::Action(parse_action(file, text)?)
    } else {
        return Err(err(
            "a profile needs `thresholds` (automation) or `classes` (action-class)".into(),
        ));
    };
    check_custom_name(profile.name()).map_err(|m| err(format!("field `name`: {m}")))?;
    Ok(profile)
}

/// Custom profiles on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    dir: PathBuf,
}

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A profile file is malformed.
    #[error(transparent)]
    Invalid(#[from] ProfileError),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The profile exists and `--update` was not given.
    #[error("profile `{0}` already exists; pass --update to replace it")]
    Exists(String),
    /// No such custom profile.
    #[error("no custom profile `{0}` (see `toolgate profile list`)")]
    Missing(String),
    /// A built-in was named.
    #[error("`{0}` is a built-in profile; built-ins cannot be removed or overwritten")]
    Builtin(String),
    /// A name is not `namespace/name`.
    #[error("{0}")]
    BadName(String),
}

impl Store {
    /// A store in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// The default store: `TOOLGATE_PROFILE_DIR`, else
    /// `$XDG_CONFIG_HOME/toolgate/profiles`, else
    /// `~/.config/toolgate/profiles`.
    pub fn default_location() -> Option<Store> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(d) = env("TOOLGATE_PROFILE_DIR") {
            return Some(Store::new(d));
        }
        let config = env("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| env("HOME").map(|h| Path::new(&h).join(".config")))?;
        Some(Store::new(config.join("toolgate").join("profiles")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.yaml"))
    }

    /// Adds a profile from a file; `update` replaces an existing one.
    pub fn add(&self, file: &Path, update: bool) -> Result<AnyProfile, StoreError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        let text = std::fs::read_to_string(file).map_err(io(file))?;
        let profile = parse_custom(&file.display().to_string(), &text)?;
        let dest = self.path_of(profile.name());
        if dest.exists() && !update {
            return Err(StoreError::Exists(profile.name().into()));
        }
        let parent = dest.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        // Write then rename, so a crash leaves the old file or the new one.
        let tmp = dest.with_extension("yaml.tmp");
        std::fs::write(&tmp, &text).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &dest).map_err(io(&dest))?;
        Ok(profile)
    }

    /// Removes a custom profile.
    pub fn remove(&self, name: &str) -> Result<(), StoreError> {
        if is_builtin(name) {
            return Err(StoreError::Builtin(name.into()));
        }
        check_custom_name(name).map_err(StoreError::BadName)?;
        let path = self.path_of(name);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(StoreError::Missing(name.into()))
            }
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    /// Loads one custom profile.
    pub fn load(&self, name: &str) -> Result<AnyProfile, StoreError> {
        check_custom_name(name).map_err(StoreError::BadName)?;
        let path = self.path_of(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::Missing(name.into()))
            }
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let p = parse_custom(&path.display().to_string(), &text)?;
        if p.name() != name {
            return Err(StoreError::Invalid(ProfileError {
                file: path.display().to_string(),
                message: format!("field `name`: `{}` does not match the file name", p.name()),
            }));
        }
        Ok(p)
    }

    /// All custom profiles, sorted by name; a missing directory is empty.
    pub fn list(&self) -> Result<Vec<AnyProfile>, StoreError> {
        let mut out = Vec::new();
        let namespaces = match std::fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(source) => {
                return Err(StoreError::Io {
                    path: self.dir.clone(),
                    source,
                })
            }
        };
        for ns in namespaces.flatten() {
            let Ok(files) = std::fs::read_dir(ns.path()) else {
                continue;
            };
            for f in files.flatten() {
                let path = f.path();
                if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
                    continue;
                }
                let name = format!(
                    "{}/{}",
                    ns.file_name().to_string_lossy(),
                    path.file_stem()
                        .map(|s| s.to_string_lossy())
                        .unwrap_or_default()
                );
                out.push(self.load(&name)?);
            }
        }
        out.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(out)
    }
}

/// The catalogue: built-ins then the store's custom profiles.
pub fn catalogue(store: Option<&Store>) -> Result<Vec<(AnyProfile, bool)>, StoreError> {
    let mut all: Vec<(AnyProfile, bool)> = builtins().into_iter().map(|p| (p, true)).collect();
    if let Some(s) = store {
        all.extend(s.list()?.into_iter().map(|p| (p, false)));
    }
    Ok(all)
}

/// The listing rows of a catalogue.
pub fn entries(all: &[(AnyProfile, bool)]) -> Vec<Entry> {
    all.iter().map(|(p, b)| Entry::of(p, *b)).collect()
}

/// A custom profile from the default store, loaded once per process (the
/// gate holds profiles for the life of the process).
pub fn custom_profile(name: &str) -> Option<&'static AnyProfile> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Option<&'static AnyProfile>>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().ok()?;
    *cache.entry(name.to_string()).or_insert_with(|| {
        let p = Store::default_location()?.load(name).ok()?;
        Some(Box::leak(Box::new(p)))
    })
}
