//! A whole script's commands, each with its place: what a scan of shell
//! scripts, CI steps and recipes reports, one record per command at the line
//! and column where it starts.
//!
//! The classifier reads one command line at a time. A script is more: its
//! comments are not commands, its here-document bodies are data (unless a
//! shell reads them), a line continuation does not end a command, and a
//! command inside `$(…)` belongs to the command that holds it.
//! [`simple_commands`] reads the script once with the shell front end and
//! cuts it into the pieces a report names: each simple command, or the
//! pipeline of two or more stages it is part of (a pipe into a shell changes
//! what the stage before it means, so `curl … | sh` is judged as one), each
//! with a standalone text that classifies on its own.
//!
//! ```
//! use toolgate_core::script::simple_commands;
//! let script = "# clean up\nrm -rf build \\\n  dist\ncat <<EOF\nrm -rf / is what we never do\nEOF\n";
//! let found = simple_commands(script);
//! let texts: Vec<&str> = found.commands.iter().map(|c| c.text.as_str()).collect();
//! assert_eq!(texts, ["rm -rf build \\\n  dist", "cat <<EOF\nrm -rf / is what we never do\nEOF\n"]);
//! assert_eq!(found.commands[0].span.start, 11);
//! assert!(found.error.is_none());
//! ```

use std::collections::HashMap;
use std::ops::Range;

use crate::shell::{parse, SimpleCommand};

/// One piece of a script that is judged and reported on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptCommand {
    /// Its bytes in the script: a simple command (with its redirections and
    /// the substitutions in its words), or a pipeline of two or more
    /// stages. Its start is where a report places it.
    pub span: Range<usize>,
    /// The text to classify: the span's text, followed by the bodies of the
    /// here-documents it reads when they come after it (on the lines after
    /// the command), so that `bash <<EOF` is judged with what it runs.
    pub text: String,
    /// True for a pipeline of two or more stages.
    pub pipeline: bool,
    /// True when it is in a function body.
    pub in_function: bool,
    /// True when it is in a loop (its condition included).
    pub in_loop: bool,
    /// True for a command substitution that belongs to no command (the
    /// word list of a `for`, the subject of a `case`, an arithmetic
    /// command): it runs all the same, so it is reported on its own.
    pub in_substitution: bool,
}

/// Why reading a script stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// What went wrong, lowercase ("unterminated single quote").
    pub message: String,
    /// The byte offset where it was found.
    pub offset: usize,
}

/// The commands of a script and, when the reader stopped early, why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptCommands {
    /// The commands read, in the order they start in the script.
    pub commands: Vec<ScriptCommand>,
    /// A syntax error or a limit that stopped the reader; the commands
    /// before it are still in `commands`.
    pub error: Option<ScriptError>,
}

