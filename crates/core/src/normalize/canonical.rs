//! The canonical form an invocation is matched in.
//!
//! One token per argument, framed by `\x1f`, with short-flag bundles split
//! and option values attached, so that `rm -rf x`, `rm -fr x`, `rm -r -f x`
//! and `rm --recursive --force x` differ only in spelling the patterns
//! already cover. See [`crate::taxonomy::pattern`] for the other half.

use std::borrow::Cow;

use super::invocation::Invocation;
use crate::taxonomy::{CommandSpec, Taxonomy};

const SEP: char = '\x1f';

/// The canonical form of one invocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Canonical {
    /// `\x1fname\x1ftok\x1f…`
    pub text: String,
    /// The length of the command word at `text[1..]`.
    name_len: usize,
}

impl Canonical {
    /// The command word as matched (an alias resolved).
    #[cfg(test)]
    pub fn name(&self) -> &str {
        self.text.get(1..1 + self.name_len).unwrap_or("")
    }

    /// The tokens after the command word.
    pub fn tokens(&self) -> impl Iterator<Item = &str> {
        self.text.split(SEP).filter(|t| !t.is_empty()).skip(1)
    }

    /// How many positional (non-flag) tokens follow the command word.
    pub fn positional_count(&self) -> usize {
        self.tokens()
            .filter(|t| !t.starts_with('-') || *t == "-")
            .count()
    }

    /// The form with separators shown as spaces, for people.
    pub fn readable(&self) -> String {
        self.text.trim_matches(SEP).replace(SEP, " ")
    }
}

/// Pushes text that belongs in a token, a separator inside it turned into
/// a space.
fn push_part(out: &mut String, text: &str) {
    if text.contains(SEP) {
        out.push_str(&text.replace(SEP, " "));
    } else {
        out.push_str(text);
    }
}

fn push_token(out: &mut String, tok: &str) {
    push_part(out, tok);
    out.push(SEP);
}

/// Pushes `flag=value` as one token.
fn push_value(out: &mut String, flag: &str, value: &str) {
    push_part(out, flag);
    out.push('=');
    push_token(out, value);
}

/// Looks up the argument conventions active for a command path.
struct Specs<'t, 'n> {
    /// The conventions of the command and of each subcommand path matched
    /// so far (`git`, `git log`): a fixed array, no allocation per command.
    active: [Option<&'t CommandSpec>; 4],
    path: Cow<'n, str>,
    extending: bool,
    /// Whether any of them ignores options: few do, and asking every
    /// argument of every command costs more than knowing.
    ignores: bool,
}

impl<'t, 'n> Specs<'t, 'n> {
    fn new(tax: &'t Taxonomy, name: &'n str) -> Specs<'t, 'n> {
        Specs::with(tax.commands.get(name), name)
    }

    /// Starts from `spec`, already looked up for `name`.
    fn with(spec: Option<&'t CommandSpec>, name: &'n str) -> Specs<'t, 'n> {
        Specs {
            active: [spec, None, None, None],
            path: Cow::Borrowed(name),
            extending: true,
            ignores: spec.is_some_and(|s| !s.ignore_flags.is_empty()),
        }
    }

    fn specs(&self) -> impl Iterator<Item = &'t CommandSpec> + '_ {
        self.active.iter().flatten().copied()
    }

    fn positional(&mut self, tax: &'t Taxonomy, word: &str) {
        if !self.extending || !tax.command_parents.contains(self.path.as_ref()) {
            self.extending = false;
            return;
        }
        let Some(free) = self.active.iter().position(Option::is_none) else {
            self.extending = false;
            return;
        };
        // The longer path is built in place and cut back if no spec has
        // it: `format!` here cost `git log …` lines a tenth of their
        // canonical form.
        if let Cow::Borrowed(name) = self.path {
            // Room for a subcommand or two: one allocation per command.
            let mut owned = String::with_capacity(name.len() + 32);
            owned.push_str(name);
            self.path = Cow::Owned(owned);
        }
        let path = self.path.to_mut();
        let parent_len = path.len();
        path.push(' ');
        path.push_str(word);
        match tax.commands.get(path.as_str()) {
            Some(spec) => {
                self.active[free] = Some(spec);
                self.ignores |= !spec.ignore_flags.is_empty();
            }
            None => {
                path.truncate(parent_len);
                self.extending = false;
            }
        }
    }

    fn takes_value(&self, flag: &str) -> bool {
        self.specs().any(|s| s.value_flags.contains(flag))
    }

