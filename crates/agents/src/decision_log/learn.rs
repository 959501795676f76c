//! What the log teaches: counts of decisions (`toolgate log --stats`) and
//! the rules that would stop the asks people see most (`toolgate suggest`).

use std::collections::BTreeMap;

use toolgate_core::gate::Decision;
use toolgate_core::guard_paths::GuardPaths;
use toolgate_core::shell;
use toolgate_core::spec::paths::secret_class;

use super::mask::MASK;
use super::Entry;

/// Counts of logged answers, each list largest first (ties by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Entries counted.
    pub total: usize,
    /// By decision (`allow`, `no_opinion`, `ask`, `deny`; `-` when the
    /// answer left the call to the client without deciding).
    pub decision: Vec<(String, usize)>,
    /// By client.
    pub client: Vec<(String, usize)>,
    /// By label category (`-` for none).
    pub category: Vec<(String, usize)>,
    /// By the first command word of a shell call (`-` for other tools).
    pub word: Vec<(String, usize)>,
}

/// Counts `entries` by decision, client, category and command word.
pub fn stats<'e>(entries: impl IntoIterator<Item = &'e Entry>) -> Stats {
    let mut by: [BTreeMap<String, usize>; 4] = Default::default();
    let mut total = 0;
    for e in entries {
        total += 1;
        let keys = [
            e.decision.map_or("-", Decision::as_str).to_string(),
            e.client.clone(),
            e.category.clone().unwrap_or_else(|| "-".into()),
            e.command
                .as_deref()
                .filter(|c| !c.trim_start().starts_with('{'))
                .and_then(command_word)
                .unwrap_or_else(|| "-".into()),
        ];
        for (map, key) in by.iter_mut().zip(keys) {
            *map.entry(key).or_default() += 1;
        }
    }
    let [decision, client, category, word] = by.map(largest_first);
    Stats {
        total,
        decision,
        client,
        category,
        word,
    }
}

fn largest_first(map: BTreeMap<String, usize>) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = map.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The first command word of a shell command (`npm` for `npm test`).
fn command_word(command: &str) -> Option<String> {
    let script = shell::parse(command);
    let first = script.commands.first()?.words.first()?;
    Some(first.text.to_string())
}

/// A rule `toolgate suggest` proposes: an asked command, how often it was
/// asked, and the line that allows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The command, as logged.
    pub command: String,
    /// How many times it was asked about.
    pub count: usize,
    /// The `toolgate allow` line for it.
    pub line: String,
}

/// Rules for the commands asked about most often, most asked first (ties
/// by command), at most `limit` of them.
///
/// Only for a shell command labelled unknown that one allow rule can
/// grant (one plain command on one line): never a destructive one, never a
/// safe one the look asked about (it read a secret), never one that names
/// a secret file or one of the guard's own files, never a command whose
/// logged text had a secret masked out.
pub fn suggest<'e>(entries: impl IntoIterator<Item = &'e Entry>, limit: usize) -> Vec<Suggestion> {
    let guard = GuardPaths::from_env();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for e in entries {
        let Some(command) = e.command.as_deref() else {
            continue;
        };
        if e.decision == Some(Decision::Ask)
            && e.label.as_deref() == Some("unknown")
            && suggestible(command, &guard)
        {
            *counts.entry(command.trim()).or_default() += 1;
        }
    }
    let mut out: Vec<Suggestion> = counts
        .into_iter()
        .map(|(command, count)| Suggestion {
            command: command.to_string(),
            count,
            line: crate::rule_line::allow_line(command),
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.command.cmp(&b.command))
    });
    out.truncate(limit);
    out
}

/// One plain command on one line, with no masked secret, no secret path
/// and no guard file among its words.
fn suggestible(command: &str, guard: &GuardPaths) -> bool {
    if command.contains('\n') || command.contains(MASK) || command.trim().is_empty() {
        return false;
    }
    let script = shell::parse(command);
    if script.error.is_some() || script.compound || script.commands.len() != 1 {
        return false;
    }
    script.commands.iter().all(|c| {
        c.redirects.is_empty()
            && c.words.iter().all(|w| {
                let parts: Vec<&str> = w.text.split('/').filter(|p| !p.is_empty()).collect();
                w.literal && secret_class(&parts).is_none() && guard.protects(&w.text).is_none()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(command: &str, label: &str, decision: Option<Decision>) -> Entry {
        Entry {
            time: "2026-01-01T00:00:00Z".into(),
            client: "claude".into(),
            session: None,
            cwd: None,
            tool: Some("Bash".into()),
            command: Some(command.into()),
            label: Some(label.into()),
            category: (label == "destructive").then(|| "fs-delete".to_string()),
            decision,
            source: "mode_balanced".into(),
            reason: String::new(),
        }
    }

    #[test]
    fn suggestions_are_for_asked_unknown_plain_commands_only() {
        let ask = Some(Decision::Ask);
        let log = [
            entry("npm test", "unknown", ask),
            entry("make", "unknown", ask),
            entry("npm test", "unknown", ask),
            entry("npm test", "unknown", Some(Decision::NoOpinion)),
            entry("rm -rf build", "destructive", ask),
            entry("cat .env", "unknown", ask),
            entry("cat src/.env.local", "safe", ask),
            entry("vim ~/.claude/settings.json", "unknown", ask),
            entry("curl -H 'Authorization: ***' x", "unknown", ask),
            entry("npm test && npm run lint", "unknown", ask),
            entry("echo $HOME", "unknown", ask),
        ];
        let got: Vec<(String, usize, String)> = suggest(&log, 10)
            .into_iter()
            .map(|s| (s.command, s.count, s.line))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "npm test".into(),
                    2,
                    "toolgate allow 'shell:cmd=npm test'".into()
                ),
                ("make".into(), 1, "toolgate allow 'shell:cmd=make'".into()),
            ]
        );
        assert_eq!(suggest(&log, 1).len(), 1);
    }

    #[test]
    fn stats_count_by_decision_client_category_and_word() {
        let log = [
            entry("npm test", "unknown", Some(Decision::Ask)),
            entry("npm run lint", "unknown", Some(Decision::NoOpinion)),
            entry("rm -rf build", "destructive", Some(Decision::Ask)),
        ];
        let s = stats(&log);
        let pairs = |v: &[(String, usize)]| -> Vec<(String, usize)> { v.to_vec() };
        assert_eq!(s.total, 3);
        assert_eq!(
            pairs(&s.decision),
            [("ask".to_string(), 2), ("no_opinion".to_string(), 1)]
        );
        assert_eq!(pairs(&s.client), [("claude".to_string(), 3)]);
        assert_eq!(
            pairs(&s.category),
            [("-".to_string(), 2), ("fs-delete".to_string(), 1)]
        );
        assert_eq!(
            pairs(&s.word),
            [("npm".to_string(), 2), ("rm".to_string(), 1)]
        );
    }
}