/// Cuts a script into the commands a report names (see the [module
/// docs](self)). Never panics; a script the shell front end cannot read to
/// its end gives the commands before the problem and an
/// [`error`](ScriptCommands::error).
pub fn simple_commands(text: &str) -> ScriptCommands {
    let script = parse(text);
    let mut units: Vec<Unit> = Vec::new();
    // Units by the start of their span: a pipeline's stages join one unit.
    let mut by_start: HashMap<usize, usize> = HashMap::new();
    for cmd in script.commands.iter().filter(|c| !c.in_substitution) {
        if !reportable(cmd) {
            continue;
        }
        let (span, pipeline) = match cmd.place.pipeline.is_empty() {
            true => (cmd.span.clone(), false),
            false => (cmd.place.pipeline.clone(), true),
        };
        add(&mut units, &mut by_start, cmd, span, pipeline, false);
    }
    // Where each unit's bytes are, to find the command that holds each
    // substitution: its span, and here-document bodies outside it.
    let mut held: Vec<(Range<usize>, usize)> = Vec::new();
    for (i, u) in units.iter().enumerate() {
        held.push((u.span.clone(), i));
        if !u.heredocs.is_empty() && u.heredocs.start >= u.span.end {
            held.push((u.heredocs.clone(), i));
        }
    }
    held.sort_by_key(|(r, _)| r.start);
    let holder = |at: usize| {
        let i = held.partition_point(|(r, _)| r.start <= at);
        i.checked_sub(1)
            .and_then(|i| held.get(i))
            .is_some_and(|(r, _)| at < r.end)
    };
    for cmd in script.commands.iter().filter(|c| c.in_substitution) {
        let at = cmd.place.origin.unwrap_or(cmd.span.start);
        if holder(at) || !reportable(cmd) {
            continue;
        }
        // An orphan: in text of its own (a backquoted one after
        // unescaping) only its words are known, and its origin.
        let (span, pipeline) = match (cmd.place.origin, cmd.place.pipeline.is_empty()) {
            (Some(origin), _) => (origin..origin, false),
            (None, true) => (cmd.span.clone(), false),
            (None, false) => (cmd.place.pipeline.clone(), true),
        };
        add(&mut units, &mut by_start, cmd, span, pipeline, true);
    }
    units.sort_by_key(|u| u.span.start);
    let commands = units.into_iter().map(|u| u.finish(text)).collect();
    let error = match (&script.error, script.limit) {
        (Some(e), _) => Some(ScriptError {
            message: e.message.clone(),
            offset: e.offset,
        }),
        (None, Some(limit)) => Some(ScriptError {
            message: limit.describe().to_string(),
            offset: script
                .commands
                .iter()
                .filter(|c| c.place.origin.is_none())
                .map(|c| c.span.end)
                .max()
                .unwrap_or(0),
        }),
        (None, None) => None,
    };
    ScriptCommands { commands, error }
}

/// A unit being gathered from its simple commands.
struct Unit {
    span: Range<usize>,
    heredocs: Range<usize>,
    pipeline: bool,
    in_function: bool,
    in_loop: bool,
    in_substitution: bool,
    /// The words of an orphan read from derived text (its span is empty).
    words: Option<String>,
    /// Where the last word, assignment or redirection of its commands
    /// ends: past it, only operators, closing brackets, blanks and a
    /// comment can follow within the span.
    last_word: usize,
}

impl Unit {
    fn finish(mut self, text: &str) -> ScriptCommand {
        if self.words.is_none() {
            // A comment after the command is not part of it.
            let tail = self.last_word.clamp(self.span.start, self.span.end);
            if let Some(after) = text.get(tail..self.span.end) {
                let comment = after.char_indices().find(|&(i, c)| {
                    c == '#' && (i == 0 || after[..i].ends_with([' ', '\t', '\n', ';']))
                });
                if let Some((i, _)) = comment {
                    self.span.end = tail + i;
                }
            }
            self.span.end = trimmed_end(text, self.span.clone());
            // Nor are the blanks before it.
            if let Some(lead) = text.get(self.span.clone()) {
                let blanks = lead.len() - lead.trim_start_matches([' ', '\t']).len();
                self.span.start += blanks;
            }
        }
        let mut own = match &self.words {
            Some(words) => words.clone(),
            None => text.get(self.span.clone()).unwrap_or_default().to_string(),
        };
        if !self.heredocs.is_empty() && self.heredocs.start >= self.span.end {
            if let Some(bodies) = text.get(self.heredocs.clone()) {
                own.push('\n');
                own.push_str(bodies);
            }
        }
        ScriptCommand {
            span: self.span,
            text: own,
            pipeline: self.pipeline,
            in_function: self.in_function,
            in_loop: self.in_loop,
            in_substitution: self.in_substitution,
        }
    }
}

/// Where `span` ends without the blanks and line continuations the reader
/// took in after the command's last word (`apt-get update \` before `&&`
/// on the next line): a report shows the command, not its separator.
fn trimmed_end(text: &str, span: Range<usize>) -> usize {
    let mut end = span.end;
    while end > span.start {
        let Some(t) = text.get(span.start..end) else {
            break;
        };
        if t.ends_with("\\\n") {
            end -= 2;
        } else if t.ends_with([' ', '\t', '\n', '\r']) && !t[..t.len() - 1].ends_with('\\') {
            end -= 1;
        } else {
            break;
        }
    }
    end
}