    fn ignored(&self, flag: &str) -> bool {
        self.ignores && self.specs().any(|s| s.ignore_flags.contains(flag))
    }

    fn long_single_dash(&self) -> bool {
        self.specs().any(|s| s.long_single_dash)
    }

    fn pattern_operand(&self) -> bool {
        self.specs().any(|s| s.pattern_operand)
    }
}

/// A value that starts with a dash is kept as its own token: programs
/// disagree on whether `-c --help` takes `--help` as the value, and the
/// cautious reading is the one where it is an option.
fn looks_like_option(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-') && !word[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether an argument may give a search tool its pattern: `-e`,
/// `--regexp`, `-f`, `--file` (abbreviated or with a value), or a short
/// bundle holding `e` or `f`. Over-reading is the cautious side: every
/// operand then stays a file.
fn may_give_pattern(word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or("");
        // `rg --files` and `--type-list` take no pattern at all.
        if name == "files" || name == "type-list" {
            return true;
        }
        return !name.is_empty()
            && (("regexp".starts_with(name) && name.len() >= 2)
                || ("file".starts_with(name) && name.len() >= 2));
    }
    word.strip_prefix('-').is_some_and(|body| {
        body.bytes()
            .take_while(u8::is_ascii_alphabetic)
            .any(|b| b == b'e' || b == b'f')
    })
}

/// Builds the canonical form of an invocation.
#[cfg(test)]
pub fn canonical(inv: &Invocation<'_>, tax: &Taxonomy) -> Canonical {
    canonical_into(inv, tax, String::new())
}

/// [`canonical`], written into `buf` (cleared first): a caller that keeps
/// the text between invocations allocates it once.
#[cfg(test)]
pub fn canonical_into(inv: &Invocation<'_>, tax: &Taxonomy, buf: String) -> Canonical {
    canonical_with(inv, command_spec(inv, tax), tax, buf)
}

/// Whether an invocation asks for help or a version in a way its command's
/// parser honours wherever an option may stand (`help` in
/// `commands.toml`, the deepest subcommand path's list): such a call prints
/// text and exits, whatever the rest of its words would do.
///
/// The help word must stand where an option does: before any `--`
/// (`git checkout -f -- -h` discards the path `-h`), literal, and not
/// after a word that could take it as a value. An option word before it
/// might (`git commit -m -h` commits with the message `-h`), and so might
/// whatever a word the shell expands turns into; an operand cannot.
pub fn asks_for_help(inv: &Invocation<'_>, spec: Option<&CommandSpec>, tax: &Taxonomy) -> bool {
    // Most commands hold no help word at all: settled without a lookup.
    // (Only a word that looks like an option can be one, below.)
    if !inv
        .args
        .iter()
        .any(|w| w.text.starts_with('-') && tax.help_words.contains(&w.text))
    {
        return false;
    }
    let mut specs = Specs::with(spec, &inv.name);
    // The word before could take this one as its value.
    let mut after_option = false;
    // The word before was a known option's value.
    let mut value_next = false;
    for w in inv.args.iter() {
        let t = w.text.as_str();
        if t == "--" {
            return false;
        }
        if !w.literal {
            after_option = true;
            value_next = false;
            continue;
        }
        if looks_like_option(t) {
            let honours = specs
                .specs()
                .filter(|s| !s.help.is_empty())
                .last()
                .is_some_and(|s| s.help.contains(t));
            if honours && !after_option {
                return true;
            }
            // `--name=value` carries its value; any other option word
            // might take the next one.
            after_option = !t.contains('=');
            value_next = after_option && specs.takes_value(t);
            continue;
        }
        if !value_next {
            specs.positional(tax, t);
        }
        after_option = false;
        value_next = false;
    }
    false
}

/// The argument conventions of an invocation's command word, if the
/// taxonomy has any.
pub fn command_spec<'t>(inv: &Invocation<'_>, tax: &'t Taxonomy) -> Option<&'t CommandSpec> {
    tax.commands.get(inv.name.as_ref())
}

/// The command word an invocation is matched under: the one its canonical
/// form starts with ([`Canonical::name`]), an alias resolved. Known without
/// building the form, so that a command no group applies to skips it.
pub fn matched_name<'a>(inv: &'a Invocation<'_>, spec: Option<&'a CommandSpec>) -> &'a str {
    match spec.and_then(|s| s.alias.as_deref()) {
        Some([first, ..]) => first,
        _ => &inv.name,
    }
}

