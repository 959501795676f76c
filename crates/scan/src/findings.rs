//! What a scan reports beyond its JSONL records: the commands that matter
//! with where they are, as SARIF 2.1.0 for code-scanning tools, as GitHub
//! workflow annotations, and as the short report `--fail-on` prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};
use toolgate_core::label::{BlastRadius, Class, Label};
use toolgate_core::Taxonomy;

/// A command a report names, with its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The file, as given (or relative to the repository root for SARIF);
    /// `None` for standard input.
    pub file: Option<String>,
    /// The line, from 1.
    pub line: u64,
    /// The column, in characters, from 1.
    pub column: u64,
    /// The command as written.
    pub command: String,
    /// Its label; `None` for input that could not be read (`command` is
    /// then what was wrong).
    pub label: Option<Label>,
    /// Its job, step, target or script (see `Found::names`).
    pub names: Vec<(&'static str, String)>,
}

/// The id of the SARIF rule for a command that matched no taxonomy entry.
pub const UNKNOWN_RULE: &str = "unknown";
/// The id of the SARIF rule for input that could not be read.
pub const UNREADABLE_RULE: &str = "unreadable";

/// How serious a hit is, as SARIF and GitHub name levels: a destructive
/// command by its blast radius (high is an error, medium a warning, low a
/// note), an unknown one a note, unreadable input an error (what it hides
/// was not judged).
pub fn level(label: Option<&Label>) -> &'static str {
    match label {
        None => "error",
        Some(l) if l.class == Class::Destructive => match l.blast_radius {
            BlastRadius::High | BlastRadius::Unknown => "error",
            BlastRadius::Medium => "warning",
            _ => "note",
        },
        Some(_) => "note",
    }
}

impl Hit {
    /// The rule a hit belongs to: its label's category, `unknown` or
    /// `unreadable`.
    pub fn rule(&self) -> &str {
        match &self.label {
            None => UNREADABLE_RULE,
            Some(l) if l.class == Class::Destructive && !l.category.is_empty() => &l.category,
            Some(_) => UNKNOWN_RULE,
        }
    }

    /// One line for people: `destructive (high, fs-delete): why`.
    pub fn verdict(&self) -> String {
        match &self.label {
            None => format!("unreadable: {}", self.command),
            Some(l) => {
                let mut s = format!("{} ({}", l.class.as_str(), l.blast_radius.as_str());
                if !l.category.is_empty() {
                    s.push_str(", ");
                    s.push_str(&l.category);
                }
                s.push(')');
                if !l.reason.is_empty() {
                    s.push_str(": ");
                    s.push_str(&l.reason);
                }
                s
            }
        }
    }

    /// `file:line:column`, or `line L, column C` for standard input.
    pub fn place(&self) -> String {
        match &self.file {
            Some(f) => format!("{f}:{}:{}", self.line, self.column),
            None => format!("line {}, column {}", self.line, self.column),
        }
    }

    /// The command on one line for a message: continued lines joined,
    /// the first line only, at most 100 characters (`…` where cut).
    pub fn short_command(&self) -> String {
        let mut joined = String::with_capacity(self.command.len());
        let mut rest = self.command.as_str();
        while let Some(at) = rest.find("\\\n") {
            joined.push_str(&rest[..at]);
            rest = rest[at + 2..].trim_start_matches([' ', '\t']);
        }
        joined.push_str(rest);
        let first = joined.lines().next().unwrap_or_default();
        let mut short: String = first.chars().take(100).collect();
        if short.len() < joined.trim_end().len() {
            short.push('…');
        }
        short
    }
}

/// A SARIF rule: a taxonomy category, with the reasons its entries give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The category (`fs-delete`), or `unknown` / `unreadable`.
    pub id: String,
    /// What the category's entries say, each once, in taxonomy order.
    pub reasons: Vec<String>,
    /// The worst blast radius among its entries.
    pub worst: BlastRadius,
}