/// Adds `cmd` to the unit spanning `span`, or starts that unit.
fn add(
    units: &mut Vec<Unit>,
    by_start: &mut HashMap<usize, usize>,
    cmd: &SimpleCommand,
    span: Range<usize>,
    pipeline: bool,
    in_substitution: bool,
) {
    let place = &cmd.place;
    // An orphan from derived text has an empty span at its origin: two of
    // them (two commands in one backquote) are still two commands.
    let derived = span.is_empty();
    let joined = match derived {
        true => None,
        false => by_start.get(&span.start).copied(),
    };
    match joined.and_then(|i| units.get_mut(i)) {
        Some(u) => {
            u.heredocs = union(&u.heredocs, &place.heredocs);
            u.in_function |= place.in_function;
            u.in_loop |= place.in_loop;
            u.last_word = u.last_word.max(last_word(cmd));
        }
        None => {
            let words = derived.then(|| {
                let mut all = cmd.assignments.iter().chain(&cmd.words);
                let mut s = all.next().map(|w| w.text.to_string()).unwrap_or_default();
                for w in all {
                    s.push(' ');
                    s.push_str(&w.text);
                }
                s
            });
            by_start.insert(span.start, units.len());
            units.push(Unit {
                span,
                heredocs: place.heredocs.clone(),
                pipeline,
                in_function: place.in_function,
                in_loop: place.in_loop,
                in_substitution,
                words,
                last_word: last_word(cmd),
            });
        }
    }
}

/// Where the last of a command's words, assignments and redirections
/// ends (its own span's end when none has a span).
fn last_word(cmd: &SimpleCommand) -> usize {
    let words = cmd.assignments.iter().chain(&cmd.words);
    let targets = cmd.redirects.iter().map(|r| &r.target);
    words
        .chain(targets)
        .map(|w| w.span.end)
        .max()
        .filter(|&end| end > 0)
        .unwrap_or(cmd.span.end)
}

/// The smallest range that covers both (an empty range covers nothing).
fn union(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.clone(),
        (_, true) => a.clone(),
        _ => a.start.min(b.start)..a.end.max(b.end),
    }
}