/// [`canonical_into`] with the command word's conventions already looked
/// up by [`command_spec`].
pub fn canonical_with(
    inv: &Invocation<'_>,
    spec: Option<&CommandSpec>,
    tax: &Taxonomy,
    buf: String,
) -> Canonical {
    // Room for every token plus its separator (and a few `=` and `./`).
    let size = inv.name.len() + 2 + inv.args.iter().map(|a| a.text.len() + 3).sum::<usize>();
    let mut out = buf;
    out.clear();
    out.reserve(size + 16);
    out.push(SEP);
    let alias = spec.and_then(|s| s.alias.as_ref());
    // The command word's length (the separators around it excluded).
    let name_len;
    let mut specs = match alias {
        Some(words) if !words.is_empty() => {
            let mut specs = Specs::new(tax, &words[0]);
            push_token(&mut out, &words[0]);
            name_len = out.len() - 2;
            for w in &words[1..] {
                specs.positional(tax, w);
                push_token(&mut out, w);
            }
            specs
        }
        _ => {
            push_token(&mut out, &inv.name);
            name_len = out.len() - 2;
            Specs::with(spec, &inv.name)
        }
    };
    // PowerShell cmdlets (`Remove-Item`) take whole-word, case-insensitive
    // parameters.
    let powershell = inv.written.contains('-')
        && inv
            .written
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase());
    let mut after_dashdash = false;
    let args = &inv.args;
    // grep's first operand is its pattern unless an option gives one.
    let mut pattern_pending =
        specs.pattern_operand() && !args.iter().any(|w| may_give_pattern(&w.text));
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        i += 1;
        let positional = after_dashdash || t.len() < 2 || !t.starts_with('-');
        if pattern_pending && positional && t != "--" {
            pattern_pending = false;
            push_value(&mut out, "-e", t);
            continue;
        }
        if after_dashdash {
            if t.starts_with('-') {
                out.push_str("./");
                push_token(&mut out, t);
            } else {
                push_token(&mut out, t);
            }
            continue;
        }
        if t == "--" {
            after_dashdash = true;
            push_token(&mut out, t);
            continue;
        }
        if specs.ignored(t) {
            continue;
        }
        if t.len() < 2 || !t.starts_with('-') {
            specs.positional(tax, t);
            push_token(&mut out, t);
            continue;
        }
        if powershell || specs.long_single_dash() || t.starts_with("--") {
            let lower;
            let t = if powershell {
                lower = t.to_lowercase();
                lower.as_str()
            } else {
                t
            };
            if !t.contains('=')
                && specs.takes_value(t)
                && i < args.len()
                && !looks_like_option(&args[i].text)
            {
                push_value(&mut out, t, &args[i].text);
                i += 1;
            } else {
                push_token(&mut out, t);
            }
            continue;
        }
        // A short bundle: `-rf`, `-n5`, `-uroot`, `-pi.bak`, `-50`.
        let body = &t[1..];
        if body.bytes().all(|b| b.is_ascii_digit()) {
            push_token(&mut out, t);
            continue;
        }
        let chars = body.char_indices();
        let mut last_pushed = false;
        for (pos, c) in chars {
            if c == '=' && last_pushed {
                // `-w=true`: the value of the previous letter.
                out.pop();
                out.push_str(&body[pos..]);
                out.push(SEP);
                break;
            }
            if !c.is_ascii_alphanumeric() {
                if last_pushed {
                    out.pop();
                    out.push('=');
                    out.push_str(&body[pos..].replace(SEP, " "));
                    out.push(SEP);
                } else {
                    push_token(&mut out, t);
                }
                break;
            }
            // `c` is ASCII alphanumeric (checked above): `-c` fits a
            // two-byte buffer, no allocation per letter.
            let pair = [b'-', c as u8];
            let flag = std::str::from_utf8(&pair).unwrap_or("-");
            if specs.takes_value(flag) {
                let rest = &body[pos + c.len_utf8()..];
                if !rest.is_empty() {
                    push_value(&mut out, flag, rest);
                } else if i < args.len() && !looks_like_option(&args[i].text) {
                    push_value(&mut out, flag, &args[i].text);
                    i += 1;
                } else {
                    push_token(&mut out, flag);
                }
                break;
            }
            push_token(&mut out, flag);
            last_pushed = true;
        }
    }
    Canonical {
        text: out,
        name_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::invocation::peel;
    use crate::shell::Word;

    fn canon(line: &str, tax: &Taxonomy) -> String {
        let words: Vec<Word> = line.split(' ').map(Word::literal).collect();
        canonical(&peel(&words, tax), tax).readable()
    }

    /// Help words count where the command's parser reads them as an
    /// option: declared for the command (`help` in commands.toml), before
    /// any `--`, and not after a word that could take them as its value.
    #[test]
    fn help_requests_where_the_parser_honours_them() {
        let tax = match Taxonomy::embedded() {
            Ok(tax) => tax,
            Err(e) => panic!("the embedded taxonomy loads: {e}"),
        };
        let asks = |line: &str| {
            let words: Vec<Word> = line.split(' ').map(Word::literal).collect();
            let inv = peel(&words, tax);
            asks_for_help(&inv, command_spec(&inv, tax), tax)
        };
        for help in [
            "git rebase --onto main -h",
            "git push --force origin main --help",
            "git -C repo reset --hard HEAD~1 -h",
            "shred -u notes.txt --help",
            "shred -u notes.txt --version",
            "sudo shred -zu key.pem --help",
            "az vm delete --help",
            "az group delete -n rg1 --help",
            "gsutil rm -h",
            "gsutil -m rm -r gs://b/x -h",
            "dropdb --help",
            "dropdb prod --help",
            "terraform destroy -target x -h",
            "kubectl delete pod web -h",
        ] {
            assert!(asks(help), "{help:?}");
        }
        for not_help in [
            // After `--` it is a path or a name.
            "git checkout -f -- -h",
            "rm -rf -- --version",
            // An option's value.
            "git commit -m -h",
            "shred -n --help notes.txt",
            "az vm delete --yes -h",
            // gsutil's own `-h` sets a header; git grep's hides file names.
            "gsutil -h x rm -r gs://b",
            "git grep -h TODO",
            // Tools with a BSD twin that does not permute, and undeclared ones.
            "rm -rf build --help",
            "docker rm web --help",
            "shred -u notes.txt",
            "git push origin main",
        ] {
            assert!(!asks(not_help), "{not_help:?}");
        }
    }

    #[test]
    fn bundles_split_and_values_attach() {
        let mut tax = Taxonomy::default();
        tax.commands.insert(
            "git".into(),
            CommandSpec {
                value_flags: ["-C".into(), "-c".into()].into_iter().collect(),
                long_single_dash: false,
                pattern_operand: false,
                ignore_flags: ["--no-pager".into()].into_iter().collect(),
                alias: None,
                help: Default::default(),
            },
        );
        tax.commands.insert(
            "find".into(),
            CommandSpec {
                value_flags: ["-name".into()].into_iter().collect(),
                long_single_dash: true,
                pattern_operand: false,
                ignore_flags: Default::default(),
                alias: None,
                help: Default::default(),
            },
        );
        for (line, want) in [
            ("rm -rf /x", "rm -r -f /x"),
            ("rm -fr /x", "rm -f -r /x"),
            ("rm --recursive --force /x", "rm --recursive --force /x"),
            ("rm -- -f", "rm -- ./-f"),
            ("head -50 f", "head -50 f"),
            ("git -C . status", "git -C=. status"),
            ("git --no-pager log", "git log"),
            ("git -ccore.pager=x log", "git -c=core.pager=x log"),
            ("perl -pi.bak -e x", "perl -p -i=.bak -e x"),
            ("gh run view 42 -w=true", "gh run view 42 -w=true"),
            ("find . -name x -delete", "find . -name=x -delete"),
            (
                "Remove-Item x -Recurse -Force",
                "remove-item x -recurse -force",
            ),
        ] {
            assert_eq!(canon(line, &tax), want, "{line:?}");
        }
    }

    /// The classifier looks a command's groups up under `matched_name`
    /// before (or instead of) building the form: the two must agree.
    #[test]
    fn the_matched_name_is_the_forms_command_word() {
        let tax = crate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        let mut names: Vec<&str> = tax.commands.keys().map(AsRef::as_ref).collect();
        names.extend(["rm", "frobnicate", "Remove-Item", "/usr/bin/git"]);
        let aliases = tax.commands.values().filter(|s| s.alias.is_some()).count();
        assert!(aliases > 0, "no alias in the embedded taxonomy to check");
        for name in names {
            let words: Vec<Word> = [name, "-x", "arg"].into_iter().map(Word::literal).collect();
            let inv = peel(&words, &tax);
            let spec = command_spec(&inv, &tax);
            assert_eq!(
                matched_name(&inv, spec),
                canonical(&inv, &tax).name(),
                "{name:?}"
            );
        }
    }
}
