"""The examples in the package's docstrings run."""

import doctest

import toolgate


def test_the_package_docstring_examples_run():
    failures, tried = doctest.testmod(toolgate, optionflags=doctest.ELLIPSIS)
    assert tried >= 3
    assert failures == 0


def test_every_public_name_is_documented():
    for name in toolgate.__all__:
        obj = getattr(toolgate, name)
        if callable(obj):
            assert obj.__doc__, f"toolgate.{name} has no docstring"


def test_the_python_examples_of_the_docs_say_what_they_do():
    """Each `expression  # value` line of the first Python block of the
    README's Python example and of docs/python.md evaluates to that value
    (a line whose comment is no literal just runs)."""
    import ast
    import re

    from conftest import ROOT

    for page, heading, least in (
        ("README.md", "### A Python caller", 2),
        ("docs/python.md", "# Python and Spark", 4),
    ):
        text = (ROOT / page).read_text(encoding="utf-8")
        section = text.split(heading, 1)[1]
        block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
        scope = {}
        checked = 0
        for line in block.splitlines():
            if not line.strip() or "pyarrow_string_array" in line:
                continue
            code, _, comment = line.partition("  # ")
            try:
                expected = ast.literal_eval(comment.strip().split(";")[0]) if comment else None
            except (ValueError, SyntaxError):
                expected = None
            if expected is None or "=" in code.split("(")[0]:
                exec(code, scope)
                continue
            assert eval(code, scope) == expected, f"{page}: {line}"
            checked += 1
        assert checked >= least, page