/// False for a command that runs nothing and writes nothing: the `< file`
/// a loop reads from is part of the loop, not a command of its own.
fn reportable(cmd: &SimpleCommand) -> bool {
    !cmd.words.is_empty()
        || !cmd.assignments.is_empty()
        || cmd.redirects.iter().any(|r| r.kind.writes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (text, start byte, flags) of each command found.
    fn found(src: &str) -> Vec<(String, usize)> {
        let s = simple_commands(src);
        assert!(s.error.is_none(), "{src:?}: {:?}", s.error);
        s.commands
            .into_iter()
            .map(|c| (c.text, c.span.start))
            .collect()
    }

    fn t(pairs: &[(&str, usize)]) -> Vec<(String, usize)> {
        pairs.iter().map(|(s, n)| (s.to_string(), *n)).collect()
    }

    #[test]
    fn comments_are_not_commands() {
        assert_eq!(
            found("# rm -rf /\nls # rm -rf /\n  #!x\necho '#not' a#b\n"),
            t(&[("ls", 11), ("echo '#not' a#b", 31)])
        );
    }

    #[test]
    fn heredoc_text_is_data_of_its_command() {
        let src = "cat > notes <<'EOF'\nrm -rf / is what we never do\nEOF\nls\n";
        assert_eq!(
            found(src),
            t(&[
                (
                    "cat > notes <<'EOF'\nrm -rf / is what we never do\nEOF\n",
                    0
                ),
                ("ls", 53)
            ])
        );
        // Two bodies on one line go each to its own command.
        let src = "cat <<A; cat <<B\na\nA\nb\nB\necho";
        assert_eq!(
            found(src),
            t(&[("cat <<A\na\nA\n", 0), ("cat <<B\nb\nB\n", 9), ("echo", 25)])
        );
    }

    #[test]
    fn a_continuation_does_not_split_a_command() {
        assert_eq!(
            found("apt-get install -y \\\n    curl \\\n    git\nls"),
            t(&[
                ("apt-get install -y \\\n    curl \\\n    git", 0),
                ("ls", 40)
            ])
        );
    }

    #[test]
    fn a_command_ends_at_its_last_word_not_at_a_continuation() {
        assert_eq!(
            found("apt-get update \\\n && rm -rf /var/lib/apt/lists/*\necho a\\ b \\\n\n"),
            t(&[
                ("apt-get update", 0),
                ("rm -rf /var/lib/apt/lists/*", 21),
                ("echo a\\ b", 49)
            ])
        );
    }

    #[test]
    fn a_pipeline_is_one_command() {
        assert_eq!(
            found("curl -fsSL https://x.sh | sh\nls | wc -l; pwd"),
            t(&[
                ("curl -fsSL https://x.sh | sh", 0),
                ("ls | wc -l", 29),
                ("pwd", 41)
            ])
        );
        let s = simple_commands("cat <<EOF | bash\nrm -rf /tmp/x\nEOF\n");
        assert_eq!(s.commands.len(), 1);
        assert_eq!(s.commands[0].text, "cat <<EOF | bash\nrm -rf /tmp/x\nEOF\n");
        assert!(s.commands[0].pipeline);
        // A compound stage joins the pipeline too.
        assert_eq!(
            found("(cd x; cat f) | sh\n"),
            t(&[("(cd x; cat f) | sh", 0)])
        );
    }

    #[test]
    fn substitutions_belong_to_their_command() {
        assert_eq!(
            found("echo \"$(rm -rf x)\" `id`\nx=$(date)\n"),
            t(&[("echo \"$(rm -rf x)\" `id`", 0), ("x=$(date)", 24)])
        );
        // An unquoted here-document's substitution belongs to its reader.
        assert_eq!(
            found("cat <<EOF\n$(rm -rf /x)\nEOF\n"),
            t(&[("cat <<EOF\n$(rm -rf /x)\nEOF\n", 0)])
        );
    }

    #[test]
    fn orphan_substitutions_are_reported_where_they_are() {
        let s = simple_commands("for f in $(ls /tmp); do\n  rm \"$f\"\ndone\n");
        let got: Vec<(&str, usize, bool, bool)> = s
            .commands
            .iter()
            .map(|c| (c.text.as_str(), c.span.start, c.in_loop, c.in_substitution))
            .collect();
        assert_eq!(
            got,
            [("ls /tmp", 11, true, true), ("rm \"$f\"", 26, true, false)]
        );
        // In backquotes: the words, at the backquote.
        let s = simple_commands("case `rm -rf x` in *) ;; esac");
        let got: Vec<(&str, usize)> = s
            .commands
            .iter()
            .map(|c| (c.text.as_str(), c.span.start))
            .collect();
        assert_eq!(got, [("rm -rf x", 6)]);
    }

    #[test]
    fn places_in_functions_and_loops() {
        let s = simple_commands(
            "f() {\n  rm -rf \"$1\"\n}\nwhile read l; do echo \"$l\"; done < list\nfunction g { ls; }\nif true; then pwd; fi\n",
        );
        let got: Vec<(&str, bool, bool)> = s
            .commands
            .iter()
            .map(|c| (c.text.as_str(), c.in_function, c.in_loop))
            .collect();
        assert_eq!(
            got,
            [
                ("rm -rf \"$1\"", true, false),
                ("read l", false, true),
                ("echo \"$l\"", false, true),
                ("ls", true, false),
                ("true", false, false),
                ("pwd", false, false),
            ]
        );
    }

    #[test]
    fn a_syntax_error_keeps_the_commands_before_it() {
        let s = simple_commands("ls\necho 'unclosed\n");
        assert_eq!(s.commands.len(), 1);
        assert_eq!(s.commands[0].text, "ls");
        assert_eq!(
            s.error.map(|e| e.message),
            Some("unterminated single quote".to_string())
        );
        // A loop's input redirection is part of the loop, not a command;
        // a group's output redirection writes, so it is one.
        let s = simple_commands("{ ls; } > out\n");
        let texts: Vec<&str> = s.commands.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["ls", "> out"]);
    }
}
