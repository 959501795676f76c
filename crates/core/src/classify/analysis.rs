//! What a classification reports: the label, and for `explain` every
//! command examined, every finding and every reason it is not safe.

use serde::Serialize;

use crate::label::{BlastRadius, Label};

/// One command the classifier examined.
#[derive(Clone, Debug, Serialize)]
pub struct Examined {
    /// The normalised command line.
    pub command: String,
    /// The canonical tokens, space-separated.
    pub canonical: String,
    /// Nesting depth (0 = written at the top level).
    pub depth: usize,
    /// What ran it (`bash -c`, `docker exec`, `find -exec`, …), if nested.
    pub via: Option<String>,
    /// Wrappers peeled off.
    pub wrappers: Vec<String>,
    /// Ids of destructive entries that matched.
    pub destructive: Vec<String>,
    /// The command spec that explained every word, as `NAME (category)
    /// FILE:LINE` (`NAME (help)` for a help or version request).
    pub safe: Vec<String>,
    /// The service that spec says the command reads through (it connects
    /// there), if any.
    pub service: Option<String>,
    /// The programs that spec says the command runs as part of itself.
    pub helpers: Vec<String>,
    /// Where the command stands in the input, for commands written at the
    /// top level: `[start, end)` byte offsets.
    pub span: Option<[usize; 2]>,
}

/// A destructive finding.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The entry id.
    pub rule: String,
    /// Its category.
    pub category: String,
    /// Its blast radius.
    pub blast_radius: BlastRadius,
    /// What it matched: a command line, SQL or code excerpt.
    pub matched: String,
}

/// Everything the classifier saw and concluded, for `explain`.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The label.
    pub label: Label,
    /// Every command examined, nested ones included.
    pub commands: Vec<Examined>,
    /// Destructive findings.
    pub findings: Vec<Finding>,
    /// Why the command is not safe (empty when it is).
    pub not_safe: Vec<String>,
    /// For compound shell made only of lists and pipelines: every simple
    /// command in it is safe on its own (see [`Assessment`]).
    pub every_part_safe: bool,
    /// The command (or every part of it) is safe by its words but for
    /// reads that only a look at the world can clear (a search of the
    /// working directory, a system file, a sibling folder): the label stays
    /// unknown, and a clean look lets the gate allow it. Only set when the
    /// reach was asked for ([`Options::reach`](super::Options::reach)).
    pub look_clears: bool,
    /// What the command would read, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<crate::reach::Reach>,
    /// The name of the first command examined, wrappers peeled (`find` for
    /// `sudo find . | wc -l`), for every [`Detail`](super::Detail) but
    /// `Terse`: what a summary of unknown commands counts. (Not in
    /// `explain`'s output, whose `commands` already show it.)
    #[serde(skip)]
    pub first_command: Option<String>,
}

/// A label and whether a compound command's every part is safe.
///
/// Compound shell is never labelled safe (the classifier calls at most one
/// command safe), but an operator
/// may choose to let a list or pipeline through when each of its simple
/// commands would be safe on its own: nothing backgrounded, no writing
/// redirection, nothing nested, no substitution or control structure, and
/// no destructive finding anywhere.
///
/// ```
/// use toolgate_core::{Class, Classifier, Context};
/// let c = Classifier::embedded()?;
/// let a = c.assess_in("ls -la && git status", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Unknown, true));
/// let a = c.assess_in("ls -la && npm test", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Unknown, false));
/// let a = c.assess_in("git status", &Context::default());
/// assert_eq!((a.label.class, a.every_part_safe), (Class::Safe, false));
/// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assessment {
    /// The label (unknown for any compound command).
    pub label: Label,
    /// The command is compound, of lists and pipelines only, and every
    /// simple command in it is safe on its own.
    pub every_part_safe: bool,
    /// Safe (or every part safe) once a look clears its reads; see
    /// [`Analysis::look_clears`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub look_clears: bool,
    /// What the call would read, when the reach was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<crate::reach::Reach>,
}
