//! Decisions and safety modes: the (mode × label) gating table.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::label::{Class, Label, Origin};

/// What happens to a tool call. The order is restrictiveness
/// (`Allow < NoOpinion < Ask < Deny`), so the most restrictive of several
/// is their max.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Leave it to the client's own permission flow, as if no hook had
    /// run (for Claude Code: no decision at all, so the user's own
    /// permission rules and prompts apply).
    NoOpinion,
    /// Ask a person first.
    Ask,
    /// Do not run it.
    Deny,
}

impl Decision {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::NoOpinion => "no_opinion",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A row of the gating table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// No mode chosen: ask for everything except a tool whose read-only
    /// annotation marks it safe.
    Legacy,
    /// Ask for everything.
    Strict,
    /// Allow safe, ask for the rest.
    Balanced,
    /// Allow safe, deny the rest.
    Restricted,
    /// Allow everything.
    Autonomous,
    /// The default install: allow safe, ask for destructive, and leave
    /// unknown calls to the client's own permission flow (no opinion),
    /// with compound shell of safe parts decided as safe. A guard that
    /// asks about everything it does not recognise is switched off by the
    /// people it nags; this row interrupts only where it knows harm.
    Guard,
}

/// A mode name after normalisation, with a note when the name was not
/// recognised (and strict was used instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeChoice {
    /// The mode in force.
    pub mode: Mode,
    /// Set when the requested mode or profile was not recognised (which
    /// one, quoted).
    pub unrecognised: Option<String>,
}

impl Mode {
    /// Normalises a mode name. `None` (or an empty name) is the legacy
    /// default; the aliases `unsafe` (autonomous), `safer` and `safe-auto`
    /// (balanced) are accepted; anything else is strict, so that bad input
    /// never widens approval.
    ///
    /// ```
    /// use toolgate_core::gate::Mode;
    /// assert_eq!(Mode::parse(None).mode, Mode::Legacy);
    /// assert_eq!(Mode::parse(Some("Safe-Auto")).mode, Mode::Balanced);
    /// assert_eq!(Mode::parse(Some("unsafe")).mode, Mode::Autonomous);
    /// assert_eq!(Mode::parse(Some("yolo!")).mode, Mode::Strict);
    /// ```
    pub fn parse(name: Option<&str>) -> ModeChoice {
        let Some(raw) = name.map(str::trim).filter(|s| !s.is_empty()) else {
            return ModeChoice {
                mode: Mode::Legacy,
                unrecognised: None,
            };
        };
        let mode = match raw.to_ascii_lowercase().as_str() {
            "guard" => Mode::Guard,
            "strict" => Mode::Strict,
            "balanced" | "safer" | "safe-auto" | "safe_auto" => Mode::Balanced,
            "restricted" => Mode::Restricted,
            "autonomous" | "unsafe" => Mode::Autonomous,
            _ => return ModeSetting::Unrecognised(raw.to_string()).choice(),
        };
        ModeChoice {
            mode,
            unrecognised: None,
        }
    }

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Legacy => "legacy",
            Mode::Strict => "strict",
            Mode::Balanced => "balanced",
            Mode::Restricted => "restricted",
            Mode::Autonomous => "autonomous",
            Mode::Guard => "guard",
        }
    }

    /// The stable source string a verdict from this mode carries.
    pub fn source(self) -> &'static str {
        match self {
            Mode::Legacy => "mode_legacy",
            Mode::Strict => "mode_strict",
            Mode::Balanced => "mode_balanced",
            Mode::Restricted => "mode_restricted",
            Mode::Autonomous => "yolo",
            Mode::Guard => "mode_guard",
        }
    }

    /// The table itself.
    ///
    /// | mode | safe | destructive | unknown |
    /// |---|---|---|---|
    /// | strict | ask | ask | ask |
    /// | balanced | allow | ask | ask |
    /// | restricted | allow | deny | deny |
    /// | autonomous | allow | allow | allow |
    /// | guard | allow | ask | no opinion |
    /// | legacy | ask (allow when the safe label comes from a read-only annotation) | ask | ask |
    pub fn decide(self, label: &Label) -> Decision {
        use Decision::{Allow, Ask, Deny, NoOpinion};
        match (self, label.class) {
            (Mode::Guard, Class::Safe) => Allow,
            (Mode::Guard, Class::Destructive) => Ask,
            (Mode::Guard, Class::Unknown) => NoOpinion,
            (Mode::Strict, _) => Ask,
            (Mode::Balanced, Class::Safe) => Allow,
            (Mode::Balanced, _) => Ask,
            (Mode::Restricted, Class::Safe) => Allow,
            (Mode::Restricted, _) => Deny,
            (Mode::Autonomous, _) => Allow,
            (Mode::Legacy, Class::Safe) if label.origin == Origin::Annotation => Allow,
            (Mode::Legacy, _) => Ask,
        }
    }
}

