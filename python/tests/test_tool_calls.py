import pytest

import toolgate


def test_the_shell_tool_is_labelled_by_its_command():
    assert toolgate.label_tool_call("shell", {"cmd": "git status"}).safety_label == "safe"
    assert toolgate.label_tool_call("Bash", {"command": "rm -rf ~"}).safety_label == "destructive"


def test_other_tools_are_labelled_by_their_hints():
    label = toolgate.label_tool_call("read_file", {"path": "x"}, {"readOnlyHint": True})
    assert (label.safety_label, label.origin) == ("safe", "annotation")
    label = toolgate.label_tool_call(
        "drop_table", {}, {"readOnlyHint": True, "destructiveHint": True}
    )
    assert label.safety_label == "destructive"
    assert toolgate.label_tool_call("mystery", {"a": 1}).safety_label == "unknown"


def test_the_shell_tool_takes_a_cwd():
    assert (
        toolgate.label_tool_call("shell", {"cmd": "cat /p/README.md"}, cwd="/p").safety_label
        == "safe"
    )


def test_bad_hints_and_arguments_are_clear_errors():
    with pytest.raises(TypeError, match="hints must be a dict"):
        toolgate.label_tool_call("t", {}, ["readOnlyHint"])
    with pytest.raises(ValueError, match="hints must be"):
        toolgate.label_tool_call("t", {}, {"readOnlyHint": "yes"})
    with pytest.raises(TypeError, match="args must be JSON-serialisable"):
        toolgate.label_tool_call("t", {"x": object()})
