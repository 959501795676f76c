//! The operator's choice for compound shell whose every part is safe.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What the gate does with a list or pipeline (`;`, `&&`, `||`, `|`, `|&`,
/// newlines) whose every simple command is safe on its own.
///
/// Such a command keeps its unknown *label* either way: compound shell is
/// never labelled safe. `EveryPartSafe` is a deliberate departure from that
/// rule for *gating* only, which an operator opts into: the call then takes
/// the safe column of the mode (or is decided by the profile as a safe
/// call), and its verdict's source is `compound_every_part_safe`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompoundPolicy {
    /// Compound shell is decided by its unknown label (the default).
    #[default]
    Refuse,
    /// A list or pipeline of safe parts is decided as a safe call.
    EveryPartSafe,
}

impl CompoundPolicy {
    /// The spelling in configuration files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            CompoundPolicy::Refuse => "refuse",
            CompoundPolicy::EveryPartSafe => "every-part-safe",
        }
    }
}

impl fmt::Display for CompoundPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A compound policy name that is neither `refuse` nor `every-part-safe`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown compound policy `{0}`: use `refuse` or `every-part-safe`")]
pub struct UnknownCompoundPolicy(pub String);

impl FromStr for CompoundPolicy {
    type Err = UnknownCompoundPolicy;

    /// ```
    /// use toolgate_core::gate::CompoundPolicy;
    /// assert_eq!("every-part-safe".parse(), Ok(CompoundPolicy::EveryPartSafe));
    /// assert_eq!("refuse".parse(), Ok(CompoundPolicy::Refuse));
    /// assert!("every_part".parse::<CompoundPolicy>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<CompoundPolicy, UnknownCompoundPolicy> {
        match s.trim() {
            "refuse" => Ok(CompoundPolicy::Refuse),
            "every-part-safe" | "every_part_safe" => Ok(CompoundPolicy::EveryPartSafe),
            other => Err(UnknownCompoundPolicy(other.to_string())),
        }
    }
}
