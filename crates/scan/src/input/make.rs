//! Makefiles: every recipe line, under the target it belongs to.
//!
//! make runs each logical recipe line (continued with `\`) in its own
//! shell, after taking off the line's `@`, `-` and `+` prefixes and
//! expanding its own variables: `$(VAR)`, `${VAR}` and `$@`-style
//! automatic variables are filled in by make before the shell reads the
//! line, so each is a placeholder the classifier cannot know (see
//! [`Snippet`]), and `$$` is one `$` for the shell.

use super::{shell, Extract, Snippet};

/// Adds the commands of every recipe line.
pub(super) fn read(text: &str, out: &mut Extract) {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut target: Option<String> = None;
    let mut in_define = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let first = line.trim_start();
        if in_define {
            in_define = !first.starts_with("endef");
            i += 1;
            continue;
        }
        if let Some(recipe) = line.strip_prefix('\t').filter(|_| target.is_some()) {
            let names = vec![("target", target.clone().unwrap_or_default())];
            i = read_recipe(&lines, i, recipe, 1, &names, out);
            continue;
        }
        if first.is_empty() || first.starts_with('#') {
            i += 1;
            continue;
        }
        if first.starts_with("define ") || first == "define" {
            in_define = true;
            target = None;
            i += 1;
            continue;
        }
        target = rule_target(line);
        // `target: prerequisites ; recipe`
        if let (Some(name), Some(semi)) = (&target, line.find(';')) {
            let names = vec![("target", name.clone())];
            let recipe = &line[semi + 1..];
            i = read_recipe(&lines, i, recipe, (semi + 1) as u64, &names, out);
            continue;
        }
        i += 1;
    }
}

/// The first target of a rule line, or `None` for anything else (an
/// assignment, a directive).
fn rule_target(line: &str) -> Option<String> {
    let colon = line.find(':')?;
    let before = &line[..colon];
    let after = &line[colon..];
    // `VAR := x`, `VAR ::= x`, `VAR = a:b`.
    if after.starts_with(":=") || after.starts_with("::=") || before.contains('=') {
        return None;
    }
    let first = before.split_whitespace().next()?;
    let directive = [
        "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "export",
    ];
    (!directive.contains(&first)).then(|| first.to_string())
}

/// Reads one logical recipe line that starts at `lines[i]` with `recipe`
/// (the text after the tab, at `column` - 1 bytes in); returns the index of
/// the line after it.
fn read_recipe(
    lines: &[&str],
    mut i: usize,
    recipe: &str,
    column: u64,
    names: &[(&'static str, String)],
    out: &mut Extract,
) -> usize {
    let mut snippet = Snippet::new();
    let mut text = recipe;
    let mut col = column;
    // The prefixes of the first line.
    let lead = text.len() - text.trim_start_matches([' ', '@', '-', '+']).len();
    col += lead as u64;
    text = &text[lead..];
    loop {
        push_make_text(&mut snippet, text, i as u64 + 1, col + 1);
        i += 1;
        if !text.trim_end().ends_with('\\') || i >= lines.len() {
            break;
        }
        snippet.push_implied("\n");
        // A continuation line loses its leading tab, nothing else.
        let next = lines[i];
        let (t, c) = match next.strip_prefix('\t') {
            Some(t) => (t, 1),
            None => (next, 0),
        };
        text = t;
        col = c;
    }
    shell::read(&snippet, names, out);
    i
}

/// Appends recipe text: `$$` as `$`, each make expansion a placeholder.
fn push_make_text(snippet: &mut Snippet, text: &str, line: u64, column: u64) {
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut i = 0;
    let col_at = |i: usize| column + text[..i].chars().count() as u64;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        snippet.push(&text[run..i], line, col_at(run));
        let end = match bytes.get(i + 1) {
            Some(b'$') => {
                snippet.push("$", line, col_at(i));
                i + 2
            }
            Some(&open @ (b'(' | b'{')) => {
                let close = if open == b'(' { b')' } else { b'}' };
                let mut depth = 0;
                let mut j = i + 1;
                while j < bytes.len() {
                    if bytes[j] == open {
                        depth += 1;
                    } else if bytes[j] == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    j += 1;
                }
                let end = (j + 1).min(bytes.len());
                snippet.push_substituted(&text[i..end], line, col_at(i));
                end
            }
            Some(_) => {
                let end = i + 1 + text[i + 1..].chars().next().map_or(0, char::len_utf8);
                snippet.push_substituted(&text[i..end], line, col_at(i));
                end
            }
            None => {
                snippet.push("$", line, col_at(i));
                i + 1
            }
        };
        i = end;
        run = end;
    }
    snippet.push(&text[run..], line, col_at(run));
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    #[test]
    fn recipes_at_their_lines_and_columns() {
        let src = "\
CC := gcc
OUT = build
.PHONY: all clean
# rm -rf / in a comment
all: main.o
\t$(CC) -o app main.o
clean:
\t@echo cleaning
\t-rm -rf $(OUT) \\
\t\tdist
\tfor f in *.tmp; do rm \"$$f\"; done
install: all ; cp app /usr/local/bin/
define HELP
\trm -rf everything
endef
";
        let e = extract(Kind::Makefile, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        let got: Vec<(u64, u64, String, String, bool)> = e
            .found
            .into_iter()
            .map(|f| {
                (
                    f.line,
                    f.column,
                    f.names[0].1.clone(),
                    f.command,
                    f.substituted,
                )
            })
            .collect();
        let want = [
            (6, 2, "all", "$(CC) -o app main.o", true),
            (8, 3, "clean", "echo cleaning", false),
            (9, 3, "clean", "rm -rf $(OUT) \\\n\tdist", true),
            (11, 21, "clean", "rm \"$f\"", false),
            (12, 16, "install", "cp app /usr/local/bin/", false),
        ];
        let want: Vec<(u64, u64, String, String, bool)> = want
            .iter()
            .map(|(l, c, t, s, b)| (*l, *c, t.to_string(), s.to_string(), *b))
            .collect();
        assert_eq!(got, want);
    }
}
