import pytest

import toolgate
from toolgate import Label


def test_a_plain_read_is_safe_with_its_reason():
    label = toolgate.classify("git status")
    assert label.safety_label == "safe"
    assert label.blast_radius == "safe"
    assert label.category == "git-read"
    assert label.reason == "shows the working tree status"
    assert label.origin == "classifier"


def test_a_destructive_command_anywhere_wins():
    label = toolgate.classify("echo start && rm -rf / && echo done")
    assert (label.safety_label, label.blast_radius, label.category) == (
        "destructive",
        "high",
        "fs-delete",
    )


def test_metadata_is_the_dict_hook_authors_match_on():
    assert toolgate.classify("rm -rf /tmp/build").metadata() == {
        "safety_label": "destructive",
        "blast_radius": "low",
        "category": "fs-delete",
        "reason": toolgate.classify("rm -rf /tmp/build").reason,
    }
    # An unknown label has no reason and no category.
    assert toolgate.classify("npm run dev").metadata() == {
        "safety_label": "unknown",
        "blast_radius": "unknown",
    }
    # Nor has an empty command, whose radius is not known either.
    empty = toolgate.classify("  ")
    assert empty.blast_radius == "unknown"
    assert empty.metadata() == {"safety_label": "unknown", "blast_radius": "unknown"}


def test_compound_shell_is_never_labelled_safe():
    assert toolgate.classify("ls -la").safety_label == "safe"
    assert toolgate.classify("ls -la && git status").safety_label == "unknown"


def test_the_working_directory_puts_absolute_paths_inside():
    assert toolgate.classify("cat /work/app/README.md").safety_label == "unknown"
    assert toolgate.classify("cat /work/app/README.md", cwd="/work/app").safety_label == "safe"
    # ... but not outside it, nor a secret inside it.
    assert toolgate.classify("cat /etc/passwd", cwd="/work/app").safety_label == "unknown"
    assert toolgate.classify("cat /work/app/.env", cwd="/work/app").safety_label == "destructive"


def test_a_relative_cwd_is_an_error():
    with pytest.raises(ValueError, match="absolute"):
        toolgate.classify("ls", cwd="work/app")


def test_bytes_are_classified_and_bytes_that_are_not_utf8_are_unknown():
    assert toolgate.classify(b"git status").safety_label == "safe"
    label = toolgate.classify(b"ls \xff\xfe")
    assert label.safety_label == "unknown"
    assert toolgate.classify(b"rm -rf / \xff").safety_label == "destructive"


@pytest.mark.parametrize("bad", [None, 42, 3.5, ["ls"], {"cmd": "ls"}])
def test_anything_but_text_is_a_type_error(bad):
    with pytest.raises(TypeError, match="str or bytes"):
        toolgate.classify(bad)


def test_a_str_that_cannot_be_utf8_is_a_unicode_error():
    with pytest.raises(UnicodeEncodeError):
        toolgate.classify("ls \udc80")


def test_huge_commands_never_crash():
    huge = "echo " + "a" * 20_000_000
    assert toolgate.classify(huge).safety_label in {"safe", "unknown"}
    assert toolgate.classify("rm -rf / " + "x " * 1_000_000).safety_label == "destructive"
    deep = "bash -c " * 5_000 + "ls"
    assert toolgate.classify(deep).safety_label == "unknown"


def test_an_empty_command_is_unknown():
    assert toolgate.classify("").safety_label == "unknown"
    assert toolgate.classify("   ").safety_label == "unknown"


def test_labels_are_immutable_values():
    a = toolgate.classify("git status")
    b = toolgate.classify("git status")
    assert a == b and hash(a) == hash(b)
    assert a != toolgate.classify("git log")
    assert len({a, b, toolgate.classify("rm -rf /")}) == 2
    with pytest.raises(AttributeError):
        a.safety_label = "destructive"
    assert repr(a).startswith('Label(safety_label="safe", blast_radius="safe"')
    with pytest.raises(TypeError):
        Label()


def test_explain_says_why_a_command_is_not_safe():
    report = toolgate.explain("sort --outp=notes.txt data")
    assert report["label"]["class"] == "unknown"
    assert any("--outp" in reason for reason in report["not_safe"]), report["not_safe"]
    assert [c["command"] for c in report["commands"]] == ["sort --outp=notes.txt data"]
    safe = toolgate.explain("git status")
    assert safe["not_safe"] == []
    assert safe["label"]["class"] == "safe"


def test_explain_takes_a_cwd():
    assert toolgate.explain("cat /w/a.txt", cwd="/w")["label"]["class"] == "safe"
    with pytest.raises(ValueError):
        toolgate.explain("ls", cwd="rel")
