//! The SQL a database would run, with the words it only carries as data
//! taken out: what the SQL entries are searched in.
//!
//! A keyword inside a string literal or a comment is data
//! (`INSERT INTO notes VALUES ('drop table tomorrow')`,
//! `SELECT 1 -- then DELETE FROM t`), so the contents of literals and
//! comments are masked before the search. Not every such text is inert, and
//! what runs is kept:
//!
//! * MySQL's `/*! … */` (and `/*!50001 … */`) comments are executed by
//!   MySQL; they are kept whole, as is an optimizer hint `/*+ … */`.
//! * `PREPARE s FROM '…'`, `EXECUTE IMMEDIATE '…'`, `DO '…'`, `EXEC('…')`,
//!   `CALL p('…')` and PostgreSQL's `dblink_exec`/`query_to_xml` run the
//!   text a literal carries (or a variable that a literal was assigned to:
//!   `SET @q = '…'; PREPARE s FROM @q`). A text that holds any of those
//!   words outside a literal keeps every literal as written.
//! * Dollar-quoted bodies (`DO $$ … $$`, `CREATE FUNCTION … AS $f$ … $f$`)
//!   are mostly code, run now or later: they are never masked.
//! * `EXPLAIN ANALYZE` runs its statement, which is outside any literal
//!   and so searched as it always was.
//!
//! Where dialects read the same text differently, the reading that leaves
//! more text unmasked wins: a backslash escapes a quote in MySQL and in
//! PostgreSQL's `E'…'` but not in standard strings, so a character is
//! masked only when both readings put it inside a literal; `--` starts a
//! comment only when whitespace or the end follows (MySQL reads `1--1` as
//! arithmetic); `#` (a comment in MySQL only) and nested block comments
//! (PostgreSQL only) are not treated as comments; an unterminated literal
//! or comment is kept.

use std::borrow::Cow;

/// Words that, outside a literal, make the text run literals as SQL.
const EXECUTES_STRINGS: &[&str] = &[
    "prepare",
    "execute",
    "exec",
    "immediate",
    "sp_executesql",
    "do",
    "call",
    "dblink",
    "dblink_exec",
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
];

/// What a byte of the text is, in one reading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// SQL that runs.
    Code,
    /// Inside a quoted literal or identifier (its quotes are code).
    Quoted,
    /// Part of a comment, delimiters included.
    Comment,
}

