//! The policy file: `version = 1` and one `[actions.NAME]` table per
//! action. Parsing is strict: unknown keys, wrong types and contradictions
//! are errors that name the file, the action and the key.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::amount::Amount;

/// A policy error: the file, where in it, and what to fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PolicyError {
    /// The policy file.
    pub file: String,
    /// What is wrong (the TOML error with its line, or the action, key and
    /// reason).
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    version: u32,
    #[serde(default)]
    actions: BTreeMap<String, RawAction>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    #[serde(default)]
    required_evidence: Vec<String>,
    #[serde(default)]
    must_match: Vec<String>,
    amount: Option<String>,
    #[serde(default)]
    amount_at_most_evidence: bool,
    max_amount: Option<String>,
    approval_above: Option<String>,
    #[serde(default)]
    require_approval: bool,
    #[serde(default)]
    once_per: Vec<String>,
}

/// The checks of one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionPolicy {
    /// Fields that must be present and non-empty in the evidence.
    pub required_evidence: Vec<String>,
    /// Request fields that must equal the evidence (as trimmed text).
    pub must_match: Vec<String>,
    /// The amount field of the request (and of the evidence).
    pub amount: Option<String>,
    /// The request's amount may not exceed the evidence's.
    pub amount_at_most_evidence: bool,
    /// The largest amount allowed.
    pub max_amount: Option<Amount>,
    /// Amounts above this need an approver's yes.
    pub approval_above: Option<Amount>,
    /// Every call needs an approver's yes (a production deploy).
    pub require_approval: bool,
    /// One action per value of these fields.
    pub once_per: Vec<String>,
}

impl ActionPolicy {
    /// A stable text of every check, stored (as an HMAC) with each action
    /// so that a changed policy is noticed for an unsettled action
    /// (`policy_mismatch`). It does not depend on Rust's `Debug` output.
    pub fn fingerprint(&self) -> String {
        let amount = |a: &Option<Amount>| a.map(|a| a.to_string()).unwrap_or_default();
        format!(
            "v1|required_evidence={}|must_match={}|amount={}|amount_at_most_evidence={}|max_amount={}|approval_above={}|require_approval={}|once_per={}",
            self.required_evidence.join(","),
            self.must_match.join(","),
            self.amount.as_deref().unwrap_or(""),
            self.amount_at_most_evidence,
            amount(&self.max_amount),
            amount(&self.approval_above),
            self.require_approval,
            self.once_per.join(","),
        )
    }
}

/// A validated policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The actions it permits, by name.
    pub actions: BTreeMap<String, ActionPolicy>,
}

impl Policy {
    /// Parses and validates a policy; `file` names it in errors.
    ///
    /// ```
    /// use toolgate_policy::action_guard::Policy;
    /// let p = Policy::parse("p.toml", "version = 1\n[actions.refund]\nrequired_evidence = [\"order_id\"]\nmust_match = [\"order_id\"]\n");
    /// assert!(p.is_ok());
    /// let e = Policy::parse("p.toml", "version = 1\n[actions.refund]\nmust_match = [\"order_id\"]\n");
    /// assert_eq!(e.unwrap_err().to_string(),
    ///     "p.toml: action `refund`, key `must_match`: `order_id` must also be in required_evidence");
    /// ```
    pub fn parse(file: &str, text: &str) -> Result<Policy, PolicyError> {
        let err = |message: String| PolicyError {
            file: file.to_string(),
            message,
        };
        let raw: RawPolicy = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        if raw.version != 1 {
            return Err(err(format!(
                "key `version`: {} is not a known version (write `version = 1`)",
                raw.version
            )));
        }
        let mut actions = BTreeMap::new();
        for (name, a) in raw.actions {
            let at = |key: &str, why: String| err(format!("action `{name}`, key `{key}`: {why}"));
            let amount = |key: &str, v: &Option<String>| {
                v.as_deref()
                    .map(|s| match Amount::parse(s) {
                        Some(a) if !a.is_zero() => Ok(a),
                        _ => Err(at(key, format!("`{s}` is not a positive decimal amount written as a string, such as \"250.00\""))),
                    })
                    .transpose()
            };
            let max_amount = amount("max_amount", &a.max_amount)?;
            let approval_above = amount("approval_above", &a.approval_above)?;
            for (key, list) in [
                ("required_evidence", &a.required_evidence),
                ("must_match", &a.must_match),
                ("once_per", &a.once_per),
            ] {
                if let Some(f) = list.iter().find(|f| f.trim().is_empty()) {
                    return Err(at(key, format!("`{f}` is not a field name")));
                }
                for (i, f) in list.iter().enumerate() {
                    if list[..i].contains(f) {
                        return Err(at(key, format!("`{f}` is listed twice")));
                    }
                }
            }
            if let Some(f) = a
                .must_match
                .iter()
                .find(|f| !a.required_evidence.contains(f))
            {
                return Err(at(
                    "must_match",
                    format!("`{f}` must also be in required_evidence"),
                ));
            }
            if let Some(f) = a.once_per.iter().find(|f| !a.must_match.contains(f)) {
                return Err(at("once_per", format!("`{f}` must also be in must_match")));
            }
            let needs_amount =
                a.amount_at_most_evidence || max_amount.is_some() || approval_above.is_some();
            match (&a.amount, needs_amount) {
                (None, true) => {
                    let key = if a.amount_at_most_evidence {
                        "amount_at_most_evidence"
                    } else if max_amount.is_some() {
                        "max_amount"
                    } else {
                        "approval_above"
                    };
                    return Err(at(key, "needs `amount`, the request's amount field".into()));
                }
                (Some(f), _) if f.trim().is_empty() => {
                    return Err(at("amount", "is not a field name".into()));
                }
                (Some(f), _) if a.amount_at_most_evidence && !a.required_evidence.contains(f) => {
                    return Err(at(
                        "amount_at_most_evidence",
                        format!("the amount field `{f}` must also be in required_evidence"),
                    ));
                }
                _ => {}
            }
            if a.require_approval && approval_above.is_some() {
                return Err(at(
                    "approval_above",
                    "has no effect with require_approval = true, which asks for every call".into(),
                ));
            }
            if let (Some(max), Some(appr)) = (max_amount, approval_above) {
                if appr >= max {
                    return Err(at(
                        "approval_above",
                        format!("{appr} is not below max_amount {max}, so it could never apply"),
                    ));
                }
            }
            actions.insert(
                name,
                ActionPolicy {
                    required_evidence: a.required_evidence,
                    must_match: a.must_match,
                    amount: a.amount,
                    amount_at_most_evidence: a.amount_at_most_evidence,
                    max_amount,
                    approval_above,
                    require_approval: a.require_approval,
                    once_per: a.once_per,
                },
            );
        }
        Ok(Policy { actions })
    }

    /// Reads and parses a policy file.
    pub fn load(path: &std::path::Path) -> Result<Policy, PolicyError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Policy::parse(&file, &text)
    }
}
