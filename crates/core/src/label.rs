//! Labels: the safety sticker on one tool call.
//!
//! A [`Label`] is what every other part of toolgate consumes. Its rendering as
//! metadata ([`Label::metadata`]) is a wire contract: hook authors match on the
//! keys `safety_label`, `blast_radius`, `category` and `reason`, so the rules for
//! which keys appear live here and nowhere else.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// The metadata key carrying the class (`safe`, `destructive`, `unknown`).
pub const KEY_SAFETY_LABEL: &str = "safety_label";
/// The metadata key carrying the blast radius.
pub const KEY_BLAST_RADIUS: &str = "blast_radius";
/// The metadata key carrying the taxonomy category.
pub const KEY_CATEGORY: &str = "category";
/// The metadata key carrying the human-readable reason.
pub const KEY_REASON: &str = "reason";

/// What the classifier positively knows about a call.
///
/// Only `Safe` is ever auto-approved by a cautious mode, so a false `Safe` is the
/// one unforgivable error; anything not positively recognised is `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Positively recognised as read-only and free of side effects.
    Safe,
    /// Positively recognised as destroying or changing something that matters.
    Destructive,
    /// Everything else.
    Unknown,
}

impl Class {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Safe => "safe",
            Class::Destructive => "destructive",
            Class::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a label came from: the gate treats annotation-safe differently in the
/// legacy mode, so the origin travels with the label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The shell-command classifier read the command.
    Classifier,
    /// The tool's MCP annotation hints said so.
    Annotation,
}

impl Origin {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Classifier => "classifier",
            Origin::Annotation => "annotation",
        }
    }
}

/// How much a call can break, ordered so that the worst can be taken with `max`.
///
/// `Unknown` sorts above `High` on purpose: a radius nobody could judge must
/// never be treated as smaller than one somebody did. It is also the
/// default, for the same reason: a radius nobody set is one nobody judged.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum BlastRadius {
    /// Nothing is changed.
    Safe,
    /// A cheap, reversible change.
    Low,
    /// Recoverable, but at a real cost.
    Medium,
    /// Irreversible loss, or loss across a whole system.
    High,
    /// Not known: the classifier could not tell, or there was nothing to
    /// judge (an empty command, a shell call without one).
    #[default]
    Unknown,
}

impl BlastRadius {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            BlastRadius::Safe => "safe",
            BlastRadius::Low => "low",
            BlastRadius::Medium => "medium",
            BlastRadius::High => "high",
            BlastRadius::Unknown => "unknown",
        }
    }

    /// Parses the wire spelling (case-insensitive).
    pub fn parse(s: &str) -> Option<BlastRadius> {
        [
            ("safe", BlastRadius::Safe),
            ("low", BlastRadius::Low),
            ("medium", BlastRadius::Medium),
            ("high", BlastRadius::High),
            ("unknown", BlastRadius::Unknown),
        ]
        .into_iter()
        .find(|(name, _)| s.eq_ignore_ascii_case(name))
        .map(|(_, r)| r)
    }
}

impl fmt::Display for BlastRadius {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The safety sticker on one tool call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// Safe, destructive or unknown.
    pub class: Class,
    /// Classifier or annotation.
    pub origin: Origin,
    /// How much the call can break; [`BlastRadius::Unknown`] when that is
    /// not known, a call with nothing to judge (an empty command, a shell
    /// call without one) included. One spelling for "not known": this was
    /// an `Option` whose `None` every decision already read as `Unknown`
    /// (automation confidence, action classes), so two values meant one
    /// thing. The metadata and the JSON therefore always carry it (an
    /// empty command's now says `unknown` where it said nothing); JSON
    /// written before, with `null` or no key, still reads, as `Unknown`.
    #[serde(default, deserialize_with = "radius_or_unknown")]
    pub blast_radius: BlastRadius,
    /// Taxonomy category such as `fs-delete`; empty when none applies.
    /// (Borrowed from the embedded taxonomy when it comes from there: a
    /// label costs no allocation.)
    pub category: Cow<'static, str>,
    /// Why the label is what it is, for a person.
    pub reason: Cow<'static, str>,
}

/// A label's `blast_radius` as JSON has it: `null` (what an empty command's
/// label was written as before the field had one meaning) is `Unknown`, as a
/// missing key is (`#[serde(default)]`).
fn radius_or_unknown<'de, D: Deserializer<'de>>(d: D) -> Result<BlastRadius, D::Error> {
    Option::<BlastRadius>::deserialize(d).map(Option::unwrap_or_default)
}

impl Label {
    /// An unknown label from the classifier with the given reason.
    pub fn unknown(reason: impl Into<Cow<'static, str>>) -> Label {
        Label {
            class: Class::Unknown,
            origin: Origin::Classifier,
            blast_radius: BlastRadius::Unknown,
            category: Cow::Borrowed(""),
            reason: reason.into(),
        }
    }

