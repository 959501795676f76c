#!/usr/bin/env python3
"""How many of the agent corpus's calls the gate allows, with and without
the look, over fixture trees that stand in for the corpus's projects.

    python3 benches/look_usefulness.py [path/to/toolgate]

Each working directory of `corpus/agent-calls.jsonl` (`/testbed`, `/app`,
…) becomes a folder under a temporary root, a git repository whose files
are the relative paths the calls name (a few lines of plain text each),
committed twice so that revisions have history to read. The
corpus is decided three times under balanced mode with every-part-safe
compounds: by the words alone (`scan --decide`), with the look over the
clean trees (`--look`), and with the look after secrets are planted (a
`.env` at each project's root and a cloud key pair in a settings module
every tree gets). Prints the share of calls allowed in each.
"""

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus" / "agent-calls.jsonl"
KEY = (
    "AWS_ACCESS_KEY_ID = 'AKIAUJZDEGXDNCF32EPF'\n"
    "AWS_SECRET_ACCESS_KEY = '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'\n"
)
PATHISH = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,8}$")


def words(command):
    try:
        return shlex.split(command, comments=False)
    except ValueError:
        return command.split()


def build(root, calls, plant):
    for cwd in {c["cwd"] for c in calls}:
        project = root / cwd.lstrip("/")
        project.mkdir(parents=True, exist_ok=True)
        (project / "settings_local.py").write_text("DEBUG = True\n")
        if plant:
            (project / ".env").write_text("API_TOKEN=" + "Zq8" * 12 + "\n")
            (project / "settings_local.py").write_text("DEBUG = True\n" + KEY)
    for c in calls:
        project = root / c["cwd"].lstrip("/")
        for w in words(c["command"]):
            if w.startswith("/") or ".." in w or not PATHISH.match(w):
                continue
            path = project / w
            if path.exists():
                continue
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("plain text\nline two\n")
            except OSError:
                pass
    # Each project a repository with two commits of its files (the secrets
    # planted too, as a careless commit would hold them), so that `git show
    # HEAD~1:path` and `git diff` have history to read.
    for cwd in {c["cwd"] for c in calls}:
        project = root / cwd.lstrip("/")
        git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t",
               "-c", "commit.gpgsign=false"]
        subprocess.run(git[:3] + ["init", "-q", "-b", "main"], check=False)
        subprocess.run(git + ["add", "-A"], check=False)
        subprocess.run(git + ["commit", "-q", "-m", "files"], check=False)
        subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "again"], check=False)


def decide(binary, root, calls, look):
    lines = "".join(
        json.dumps({"command": c["command"], "cwd": str(root / c["cwd"].lstrip("/"))}) + "\n"
        for c in calls
    )
    args = [binary, "scan", "--input", "jsonl", "--format", "jsonl", "--decide",
            "--mode", "balanced", "--compound", "every-part-safe"]
    if look:
        args.append("--look")
    env = dict(os.environ, HOME=str(root / "home" / "dev"))
    out = subprocess.run(args, input=lines.encode(), capture_output=True, env=env, check=False)
    records = [json.loads(l) for l in out.stdout.decode().splitlines() if l.strip()]
    return sum(1 for r in records if r.get("decision") == "allow"), len(records)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "toolgate")
    calls = [json.loads(l) for l in CORPUS.read_text().splitlines() if l.strip()]
    calls = [c for c in calls if c.get("cwd")]
    for name, plant, look in [("words only", False, False), ("look, clean trees", False, True),
                              ("look, secrets planted", True, True)]:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            build(root, calls, plant)
            allowed, total = decide(binary, root, calls, look)
            print(f"{name:24} {allowed:4} of {total} allowed ({100 * allowed / max(total, 1):.1f}%)")


if __name__ == "__main__":
    main()
