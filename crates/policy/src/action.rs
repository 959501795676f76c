//! Action-class profiles: a call's action classes (read, write, delete,
//! execute, export, external_call, bulk_operation, credential_access,
//! sensitive_data_access, unknown) decide through a rule table, then named
//! rules with parameters (approval amounts, approved hosts, secret file
//! names) may make the outcome stricter. Several classes, or several rules,
//! give the most restrictive outcome.
//!
//! Named rules read these arguments of a call: `amount` (payments,
//! refunds), `new_payee`, `environment`, `remote_url` / `host`, and file
//! paths under `path`, `file`, `file_path` or `filename`; for the shell tool
//! they read the command's words.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use toolgate_core::gate::{glob_match, Decision};
use toolgate_core::label::{BlastRadius, Class, Label};
use toolgate_core::shell;

/// The ten action classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionClass {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Deletes.
    Delete,
    /// Runs programs.
    Execute,
    /// Sends data out of the system.
    Export,
    /// Calls an external service.
    ExternalCall,
    /// Touches many records at once.
    BulkOperation,
    /// Reads or uses credentials.
    CredentialAccess,
    /// Reads sensitive (personal, financial) data.
    SensitiveDataAccess,
    /// Not known.
    Unknown,
}

impl ActionClass {
    /// Every class, in table order.
    pub const ALL: [ActionClass; 10] = [
        ActionClass::Read,
        ActionClass::Write,
        ActionClass::Delete,
        ActionClass::Execute,
        ActionClass::Export,
        ActionClass::ExternalCall,
        ActionClass::BulkOperation,
        ActionClass::CredentialAccess,
        ActionClass::SensitiveDataAccess,
        ActionClass::Unknown,
    ];

    /// The name as written in profile files.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionClass::Read => "read",
            ActionClass::Write => "write",
            ActionClass::Delete => "delete",
            ActionClass::Execute => "execute",
            ActionClass::Export => "export",
            ActionClass::ExternalCall => "external_call",
            ActionClass::BulkOperation => "bulk_operation",
            ActionClass::CredentialAccess => "credential_access",
            ActionClass::SensitiveDataAccess => "sensitive_data_access",
            ActionClass::Unknown => "unknown",
        }
    }
}

/// One category rule of `action-classes.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    /// A category prefix.
    pub prefix: String,
    /// The classes of calls in it.
    pub classes: Vec<ActionClass>,
}

/// Which classes a labelled call has (`action-classes.yaml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassMap {
    /// Classes of a safe call.
    pub safe: Vec<ActionClass>,
    /// Classes of an unknown call.
    pub unknown: Vec<ActionClass>,
    /// Classes of a destructive call whose category no rule names.
    pub unmatched: Vec<ActionClass>,
    /// Classes every destructive call with a high blast radius has as
    /// well, whatever its category (an overwrite of `/` is not a plain
    /// write).
    pub high_radius: Vec<ActionClass>,
    /// Category rules, first match wins.
    pub categories: Vec<ClassRule>,
}

impl ClassMap {
    /// The classes of a labelled call.
    pub fn classes_for(&self, label: &Label) -> BTreeSet<ActionClass> {
        let list = match label.class {
            Class::Safe => &self.safe,
            Class::Unknown => &self.unknown,
            Class::Destructive => self
                .categories
                .iter()
                .find(|r| label.category.starts_with(&r.prefix))
                .map_or(&self.unmatched, |r| &r.classes),
        };
        let mut classes: BTreeSet<ActionClass> = list.iter().copied().collect();
        if label.class == Class::Destructive && label.blast_radius == BlastRadius::High {
            classes.extend(self.high_radius.iter().copied());
        }
        classes
    }
}