/// The rules of a taxonomy: one per category of its entries (all
/// destructive), then `unknown` and `unreadable`.
pub fn rules(taxonomy: &Taxonomy) -> Vec<Rule> {
    let mut by_id: BTreeMap<String, Rule> = BTreeMap::new();
    for r in taxonomy.rules() {
        if r.category.is_empty() {
            continue;
        }
        let rule = by_id.entry(r.category.to_string()).or_insert_with(|| Rule {
            id: r.category.to_string(),
            reasons: Vec::new(),
            worst: BlastRadius::Low,
        });
        if !rule.reasons.iter().any(|x| x == r.reason.as_ref()) {
            rule.reasons.push(r.reason.to_string());
        }
        if radius_rank(r.blast_radius) > radius_rank(rule.worst) {
            rule.worst = r.blast_radius;
        }
    }
    let mut rules: Vec<Rule> = by_id.into_values().collect();
    rules.push(Rule {
        id: UNKNOWN_RULE.into(),
        reasons: vec![
            "the command matched no taxonomy entry and is not positively known to be safe".into(),
        ],
        worst: BlastRadius::Unknown,
    });
    rules.push(Rule {
        id: UNREADABLE_RULE.into(),
        reasons: vec!["the input could not be read (a syntax error, invalid JSON or YAML), so what it runs was not judged".into()],
        worst: BlastRadius::Unknown,
    });
    rules
}

fn radius_rank(r: BlastRadius) -> u8 {
    match r {
        BlastRadius::Safe => 0,
        BlastRadius::Low => 1,
        BlastRadius::Medium => 2,
        BlastRadius::High => 3,
        BlastRadius::Unknown => 4,
    }
}

