//! Commands made from the specs themselves, for the sandbox oracle: every
//! example, and each option of each spec tried on its own — by every name,
//! abbreviated, bundled, with its value attached and apart. The oracle runs
//! those toolgate labels safe and fails on any that writes, runs another
//! program, connects, or reads a secret.

use super::format::{Arity, Role, SpecFile};
use super::Specs;

/// A word standing for an argument of each role, naming files that the
/// oracle's work tree holds.
fn sample(role: Role) -> &'static str {
    match role {
        Role::Text => "x",
        Role::Number => "1",
        Role::Pattern => "main",
        Role::File | Role::Pathspec => "file.txt",
        Role::Dir => "src",
        Role::Rev => "HEAD",
        Role::RevOrPath => "HEAD",
        Role::CommandName => "ls",
        Role::SedScript => "1p",
        Role::JqFilter => ".",
        Role::Subcommand => "x",
        Role::PlusFormat => "+%F",
    }
}

/// The shortest prefix of `name` that no other long name of the spec
/// shares, if it is shorter than the name.
fn unique_prefix<'n>(name: &'n str, all: &[&str]) -> Option<&'n str> {
    (3..name.len())
        .map(|n| &name[..n])
        .find(|p| all.iter().filter(|o| o.starts_with(p)).count() == 1)
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
    for path in specs.names() {
        let Some(spec) = specs.get(&path) else {
            continue;
        };
        for h in &spec.help {
            out.push(format!("{path} {h}"));
        }
        if spec.help_only || spec.subcommands {
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
        let longs: Vec<&str> = spec
            .options
            .iter()
            .flat_map(|o| o.names.iter().map(|n| n.as_ref()))
            .filter(|n| n.starts_with("--"))
            .collect();
        let mut switches: Vec<&str> = Vec::new();
        for opt in &spec.options {
            let value = sample(opt.role);
            for name in &opt.names {
                let name = name.as_ref();
                let mut forms = vec![name.to_string()];
                if name.starts_with("--") {
                    if let Some(p) = unique_prefix(name, &longs) {
                        forms.push(p.to_string());
                    }
                }
                for form in forms {
                    match opt.arity {
                        Arity::None => out.push(format!("{path} {form} {tail}")),
                        Arity::Optional => {
                            out.push(format!("{path} {form} {tail}"));
                            let glue = if form.starts_with("--") { "=" } else { "" };
                            out.push(format!("{path} {form}{glue}{value} {tail}"));
                        }
                        Arity::Required => {
                            out.push(format!("{path} {form} {value} {tail}"));
                            let glue = if form.starts_with("--") { "=" } else { "" };
                            out.push(format!("{path} {form}{glue}{value} {tail}"));
                        }
                        Arity::Pair => out.push(format!("{path} {form} v {value} {tail}")),
                    }
                }
                if opt.arity == Arity::None && name.len() == 2 && !name.starts_with("--") {
                    switches.push(name);
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

/// [`oracle_cases`] for the embedded taxonomy.
pub fn embedded_oracle_cases() -> Vec<String> {
    match crate::Taxonomy::embedded() {
        Ok(tax) => oracle_cases(&crate::taxonomy::embedded_sources(), &tax.specs),
        Err(_) => Vec::new(),
    }
}