/// A named rule with its parameters. Rules without parameters are empty
/// struct variants so that an unknown key on them is still rejected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedRule {
    /// Pushes to hosts outside the approved list are denied; pushes to
    /// named remotes ask.
    RemotePush {
        /// Exact host names.
        approved_remote_hosts: Vec<String>,
    },
    /// Releases or deployments to production ask.
    ProductionRelease {},
    /// Reading secret files is denied.
    SecretFiles {
        /// File names (globs on the last path component).
        names: Vec<String>,
    },
    /// Changing a vendor's bank details is denied.
    VendorBankChange {},
    /// Payments at or above the amount ask.
    Payment {
        /// The approval amount, in USD, as a decimal string.
        payment_approval_amount_usd: String,
    },
    /// Payments to a new payee ask.
    NewPayee {},
    /// Refunds at or above the amount ask.
    Refund {
        /// The approval amount, in USD, as a decimal string.
        refund_approval_amount_usd: String,
    },
    /// Personal data leaving the system is denied.
    PersonalDataEgress {},
    /// Deleting an account asks.
    AccountDeletion {},
}

/// An action-class profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionProfile {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// What it is for.
    pub description: String,
    /// The decision for each class.
    pub classes: BTreeMap<ActionClass, Decision>,
    /// Class combinations that are denied.
    pub deny_combinations: Vec<Vec<ActionClass>>,
    /// Named rules.
    pub rules: Vec<NamedRule>,
    /// What the gate does with compound shell whose every part is safe
    /// under this profile (unset: the gate's own setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compound: Option<toolgate_core::gate::CompoundPolicy>,
}

/// A call as the action-class profile sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ActionCall<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Its arguments, borrowed from the caller's call where it has one (a
    /// tool call may carry a whole file).
    pub args: Cow<'a, Value>,
    /// The shell command, when the tool is the shell.
    pub command: Option<&'a str>,
    /// Its action classes.
    pub classes: BTreeSet<ActionClass>,
    /// The tool is confirmed (known and reviewed); an unconfirmed tool asks
    /// before any named rule runs.
    pub confirmed: bool,
}

/// What an action-class profile says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ActionVerdict {
    /// The most restrictive outcome.
    pub decision: Decision,
    /// The rule that decided (`class:delete`, `deny_combination`,
    /// `unconfirmed_tool`, `remote_push`, …).
    pub rule: String,
    /// Why, for a person.
    pub reason: String,
}

fn amount_of(args: &Value) -> Option<f64> {
    let v = match args.get("amount")? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    v.is_finite().then_some(v)
}

fn parse_amount(s: &str) -> Option<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// The words of a shell command (its first simple command).
fn words(command: &str) -> Vec<String> {
    shell::parse(command)
        .commands
        .into_iter()
        .flat_map(|c| c.words.into_iter().map(|w| w.text.into_string()))
        .collect()
}

fn host_of(target: &str) -> Option<String> {
    if let Some(rest) = target.split_once("://").map(|(_, r)| r) {
        let authority = rest.split('/').next().unwrap_or("");
        let host = authority.rsplit('@').next().unwrap_or("");
        return Some(host.split(':').next().unwrap_or("").to_ascii_lowercase());
    }
    // scp-like `user@host:path`.
    let (before, _) = target.split_once(':')?;
    before
        .contains('@')
        .then(|| before.rsplit('@').next().unwrap_or("").to_ascii_lowercase())
}

