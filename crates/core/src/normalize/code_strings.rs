//! Shell commands inside interpreter code: the string given to an exec-like
//! call (`os.system('rm -rf x')`, `execSync("…")`), the list given to one
//! (`subprocess.run(['rm', '-rf', 'x'])`), and, in Ruby, Perl and PHP,
//! backquotes.
//!
//! A hand-written scanner rather than regexes with groups: it costs a hook
//! process nothing to prepare (the regexes took longer to compile than the
//! rest of the classification), and it stays linear in the code's length.

/// Calls whose first argument is run as a command. A name also matches
/// inside a longer one (`subprocess.call`, `Open3.capture2`).
const CALLS: &[&str] = &[
    "system",
    "exec",
    "execSync",
    "execFileSync",
    "spawnSync",
    "spawn",
    "popen",
    "Popen",
    "check_output",
    "check_call",
    "call",
    "run",
    "getoutput",
    "getstatusoutput",
    "shell_exec",
    "passthru",
    "proc_open",
    "capture2",
    "capture3",
    "Command",
];

/// At most this many strings are taken from one piece of code (one more
/// call may complete the last batch).
const MAX_STRINGS: usize = 64;

/// The shell commands found in `code` written in `lang` (the interpreter's
/// name): call strings first, then call lists (as shell words), then
/// backquotes.
pub fn shell_strings(lang: &str, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    scan_calls(code, Argument::String, &mut out);
    scan_calls(code, Argument::List, &mut out);
    if matches!(lang, "ruby" | "perl" | "php" | "jruby") {
        scan_backquotes(code, &mut out);
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Argument {
    /// `'…'` or `"…"`.
    String,
    /// `[…]`.
    List,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Every call, leftmost first, whose first argument is of the given kind.
fn scan_calls(code: &str, want: Argument, out: &mut Vec<String>) {
    let bytes = code.as_bytes();
    // Closing bytes known to be absent after some point: a later call
    // cannot find one either, so nothing is searched twice in vain.
    let mut absent: Vec<u8> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some((open, close)) = call_at(bytes, at, want) else {
            at += 1;
            continue;
        };
        if absent.contains(&close) {
            at += 1;
            continue;
        }
        let Some(len) = bytes[open + 1..].iter().position(|&b| b == close) else {
            absent.push(close);
            at += 1;
            continue;
        };
        let inner = &code[open + 1..open + 1 + len];
        out.push(match want {
            Argument::String => inner.to_string(),
            Argument::List => list_to_command(inner),
        });
        at = open + 1 + len + 1;
        if out.len() > MAX_STRINGS {
            return;
        }
    }
}

/// The names in [`CALLS`] that start with a byte, as a set of indices:
/// most bytes of code start none, and those that do start two or three, so
/// that a position is compared with those alone.
const fn names_starting_with(b: u8) -> u32 {
    let mut set = 0;
    let mut i = 0;
    while i < CALLS.len() {
        if CALLS[i].as_bytes()[0] == b {
            set |= 1 << i;
        }
        i += 1;
    }
    set
}

/// [`names_starting_with`] for every byte, computed at compile time.
const CALL_START: [u32; 256] = {
    assert!(CALLS.len() <= 32, "a set of names is a u32");
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = names_starting_with(b as u8);
        b += 1;
    }
    table
};

/// When a call name starts at `at` and is followed by `(`, optional spaces
/// and an argument of the wanted kind: the argument's opening byte and the
/// byte that closes it.
fn call_at(bytes: &[u8], at: usize, want: Argument) -> Option<(usize, u8)> {
    let rest = &bytes[at..];
    let mut names = rest.first().map_or(0, |&b| CALL_START[usize::from(b)]);
    // A name that is a prefix of another (`exec`, `execSync`) is followed
    // by a letter where the other matches, not by `(`: at most one name
    // matches at a position, and the order they are tried in is free.
    std::iter::from_fn(|| {
        let i = names.trailing_zeros() as usize;
        names &= names.wrapping_sub(1);
        CALLS.get(i)
    })
    .find_map(|name| {
        let mut i = at + name.len();
        if !rest.starts_with(name.as_bytes()) {
            return None;
        }
        while bytes.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        if bytes.get(i) != Some(&b'(') {
            return None;
        }
        i += 1;
        while bytes.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        match (want, bytes.get(i)) {
            (Argument::String, Some(&q @ (b'\'' | b'"'))) => Some((i, q)),
            (Argument::List, Some(b'[')) => Some((i, b']')),
            _ => None,
        }
    })
}

/// Every `` `…` `` pair, left to right.
fn scan_backquotes(code: &str, out: &mut Vec<String>) {
    let mut rest = code;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else { break };
        out.push(after[..end].to_string());
        rest = &after[end + 1..];
        if out.len() > MAX_STRINGS {
            return;
        }
    }
}

