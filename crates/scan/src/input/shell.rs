//! Shell text, read whole by the shell front end: one command found per
//! simple command (or pipeline) at the place it starts.

use toolgate_core::script::simple_commands;

use super::{Extract, Found, Problem, Snippet};

/// Adds the commands of `snippet` to `out`, each with `names`; a syntax
/// error is a problem at the place the front end stopped.
pub(super) fn read(snippet: &Snippet, names: &[(&'static str, String)], out: &mut Extract) {
    let script = simple_commands(snippet.text());
    for cmd in script.commands {
        let (line, column) = snippet.position(cmd.span.start);
        out.found.push(Found {
            line,
            column,
            command: snippet.original(&cmd.text),
            substituted: snippet.substituted(&cmd.text),
            classify: cmd.text,
            cwd: None,
            names: names.to_vec(),
            not_shell: None,
        });
    }
    if let Some(e) = script.error {
        let (line, column) = snippet.position(e.offset);
        out.problems.push(Problem {
            line,
            column,
            message: format!("shell syntax: {}", e.message),
        });
    }
}

/// Adds one command for a script that no POSIX shell reads (`shell: pwsh`),
/// labelled unknown for `why`.
pub(super) fn not_shell(
    snippet: &Snippet,
    names: &[(&'static str, String)],
    why: String,
    out: &mut Extract,
) {
    let text = snippet.text().trim_end();
    let lead = text.len() - text.trim_start().len();
    let (line, column) = snippet.position(lead);
    out.found.push(Found {
        line,
        column,
        command: snippet.original(text.trim_start()),
        classify: text.trim_start().to_string(),
        cwd: None,
        names: names.to_vec(),
        substituted: snippet.substituted(text),
        not_shell: Some(why),
    });
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    /// (line, column, command) of each command of a shell script.
    fn found(src: &str) -> Vec<(u64, u64, String)> {
        let e = extract(Kind::Shell, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        e.found
            .into_iter()
            .map(|f| (f.line, f.column, f.command))
            .collect()
    }

    fn t(rows: &[(u64, u64, &str)]) -> Vec<(u64, u64, String)> {
        rows.iter()
            .map(|(l, c, s)| (*l, *c, s.to_string()))
            .collect()
    }

    #[test]
    fn a_script_is_read_whole_with_lines_and_columns() {
        let src = "#!/bin/sh\n\
                   # rm -rf / would be bad\n\
                   set -eu\n\
                   cat > notes.txt <<'EOF'\n\
                   rm -rf / is what we never do\n\
                   EOF\n\
                   apt-get install -y \\\n    curl \\\n    git\n\
                   clean() {\n  rm -rf \"$1\"/build\n}\n\
                   case \"$1\" in\n  all) clean . ;;\nesac\n\
                   for d in a b; do echo \"$d\"; done\n";
        assert_eq!(
            found(src),
            t(&[
                (3, 1, "set -eu"),
                (
                    4,
                    1,
                    "cat > notes.txt <<'EOF'\nrm -rf / is what we never do\nEOF\n"
                ),
                (7, 1, "apt-get install -y \\\n    curl \\\n    git"),
                (11, 3, "rm -rf \"$1\"/build"),
                (14, 8, "clean ."),
                (16, 18, "echo \"$d\""),
            ])
        );
    }

    #[test]
    fn a_syntax_error_is_a_problem_where_it_is() {
        let e = extract(Kind::Shell, "ls\n  echo 'open\n");
        assert_eq!(e.found.len(), 1);
        assert_eq!(e.problems.len(), 1);
        assert_eq!((e.problems[0].line, e.problems[0].column), (2, 9));
        assert!(
            e.problems[0].message.starts_with("shell syntax: "),
            "{:?}",
            e.problems
        );
    }
}
