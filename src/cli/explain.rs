//! `toolgate explain`: why a command got its label, for a person.

use std::io::Write;

use toolgate::Classifier;

use super::Format;

/// Runs `explain`.
pub fn run(
    classifier: &Classifier,
    format: Format,
    command: &str,
    ctx: &toolgate::Context<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let a = classifier.analyze_in(command, ctx);
    if format == Format::Json {
        serde_json::to_writer_pretty(&mut *out, &a)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "command: {command}")?;
    writeln!(out, "label:   {}", super::classify::label_text(&a.label))?;
    if let Some(cwd) = ctx.cwd {
        writeln!(out, "cwd:     {cwd}")?;
    }
    writeln!(out)?;
    writeln!(out, "commands found ({}):", a.commands.len())?;
    for (i, c) in a.commands.iter().enumerate() {
        let indent = "  ".repeat(c.depth + 1);
        let mut line = format!("{indent}{}. {}", i + 1, c.command);
        if let Some([start, end]) = c.span {
            line.push_str(&format!("   [bytes {start}..{end}]"));
        }
        writeln!(out, "{line}")?;
        if let Some(via) = &c.via {
            writeln!(out, "{indent}   run by: {via}")?;
        }
        if !c.wrappers.is_empty() {
            writeln!(out, "{indent}   wrappers peeled: {}", c.wrappers.join(", "))?;
        }
        writeln!(out, "{indent}   tokens: {}", c.canonical)?;
        for id in &c.destructive {
            if let Some(rule) = classifier.taxonomy().rule(id) {
                writeln!(
                    out,
                    "{indent}   destructive: {id} ({}, {}) {}:{}",
                    rule.category, rule.blast_radius, rule.file, rule.line
                )?;
            }
        }
        for spec in &c.safe {
            writeln!(out, "{indent}   explained by spec: {spec}")?;
        }
    }
    let other: Vec<_> = a
        .findings
        .iter()
        .filter(|f| !a.commands.iter().any(|c| c.destructive.contains(&f.rule)))
        .collect();
    if !other.is_empty() {
        writeln!(out)?;
        writeln!(out, "SQL and code findings:")?;
        for f in other {
            writeln!(
                out,
                "  {} ({}, {}) in: {}",
                f.rule, f.category, f.blast_radius, f.matched
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "verdict:")?;
    if let Some(worst) = a
        .findings
        .iter()
        .find(|f| f.category == a.label.category && f.blast_radius == a.label.blast_radius)
    {
        writeln!(
            out,
            "  destructive: `{}` matched; the worst blast radius wins ({})",
            worst.rule, worst.blast_radius
        )?;
    } else if a.not_safe.is_empty() {
        writeln!(
            out,
            "  safe: one plain command, every word explained by its spec"
        )?;
    }
    for why in &a.not_safe {
        writeln!(out, "  not safe: {why}")?;
    }
    if a.every_part_safe {
        writeln!(
            out,
            "  every part safe: each command of this list or pipeline is safe on its own \
             (the guard mode, or a gate with compound = every-part-safe, lets it through)"
        )?;
    }
    // An allow rule grants one plain command only, so only then is there
    // a rule to name; a list or pipeline gets what to do instead.
    if a.label.class == toolgate::Class::Unknown && !command.contains('\n') {
        if a.commands.len() == 1 {
            writeln!(out)?;
            writeln!(
                out,
                "to allow it: {} (the guard mode leaves it to your client's own permissions; balanced and strict ask for it)",
                toolgate::rule_line::allow_line(command)
            )?;
        } else if let Some(advice) = (!a.every_part_safe)
            .then(|| toolgate::hook::compound_advice(classifier, command, ctx))
            .flatten()
        {
            writeln!(out)?;
            writeln!(out, "to allow it: {advice}")?;
        }
    }
    Ok(())
}
