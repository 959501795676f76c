//! Dockerfiles: every `RUN`, in shell form (run by `SHELL`, `/bin/sh -c`
//! unless changed, continuations and here-documents as the builder reads
//! them) and in exec form (a JSON array of argv words).
//!
//! The builder joins a continued line with the next (dropping the escape
//! character, `\` or the one a `# escape=` directive names) and drops
//! comment lines inside it; the shell then reads the joined text. The
//! snippet keeps every line at its place, so a command after a
//! continuation is still reported at its own line.

use super::{join_argv, shell, Extract, Found, Problem, Snippet};

/// Adds the commands of every `RUN`.
pub(super) fn read(text: &str, out: &mut Extract) {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let escape = escape_char(&lines);
    let mut shell_words: Vec<String> = vec!["/bin/sh".into(), "-c".into()];
    let mut stage: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        let lead = (line.len() - trimmed.len()) as u64;
        let keyword_len = trimmed
            .find(|c: char| c.is_whitespace())
            .unwrap_or(trimmed.len());
        let keyword = trimmed[..keyword_len].to_ascii_uppercase();
        // The instruction's lines: continued while a line ends with the
        // escape character; comment and blank lines inside are dropped.
        let mut parts: Vec<(usize, usize)> = vec![(i, lead as usize + keyword_len)];
        let mut last = i;
        while continues(lines[last], escape) && last + 1 < lines.len() {
            last += 1;
            while last + 1 < lines.len() && {
                let t = lines[last].trim_start();
                t.starts_with('#') || t.is_empty()
            } {
                last += 1;
            }
            parts.push((last, 0));
        }
        let line_no = i as u64 + 1;
        match keyword.as_str() {
            "FROM" => {
                let words: Vec<&str> = trimmed.split_whitespace().collect();
                stage = words
                    .iter()
                    .position(|w| w.eq_ignore_ascii_case("as"))
                    .and_then(|p| words.get(p + 1))
                    .map(|s| s.to_string());
                shell_words = vec!["/bin/sh".into(), "-c".into()];
            }
            "SHELL" => {
                let rest = joined(&lines, &parts, escape);
                match serde_json::from_str::<Vec<String>>(rest.trim()) {
                    Ok(words) if !words.is_empty() => shell_words = words,
                    _ => out.problems.push(Problem {
                        line: line_no,
                        column: lead + 1,
                        message: "`SHELL` is not a JSON array of strings".into(),
                    }),
                }
            }
            "RUN" => {
                let names: Vec<(&'static str, String)> =
                    stage.iter().map(|s| ("stage", s.clone())).collect();
                let heredoc_end = read_run(&lines, &parts, escape, &shell_words, &names, out);
                last = last.max(heredoc_end);
            }
            _ => {}
        }
        i = last + 1;
    }
}

/// The escape character a `# escape=` parser directive names (`\` else).
fn escape_char(lines: &[&str]) -> char {
    for line in lines {
        let Some(directive) = line.trim().strip_prefix('#') else {
            break;
        };
        let Some((key, value)) = directive.split_once('=') else {
            break;
        };
        if key.trim().eq_ignore_ascii_case("escape") {
            return value.trim().chars().next().unwrap_or('\\');
        }
    }
    '\\'
}

/// True when a line ends with the escape character (trailing blanks
/// allowed), which continues the instruction.
fn continues(line: &str, escape: char) -> bool {
    !line.trim_start().starts_with('#') && line.trim_end().ends_with(escape)
}

/// The instruction's text after its keyword, continuations joined.
fn joined(lines: &[&str], parts: &[(usize, usize)], escape: char) -> String {
    let mut s = String::new();
    for &(l, from) in parts {
        let line = lines[l].get(from..).unwrap_or("");
        let line = match continues(line, escape) {
            true => line.trim_end().strip_suffix(escape).unwrap_or(line),
            false => line,
        };
        s.push_str(line);
    }
    s
}

