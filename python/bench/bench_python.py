"""Python against Rust, in one process and one run.

    target/python-venv/bin/python python/bench/bench_python.py

1. `toolgate.classify` per call from Python, against the same commands
   classified by a loop inside the native module (the Rust in-process
   figure, no Python in the loop).
2. `toolgate.classify_batch` over a pyarrow array of the shared corpus,
   against the Rust batch API (`Batch::labels`) over the same commands, on
   the same threads.

Each figure is the best of several rounds, Python and Rust interleaved so
that both see the same machine.
"""

import pathlib
import sys
import time

import pyarrow as pa

import toolgate
from toolgate import _toolgate

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def corpus():
    lines = []
    for path in sorted(CORPUS.glob("*.txt")):
        lines += [l for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    if not lines:
        sys.exit(f"no corpus at {CORPUS}")
    return lines


def best(f, rounds):
    return min(f() for _ in range(rounds))


def per_call(commands, repeat):
    classify = toolgate.classify

    def python():
        start = time.perf_counter()
        for _ in range(repeat):
            for c in commands:
                classify(c)
        return time.perf_counter() - start

    def rust():
        return _toolgate._bench_classify(commands, repeat)

    n = len(commands) * repeat
    p = r = float("inf")
    for _ in range(7):
        p = min(p, python())
        r = min(r, rust())
    return p / n * 1e6, r / n * 1e6


def batch(commands, threads):
    array = pa.array(commands, type=pa.string())

    def python():
        start = time.perf_counter()
        toolgate.classify_batch(array, threads=threads)
        return time.perf_counter() - start

    def rust():
        return _toolgate._bench_batch(commands, threads, 1)

    p = r = float("inf")
    for _ in range(7):
        p = min(p, python())
        r = min(r, rust())
    return len(commands) / p, len(commands) / r


def main():
    lines = corpus()
    print(f"corpus: {len(lines):,} commands from {CORPUS}")
    print("\nper call (µs), Python classify() against the Rust loop:")
    for name, cmds, repeat in [
        ("git status", ["git status"], 20_000),
        ("4-stage pipeline", ["cat a.txt | grep -v x | sort -u | head -5"], 5_000),
        ("every corpus line", lines, 1),
    ]:
        p, r = per_call(cmds, repeat)
        print(f"  {name:<18} python {p:7.2f}   rust {r:7.2f}   ratio {p / r:5.2f}x")
    print("\nbatch (commands/s), classify_batch(pyarrow) against Batch::labels:")
    for threads in (1, 2):
        p, r = batch(lines, threads)
        print(f"  {threads} thread(s)  python {p:12,.0f}   rust {r:12,.0f}   share {p / r:6.1%}")


if __name__ == "__main__":
    main()