/// `text` with the contents of its literals replaced by `_` and its
/// comments by spaces (see the module docs for what is kept), or `text`
/// itself when nothing is masked (`SELECT 'drop table x'` reads as
/// `SELECT '____________'`; a MySQL `/*! … */` comment and the text a
/// `PREPARE … FROM` carries are kept, as they run).
pub fn executable_sql(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // Most SQL holds no quote and no comment: nothing to do.
    if !bytes
        .iter()
        .any(|&b| matches!(b, b'\'' | b'"' | b'`' | b'-' | b'/'))
    {
        return Cow::Borrowed(text);
    }
    let standard = read(bytes, false);
    let escaping = read(bytes, true);
    let mut keep_literals = false;
    let mut masked = false;
    for (i, (a, b)) in standard.iter().zip(&escaping).enumerate() {
        if *a == Part::Code || *b == Part::Code {
            if word_starts(bytes, i) && executes_strings(bytes, i, &standard, &escaping) {
                keep_literals = true;
            }
        } else {
            masked = true;
        }
    }
    if !masked {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let (a, b) = (standard[i], escaping[i]);
        if a == Part::Comment && b == Part::Comment {
            out.push(if c == '\n' { '\n' } else { ' ' });
        } else if !keep_literals && a == Part::Quoted && b == Part::Quoted {
            out.push(if c == '\n' { '\n' } else { '_' });
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether a word starts at byte `i`.
fn word_starts(bytes: &[u8], i: usize) -> bool {
    is_word(bytes[i]) && (i == 0 || !is_word(bytes[i - 1]))
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the word at `i`, all of it code in some reading, is one that
/// runs the text of literals.
fn executes_strings(bytes: &[u8], i: usize, standard: &[Part], escaping: &[Part]) -> bool {
    let end = bytes[i..]
        .iter()
        .position(|&b| !is_word(b))
        .map_or(bytes.len(), |n| i + n);
    let code = (i..end).all(|k| standard[k] == Part::Code || escaping[k] == Part::Code);
    code && EXECUTES_STRINGS
        .iter()
        .any(|w| bytes[i..end].eq_ignore_ascii_case(w.as_bytes()))
}

/// Reads `bytes` as SQL and says what each byte is; `backslash`: whether a
/// backslash escapes the next character inside a quoted text.
fn read(bytes: &[u8], backslash: bool) -> Vec<Part> {
    let mut parts = vec![Part::Code; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"' | b'`') => {
                let Some(close) = closing_quote(bytes, i + 1, q, backslash) else {
                    // Unterminated: kept as code.
                    return parts;
                };
                parts[i + 1..close].fill(Part::Quoted);
                i = close + 1;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && bytes.get(i + 2).is_none_or(|b| b.is_ascii_whitespace()) =>
            {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| i + n);
                parts[i..end].fill(Part::Comment);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                // `/*!` runs in MySQL and `/*+` is a hint: kept.
                if matches!(bytes.get(i + 2), Some(b'!' | b'+')) {
                    i += 3;
                    continue;
                }
                let Some(n) = bytes[i + 2..].windows(2).position(|w| w == b"*/") else {
                    return parts;
                };
                let end = i + 2 + n + 2;
                parts[i..end].fill(Part::Comment);
                i = end;
            }
            b'$' => i = skip_dollar_quote(bytes, i),
            _ => i += 1,
        }
    }
    parts
}

/// The index of the quote that closes a text opened by `quote` before
/// `from`: a doubled quote stands for one, and with `backslash` a
/// backslash escapes the next byte.
fn closing_quote(bytes: &[u8], from: usize, quote: u8, backslash: bool) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if backslash && b == b'\\' && quote != b'`' {
            i += 2;
        } else if b == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
            } else {
                return Some(i);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Past a dollar-quoted body starting at `i` (`$$…$$`, `$tag$…$tag$`),
/// which stays code; past the `$` alone when none starts there.
fn skip_dollar_quote(bytes: &[u8], i: usize) -> usize {
    let tag_len = bytes[i + 1..]
        .iter()
        .position(|&b| !is_word(b))
        .unwrap_or(bytes.len() - i - 1);
    let tag_end = i + 1 + tag_len;
    // A tag does not start with a digit (`$1` is a parameter).
    if bytes.get(tag_end) != Some(&b'$') || bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        return i + 1;
    }
    let tag = &bytes[i..=tag_end];
    match bytes[tag_end + 1..]
        .windows(tag.len())
        .position(|w| w == tag)
    {
        Some(n) => tag_end + 1 + n + tag.len(),
        None => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which SQL keeps its words as code and which masks them.
    #[test]
    fn literals_and_comments_are_data_unless_they_run() {
        // Comments become spaces and literals `_`, byte for byte.
        let spaces = |n: usize| " ".repeat(n);
        let marks = |n: usize| "_".repeat(n);
        for (sql, masked) in [
            ("SELECT 'drop table x'", format!("SELECT '{}'", marks(12))),
            (
                "SELECT \"drop table\" FROM t",
                format!("SELECT \"{}\" FROM t", marks(10)),
            ),
            (
                "SELECT `drop table` FROM t",
                format!("SELECT `{}` FROM t", marks(10)),
            ),
            (
                "SELECT 'it''s a drop table'",
                format!("SELECT '{}'", marks(18)),
            ),
            (
                "SELECT 1 -- DELETE FROM t",
                format!("SELECT 1 {}", spaces(16)),
            ),
            (
                "SELECT 1 --\nDELETE FROM t",
                format!("SELECT 1 {}\nDELETE FROM t", spaces(2)),
            ),
            (
                "SELECT /* drop table x */ 1",
                format!("SELECT {} 1", spaces(18)),
            ),
            ("DROP/**/TABLE x", format!("DROP{}TABLE x", spaces(4))),
        ] {
            assert_eq!(executable_sql(sql), masked, "{sql:?}");
        }
        for kept in [
            // MySQL runs these comments; a hint is kept too.
            "/*! DROP TABLE x */",
            "SELECT /*!50001 1; DROP TABLE x */",
            "SELECT /*+ drop table */ 1",
            // Texts that run their literals.
            "PREPARE s FROM 'DROP TABLE x'",
            "SET @q = 'DROP TABLE x'; PREPARE s FROM @q; EXECUTE s",
            "EXECUTE IMMEDIATE 'DROP TABLE x'",
            "DO 'BEGIN DROP TABLE x; END'",
            "exec('drop table x')",
            "CALL run_sql('DROP TABLE x')",
            "SELECT dblink_exec('drop table x')",
            "SELECT query_to_xml('delete from t', true, false, '')",
            // Dollar quotes stay code.
            "DO $$ BEGIN DROP TABLE x; END $$",
            "SELECT $tag$drop table x$tag$",
            // MySQL reads `1--1` as arithmetic: no comment there.
            "SELECT 1--1; DROP TABLE x",
            // `#` is a comment in MySQL only; nested comments in PostgreSQL only.
            "SELECT 1 # DROP TABLE x",
            // Unterminated: kept.
            "SELECT 'drop table x",
            "SELECT 1 /* drop table x",
            // Nothing to mask.
            "DROP TABLE x",
        ] {
            assert_eq!(executable_sql(kept), kept, "{kept:?}");
        }
    }

    /// A backslash escapes a quote in one dialect and not in another: only
    /// text that both readings put inside a literal is masked.
    #[test]
    fn backslashes_keep_what_either_dialect_runs() {
        // PostgreSQL's standard strings end at `\'`: the DROP runs there.
        let sql = r"SELECT 'a\'; DROP TABLE x; -- '";
        let out = executable_sql(sql);
        assert!(out.contains("DROP TABLE x"), "{out:?}");
        // And MySQL's escape reading keeps what a standard one would hide.
        let sql = r"SELECT '\' DROP TABLE x '";
        let out = executable_sql(sql);
        assert!(out.contains("DROP TABLE x"), "{out:?}");
        // No backslash: both agree.
        assert_eq!(executable_sql("SELECT 'a', 'drop'"), "SELECT '_', '____'");
    }

    /// Comment openers inside literals, and quotes inside comments, are
    /// data of what holds them.
    #[test]
    fn each_kind_hides_the_other() {
        assert_eq!(executable_sql("SELECT '-- x' , 1"), "SELECT '____' , 1");
        assert_eq!(
            executable_sql("SELECT 1 /* it's */ , 2"),
            format!("SELECT 1 {} , 2", " ".repeat(10))
        );
        // A parameter is not a dollar quote.
        assert_eq!(executable_sql("SELECT $1, 'drop'"), "SELECT $1, '____'");
    }
}