/// Adds the commands of one `RUN`; returns the last line it used (past its
/// here-documents).
fn read_run(
    lines: &[&str],
    parts: &[(usize, usize)],
    escape: char,
    shell_words: &[String],
    names: &[(&'static str, String)],
    out: &mut Extract,
) -> usize {
    let (first, from) = parts[0];
    let mut end = parts.last().map_or(first, |p| p.0);
    let rest = lines[first].get(from..).unwrap_or("");
    // Options before the command: `--mount=…`, `--network=…`.
    let mut skip = rest.len() - rest.trim_start().len();
    loop {
        let word = &rest[skip..];
        if !word.starts_with("--") {
            break;
        }
        let len = word.find(char::is_whitespace).unwrap_or(word.len());
        let after = &word[len..];
        skip += len + (after.len() - after.trim_start().len());
    }
    let start_col = (from + skip) as u64;
    let body = &rest[skip..];
    if body.trim_start().starts_with('[') {
        let json = joined(lines, parts, escape);
        let json = json.get(skip..).unwrap_or_default().trim();
        // Not JSON, the builder runs it in shell form.
        if let Ok(argv) = serde_json::from_str::<Vec<String>>(json) {
            let command = join_argv(&argv);
            out.found.push(Found {
                line: first as u64 + 1,
                column: start_col + 1,
                classify: command.clone(),
                command,
                names: names.to_vec(),
                ..Found::default()
            });
            return end;
        }
    }
    let mut snippet = Snippet::new();
    for (n, &(l, col)) in parts.iter().enumerate() {
        let col = if n == 0 { from + skip } else { col };
        let line = lines[l].get(col..).unwrap_or("");
        let text = if escape != '\\' && continues(line, escape) {
            // The shell continues a line at `\`; the builder's own escape
            // is spelt so, one byte for one.
            let cut = line.trim_end().len() - escape.len_utf8();
            format!("{}\\", &line[..cut])
        } else {
            line.to_string()
        };
        snippet.push(&text, l as u64 + 1, col as u64 + 1);
        snippet.push_implied("\n");
    }
    // Here-documents (BuildKit): their bodies follow the instruction.
    // A body without its delimiter line is no here-document (a `<<` in
    // quotes): nothing after the instruction is taken.
    let mut delimiters = heredoc_delimiters(snippet.text());
    let mut l = end + 1;
    let mut closing = Vec::new();
    for delimiter in &delimiters {
        let found = (l..lines.len()).find(|&k| lines[k].trim_start_matches('\t') == delimiter);
        match found {
            Some(k) => {
                closing.push(k);
                l = k + 1;
            }
            None => break,
        }
    }
    delimiters.truncate(closing.len());
    let mut l = end + 1;
    for &k in &closing {
        while l <= k {
            snippet.push(lines[l], l as u64 + 1, 1);
            snippet.push_implied("\n");
            l += 1;
        }
    }
    if !delimiters.is_empty() {
        end = l - 1;
    }
    // `RUN <<EOF` alone: the body is the script.
    let script = snippet.text().trim_start();
    if script.starts_with("<<") && !delimiters.is_empty() {
        let mut body = Snippet::new();
        let from = parts.last().map_or(first, |p| p.0) + 1;
        for (k, line) in lines.iter().enumerate().take(end).skip(from) {
            body.push(line, k as u64 + 1, 1);
            body.push_implied("\n");
        }
        return run_with(shell_words, &body, names, out, end);
    }
    run_with(shell_words, &snippet, names, out, end)
}

/// Reads `snippet` with the `SHELL` in force.
fn run_with(
    shell_words: &[String],
    snippet: &Snippet,
    names: &[(&'static str, String)],
    out: &mut Extract,
    end: usize,
) -> usize {
    let program = shell_words
        .first()
        .map(|p| {
            p.rsplit(['/', '\\'])
                .next()
                .unwrap_or(p)
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    match program.as_str() {
        "sh" | "bash" | "dash" | "ash" | "zsh" | "ksh" => shell::read(snippet, names, out),
        _ => shell::not_shell(
            snippet,
            names,
            format!("`SHELL` is {program}, not a POSIX shell: the command is not read"),
            out,
        ),
    }
    end
}

/// The delimiters of the here-documents a text opens (`<<EOF`, `<<-"EOF"`).
fn heredoc_delimiters(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<<") {
        let mut after = &rest[at + 2..];
        if let Some(here_string) = after.strip_prefix('<') {
            rest = here_string;
            continue;
        }
        after = after.strip_prefix('-').unwrap_or(after);
        let word: String = after
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '&' | '|' | '>' | '<' | ')'))
            .filter(|c| !matches!(c, '\'' | '"'))
            .collect();
        let name = word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if name {
            out.push(word);
        }
        rest = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    fn found(src: &str) -> Vec<(u64, u64, String, bool)> {
        let e = extract(Kind::Dockerfile, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        e.found
            .into_iter()
            .map(|f| (f.line, f.column, f.command, f.not_shell.is_some()))
            .collect()
    }

    fn t(rows: &[(u64, u64, &str, bool)]) -> Vec<(u64, u64, String, bool)> {
        rows.iter()
            .map(|(l, c, s, n)| (*l, *c, s.to_string(), *n))
            .collect()
    }

    #[test]
    fn run_in_shell_and_exec_form() {
        let src = "\
# syntax=docker/dockerfile:1
FROM debian:12 AS build
RUN apt-get update \\
 # a comment the builder drops
    && apt-get install -y curl \\
    && rm -rf /var/lib/apt/lists/*
RUN --mount=type=cache,target=/root/.cache make -j4
run [\"rm\", \"-rf\", \"/tmp/x y\"]
SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]
RUN curl -fsSL https://example.com/i.sh | bash
COPY . /src
";
        assert_eq!(
            found(src),
            t(&[
                (3, 5, "apt-get update", false),
                (5, 8, "apt-get install -y curl", false),
                (6, 8, "rm -rf /var/lib/apt/lists/*", false),
                (7, 44, "make -j4", false),
                (8, 5, "rm -rf '/tmp/x y'", false),
                (10, 5, "curl -fsSL https://example.com/i.sh | bash", false),
            ])
        );
    }

    #[test]
    fn heredocs_escape_directive_and_other_shells() {
        let src = "\
# escape=`
FROM mcr.microsoft.com/windows AS win
RUN dir `
    c:\\
SHELL [\"powershell\", \"-Command\"]
RUN Remove-Item -Recurse C:\\build
";
        let got = found(src);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[1].0, got[1].1, got[1].3), (6, 5, true));
        // `<<` in quotes opens nothing: the next instruction is read.
        let src = "FROM alpine\nRUN echo \"a <<b\"\nRUN ls\n";
        assert_eq!(
            found(src),
            t(&[(2, 5, "echo \"a <<b\"", false), (3, 5, "ls", false)])
        );
        let src = "FROM alpine\nRUN <<EOF\nset -e\nrm -rf /tmp/cache\nEOF\nRUN cat <<'X' > /etc/motd\nrm -rf / is text\nX\n";
        assert_eq!(
            found(src),
            t(&[
                (3, 1, "set -e", false),
                (4, 1, "rm -rf /tmp/cache", false),
                (6, 5, "cat <<'X' > /etc/motd\nrm -rf / is text\nX\n", false),
            ])
        );
    }
}
