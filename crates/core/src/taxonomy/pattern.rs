//! The pattern language: how a structured taxonomy entry becomes a regex over
//! the canonical form of a normalised command.
//!
//! The canonical form (`crate::normalize::Canonical`) is the command word
//! followed by one token per argument, every token framed by the unit
//! separator `\x1f`: `\x1frm\x1f-r\x1f-f\x1f/tmp/x\x1f`. Short-flag bundles are
//! already split (`-rf` → `-r`, `-f`) and options that take a value carry it
//! (`-C=dir`), so a pattern only has to say which tokens must be present.
//!
//! * `command = ["rm"]` → `^\x1f(?:rm)\x1f`
//! * `subcommand = ["volume", "rm|remove"]` → each word after any flags
//! * `flags = ["-r|-R|--recursive", "-f|--force"]` → every group present, in
//!   any order: the compiler emits each permutation (at most four
//!   requirements, so at most 24 branches)
//! * `args = ["{critical-path}"]` → an argument token of that shape
//!
//! Every entry is destructive (a safe verdict comes from a command spec,
//! not from a pattern), so a pattern says only what must be present: the
//! tokens it does not name may be anything.

use std::collections::BTreeMap;

/// The token separator of the canonical form.
pub const SEP: char = '\x1f';

/// One token's worth of "anything".
const ANY_TOKEN: &str = "[^\\x1f]*\\x1f";

/// Turns `a|b*|c` into a regex alternation over one token's text, escaping
/// everything but `*` (any run of characters inside the token).
pub fn word_alternatives(spec: &str) -> String {
    if let Some(re) = spec.strip_prefix("re:") {
        return format!("(?:{re})");
    }
    let (ci, spec) = match spec.strip_prefix("i:") {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let mut out = String::from(if ci { "(?i:" } else { "(?:" });
    for (i, alt) in spec.split('|').enumerate() {
        if i > 0 {
            out.push('|');
        }
        out.push_str(&glob_to_regex(alt));
    }
    out.push(')');
    out
}

fn glob_to_regex(alt: &str) -> String {
    let mut out = String::new();
    for part in alt.split('*').enumerate() {
        if part.0 > 0 {
            out.push_str("[^\\x1f]*");
        }
        out.push_str(&regex_escape(part.1));
    }
    out
}

/// Escapes regex metacharacters.
pub fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~ ".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A flag group `-r|-R|--recursive` as one token: the flag, optionally with
/// its `=value`.
pub fn flag_token(spec: &str) -> String {
    format!("{}(?:=[^\\x1f]*)?\\x1f", word_alternatives(spec))
}

/// An argument shape as one token.
///
/// * `{name}` — a named shape from `commands.toml` `[shape]`
/// * `re:REGEX` — a raw regex for the token's text
/// * otherwise literal alternatives (`a|b`, `*` wildcard, `i:` prefix for
///   case-insensitive)
pub fn shape_token(spec: &str, shapes: &BTreeMap<String, String>) -> Result<String, String> {
    Ok(format!("{}\\x1f", shape_body(spec, shapes)?))
}

/// The regex for an argument shape's text, without the separator.
pub fn shape_body(spec: &str, shapes: &BTreeMap<String, String>) -> Result<String, String> {
    if let Some(name) = spec.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
        match shapes.get(name) {
            Some(re) => Ok(format!("(?:{re})")),
            None => Err(format!(
                "unknown shape `{{{name}}}`; define it under [shape] in commands.toml (known: {})",
                shapes.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        }
    } else if let Some(re) = spec.strip_prefix("re:") {
        Ok(format!("(?:{re})"))
    } else {
        Ok(word_alternatives(spec))
    }
}

/// Every ordering of the indices `0..n` (callers keep `n` at four or fewer).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for perm in permutations(n - 1) {
        for slot in 0..=perm.len() {
            let mut p = perm.clone();
            p.insert(slot, n - 1);
            out.push(p);
        }
    }
    out
}

/// The most requirements (flags plus argument shapes) one entry may list.
pub const MAX_REQUIREMENTS: usize = 4;

/// Inputs to [`destructive_regex`].
pub struct Shape<'a> {
    /// Command word alternatives.
    pub command: &'a [String],
    /// Subcommand words.
    pub subcommand: &'a [String],
    /// Required flag groups.
    pub flags: &'a [String],
    /// Argument shapes.
    pub args: &'a [String],
}