impl NamedRule {
    /// The rule's name as written in profile files.
    pub fn name(&self) -> &'static str {
        match self {
            NamedRule::RemotePush { .. } => "remote_push",
            NamedRule::ProductionRelease {} => "production_release",
            NamedRule::SecretFiles { .. } => "secret_files",
            NamedRule::VendorBankChange {} => "vendor_bank_change",
            NamedRule::Payment { .. } => "payment",
            NamedRule::NewPayee {} => "new_payee",
            NamedRule::Refund { .. } => "refund",
            NamedRule::PersonalDataEgress {} => "personal_data_egress",
            NamedRule::AccountDeletion {} => "account_deletion",
        }
    }

    /// Checks the parameters: amounts positive, hosts exact names.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            NamedRule::Payment {
                payment_approval_amount_usd: a,
            }
            | NamedRule::Refund {
                refund_approval_amount_usd: a,
            } => parse_amount(a)
                .map(|_| ())
                .ok_or_else(|| format!("`{a}` is not a positive amount")),
            NamedRule::RemotePush {
                approved_remote_hosts,
            } => {
                for h in approved_remote_hosts {
                    let exact = !h.is_empty()
                        && h.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
                        && !h.starts_with('.')
                        && !h.ends_with('.');
                    if !exact {
                        return Err(format!(
                            "`{h}` is not an exact host name (no scheme, port, path or wildcard)"
                        ));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The rule's outcome for a call, if it has one.
    fn apply(&self, call: &ActionCall, words: &[String]) -> Option<(Decision, String)> {
        let tool = call.tool.to_ascii_lowercase();
        let arg = |k: &str| call.args.get(k).and_then(Value::as_str).map(str::to_string);
        match self {
            NamedRule::RemotePush {
                approved_remote_hosts,
            } => {
                let push =
                    words.first().is_some_and(|w| w == "git") && words.iter().any(|w| w == "push");
                if !push && !tool.contains("push") {
                    return None;
                }
                let target = arg("remote_url").or_else(|| arg("host")).or_else(|| {
                    let at = words.iter().position(|w| w == "push")?;
                    words[at + 1..]
                        .iter()
                        .find(|w| !w.starts_with('-'))
                        .cloned()
                });
                match target.as_deref().map(|t| (t, host_of(t))) {
                    Some((_, Some(host)))
                        if approved_remote_hosts
                            .iter()
                            .any(|h| h.eq_ignore_ascii_case(&host)) =>
                    {
                        None
                    }
                    Some((_, Some(host))) => Some((
                        Decision::Deny,
                        format!("push to `{host}`, which is not an approved remote host"),
                    )),
                    Some((name, None)) => {
                        Some((Decision::Ask, format!("push to the named remote `{name}`")))
                    }
                    None => Some((Decision::Ask, "push to the default remote".into())),
                }
            }
            NamedRule::ProductionRelease {} => {
                let env_prod = arg("environment").or_else(|| arg("env")).is_some_and(|e| {
                    matches!(e.to_ascii_lowercase().as_str(), "production" | "prod")
                });
                let release_tool = ["release", "deploy", "publish"]
                    .iter()
                    .any(|v| tool.contains(v));
                let word_prod = words.iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "--prod" | "--production" | "production" | "prod"
                    )
                });
                let release_words = words
                    .iter()
                    .any(|w| matches!(w.as_str(), "release" | "deploy" | "publish" | "promote"));
                ((env_prod && (release_tool || release_words || call.command.is_none()))
                    || (word_prod && release_words))
                    .then(|| (Decision::Ask, "a release to production".into()))
            }
            NamedRule::SecretFiles { names } => {
                let mut paths: Vec<String> = ["path", "file", "file_path", "filename"]
                    .iter()
                    .filter_map(|k| arg(k))
                    .collect();
                paths.extend(words.iter().skip(1).cloned());
                paths.iter().find_map(|p| {
                    let base = p.rsplit(['/', '\\']).next().unwrap_or(p);
                    names
                        .iter()
                        .any(|n| glob_match(n, base))
                        .then(|| (Decision::Deny, format!("`{p}` is a secret file")))
                })
            }
            NamedRule::VendorBankChange {} => {
                let bank_args = [
                    "bank_account",
                    "iban",
                    "routing_number",
                    "account_number",
                    "swift",
                    "bic",
                ]
                .iter()
                .any(|k| call.args.get(*k).is_some());
                (tool.contains("vendor") && (tool.contains("bank") || bank_args))
                    .then(|| (Decision::Deny, "a change to a vendor's bank details".into()))
            }
            NamedRule::Payment {
                payment_approval_amount_usd,
            } => {
                if !(tool.contains("pay") || tool.contains("transfer")) {
                    return None;
                }
                let limit = parse_amount(payment_approval_amount_usd)?;
                match amount_of(&call.args) {
                    None => Some((Decision::Ask, "a payment without a valid amount".into())),
                    Some(a) if a >= limit => Some((
                        Decision::Ask,
                        format!("a payment of {a} at or above {limit}"),
                    )),
                    Some(_) => None,
                }
            }
            NamedRule::NewPayee {} => {
                let flagged = call.args.get("new_payee").and_then(Value::as_bool) == Some(true);
                (flagged || tool.contains("add_payee") || tool.contains("create_payee"))
                    .then(|| (Decision::Ask, "a payment to a new payee".into()))
            }
            NamedRule::Refund {
                refund_approval_amount_usd,
            } => {
                if !tool.contains("refund") {
                    return None;
                }
                let limit = parse_amount(refund_approval_amount_usd)?;
                match amount_of(&call.args) {
                    None => Some((Decision::Ask, "a refund without a valid amount".into())),
                    Some(a) if a >= limit => Some((
                        Decision::Ask,
                        format!("a refund of {a} at or above {limit}"),
                    )),
                    Some(_) => None,
                }
            }
            NamedRule::PersonalDataEgress {} => {
                let sensitive = call.classes.contains(&ActionClass::SensitiveDataAccess);
                let leaving = call.classes.contains(&ActionClass::Export)
                    || call.classes.contains(&ActionClass::ExternalCall);
                (sensitive && leaving)
                    .then(|| (Decision::Deny, "personal data leaving the system".into()))
            }
            NamedRule::AccountDeletion {} => {
                let delete =
                    tool.contains("delete") || tool.contains("close") || tool.contains("remove");
                let account = ["account", "user", "customer"]
                    .iter()
                    .any(|w| tool.contains(w));
                (delete && account).then(|| (Decision::Ask, "an account deletion".into()))
            }
        }
    }
}