/// A SARIF 2.1.0 log of one run: the rules, and a result per hit with its
/// physical location (`file` as a URI reference relative to the
/// repository root, `%SRCROOT%`). Columns count Unicode code points.
pub fn sarif(hits: &[Hit], rules: &[Rule], version: &str) -> Value {
    let index: BTreeMap<&str, usize> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let rules_json: Vec<Value> = rules
        .iter()
        .map(|r| {
            let text = match r.reasons.as_slice() {
                [one] => one.clone(),
                many => format!("{}.", many.join("; ")),
            };
            let mut help = format!("Commands toolgate labels `{}`:\n", r.id);
            for reason in &r.reasons {
                let _ = writeln!(help, "- {reason}");
            }
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": { "text": format!("toolgate: {}", r.id) },
                "fullDescription": { "text": text },
                "help": { "text": help, "markdown": help },
                "defaultConfiguration": { "level": match r.id.as_str() {
                    UNKNOWN_RULE => "note",
                    UNREADABLE_RULE => "error",
                    _ => match r.worst {
                        BlastRadius::High | BlastRadius::Unknown => "error",
                        BlastRadius::Medium => "warning",
                        _ => "note",
                    },
                }},
                "properties": { "tags": ["security", "toolgate"] },
            })
        })
        .collect();
    let results: Vec<Value> = hits
        .iter()
        .map(|h| {
            let rule = h.rule();
            let mut message = h.verdict();
            message.push_str(": `");
            message.push_str(&h.short_command());
            message.push('`');
            let mut result = json!({
                "ruleId": rule,
                "level": level(h.label.as_ref()),
                "message": { "text": message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": uri(h.file.as_deref().unwrap_or("-")),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "region": {
                            "startLine": h.line.max(1),
                            "startColumn": h.column.max(1),
                            "snippet": { "text": h.command },
                        },
                    },
                }],
                "properties": {
                    "command": h.command,
                    "names": h.names.iter().map(|(k, v)| (k.to_string(), Value::String(v.clone()))).collect::<serde_json::Map<String, Value>>(),
                },
            });
            if let (Some(i), Some(obj)) = (index.get(rule), result.as_object_mut()) {
                obj.insert("ruleIndex".into(), json!(i));
            }
            if let (Some(l), Some(props)) = (&h.label, result.get_mut("properties").and_then(Value::as_object_mut)) {
                props.insert("safety_label".into(), json!(l.class.as_str()));
                props.insert("blast_radius".into(), json!(l.blast_radius.as_str()));
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "toolgate",
                "version": version,
                "rules": rules_json,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// A file path as a URI reference: forward slashes, and the bytes a URI
/// may not hold percent-encoded.
pub fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A GitHub workflow command that annotates the hit's line:
/// `::error file=…,line=…,col=…,title=…::message`.
pub fn annotation(h: &Hit) -> String {
    let command = match level(h.label.as_ref()) {
        "error" => "error",
        "warning" => "warning",
        _ => "notice",
    };
    let mut props = String::new();
    if let Some(f) = &h.file {
        let _ = write!(props, "file={},", escape_property(f));
    }
    let _ = write!(
        props,
        "line={},col={},title={}",
        h.line,
        h.column,
        escape_property(&format!("toolgate: {}", h.rule()))
    );
    let message = format!("{}: {}", h.verdict(), h.short_command());
    format!("::{command} {props}::{}", escape_data(&message))
}

/// Escapes a workflow command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The short report `--fail-on` prints on stderr: how many commands failed
/// the gate, and the first `max` of them with `file:line:column`.
pub fn failure_report(what: &str, hits: &[Hit], total: u64, max: usize) -> String {
    let mut s = format!(
        "toolgate scan: --fail-on {what}: {total} command{} failed\n",
        if total == 1 { "" } else { "s" }
    );
    for h in hits.iter().take(max) {
        let _ = writeln!(s, "  {}: {}: {}", h.place(), h.verdict(), h.short_command());
    }
    let shown = hits.len().min(max) as u64;
    if total > shown {
        let _ = writeln!(s, "  … and {} more", total - shown);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(command: &str) -> Hit {
        Hit {
            file: Some(".github/workflows/ci.yml".into()),
            line: 13,
            column: 11,
            command: command.into(),
            label: Some(toolgate_core::classify(command)),
            names: vec![("job", "build".into())],
        }
    }

    #[test]
    fn annotations_escape_their_fields() {
        let h = hit("rm -rf build\nls");
        assert_eq!(
            annotation(&h),
            "::error file=.github/workflows/ci.yml,line=13,col=11,title=toolgate%3A fs-delete::\
             destructive (high, fs-delete): recursive delete: whole directory trees are removed with no undo: rm -rf build…"
        );
        let mut h = hit("ls");
        h.file = Some("a,b:c%.sh".into());
        assert!(
            annotation(&h).contains("file=a%2Cb%3Ac%25.sh,"),
            "{}",
            annotation(&h)
        );
        assert!(annotation(&h).starts_with("::notice "));
    }

    #[test]
    fn short_commands_join_continued_lines() {
        assert_eq!(hit("rm -rf a \\\n    b").short_command(), "rm -rf a b");
        assert_eq!(hit("cat <<EOF\nx\nEOF\n").short_command(), "cat <<EOF…");
        assert_eq!(hit("ls").short_command(), "ls");
    }

    #[test]
    fn levels_follow_label_and_radius() {
        assert_eq!(level(hit("rm -rf build").label.as_ref()), "error");
        assert_eq!(level(hit("rm -f a").label.as_ref()), "warning");
        assert_eq!(level(hit("rm a").label.as_ref()), "note");
        assert_eq!(level(hit("make").label.as_ref()), "note");
        assert_eq!(level(None), "error");
    }

    #[test]
    fn the_failure_report_names_places_and_counts_the_rest() {
        let hits = vec![hit("rm -rf a"), hit("rm -rf b")];
        let r = failure_report("destructive", &hits, 5, 1);
        assert_eq!(
            r,
            "toolgate scan: --fail-on destructive: 5 commands failed\n  \
             .github/workflows/ci.yml:13:11: destructive (high, fs-delete): recursive delete: whole directory trees are removed with no undo: rm -rf a\n  \
             … and 4 more\n"
        );
    }

    #[test]
    fn uris_are_references() {
        assert_eq!(uri("ci/a b.sh"), "ci/a%20b.sh");
        assert_eq!(uri("dir\\x.sh"), "dir/x.sh");
    }
}
