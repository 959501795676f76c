//! From a simple command as written to the command that actually runs:
//! command-word normalisation and wrapper peeling.

use std::borrow::Cow;

use serde::Serialize;

use crate::shell::{command_name, Word};
use crate::taxonomy::Taxonomy;

/// How deep wrappers may stack before toolgate stops peeling (`env env env …`).
pub const MAX_WRAPPERS: usize = 32;

/// A command after normalisation: the real command word, its arguments, and
/// what was peeled off to get there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Invocation<'a> {
    /// The command word: basename, lowercase, `.exe` removed (borrowed from
    /// the word when it needed no change).
    pub name: Cow<'a, str>,
    /// The command word as written (after quote removal).
    pub written: Cow<'a, str>,
    /// The arguments: borrowed from the command as written unless a wrapper
    /// rewrote them.
    pub args: Cow<'a, [Word]>,
    /// Wrappers peeled off, outermost first.
    pub wrappers: Vec<String>,
    /// False when a peeled wrapper changes who or where the command runs
    /// (`sudo`, `xargs`, …), which rules out a safe verdict.
    pub keeps_safe: bool,
    /// True when the command word is a bare name or a system path; false for
    /// `./cat`, `/tmp/x/cat` or a word the shell would expand.
    pub plain_name: bool,
    /// True when a wrapper option turned the call into a lookup that runs
    /// nothing (`command -v git`).
    pub lookup: bool,
    /// A shell string a wrapper runs (`su -c STRING`, `watch STRING`).
    pub wrapper_script: Option<Word>,
}

impl Invocation<'_> {
    /// The normalised command line: name and arguments joined by spaces.
    pub fn display(&self) -> String {
        let mut s = String::new();
        self.display_into(&mut s);
        s
    }

    /// [`Invocation::display`] into `out`, emptied first: a buffer kept
    /// from one command to the next allocates nothing.
    pub fn display_into(&self, out: &mut String) {
        let len = self.name.len() + self.args.iter().map(|a| a.text.len() + 1).sum::<usize>();
        out.clear();
        out.reserve(len);
        out.push_str(&self.name);
        for a in self.args.iter() {
            out.push(' ');
            out.push_str(&a.text);
        }
    }
}