impl ActionProfile {
    /// Checks the profile's values; the error names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (i, rule) in self.rules.iter().enumerate() {
            rule.validate()
                .map_err(|e| format!("field `rules[{i}]` ({}): {e}", rule.name()))?;
        }
        Ok(())
    }

    /// Decides a call: the class table (most restrictive class), denied
    /// combinations, then an unconfirmed tool asks, then the named rules;
    /// the most restrictive outcome wins.
    pub fn decide(&self, call: &ActionCall) -> ActionVerdict {
        let mut best = ActionVerdict {
            decision: Decision::Allow,
            rule: "class".into(),
            reason: "no action class needs more".into(),
        };
        let mut consider = |d: Decision, rule: String, reason: String| {
            if d > best.decision {
                best = ActionVerdict {
                    decision: d,
                    rule,
                    reason,
                };
            }
        };
        let classes: Vec<ActionClass> = if call.classes.is_empty() {
            vec![ActionClass::Unknown]
        } else {
            call.classes.iter().copied().collect()
        };
        for c in &classes {
            // A class the table does not name asks.
            let d = self.classes.get(c).copied().unwrap_or(Decision::Ask);
            let name = c.as_str();
            consider(
                d,
                format!("class:{name}"),
                format!("the call's `{name}` class"),
            );
        }
        for combo in &self.deny_combinations {
            if combo.iter().all(|c| classes.contains(c)) {
                consider(
                    Decision::Deny,
                    "deny_combination".into(),
                    "a denied combination of action classes".into(),
                );
            }
        }
        if !call.confirmed {
            consider(
                Decision::Ask,
                "unconfirmed_tool".into(),
                format!("`{}` is not a confirmed tool", call.tool),
            );
        }
        // The command's words, read once for every named rule.
        let words = call.command.map(words).unwrap_or_default();
        for rule in &self.rules {
            if let Some((d, why)) = rule.apply(call, &words) {
                consider(d, rule.name().into(), why);
            }
        }
        best
    }
}
