#!/usr/bin/env python3
"""What the look costs the hook, measured as a user meets it.

    python3 benches/look_speed.py NEW_TOOLGATE [START_TOOLGATE]

1. `git status` through the hook (balanced mode, which the start knows too;
   decision log on): instructions under callgrind for each binary given (the look reads
   nothing for it, so the figure should stay within 10% of the start), and
   wall time beside an empty Rust program that reads its stdin.
2. `cat big.txt` of a 1 MiB file: the hook's wall time with the look on,
   less with `TOOLGATE_LOOK=off` (medians of 60 runs, on and off taking
   turns).
3. `grep -r needle .` over a 2,000-file, 20 MB tree: the hook's wall time
   with the look on, less off, beside `grep -r needle .` itself (page cache
   warm; medians of 20 runs, on and off taking turns, and of 10 for grep).

All in one run, on the same cores.
"""

import json
import os
import pathlib
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def payload(cwd, command):
    return json.dumps({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": str(cwd),
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "permission_mode": "default",
        "tool_input": {"command": command}, "tool_use_id": "t",
    }).encode()


def wall(args, stdin=b"", env=None, cwd=None, runs=20):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(args, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def paired(args, stdin, env, runs):
    """Medians of the hook with the look on and off, runs alternating so
    that a noisy neighbour slows both alike."""
    on, off = [], []
    env_off = dict(env, TOOLGATE_LOOK="off")
    for _ in range(runs):
        for e, times in ((env, on), (env_off, off)):
            t0 = time.perf_counter()
            subprocess.run(args, input=stdin, env=e, capture_output=True, check=False)
            times.append(time.perf_counter() - t0)
    return statistics.median(on), statistics.median(off)


def instructions(args, stdin, env):
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + args,
        input=stdin, env=env, capture_output=True, check=False)
    m = re.search(rb"Collected : (\d+)", out.stderr)
    return int(m.group(1)) if m else None


def empty_program(tmp):
    src = tmp / "empty.rs"
    src.write_text("use std::io::Read;\nfn main() { let mut s = Vec::new(); let _ = std::io::stdin().read_to_end(&mut s); }\n")
    exe = tmp / "empty"
    subprocess.run(["rustc", "-O", "-o", str(exe), str(src)], check=True)
    return str(exe)


def main():
    binaries = sys.argv[1:] or ["target/release/toolgate"]
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        proj = tmp / "proj"
        (proj / ".git").mkdir(parents=True)
        env = dict(os.environ, HOME=str(tmp), TOOLGATE_LOG="1", TOOLGATE_STATE_DIR=str(tmp / "state"))
        status = payload(proj, "git status")
        print("1. `git status` through the hook (balanced mode, decision log on)")
        empty = empty_program(tmp)
        print(f"   empty Rust program reading stdin: {wall([empty], status, runs=40) * 1e3:.2f} ms")
        for b in binaries:
            # balanced: a mode both the start and now know.
            ir = instructions([b, "hook", "--mode", "balanced"], status, env)
            ms = wall([b, "hook", "--mode", "balanced"], status, env, runs=40) * 1e3
            print(f"   {b}: {ir} instructions, {ms:.2f} ms")
        new = binaries[0]
        big = proj / "big.txt"
        rng = random.Random(1)
        words = ["alpha", "beta", "gamma", "delta", "stock", "count", "order", "total"]
        line = lambda: " ".join(rng.choice(words) for _ in range(10)) + "\n"
        with big.open("w") as f:
            while f.tell() < (1 << 20):
                f.write(line())
        cat = payload(proj, "cat big.txt")
        on, off = paired([new, "hook", "--mode", "guard"], cat, env, runs=60)
        print(f"2. `cat big.txt` (1 MiB): look on {on * 1e3:.2f} ms, off {off * 1e3:.2f} ms, "
              f"the look {(on - off) * 1e3:.2f} ms")
        tree = tmp / "tree"
        (tree / ".git").mkdir(parents=True)
        for i in range(2000):
            d = tree / f"d{i % 40}"
            d.mkdir(exist_ok=True)
            with (d / f"f{i}.txt").open("w") as f:
                while f.tell() < 10_000:
                    f.write(line())
        grep = payload(tree, "grep -r needle .")
        wall(["grep", "-r", "needle", "."], cwd=tree, runs=2)
        g = wall(["grep", "-r", "needle", "."], cwd=tree, runs=10)
        on, off = paired([new, "hook", "--mode", "guard"], grep, env, runs=20)
        print(f"3. 2,000 files, 20 MB: `grep -r` {g * 1e3:.1f} ms; hook look on {on * 1e3:.1f} ms, "
              f"off {off * 1e3:.1f} ms, the look {(on - off) * 1e3:.1f} ms")
        shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    main()
