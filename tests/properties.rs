//! Property tests: no input may panic, hang, or come out safe when it hides
//! a destructive command.

use proptest::prelude::*;
use toolgate::{classify, classify_bytes, shell, Class, Classifier, Label};

/// Fragments of shell syntax, so generated inputs reach deep parser states
/// rather than dying on the first byte.
fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "rm",
        "-rf",
        "/",
        "ls",
        "git",
        "reset",
        "--hard",
        "'",
        "\"",
        "`",
        "$(",
        ")",
        "(",
        "{",
        "}",
        ";",
        "&&",
        "||",
        "|",
        "&",
        ">",
        ">>",
        "<",
        "<<EOF\n",
        "EOF\n",
        "<<<",
        "\\",
        "\n",
        " ",
        "$'\\x72'",
        "${x:-",
        "if",
        "then",
        "fi",
        "for",
        "in",
        "do",
        "done",
        "case",
        "esac",
        ";;",
        "bash -c",
        "sudo",
        "env",
        "xargs",
        "find . -exec",
        "\\;",
        "eval",
        "ssh h",
        "python -c",
        "=(",
        "<(",
        "[[",
        "]]",
        "((",
        "))",
        "#",
        "*",
        "?",
        "~",
        "*(",
        "!",
        "coproc",
        "time",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = classify_bytes(&bytes);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in ".{0,300}") {
        let _ = classify(&s);
    }

    #[test]
    fn shell_fragments_never_panic_and_spans_stay_inside(s in shellish()) {
        let script = shell::parse(&s);
        for cmd in &script.commands {
            for w in &cmd.words {
                prop_assert!(w.span.end <= s.len() || cmd.in_substitution);
            }
        }
        let _ = classify(&s);
    }

    /// A terse label is the label, with an unknown one's reason left out.
    #[test]
    fn terse_labels_are_labels_without_unknown_reasons(s in shellish()) {
        let Ok(c) = Classifier::embedded() else {
            return Err(TestCaseError::fail("the embedded taxonomy did not load"));
        };
        let (full, terse) = (c.classify(&s), c.classify_terse(&s));
        let expected = if full.class == Class::Unknown {
            Label { reason: "".into(), ..full }
        } else {
            full
        };
        prop_assert_eq!(terse, expected, "{:?}", s);
    }

    /// Whatever is put around it, a recursive delete stays destructive.
    #[test]
    fn destructive_survives_any_prefix(prefix in prop::sample::select(vec![
        "", "ls; ", "true && ", "false || ", "echo x | ", "sudo ", "env A=1 ", "nice -n 5 ",
        "timeout 5 ", "bash -c '", "(", "{ ", "if true; then ", "x=$(", "echo `",
    ])) {
        let suffix = match prefix {
            "bash -c '" => "'",
            "(" => ")",
            "{ " => "; }",
            "if true; then " => "; fi",
            "x=$(" => ")",
            "echo `" => "`",
            _ => "",
        };
        let cmd = format!("{prefix}rm -rf /srv/data{suffix}");
        prop_assert_eq!(classify(&cmd).class, Class::Destructive, "{}", cmd);
    }

    /// Appending anything after a safe command never keeps it safe unless
    /// the addition is plain arguments.
    #[test]
    fn operators_break_safety(op in prop::sample::select(vec![";", "&&", "||", "|", "&", ">", "$(", "`"]), rest in "[a-z]{1,10}") {
        let cmd = format!("git status {op} {rest}");
        prop_assert_ne!(classify(&cmd).class, Class::Safe, "{}", cmd);
    }
}

#[test]
fn deep_nesting_is_bounded() {
    for (open, close) in [
        ("$(", ")"),
        ("(", ")"),
        ("$((", "))"),
        ("`", "`"),
        ("{ ", "; }"),
        ("bash -c '", "'"),
    ] {
        let cmd = format!("{}ls{}", open.repeat(10_000), close.repeat(10_000));
        assert_ne!(classify(&cmd).class, Class::Safe, "{open}");
    }
    let cmd = format!("{}rm -rf /{}", "$(".repeat(30), ")".repeat(30));
    assert_eq!(classify(&cmd).class, Class::Destructive);
}

#[test]
fn one_mebibyte_commands_finish() {
    let long_word = format!("ls {}", "a".repeat(1 << 20));
    assert_eq!(classify(&long_word).class, Class::Safe);
    let many_words = "echo x ".repeat((1 << 20) / 7);
    let _ = classify(&many_words);
    let many_commands = "ls; ".repeat((1 << 20) / 4);
    assert_eq!(classify(&many_commands).class, Class::Unknown);
    let quotes = "'".repeat(1 << 20);
    let _ = classify(&quotes);
    let heredocs = "cat <<EOF\n".repeat((1 << 20) / 10);
    let _ = classify(&heredocs);
}