    /// Renders the label as the metadata map hook authors match on.
    ///
    /// Exactly the keys `safety_label`, `blast_radius`, `category` and `reason`:
    /// `safety_label` and `blast_radius` always (every label has a radius,
    /// `unknown` when it is not known, an empty command's included), an
    /// empty category is omitted, and `reason` appears only when the class
    /// is safe or destructive (an unknown label has no positive reason to
    /// give).
    ///
    /// ```
    /// let label = toolgate_core::classify("rm -rf /tmp/build");
    /// let md = label.metadata();
    /// assert_eq!(md["safety_label"], "destructive");
    /// assert_eq!(md["blast_radius"], "low"); // below the temporary directory
    /// assert_eq!(md["category"], "fs-delete");
    /// assert!(md.contains_key("reason"));
    ///
    /// // Nothing to judge is not known either.
    /// let md = toolgate_core::classify("").metadata();
    /// assert_eq!(md.len(), 2);
    /// assert_eq!((md["safety_label"].as_str(), md["blast_radius"].as_str()), ("unknown", "unknown"));
    /// ```
    pub fn metadata(&self) -> BTreeMap<&'static str, String> {
        let mut md = BTreeMap::new();
        md.insert(KEY_SAFETY_LABEL, self.class.as_str().to_string());
        md.insert(KEY_BLAST_RADIUS, self.blast_radius.as_str().to_string());
        if let Some(category) = self.shown_category() {
            md.insert(KEY_CATEGORY, category.to_string());
        }
        if let Some(reason) = self.shown_reason() {
            md.insert(KEY_REASON, reason.to_string());
        }
        md
    }

    /// The `category` metadata shows: `None` where it leaves the key out.
    /// For bulk output (Arrow columns) that borrows instead of building a map.
    pub fn shown_category(&self) -> Option<&str> {
        Some(self.category.as_ref()).filter(|c| !c.is_empty())
    }

    /// The `reason` metadata shows: only a safe or destructive label's, and
    /// `None` where it leaves the key out.
    pub fn shown_reason(&self) -> Option<&str> {
        Some(self.reason.as_ref())
            .filter(|r| !r.is_empty() && matches!(self.class, Class::Safe | Class::Destructive))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blast_radius_orders_worst_last() {
        let mut all = [
            BlastRadius::Unknown,
            BlastRadius::High,
            BlastRadius::Safe,
            BlastRadius::Medium,
            BlastRadius::Low,
        ];
        all.sort();
        assert_eq!(
            all,
            [
                BlastRadius::Safe,
                BlastRadius::Low,
                BlastRadius::Medium,
                BlastRadius::High,
                BlastRadius::Unknown
            ]
        );
    }

    #[test]
    fn metadata_omits_empty_fields_and_unknown_reason() {
        let unknown = Label::unknown("no taxonomy entry matched");
        let md = unknown.metadata();
        assert_eq!(md.len(), 2, "{md:?}");
        assert_eq!(md["safety_label"], "unknown");
        assert_eq!(md["blast_radius"], "unknown");

        // No reason and no category still leaves the two keys every
        // label has.
        let bare = Label::unknown("").metadata();
        assert_eq!(
            bare.into_iter().collect::<Vec<_>>(),
            [
                ("blast_radius", "unknown".to_string()),
                ("safety_label", "unknown".to_string())
            ]
        );

        let safe = Label {
            class: Class::Safe,
            origin: Origin::Annotation,
            blast_radius: BlastRadius::Safe,
            category: "".into(),
            reason: "read-only tool".into(),
        };
        let md = safe.metadata();
        assert_eq!(
            md.keys().copied().collect::<Vec<_>>(),
            ["blast_radius", "reason", "safety_label"]
        );
    }

    #[test]
    fn serde_uses_wire_spellings() {
        let label = Label {
            class: Class::Destructive,
            origin: Origin::Classifier,
            blast_radius: BlastRadius::High,
            category: "fs-delete".into(),
            reason: "r".into(),
        };
        let json = serde_json::to_string(&label).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"class":"destructive","origin":"classifier","blast_radius":"high","category":"fs-delete","reason":"r"}"#
        );
    }

    #[test]
    fn json_without_a_radius_reads_as_unknown() {
        // What older toolgate wrote for an empty command, and JSON that
        // leaves the key out.
        for json in [
            r#"{"class":"unknown","origin":"classifier","blast_radius":null,"category":"","reason":"empty command"}"#,
            r#"{"class":"unknown","origin":"classifier","category":"","reason":"empty command"}"#,
        ] {
            let label: Option<Label> = serde_json::from_str(json).ok();
            assert_eq!(label, Some(Label::unknown("empty command")), "{json}");
        }
        let high: Option<Label> = serde_json::from_str(
            r#"{"class":"destructive","origin":"classifier","blast_radius":"high","category":"fs-delete","reason":"r"}"#,
        )
        .ok();
        assert_eq!(high.map(|l| l.blast_radius), Some(BlastRadius::High));
        let bad: Result<Label, _> = serde_json::from_str(
            r#"{"class":"unknown","origin":"classifier","blast_radius":"huge","category":"","reason":""}"#,
        );
        assert!(bad.is_err());
    }
}
