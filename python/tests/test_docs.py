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
