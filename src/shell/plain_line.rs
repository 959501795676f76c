//! The commonest script of all, one command of plain words (`git status`,
//! `ls -la /tmp`: seven corpus lines in ten), read without the grammar.
//!
//! A line qualifies only when every byte is one a word made of it means
//! literally, or a blank, and its first word is not one the grammar must
//! see: a reserved word, an assignment or a comment. Anything else goes to
//! the full reader, which gives the same result for these lines (a
//! property test and the corpus tests compare the two).

use compact_str::CompactString;

use super::syntax::{Script, SimpleCommand, Word};
use super::word::PLAIN_RUN;

/// Words that start a compound command or a pipeline prefix, or end a
/// list, when they come first.
const RESERVED: &[&str] = &[
    "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in",
    "select", "then", "time", "until", "while",
];

/// The script of a line of plain words, or `None` when the line needs the
/// full reader.
pub(super) fn plain_line(text: &str) -> Option<Script> {
    let src = text.as_bytes();
    let mut words: Vec<Word> = Vec::with_capacity(8);
    let mut pos = 0;
    loop {
        while let Some(b' ' | b'\t') = src.get(pos) {
            pos += 1;
        }
        let start = pos;
        while let Some(&b) = src.get(pos) {
            if !PLAIN_RUN[usize::from(b)] {
                break;
            }
            // A first word with `=` may be an assignment.
            if b == b'=' && words.is_empty() {
                return None;
            }
            pos += 1;
        }
        if pos == start {
            break;
        }
        // `#` opens a comment where a word would start.
        if src[start] == b'#' {
            return None;
        }
        words.push(Word {
            text: CompactString::new(text.get(start..pos)?),
            literal: true,
            quoted: false,
            substitution: false,
            span: start..pos,
        });
    }
    // A byte that is neither plain nor a blank stopped the words early.
    if pos != src.len() {
        return None;
    }
    let first = words.first()?;
    if RESERVED.contains(&first.text.as_str()) {
        return None;
    }
    let span = first.span.start..words.last()?.span.end;
    Some(Script {
        commands: vec![SimpleCommand {
            words,
            // The reader numbers pipelines from 1.
            pipeline: 1,
            span,
            ..SimpleCommand::default()
        }],
        ..Script::default()
    })
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
        for src in ["ls ~/x:y", "du -h --max-depth=1 .", "echo a#b 50%"] {
            assert!(plain_line(src).is_some(), "{src:?}");
        }
        for src in [
            "",
            "  ",
            "A=1 make",
            "time make",
            "if x",
            "fi",
            "ls #comment",
            "ls | wc",
            "ls 'a b'",
            "ls $HOME",
            "ls *.rs",
            "ls\nrm x",
            "ls café",
        ] {
            assert_eq!(plain_line(src), None, "{src:?}");
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
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
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
        for line in &lines {
            plain += usize::from(plain_line(line).is_some());
            let (fast, slow) = fast_and_slow(line);
            assert_eq!(fast, slow, "{line:?}");
        }
        // The project's corpus alone has hundreds of plain lines.
        assert!(plain > 200, "only {plain} plain lines of {}", lines.len());
    }
}
