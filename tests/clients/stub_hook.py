#!/usr/bin/env python3
"""A stand-in hook for client tests: logs what it was given, answers as told.

    stub_hook.py --log CALLS.jsonl --answer ANSWER.json [extra args...]
    stub_hook.py --log CALLS.jsonl --exec 'toolgate hook'

With --exec the stub is a recorder in front of a real hook: it passes stdin to
the command (run by the shell), logs its exit code, stdout and stderr, and
answers with them unchanged.

ANSWER.json is {"exit": 0, "stdout": "...", "stderr": "...", "sleep": 0}.
Each call appends one JSON line to CALLS.jsonl: the arguments, the raw stdin,
stdin parsed as JSON when it is JSON, and a few environment variables that
clients are known to set for hooks.  Standard library only.
"""

import json
import os
import sys
import time


def main():
    args = sys.argv[1:]
    log = answer_path = exec_cmd = None
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--log" and i + 1 < len(args):
            log = args[i + 1]
            i += 2
        elif args[i] == "--exec" and i + 1 < len(args):
            exec_cmd = args[i + 1]
            i += 2
        elif args[i] == "--answer" and i + 1 < len(args):
            answer_path = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    raw = sys.stdin.read() if not sys.stdin.isatty() else ""
    try:
        parsed = json.loads(raw)
    except Exception:
        parsed = None
    answer = {"exit": 0, "stdout": "", "stderr": ""}
    if exec_cmd:
        import subprocess
        t0 = time.time()
        p = subprocess.run(exec_cmd, shell=True, input=raw.encode(), capture_output=True)
        answer = {"exit": p.returncode, "stdout": p.stdout.decode("utf-8", "replace"),
                  "stderr": p.stderr.decode("utf-8", "replace"), "exec": exec_cmd,
                  "exec_seconds": round(time.time() - t0, 3)}
    elif answer_path:
        try:
            with open(answer_path) as f:
                answer.update(json.load(f))
        except Exception as e:  # a broken answer file must be visible
            answer = {"exit": 0, "stdout": "", "stderr": "stub_hook: %s" % e}
    env = {k: v for k, v in os.environ.items()
           if k.startswith(("CLAUDE", "CODEX", "GEMINI", "QWEN", "COPILOT", "CLINE",
                            "OPENCODE", "HOOK"))
           and "KEY" not in k and "TOKEN" not in k}
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({"t": time.time(), "argv": rest, "cwd": os.getcwd(),
                                "stdin": raw, "payload": parsed, "env": env,
                                "answer": answer}) + "\n")
    if answer.get("sleep"):
        time.sleep(float(answer["sleep"]))
    if answer.get("stdout"):
        sys.stdout.write(answer["stdout"])
        sys.stdout.flush()
    if answer.get("stderr"):
        sys.stderr.write(answer["stderr"])
        sys.stderr.flush()
    sys.exit(int(answer.get("exit", 0)))


if __name__ == "__main__":
    main()
