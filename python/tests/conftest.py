"""Shared fixtures: the repository, its corpora and the toolgate CLI."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


def corpus_commands(limit_per_file=None):
    """Commands from ../shared/corpus/*.txt, or from corpus/ when it is absent."""
    commands = []
    if SHARED_CORPUS.is_dir():
        for path in sorted(SHARED_CORPUS.glob("*.txt")):
            lines = [l for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
            commands.extend(lines[:limit_per_file])
    else:
        for path in sorted((ROOT / "corpus").glob("*.jsonl")):
            rows = [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
            commands.extend(r["command"] for r in rows[:limit_per_file] if isinstance(r.get("command"), str))
    return commands


@pytest.fixture(scope="session")
def toolgate_bin() -> str:
    """The CLI: $TOOLGATE_BIN, else this checkout's debug build (brought up
    to date first, so that a stale binary never answers)."""
    explicit = os.environ.get("TOOLGATE_BIN")
    if explicit:
        return explicit
    subprocess.run(["cargo", "build", "--locked", "--bin", "toolgate"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "debug" / "toolgate")


def scan(toolgate_bin: str, rows) -> list:
    """`toolgate scan` of (command, cwd) rows: each row's label fields (the
    record without the `command` and `cwd` it echoes, and the `line` and
    `column` it was read at)."""
    lines = []
    for command, cwd in rows:
        record = {"command": command}
        if cwd is not None:
            record["cwd"] = cwd
        lines.append(json.dumps(record))
    out = subprocess.run(
        [toolgate_bin, "scan", "--input", "jsonl", "--format", "jsonl"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    records = [json.loads(l) for l in out.splitlines()]
    assert len(records) == len(lines), "scan wrote a record per input row"
    for n, (record, (command, cwd)) in enumerate(zip(records, rows)):
        assert record.pop("command") == command
        assert record.pop("cwd", None) == cwd
        assert (record.pop("line"), record.pop("column")) == (n + 1, 1)
    return records
