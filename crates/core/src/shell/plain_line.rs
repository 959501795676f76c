//! The commonest script of all, one command of plain words (`git status`,
//! `ls -la /tmp`: seven corpus lines in ten), read without the grammar.
//!
//! A line qualifies only when every byte is one a word made of it means
//! literally, or a blank, or a later word is wholly in quotes with nothing
//! in them the shell would expand (`git commit -m "fix it"`), and its first
//! word is not one the grammar must see: a reserved word, an assignment or
//! a comment. Anything else goes to the full reader, which gives the same
//! result for these lines (a property test and the corpus tests compare the
//! two).

use super::bytes::PLAIN_RUN;
use super::line_masks::LineMasks;
use super::syntax::{Place, Script, SimpleCommand, Word};

/// Words that start a compound command or a pipeline prefix, or end a
/// list, when they come first.
const RESERVED: &[&str] = &[
    "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in",
    "select", "then", "time", "until", "while",
];

/// How many bytes of quoted text precede the closing `quote`, when none of
/// them is one the shell treats specially there (in double quotes: `$`, a
/// backquote or a backslash) or a control byte, which the full reader
/// handles.
fn quoted_len(rest: &[u8], quote: u8) -> Option<usize> {
    let len = rest.iter().position(|&b| b == quote)?;
    let special = |b: u8| b < 0x20 || (quote == b'"' && matches!(b, b'$' | b'`' | b'\\'));
    (!rest[..len].iter().any(|&b| special(b))).then_some(len)
}

/// The script of a line of plain words, or `None` when the line needs the
/// full reader.
#[cfg(test)]
pub(super) fn plain_line(text: &str) -> Option<Script> {
    let mut script = Script::default();
    plain_line_into(text, LineMasks::of(text.as_bytes()), &mut script).then_some(script)
}

/// Reads a line of plain words into `script`, reusing its buffers, and
/// says whether the line was one. When it was not, `script` holds a part of
/// it and the caller reads the line again with the full reader.
/// `masks` are the line's ([`LineMasks::of`]).
pub(super) fn plain_line_into(text: &str, masks: Option<LineMasks>, script: &mut Script) -> bool {
    if let Some(m) = &masks {
        // The first byte that is neither plain nor a blank: the loop below
        // would stop there unless it is a quote.
        let other = m.other();
        if other != 0 && m.quote & (1 << other.trailing_zeros()) == 0 {
            return false;
        }
    }
    // One command with no words yet, keeping the buffer of the words
    // before it (the commonest line allocates nothing).
    script.commands.truncate(1);
    if script.commands.is_empty() {
        script.commands.reserve_exact(1);
        script.commands.push(SimpleCommand::default());
    }
    script.compound = false;
    script.structured = false;
    script.error = None;
    script.limit = None;
    let cmd = &mut script.commands[0];
    let mut words = std::mem::take(&mut cmd.words);
    words.clear();
    words.reserve(8);
    // Every other field as a new command has it, set in place (building a
    // new command dropped the old one field by field); naming each field
    // keeps a field added later from being forgotten here.
    let SimpleCommand {
        assignments,
        words: _,
        redirects,
        stdin,
        pipeline,
        stage,
        in_substitution,
        upstream,
        span,
        place,
    } = cmd;
    assignments.clear();
    redirects.clear();
    *stdin = None;
    // The reader numbers pipelines from 1.
    *pipeline = 1;
    *stage = 0;
    *in_substitution = false;
    *upstream = None;
    *span = 0..0;
    *place = Place::default();
    let plain = match masks.filter(|m| m.other() == 0) {
        Some(m) => plain_words(text, m, &mut words),
        None => plain_or_quoted_words(text, &mut words),
    };
    let plain = plain
        && words
            .first()
            .is_some_and(|first| !RESERVED.contains(&first.text.as_str()));
    if let (true, Some(first), Some(last)) = (plain, words.first(), words.last()) {
        cmd.span = first.span.start..last.span.end;
    }
    cmd.words = words;
    plain
}