/// `'rm', '-rf', "x"` as the shell command `rm -rf x`.
pub fn list_to_command(list: &str) -> String {
    let mut words = Vec::new();
    let mut rest = list;
    while let Some(start) = rest.find(['\'', '"']) {
        let q = rest.as_bytes()[start] as char;
        let after = &rest[start + 1..];
        let Some(end) = after.find(q) else { break };
        words.push(shell_quote(&after[..end]));
        rest = &after[end + 1..];
    }
    words.join(" ")
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+~".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_lists_and_backquotes() {
        let code = r#"import os; os.system('rm -rf x'); subprocess.run(["git", "push", "--force"]); execSync ( "ls" )"#;
        assert_eq!(
            shell_strings("python3", code),
            vec!["rm -rf x", "ls", "git push --force"]
        );
        assert_eq!(
            shell_strings("ruby", "x = `rm -rf /`; system(\"ls\")"),
            vec!["ls", "rm -rf /"]
        );
        // Backquotes are strings in Python, not commands.
        assert!(shell_strings("python", "x = `rm -rf /`").is_empty());
        assert_eq!(
            shell_strings("node", "spawnSync('a'); spawn ('b')"),
            vec!["a", "b"]
        );
    }

    #[test]
    fn unterminated_arguments_are_skipped_in_linear_time() {
        let code = "system(\"".to_string() + &"run( '".repeat(20_000);
        assert_eq!(shell_strings("python", &code).len(), MAX_STRINGS + 1);
        let code = "run([".repeat(20_000);
        assert!(shell_strings("python", &code).is_empty());
    }

    #[test]
    fn at_most_sixty_five_strings() {
        let code = "system('x');".repeat(500);
        assert_eq!(shell_strings("python", &code).len(), MAX_STRINGS + 1);
    }

    /// The regexes this scanner replaced, as the reference it must agree
    /// with.
    fn with_regexes(lang: &str, code: &str) -> Vec<String> {
        use regex_automata::meta::Regex;
        use regex_automata::util::syntax;
        let calls = format!("(?:{})", CALLS.join("|"));
        let compile = |p: &str| {
            Regex::builder()
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .build(p)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let patterns = [
            compile(&format!(r#"{calls}\s*\(\s*(?:'([^']*)'|"([^"]*)")"#)),
            compile(&format!(r#"{calls}\s*\(\s*\[([^\]]*)\]"#)),
            compile(r"`([^`]*)`"),
        ];
        let mut strings = Vec::new();
        for (i, re) in patterns.iter().enumerate() {
            if i == 2 && !matches!(lang, "ruby" | "perl" | "php" | "jruby") {
                continue;
            }
            let mut caps = re.create_captures();
            let mut at = 0;
            while at <= code.len() {
                re.search_captures(&regex_automata::Input::new(code).range(at..), &mut caps);
                let Some(m) = caps.get_match() else { break };
                for g in 1..caps.group_len() {
                    if let Some(span) = caps.get_group(g) {
                        let s = &code[span];
                        strings.push(if i == 1 {
                            list_to_command(s)
                        } else {
                            s.to_string()
                        });
                    }
                }
                at = m.end().max(at + 1);
                if strings.len() > MAX_STRINGS {
                    break;
                }
            }
        }
        strings
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_regexes(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "system", "exec", "execSync", "run", "call", "Popen", " ", "\t", "(", ")",
                    "'", "\"", "[", "]", "`", ",", "x", "rm -rf /", ";",
                ]),
                0..40,
            ),
            lang in proptest::sample::select(vec!["python", "ruby", "node", "perl"]),
        ) {
            let code: String = parts.concat();
            proptest::prop_assert_eq!(shell_strings(lang, &code), with_regexes(lang, &code));
        }
    }
}