/// The mode a [`GateConfig`](super::GateConfig) asks for: a mode, or a
/// name that was given for one but is none of them.
///
/// A library user names a [`Mode`] (`Mode::Balanced.into()`), so a typo
/// does not compile; a name typed by someone is parsed with
/// [`Mode`]'s `FromStr`, which turns a typo into an [`UnknownMode`] error.
/// `Unrecognised` is for names that arrive as text where nobody can be
/// told of a mistake in time (the hook's `--mode`, `TOOLGATE_MODE`, a
/// configuration file's `mode`): the gate is then strict, so bad input
/// never widens approval, and every verdict's reason names the bad name,
/// so it still shows. [`ModeSetting::from_name`] is that reading.
///
/// ```
/// use toolgate_core::gate::{Mode, ModeSetting};
/// assert_eq!(ModeSetting::default(), ModeSetting::Known(Mode::Legacy));
/// assert_eq!(ModeSetting::from(Mode::Balanced).mode(), Mode::Balanced);
/// let typo = ModeSetting::from_name(Some("balancd"));
/// assert_eq!(typo, ModeSetting::Unrecognised("balancd".into()));
/// assert_eq!(typo.mode(), Mode::Strict);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ModeSetting {
    /// This mode.
    Known(Mode),
    /// A name (trimmed) that is none of the modes or their aliases: the
    /// gate is strict and says so. The gate does not read the name again:
    /// whatever it holds, this is strict.
    Unrecognised(String),
    /// A profile name (trimmed) that names no profile: strict, as for an
    /// unrecognised mode, and the verdicts say which profile.
    UnrecognisedProfile(String),
}

impl Default for ModeSetting {
    /// No mode chosen: the legacy default.
    fn default() -> ModeSetting {
        ModeSetting::Known(Mode::Legacy)
    }
}

impl From<Mode> for ModeSetting {
    fn from(mode: Mode) -> ModeSetting {
        ModeSetting::Known(mode)
    }
}

impl ModeSetting {
    /// The fail-closed reading of a mode name as the hook gets it, the one
    /// [`Mode::parse`] does: `None` or a blank name is the legacy default,
    /// the aliases are accepted, and anything else is
    /// [`ModeSetting::Unrecognised`].
    pub fn from_name(name: Option<&str>) -> ModeSetting {
        match Mode::parse(name) {
            ModeChoice {
                mode,
                unrecognised: None,
            } => ModeSetting::Known(mode),
            ModeChoice { .. } => {
                ModeSetting::Unrecognised(name.map(str::trim).unwrap_or_default().to_string())
            }
        }
    }

    /// The mode in force: strict for an unrecognised name.
    pub fn mode(&self) -> Mode {
        match self {
            ModeSetting::Known(mode) => *mode,
            ModeSetting::Unrecognised(_) | ModeSetting::UnrecognisedProfile(_) => Mode::Strict,
        }
    }

    /// The mode with the note a verdict's reason carries (`mode NAME`,
    /// quoted) when the name was not recognised.
    pub(crate) fn choice(&self) -> ModeChoice {
        ModeChoice {
            mode: self.mode(),
            unrecognised: match self {
                ModeSetting::Known(_) => None,
                ModeSetting::Unrecognised(raw) => Some(format!("mode `{raw}`")),
                ModeSetting::UnrecognisedProfile(name) => Some(format!("profile {name}")),
            },
        }
    }
}

/// A mode name that is none of the modes or their aliases.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}`: use guard, strict, balanced, restricted or autonomous")]
pub struct UnknownMode(pub String);

/// The strict reading of a mode name, for callers that can report an error
/// (a command line, a library user's own configuration): an unknown name is
/// an error, not the fail-closed strict that [`Mode::parse`] gives the hook.
///
/// ```
/// use toolgate_core::gate::Mode;
/// assert_eq!("balanced".parse::<Mode>(), Ok(Mode::Balanced));
/// assert_eq!("Safe-Auto".parse::<Mode>(), Ok(Mode::Balanced));
/// assert_eq!("legacy".parse::<Mode>(), Ok(Mode::Legacy));
/// let err = "balancd".parse::<Mode>().unwrap_err();
/// assert_eq!(err.to_string(), "unknown mode `balancd`: use guard, strict, balanced, restricted or autonomous");
/// assert_eq!("guard".parse::<Mode>(), Ok(Mode::Guard));
/// ```
impl std::str::FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(name: &str) -> Result<Mode, UnknownMode> {
        if name.trim().eq_ignore_ascii_case("legacy") {
            return Ok(Mode::Legacy);
        }
        let choice = Mode::parse(Some(name));
        match (choice.unrecognised, name.trim().is_empty()) {
            (None, false) => Ok(choice.mode),
            _ => Err(UnknownMode(name.to_string())),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