/// The words of a line of plain bytes and blanks, cut at the blanks; false
/// when the first word is an assignment or a word starts a comment.
fn plain_words(text: &str, masks: LineMasks, words: &mut Vec<Word>) -> bool {
    let src = text.as_bytes();
    // Plain bytes not yet in a word.
    let mut rest = masks.plain;
    while rest != 0 {
        let start = rest.trailing_zeros() as usize;
        let end = start + (!(rest >> start)).trailing_zeros() as usize;
        // Every bit below `end` is taken or was never a plain byte.
        rest &= u64::MAX.checked_shl(end as u32).unwrap_or(0);
        let word = &src[start..end];
        // (`contains` calls memchr: dearer than this loop on a first word
        // of a few bytes.)
        #[allow(clippy::manual_contains)]
        let assignment = words.is_empty() && word.iter().any(|&b| b == b'=');
        if assignment || word[0] == b'#' {
            return false;
        }
        let Some(word) = Word::plain_run(text, start..end) else {
            return false;
        };
        words.push(word);
    }
    !words.is_empty()
}

/// The words of a line of plain words and whole quoted ones, read a byte
/// at a time; false when the line needs the full reader.
fn plain_or_quoted_words(text: &str, words: &mut Vec<Word>) -> bool {
    let src = text.as_bytes();
    let mut pos = 0;
    loop {
        while let Some(b' ' | b'\t') = src.get(pos) {
            pos += 1;
        }
        let start = pos;
        // A whole word in quotes after the first, with nothing in it the
        // shell would expand or unescape (`git commit -m "fix it"`): its
        // text is what is between the quotes.
        // (It starts a word only after a blank: `a"b"` is one word.)
        let after_blank = pos > 0 && matches!(src[pos - 1], b' ' | b'\t');
        if let (Some(&quote @ (b'\'' | b'"')), true) =
            (src.get(pos), after_blank && !words.is_empty())
        {
            let Some(len) = quoted_len(&src[pos + 1..], quote) else {
                break false;
            };
            let end = pos + 1 + len + 1;
            if !matches!(src.get(end), None | Some(b' ' | b'\t')) {
                break false;
            }
            let Some(inner) = text.get(pos + 1..pos + 1 + len) else {
                break false;
            };
            words.push(Word {
                quoted: true,
                span: start..end,
                ..Word::literal(inner)
            });
            pos = end;
            continue;
        }
        while let Some(&b) = src.get(pos) {
            if !PLAIN_RUN[usize::from(b)] {
                break;
            }
            // A first word with `=` may be an assignment.
            if b == b'=' && words.is_empty() {
                break;
            }
            pos += 1;
        }
        if pos == start {
            // A byte that is neither plain nor a blank stopped the words
            // early, or there were none.
            break pos == src.len() && !words.is_empty();
        }
        if src.get(pos) == Some(&b'=') && words.is_empty() {
            break false;
        }
        // `#` opens a comment where a word would start.
        if src[start] == b'#' {
            break false;
        }
        let Some(word) = Word::plain_run(text, start..pos) else {
            break false;
        };
        words.push(word);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_fast_and_slow as fast_and_slow;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn only_plain_words_with_an_ordinary_first_word_qualify() {
        let script = plain_line("\t git  status -s ").unwrap_or_default();
        let cmd = &script.commands[0];
        let words: Vec<&str> = cmd.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(words, ["git", "status", "-s"]);
        assert_eq!(
            (cmd.span.clone(), cmd.words[1].span.clone()),
            (2..16, 7..13)
        );
        assert!(cmd.words.iter().all(|w| w.literal && !w.quoted));
        assert!(!script.compound);
        for src in [
            "ls ~/x:y",
            "du -h --max-depth=1 .",
            "echo a#b 50%",
            "ls 'a b'",
            "git commit -m \"fix: it's *done*\" ",
            "echo '$HOME' \"\" ''",
        ] {
            assert!(plain_line(src).is_some(), "{src:?}");
        }
        let script = plain_line("grep -r 'a  b' \"c'd\"").unwrap_or_default();
        let cmd = &script.commands[0];
        let words: Vec<(&str, bool)> = cmd
            .words
            .iter()
            .map(|w| (w.text.as_str(), w.quoted))
            .collect();
        assert_eq!(
            words,
            [
                ("grep", false),
                ("-r", false),
                ("a  b", true),
                ("c'd", true)
            ]
        );
        assert_eq!(
            (cmd.words[2].span.clone(), cmd.span.clone()),
            (8..14, 0..20)
        );
        for src in [
            "",
            "  ",
            "A=1 make",
            "time make",
            "if x",
            "fi",
            "ls #comment",
            "ls | wc",
            "'ls' x",
            "ls 'a b",
            "ls 'a b'c",
            "ls a'b c'",
            "ls \"a $b\"",
            "ls \"a\\b\"",
            "ls \"a`b`\"",
            "ls 'a\tb'",
            "ls 'a';",
            "ls $HOME",
            "ls *.rs",
            "ls\nrm x",
            "ls café",
        ] {
            assert_eq!(plain_line(src), None, "{src:?}");
        }
    }

    /// A script kept from one line to the next reads each line as a new
    /// script would, whatever the line before it left in it.
    #[test]
    fn a_reused_script_reads_each_line_afresh() {
        use super::super::parse::{parse, parse_into};
        let mut reused = Script::default();
        // Substitutions nested past the reader's depth limit.
        let deep = format!("echo {}x{}", "$(".repeat(60), ")".repeat(60));
        for src in [
            &deep,
            "ls -a",
            "git status -s --branch extra words here",
            "ls",
            "A=1 make >out 2>&1 <<EOF\nbody\nEOF",
            "rm -rf x",
            "cd /tmp && ls | wc -l; echo $(date)",
            "du -h .",
            "fi",
            "ls",
            "ls 'a b",
            "ls -l",
            "ls 'a b'",
            "",
            "ls  -la\t/tmp ",
        ] {
            parse_into(src, 0, &mut reused);
            assert_eq!(reused, parse(src), "{src:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn plain_lines_read_as_the_grammar_reads_them(
            words in proptest::collection::vec(
                prop_oneof![
                    "[a-z0-9./:%^~#,=_-]{1,6}",
                    "(if|then|fi|for|in|do|done|time|coproc|function|case|esac|while)",
                    "[A-Z_]{1,3}=[a-z]{0,3}",
                    // Quoted words, plain or not, whole or joined to more.
                    "'[a-z $*\"`\\\\\t]{0,4}'",
                    "\"[a-z $*'`\\\\\t]{0,4}\"",
                    "'[a-z]{0,2}'[a-z\"]{0,2}",
                    "[a-z]{1,2}\"[a-z ]{0,2}\"",
                    "\"[a-zé ]{0,3}",
                ],
                0..6,
            ),
            blanks in proptest::collection::vec("[ \t]{1,2}", 7),
        ) {
            let mut src = blanks[6].clone();
            for (word, blank) in words.iter().zip(&blanks) {
                src.push_str(word);
                src.push_str(blank);
            }
            let (fast, slow) = fast_and_slow(&src);
            prop_assert_eq!(fast, slow, "{:?}", src);
        }
    }

    /// Every line of the shared corpora (when present) and every command of
    /// the project's own corpus reads the same either way.
    #[test]
    fn corpus_lines_read_as_the_grammar_reads_them() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut lines: Vec<String> = Vec::new();
        for dir in ["../shared/corpus", "corpus"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                eprintln!("skipping {dir}: absent");
                continue;
            };
            for path in entries.flatten().map(|e| e.path()) {
                let text = std::fs::read(&path).unwrap_or_default();
                let text = String::from_utf8_lossy(&text);
                match path.extension().and_then(|e| e.to_str()) {
                    Some("txt") => lines.extend(text.lines().map(String::from)),
                    Some("jsonl") => lines.extend(text.lines().filter_map(|l| {
                        let v: serde_json::Value = serde_json::from_str(l).ok()?;
                        Some(v.get("command")?.as_str()?.to_string())
                    })),
                    _ => {}
                }
            }
        }
        let mut plain = 0;
        let mut reused = Script::default();
        for line in &lines {
            plain += usize::from(plain_line(line).is_some());
            let (fast, slow) = fast_and_slow(line);
            assert_eq!(fast, slow, "{line:?}");
            super::super::parse::parse_into(line, 0, &mut reused);
            assert_eq!(
                reused, slow,
                "{line:?} read into the script of the line before"
            );
        }
        // The project's corpus alone has hundreds of plain lines.
        assert!(plain > 200, "only {plain} plain lines of {}", lines.len());
    }
}
