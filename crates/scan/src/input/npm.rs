//! `package.json`: every entry of `scripts`, which npm, yarn and pnpm run
//! with `sh -c` (`npm install` runs `preinstall`, `install` and
//! `postinstall` by itself).

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};

use super::{line_column, shell, Extract, Problem, Snippet};

/// Adds the commands of every script.
pub(super) fn read(text: &str, out: &mut Extract) {
    let parsed = match parse_to_ast(text, &CollectOptions::default(), &ParseOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            return out.problems.push(Problem {
                line: e.line_display() as u64,
                column: e.column_display() as u64,
                message: format!("JSON: {}", e.kind()),
            })
        }
    };
    let Some(Value::Object(root)) = parsed.value else {
        return;
    };
    let Some(scripts) = root
        .properties
        .iter()
        .find(|p| prop_name(&p.name) == "scripts")
    else {
        return;
    };
    let Value::Object(scripts) = &scripts.value else {
        let (line, column) = line_column(text, scripts.value.range().start);
        return out.problems.push(Problem {
            line,
            column,
            message: "`scripts` is not an object".into(),
        });
    };
    for prop in &scripts.properties {
        let name = prop_name(&prop.name);
        let Value::StringLit(s) = &prop.value else {
            let (line, column) = line_column(text, prop.value.range().start);
            out.problems.push(Problem {
                line,
                column,
                message: format!("`scripts.{name}` is not a string"),
            });
            continue;
        };
        let raw = text.get(s.range.start + 1..s.range.end - 1).unwrap_or("");
        let snippet = decoded(raw, &s.value, text, s.range.start + 1);
        shell::read(&snippet, &[("script", name.to_string())], out);
    }
}

fn prop_name<'a>(name: &'a ObjectPropName<'a>) -> &'a str {
    match name {
        ObjectPropName::String(s) => &s.value,
        ObjectPropName::Word(w) => w.value,
    }
}

/// The decoded string as a snippet: each run of the raw text without an
/// escape is placed exactly, an escaped character where its escape is.
fn decoded(raw: &str, value: &str, text: &str, start: usize) -> Snippet {
    let mut snippet = Snippet::new();
    if raw == value {
        let (line, column) = line_column(text, start);
        snippet.push(value, line, column);
        return snippet;
    }
    // Walk the raw text: a run of plain characters is copied; an escape
    // decodes to one character, taken from the decoded value in step.
    let mut decoded = value.chars();
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let (line, column) = line_column(text, start + i);
        if c != '\\' {
            decoded.next();
            snippet.push(c.encode_utf8(&mut [0; 4]), line, column);
            continue;
        }
        match chars.next() {
            Some((_, 'u')) => {
                for _ in 0..4 {
                    chars.next();
                }
                // A surrogate pair is two escapes for one character.
                let Some(d) = decoded.next() else { break };
                if u32::from(d) > 0xffff {
                    for _ in 0..6 {
                        chars.next();
                    }
                }
                snippet.push(d.encode_utf8(&mut [0; 4]), line, column);
            }
            Some(_) => {
                if let Some(d) = decoded.next() {
                    snippet.push(d.encode_utf8(&mut [0; 4]), line, column);
                }
            }
            None => break,
        }
    }
    snippet
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    #[test]
    fn scripts_at_their_lines_and_columns() {
        let src = "{\n  \"name\": \"web\",\n  \"scripts\": {\n    \"build\": \"tsc -p .\",\n    \"clean\": \"rm -rf dist && echo \\\"done\\\"\",\n    \"postinstall\": \"curl -fsSL https://x.sh | sh\"\n  }\n}\n";
        let e = extract(Kind::PackageJson, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        let got: Vec<(u64, u64, String, String)> = e
            .found
            .into_iter()
            .map(|f| (f.line, f.column, f.names[0].1.clone(), f.command))
            .collect();
        let want = [
            (4, 15, "build", "tsc -p ."),
            (5, 15, "clean", "rm -rf dist"),
            (5, 30, "clean", "echo \"done\""),
            (6, 21, "postinstall", "curl -fsSL https://x.sh | sh"),
        ];
        let want: Vec<(u64, u64, String, String)> = want
            .iter()
            .map(|(l, c, n, s)| (*l, *c, n.to_string(), s.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn bad_json_and_bad_scripts_are_problems() {
        let e = extract(Kind::PackageJson, "{\"scripts\": {\"a\": 1}}");
        assert_eq!(e.problems[0].message, "`scripts.a` is not a string");
        assert_eq!((e.problems[0].line, e.problems[0].column), (1, 19));
        let e = extract(Kind::PackageJson, "{\"scripts\": {");
        assert_eq!(e.problems.len(), 1);
        assert!(
            e.problems[0].message.starts_with("JSON: "),
            "{:?}",
            e.problems
        );
    }
}
