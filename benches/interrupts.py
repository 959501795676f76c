#!/usr/bin/env python3
"""The share of calls toolgate itself interrupts (ask or deny), per mode.

Runs `toolgate scan --decide` over the project's agent corpus and the shared
corpora under the legacy row (a hook with no mode: what `install` wrote
before the guard mode), balanced, and guard (what `install` writes now), and
prints a Markdown table of (ask + deny) / commands.

    python3 benches/interrupts.py target/release/toolgate

A corpus that is absent (../shared not beside the checkout) is left out.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"
CORPORA = [(ROOT / "corpus" / "agent-calls.jsonl", ["--input", "jsonl"])] + [
    (SHARED / n, []) for n in ["cheatsheets.txt", "gtfobins.txt", "kypo_history.txt",
                               "nl2bash.txt", "slp_malicious.txt", "tldr.txt",
                               "tldr_windows.txt"]]
MODES = [("legacy (no mode)", []), ("balanced", ["--mode", "balanced"]),
         ("guard", ["--mode", "guard"])]


def interrupted(binary, path, extra, mode):
    out = subprocess.run([binary, "scan", "--format", "summary", "--decide"] + extra + mode
                         + [str(path)], capture_output=True, text=True, check=True).stdout
    total = int(re.match(r"(\d+) commands", out).group(1))
    section = out.split("decision:")[1].split("\n\n")[0]
    counts = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", section)}
    return total, counts.get("ask", 0) + counts.get("deny", 0)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/toolgate")
    print("| corpus | commands | " + " | ".join(m for m, _ in MODES) + " |")
    print("|---|---|" + "---|" * len(MODES))
    for path, extra in CORPORA:
        if not path.exists():
            continue
        cells, total = [], 0
        for _, mode in MODES:
            total, n = interrupted(binary, path, extra, mode)
            cells.append("%.1f%% (%d)" % (100.0 * n / total, n))
        name = str(path.relative_to(ROOT.parent)) if SHARED in path.parents else \
            str(path.relative_to(ROOT))
        print("| %s | %d | %s |" % (name, total, " | ".join(cells)))


if __name__ == "__main__":
    main()
