//! Commands made from the specs themselves, for the sandbox oracle: every
//! example, each option of each spec tried on its own (by one of its
//! names, with a value of its role), and its switches bundled in pairs;
//! the specs of service readers are left to their examples. The oracle runs
//! those toolgate labels safe and fails on any that writes, runs another
//! program, connects, or reads a secret.

use super::format::{Arity, Role, SpecFile};
use super::Specs;

/// A word standing for an argument of each role, naming files that the
/// oracle's work tree holds.
fn sample(role: Role) -> &'static str {
    match role {
        Role::Text | Role::Printed | Role::Key => "x",
        Role::EnvName => "LANG",
        Role::Number => "1",
        Role::Pattern => "main",
        Role::File | Role::LocalFile | Role::Pathspec | Role::Meta => "file.txt",
        Role::Dir | Role::Workdir => "src",
        Role::Rev => "HEAD",
        Role::RevOrPath => "HEAD",
        Role::CommandName => "ls",
        Role::SedScript => "1p",
        Role::JqFilter => ".",
        Role::Subcommand => "x",
        Role::PlusFormat => "+%F",
        Role::GitFormat => "%h",
    }
}

/// The spec examples of the files among `sources` and the generated
/// variants of every spec in `specs`.
pub fn oracle_cases(sources: &[(String, String)], specs: &Specs) -> Vec<String> {
    let mut out = Vec::new();
    for (file, text) in sources {
        if !file.starts_with(super::SPECS_DIR) {
            continue;
        }
        if let Ok(parsed) = toml::from_str::<SpecFile>(text) {
            for raw in parsed.command {
                out.extend(raw.examples);
            }
        }
    }
    // A spec shared by several names (grep, egrep, fgrep) parses them
    // alike: its first name stands for it.
    let mut done: Vec<*const super::Spec<'static>> = Vec::new();
    for path in specs.names() {
        let Some(spec) = specs.get(&path) else {
            continue;
        };
        if done.contains(&(spec as *const _)) {
            continue;
        }
        done.push(spec);
        for h in &spec.help {
            out.push(format!("{path} {h}"));
        }
        // A service reader's options are an API's flags, and each run of
        // such a CLI costs a second or more: its examples stand for it.
        if spec.help_only || spec.subcommands || spec.service.is_some() {
            continue;
        }
        let mut tail: Vec<&str> = spec
            .operands
            .iter()
            .filter(|o| o.role != Role::Subcommand)
            .map(|o| sample(o.role))
            .collect();
        if spec.wraps {
            tail.push("true");
        }
        let tail = tail.join(" ");
        let mut switches: Vec<String> = Vec::new();
        for opt in spec.options.iter() {
            let value = sample(opt.role);
            // One spelling per option: the others reach the same entry
            // (the reading of aliases, abbreviations and attached values is
            // the argv reader's, tested on its own).
            let Some(form) = opt
                .names
                .iter()
                .find(|n| n.starts_with("--"))
                .or(opt.names.first())
            else {
                continue;
            };
            let long = form.starts_with("--");
            out.push(match (opt.arity, long) {
                (Arity::None, _) => format!("{path} {form} {tail}"),
                (Arity::Optional | Arity::Required, true) => {
                    format!("{path} {form}={value} {tail}")
                }
                (Arity::Optional, false) => format!("{path} {form}{value} {tail}"),
                (Arity::Required, false) => format!("{path} {form} {value} {tail}"),
                (Arity::Pair, _) => format!("{path} {form} v {value} {tail}"),
            });
            if opt.arity == Arity::None {
                if let Some(short) = opt
                    .names
                    .iter()
                    .find(|n| n.len() == 2 && !n.starts_with("--"))
                {
                    switches.push(short.to_string());
                }
            }
        }
        // Bundles: each switch with the next one.
        for pair in switches.windows(2) {
            out.push(format!("{path} -{}{} {tail}", &pair[0][1..], &pair[1][1..]));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert(c.clone()));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_specs_make_a_bounded_set_of_cases() {
        let cases = crate::taxonomy::embedded_oracle_cases();
        eprintln!("{} oracle cases", cases.len());
        assert!(cases.len() > 1000, "{}", cases.len());
        for case in [
            "sort --output=file.txt file.txt",
            "sort --reverse file.txt",
            "cat -Ab file.txt",
        ] {
            assert!(cases.iter().any(|c| c == case), "{case}");
        }
        assert!(cases.len() < 20_000, "{}", cases.len());
    }
}
