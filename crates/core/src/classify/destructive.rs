//! Destructive matching: each command's findings, the worst of which
//! (by blast radius, a guard-tamper one above all) makes the label, and
//! the radius of where a write's paths land.

use super::analysis::Finding;
use super::walk::Walk;
use crate::label::BlastRadius;
use crate::normalize::Invocation;

impl Walk<'_, '_> {
    pub(super) fn find(&mut self, rule_index: usize, matched: &str) {
        self.find_at(rule_index, matched, None);
    }

    /// Records a finding, with its radius where this command's differs from
    /// the entry's.
    pub(super) fn find_at(
        &mut self,
        rule_index: usize,
        matched: &str,
        radius: Option<BlastRadius>,
    ) {
        // An entry that cannot be read counts as the worst radius: a
        // finding is never lost.
        let radius = radius.unwrap_or_else(|| {
            self.tax
                .entry_radius(rule_index)
                .unwrap_or(BlastRadius::Unknown)
        });
        // A guard-tamper finding wins over every other, so that the label
        // (and the gate, which denies that category) sees it even beside
        // another high finding (`rm -rf ~/.claude` is also a recursive
        // delete). Otherwise the worst blast radius wins; ties go to the
        // earliest entry. The category is read only for a second finding.
        let candidate = (radius, rule_index);
        let better = match self.worst {
            None => {
                self.worst_guard = self.is_guard_entry(rule_index);
                true
            }
            Some(_) if self.worst_guard => false,
            Some(_) if self.is_guard_entry(rule_index) => {
                self.worst_guard = true;
                true
            }
            Some((radius, index)) => {
                candidate.0 > radius || (candidate.0 == radius && rule_index < index)
            }
        };
        if better {
            self.worst = Some(candidate);
        }
        if !self.keep.explain || !self.seen.insert((rule_index, matched.to_string())) {
            return;
        }
        let entry = self.tax.entry(rule_index);
        self.findings.push(Finding {
            rule: entry
                .as_ref()
                .map_or_else(String::new, |e| e.id.to_string()),
            category: entry
                .as_ref()
                .map_or_else(String::new, |e| e.category.to_string()),
            blast_radius: radius,
            matched: matched.to_string(),
        });
    }

    /// Is entry `rule_index` of the [`GUARD_TAMPER`](crate::guard_paths::GUARD_TAMPER) category?
    pub(super) fn is_guard_entry(&self, rule_index: usize) -> bool {
        self.tax.entry_category(rule_index) == Some(crate::guard_paths::GUARD_TAMPER)
    }

    /// For an entry that writes, modifies or deletes files: the radius of
    /// where this invocation's paths land ([`crate::landing`]). `landing`
    /// keeps the places for the invocation's other entries.
    pub(super) fn landing_radius(
        &self,
        rule_index: usize,
        inv: &Invocation<'_>,
        landing: &mut Option<Landing>,
    ) -> Option<BlastRadius> {
        // (The category alone settles most entries: nothing else read.)
        let category = self.tax.entry_category(rule_index)?;
        if !crate::landing::BY_TARGET.contains(&category) {
            return None;
        }
        let entry_radius = self.tax.entry_radius(rule_index)?;
        let landing = landing.get_or_insert_with(|| self.landing(inv));
        let radius = landing.places.radius(entry_radius);
        Some(match landing.somewhere {
            true => radius.max(entry_radius),
            false => radius,
        })
    }

    /// Where `inv`'s paths land.
    pub(super) fn landing(&self, inv: &Invocation<'_>) -> Landing {
        let args: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
        let targets = crate::landing::targets(&inv.name, &args);
        // After `cd DIR`, a relative target lands in DIR (`cd /etc && rm
        // hosts` removes `/etc/hosts`), or, when the `cd` failed and the
        // command ran anyway (`cd /etc; rm hosts`), where the shell was:
        // the worse of the two counts.
        let moved: Vec<String>;
        let targets: Vec<&str> = match &self.moved_to {
            Some(dir) => {
                moved = targets
                    .iter()
                    .filter(|t| !crate::guard_paths::is_rooted(t))
                    .map(|t| format!("{dir}/{t}"))
                    .collect();
                targets
                    .into_iter()
                    .chain(moved.iter().map(String::as_str))
                    .collect()
            }
            None => targets,
        };
        Landing {
            places: crate::landing::Places::of(&targets, &self.ctx),
            somewhere: self.lost && targets.iter().any(|t| !crate::guard_paths::is_rooted(t)),
        }
    }
}

/// Where one invocation's paths land, for the entries it matches.
pub(super) struct Landing {
    places: crate::landing::Places,
    /// A relative path after a `cd` that may have failed: it could land
    /// anywhere, so no entry's radius goes below its own.
    somewhere: bool,
}
