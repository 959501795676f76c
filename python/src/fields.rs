//! A label's four metadata fields, borrowed.

use toolgate::Label;

/// The names of the label fields, in the order the Arrow output has them.
pub const NAMES: [&str; 4] = ["safety_label", "blast_radius", "category", "reason"];

/// What `Label::metadata()` shows, without building a map: `None` where
/// metadata leaves the key out (the label and the radius it always has).
pub struct Shown<'a> {
    pub safety_label: &'static str,
    pub blast_radius: &'static str,
    pub category: Option<&'a str>,
    pub reason: Option<&'a str>,
}

impl<'a> Shown<'a> {
    pub fn of(label: &'a Label) -> Shown<'a> {
        Shown {
            safety_label: label.class.as_str(),
            blast_radius: label.blast_radius.as_str(),
            category: label.shown_category(),
            reason: label.shown_reason(),
        }
    }
}
