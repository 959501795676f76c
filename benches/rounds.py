#!/usr/bin/env python3
"""CPU and wall time of `toolgate scan` for two or more binaries, in rounds.

Each round runs every binary once over the same input, the order reversed
every other round, so that a shared machine's changing load falls on all
sides alike; the medians are then compared with the first binary. The CPU
time of a run is its user + system time as `os.wait4` reports it.

    python3 benches/rounds.py --runs 100 --threads 1 \
        /tmp/start/target/release/toolgate target/release/toolgate -- /tmp/all.txt

(`/tmp/all.txt` being `cat ../shared/corpus/*.txt`.) With `--hook`, the
input is a Claude Code hook payload instead, and each round answers it ten
times per binary with `toolgate hook --protocol claude` (decision log off):

    python3 benches/rounds.py --runs 100 --hook START NOW -- \
        ../shared/protocols/claude-code-2.1.332-PreToolUse-Bash.json

`--mode guard` adds `--mode guard` to the hook, which allows a safe read
after a look at what it reads (a payload whose `cwd` holds the file).

The criterion groups
of `benches/process.rs` time the same pair with `TOOLGATE_START_BIN`; this
script gives the steadier medians BENCHMARKS.md quotes.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="rounds (default 50)")
    parser.add_argument("--threads", default="1", help="scan --threads (default 1)")
    parser.add_argument(
        "--format", default="jsonl", help="scan --format (default jsonl, what a pipe gets)"
    )
    parser.add_argument(
        "--hook", action="store_true", help="the input is a hook payload for `hook --protocol claude`"
    )
    parser.add_argument(
        "--mode", help="with --hook: the gate's mode (guard allows a safe read after a look)"
    )
    parser.add_argument("binaries", nargs="+", help="toolgate binaries; the first is the base")
    parser.add_argument("input", help="the file to scan (after --)")
    args = parser.parse_args()
    for b in args.binaries:
        if not os.access(b, os.X_OK):
            print(f"rounds.py: {b} is not an executable file", file=sys.stderr)
            return 2
    if not os.path.isfile(args.input):
        print(f"rounds.py: {args.input} is not a file", file=sys.stderr)
        return 2
    cpu = {b: [] for b in args.binaries}
    wall = {b: [] for b in args.binaries}
    env = dict(os.environ, TOOLGATE_LOG="0")
    if args.hook:
        command = ["hook", "--protocol", "claude"]
        if args.mode:
            command += ["--mode", args.mode]
        with open(args.input, "rb") as f:
            payload = f.read()
        calls = 10
    else:
        command = ["scan", args.input, "--format", args.format, "--threads", args.threads]
        payload = None
        calls = 1
    for i in range(args.runs):
        order = args.binaries if i % 2 == 0 else args.binaries[::-1]
        for b in order:
            for _ in range(calls):
                started = time.perf_counter()
                child = subprocess.Popen(
                    [b, *command],
                    stdin=subprocess.PIPE if payload else subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    env=env,
                )
                if payload:
                    child.stdin.write(payload)
                    child.stdin.close()
                _, status, usage = os.wait4(child.pid, 0)
                if status != 0:
                    print(f"rounds.py: {b} exited with status {status}", file=sys.stderr)
                    return 1
                wall[b].append(time.perf_counter() - started)
                cpu[b].append(usage.ru_utime + usage.ru_stime)
    base_cpu = statistics.median(cpu[args.binaries[0]])
    base_wall = statistics.median(wall[args.binaries[0]])
    for b in args.binaries:
        c, w = statistics.median(cpu[b]), statistics.median(wall[b])
        print(
            f"{b}: cpu {c * 1000:.3f} ms ({c / base_cpu * 100 - 100:+.1f}%), "
            f"wall {w * 1000:.3f} ms ({w / base_wall * 100 - 100:+.1f}%)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