fn is_assignment_word(w: &Word) -> bool {
    let t = w.text.as_bytes();
    match t.iter().position(|&b| b == b'=') {
        Some(eq) if eq > 0 => {
            (t[0].is_ascii_alphabetic() || t[0] == b'_')
                && t[..eq]
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        _ => false,
    }
}

/// Peels wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, …) off a
/// command, as listed in the taxonomy's `commands.toml`.
pub fn peel<'a>(words: &'a [Word], tax: &Taxonomy) -> Invocation<'a> {
    // Most commands have no wrapper: take them as they are, copying the
    // words once.
    if let Some((first, args)) = words.split_first() {
        let (name, plain) = command_name(first);
        if !tax.wrappers.contains_key(name.as_ref()) {
            return Invocation {
                name,
                written: Cow::Borrowed(&first.text),
                args: Cow::Borrowed(args),
                keeps_safe: true,
                plain_name: plain,
                ..Invocation::default()
            };
        }
    }
    let mut inv = Invocation {
        keeps_safe: true,
        ..Invocation::default()
    };
    // The words still to read: borrowed from the command as written until
    // a wrapper rewrites them (`env -S 'a b'`), so that peeling `sudo` or
    // `time` copies nothing (it was six allocations a wrapped command).
    let mut rest: Cow<'a, [Word]> = Cow::Borrowed(words);
    let mut rounds = 0;
    loop {
        // Leading assignments left by a wrapper (`env A=1 cmd`).
        let skip = rest.iter().take_while(|w| is_assignment_word(w)).count();
        if skip > 0 && !inv.wrappers.is_empty() {
            rest = after(std::mem::take(&mut rest), skip);
        }
        let Some(first) = rest.first() else { break };
        let (name, _) = command_name(first);
        let Some(wrapper) = tax.wrappers.get(name.as_ref()) else {
            break;
        };
        rounds += 1;
        if rounds > MAX_WRAPPERS {
            inv.keeps_safe = false;
            break;
        }
        inv.wrappers.push(name.to_string());
        inv.keeps_safe &= wrapper.keeps_safe;
        let mut i = 1;
        let mut positionals = 0;
        let mut prepend: Vec<Word> = Vec::new();
        while i < rest.len() {
            let t = rest[i].text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if t.len() > 1 && t.starts_with('-') {
                if wrapper.lookup_flags.contains(t) {
                    inv.lookup = true;
                }
                let bare = t.split('=').next().unwrap_or(t);
                if wrapper.unsafe_flags.contains(bare)
                    || wrapper
                        .unsafe_flags
                        .iter()
                        .any(|f| f.len() == 2 && !t.starts_with("--") && t.starts_with(f))
                {
                    inv.keeps_safe = false;
                }
                let (flag, glued) = match t.find('=') {
                    Some(eq) if t.starts_with("--") => (&t[..eq], Some(&t[eq + 1..])),
                    _ => (t, None),
                };
                if wrapper.string_flag.as_deref() == Some(flag)
                    || (wrapper.string_flag.as_deref() == Some("-c")
                        && !t.starts_with("--")
                        && t.ends_with('c'))
                {
                    inv.wrapper_script = rest.get(i + 1).cloned();
                    i = rest.len();
                    break;
                }
                if wrapper.split_flag.as_deref() == Some(flag)
                    || wrapper.split_flag.as_deref().is_some_and(|s| {
                        t.starts_with(s) && t.len() > s.len() && !t.starts_with("--")
                    })
                {
                    let value = match glued {
                        Some(v) => Some(v.to_string()),
                        None if t.len() > 2 && !t.starts_with("--") => Some(t[2..].to_string()),
                        None => {
                            i += 1;
                            rest.get(i).map(|w| w.text.to_string())
                        }
                    };
                    if let Some(v) = value {
                        let split = shell_words::split(&v)
                            .unwrap_or_else(|_| v.split_whitespace().map(String::from).collect());
                        prepend.extend(split.into_iter().map(|s| Word {
                            literal: rest[i.min(rest.len() - 1)].literal,
                            ..Word::literal(s)
                        }));
                    }
                    i += 1;
                    break;
                }
                if glued.is_none() && wrapper.value_flags.contains(flag) {
                    i += 2;
                    continue;
                }
                // A glued short value (`-uroot`, `-n19`) needs no next word.
                i += 1;
                continue;
            }
            if wrapper.assignments && is_assignment_word(&rest[i]) {
                i += 1;
                continue;
            }
            if positionals < wrapper.skip_positionals {
                positionals += 1;
                i += 1;
                continue;
            }
            break;
        }
        let at = i.min(rest.len());
        let tail = after(std::mem::take(&mut rest), at);
        if wrapper.joins {
            let joined: Vec<&str> = tail.iter().map(|w| w.text.as_str()).collect();
            inv.wrapper_script = Some(Word {
                literal: tail.iter().all(|w| w.literal),
                ..Word::literal(joined.join(" "))
            });
            rest = Cow::Borrowed(&[]);
            break;
        }
        if inv.wrapper_script.is_some() || inv.lookup {
            rest = tail;
            break;
        }
        rest = if prepend.is_empty() {
            tail
        } else {
            prepend.extend(tail.iter().cloned());
            Cow::Owned(prepend)
        };
    }
    if inv.lookup || (inv.wrapper_script.is_some() && rest.is_empty()) || rest.is_empty() {
        // The wrapper itself is the whole call.
        if let Some(last) = inv.wrappers.last().cloned() {
            if rest.is_empty() || inv.lookup {
                inv.name = Cow::Owned(last.clone());
                inv.written = Cow::Owned(last);
                inv.plain_name = true;
                inv.args = rest;
                return inv;
            }
        }
    }
    match rest {
        Cow::Borrowed(rest) => {
            if let Some((first, args)) = rest.split_first() {
                let (name, plain) = command_name(first);
                inv.name = name;
                inv.written = Cow::Borrowed(&first.text);
                inv.plain_name = plain;
                inv.args = Cow::Borrowed(args);
            }
        }
        Cow::Owned(rest) => {
            if let Some((first, args)) = rest.split_first() {
                let (name, plain) = command_name(first);
                inv.name = Cow::Owned(name.into_owned());
                inv.written = Cow::Owned(first.text.to_string());
                inv.plain_name = plain;
                inv.args = Cow::Owned(args.to_vec());
            }
        }
    }
    inv
}

/// The words of `words` from `from` on: a narrower borrow, or the owned
/// list with its head cut off.
fn after(words: Cow<'_, [Word]>, from: usize) -> Cow<'_, [Word]> {
    match words {
        Cow::Borrowed(w) => Cow::Borrowed(w.get(from..).unwrap_or(&[])),
        Cow::Owned(mut w) => {
            w.drain(..from.min(w.len()));
            Cow::Owned(w)
        }
    }
}
