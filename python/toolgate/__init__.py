"""Label and gate the tool calls an AI agent wants to make.

Every call gets a :class:`Label`: ``safety_label`` (``safe``, ``destructive``
or ``unknown``), ``blast_radius``, ``category`` and ``reason``. A command is
safe only when one simple command's every word is explained by a spec of the
real tool; a destructive pattern anywhere wins. A :class:`Gate` turns labels
into ``allow``, ``ask`` or ``deny`` under a safety mode or a profile.

>>> import toolgate
>>> toolgate.classify("git status").safety_label
'safe'
>>> toolgate.classify("rm -rf /").metadata()["category"]
'fs-delete'
>>> toolgate.Gate(mode="balanced").decide("shell", {"cmd": "git log -5"}).decision
'allow'

The classifying runs in Rust with the GIL released. For many commands at
once, :func:`classify_batch` takes a list or a pyarrow string array and
returns a pyarrow struct array, with no Python object per row;
:mod:`toolgate.spark` does the same for a Spark DataFrame column.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Sequence, Union

from toolgate import _toolgate
# Called straight, with no Python frame between: a call from Python costs
# within 2x of the classification itself (python/bench/bench_python.py).
from toolgate._toolgate import Label, Verdict, classify

__all__ = [
    "LABEL_FIELDS",
    "Gate",
    "Label",
    "Verdict",
    "classify",
    "classify_batch",
    "explain",
    "label_tool_call",
]

#: The label fields, in the order :func:`classify_batch` returns them.
LABEL_FIELDS: tuple = tuple(_toolgate.LABEL_FIELDS)


def explain(cmd: str, cwd: Optional[str] = None) -> dict:
    """Why a command got its label, as a dict.

    Keys: ``label`` (the label's fields), ``commands`` (every command found,
    nested ones included, with the rules and specs that matched it),
    ``findings`` (destructive rule matches), ``not_safe`` (why it is not
    safe; empty when it is) and ``every_part_safe``.
    """
    return json.loads(_toolgate.explain_json(cmd, cwd))


def _json(value: Any, what: str) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what} must be JSON-serialisable: {e}") from None


def _hints(hints: Optional[Mapping[str, Any]]) -> Optional[str]:
    if hints is None:
        return None
    if not isinstance(hints, Mapping):
        raise TypeError(
            f"hints must be a dict such as {{'readOnlyHint': True}}, not {type(hints).__name__}"
        )
    return _json(dict(hints), "hints")


def label_tool_call(
    tool: str,
    args: Mapping[str, Any],
    hints: Optional[Mapping[str, Any]] = None,
    cwd: Optional[str] = None,
) -> Label:
    """Label one tool call.

    The shell tool (``shell``, ``bash``, ``Bash``, ``run_shell_command``, …)
    is labelled by its command (``cmd``/``command`` argument); any other tool
    by its MCP annotation ``hints`` (``readOnlyHint``, ``destructiveHint``),
    and unknown without them.
    """
    return _toolgate.label_tool_call_json(tool, _json(args, "args"), _hints(hints), cwd)


class Gate:
    """Decides tool calls: ``allow``, ``ask`` or ``deny``.

    ``mode`` is a safety mode (``strict``, ``balanced``, ``restricted``,
    ``autonomous``, ``legacy``); ``profile`` an automation, action-class or
    custom profile, which decides instead of the mode; ``compound`` is
    ``refuse`` (the default) or ``every-part-safe``. An unknown name raises
    ``ValueError``. With ``look=True`` a shell call is allowed only after a
    look at what it would really read, from its ``cwd`` (or the current
    directory), finds no secret, as the hook does; a read only a look can
    clear (a search of the working directory) is then allowed when clean.
    """

    __slots__ = ("_gate",)

    def __init__(
        self,
        mode: Optional[str] = None,
        profile: Optional[str] = None,
        compound: Optional[str] = None,
        look: bool = False,
    ) -> None:
        self._gate = _toolgate.Gate(mode, profile, compound, look)

    def decide(
        self,
        tool: str,
        args: Mapping[str, Any],
        hints: Optional[Mapping[str, Any]] = None,
        cwd: Optional[str] = None,
    ) -> Verdict:
        """The verdict on one tool call: ``decision``, ``reason``, ``source``
        (what decided) and ``label``."""
        return self._gate.decide_json(tool, _json(args, "args"), _hints(hints), cwd)


def _arrow_strings(values: Any, what: str):
    """A pyarrow string array (or chunked array) from a list or an array."""
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if hasattr(values, "__arrow_c_array__"):
        return values
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a list of str or a pyarrow string array, not one string")
    try:
        return pa.array(values, type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise TypeError(f"{what} must be a list of str (or None) or a pyarrow string array: {e}") from None


def classify_batch(
    commands: Union[Sequence[Optional[str]], Any],
    cwds: Union[Sequence[Optional[str]], Any, None] = None,
    threads: Optional[int] = None,
):
    """Label many commands at once, on every core, in input order.

    ``commands`` is a list of ``str`` (``None`` allowed) or a pyarrow
    ``string``/``large_string``/``string_view`` array or chunked array;
    ``cwds``, when given, the same for each command's working directory.
    Returns a ``pyarrow.StructArray`` with the string fields
    ``safety_label``, ``blast_radius``, ``category`` and ``reason``, each
    row exactly the command's ``classify(cmd, cwd).metadata()`` with a
    missing key as null; a null command gives a null row. ``threads``
    defaults to every core. Needs pyarrow.
    """
    import pyarrow as pa

    commands = _arrow_strings(commands, "commands")
    if cwds is not None:
        cwds = _arrow_strings(cwds, "cwds")
        if len(cwds) != len(commands):
            raise ValueError(f"cwds has {len(cwds)} rows but commands has {len(commands)}")
    if isinstance(commands, pa.ChunkedArray) or isinstance(cwds, pa.ChunkedArray):
        commands = _combined(commands)
        cwds = None if cwds is None else _combined(cwds)
    return _toolgate.classify_arrow(commands, cwds, threads)


def _combined(values):
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            return values.chunk(0)
        if values.num_chunks == 0:
            return pa.array([], type=values.type)
        return values.combine_chunks()
    return values