/// The start every structured pattern shares: the command word
/// alternatives, anchored. A group compiled for one word swaps it for that
/// word alone, which keeps the automaton small.
pub fn command_prefix(commands: &[String]) -> String {
    format!("^\\x1f{}\\x1f", word_alternatives(&commands.join("|")))
}

/// The regex for a destructive entry: anchored at the command word, matching
/// when every requirement appears somewhere after the subcommand.
pub fn destructive_regex(
    shape: &Shape<'_>,
    shapes: &BTreeMap<String, String>,
) -> Result<String, String> {
    let mut re = command_prefix(shape.command);
    // Options may stand before each subcommand word (`git -C dir push`,
    // whose `-C=dir` is one token).
    for sub in shape.subcommand {
        re.push_str("(?:-[^\\x1f]*\\x1f)*");
        re.push_str(&shape_body(sub, shapes)?);
        re.push_str("\\x1f");
    }
    let mut reqs: Vec<String> = shape.flags.iter().map(|f| flag_token(f)).collect();
    for a in shape.args {
        reqs.push(shape_token(a, shapes)?);
    }
    if reqs.len() > MAX_REQUIREMENTS {
        return Err(format!(
            "at most {MAX_REQUIREMENTS} flags and args together; split the entry"
        ));
    }
    if !reqs.is_empty() {
        re.push_str(&conjunction(&reqs));
    }
    Ok(re)
}

/// "Every one of these tokens occurs, in any order": one branch per
/// permutation, each skipping any tokens between its requirements.
fn conjunction(reqs: &[String]) -> String {
    let branches: Vec<String> = permutations(reqs.len())
        .into_iter()
        .map(|perm| {
            perm.iter()
                .map(|&i| format!("(?:{ANY_TOKEN})*?{}", reqs[i]))
                .collect::<String>()
        })
        .collect();
    format!("(?:{})", branches.join("|"))
}

/// A regex finding any of the given flags as a token anywhere.
pub fn any_flag_regex(flags: &[String]) -> String {
    format!(
        "\\x1f{}(?:=[^\\x1f]*)?\\x1f",
        word_alternatives(&flags.join("|"))
    )
}

/// A regex finding a dry-run flag switched on: the flag alone or with a
/// true value (`--dry-run`, `--dry-run=true`), not followed by a word
/// `false` (npm's parser reads `--dry-run false` as the flag switched
/// off). The next token, if any, must differ from `false` somewhere.
pub fn dry_run_regex(flags: &[String]) -> String {
    const NOT_FALSE: &str = "(?:$|\\x1f|[^f\\x1f]|f(?:\\x1f|[^a\\x1f]|a(?:\\x1f|[^l\\x1f]|l(?:\\x1f|[^s\\x1f]|s(?:\\x1f|[^e\\x1f]|e[^\\x1f])))))";
    format!(
        "\\x1f{}(?:=(?:true|1|yes))?\\x1f{NOT_FALSE}",
        word_alternatives(&flags.join("|"))
    )
}

/// A regex finding any argument of the given shapes as a token anywhere
/// after the command word.
pub fn any_arg_regex(args: &[String], shapes: &BTreeMap<String, String>) -> Result<String, String> {
    let mut alts = Vec::new();
    for a in args {
        alts.push(shape_body(a, shapes)?);
    }
    Ok(format!(
        "^\\x1f[^\\x1f]*\\x1f(?:{ANY_TOKEN})*?(?:{})\\x1f",
        alts.join("|")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternatives_escape_and_glob() {
        assert_eq!(word_alternatives("a.b|c*"), "(?:a\\.b|c[^\\x1f]*)");
        assert_eq!(word_alternatives("i:flushall"), "(?i:flushall)");
        assert_eq!(flag_token("-f"), "(?:\\-f)(?:=[^\\x1f]*)?\\x1f");
    }

    #[test]
    fn permutations_cover_every_order() {
        let perms = permutations(3);
        assert_eq!(perms.len(), 6);
        let mut seen: Vec<String> = perms.iter().map(|p| format!("{p:?}")).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 6);
    }
}
