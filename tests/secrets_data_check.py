#!/usr/bin/env python3
"""Checks the secret taxonomy in taxonomy/secrets/ (stdlib only).

Run from the repository root (or anywhere):

    python3 tests/secrets_data_check.py

It loads every TOML file under taxonomy/secrets/ and checks:

* content detectors (every file but placeholders.toml and files.toml): the
  schema, unique ids, patterns in the regex subset shared by Rust's
  regex-automata (Unicode off) and Python's `re`, every example detected and
  no near miss, every example match holding one of the detector's keywords;
* placeholders.toml: its examples read as placeholders, its near misses not;
* files.toml: a reference matcher accepts every example of a table and no
  near miss of any table. The matcher lower-cases the path, strips backup,
  compression and archive suffixes from every component, then: a [[dirs]]
  name matches any run of components (the last one too), [[names]],
  [[suffixes]] and [[words]] the last component, [[paths]] the trailing
  components (`*` within a component, `**` for any number of components);
  `except_suffixes` and `code_suffixes` exempt a last component.

Detection here is the reference for the Rust side: a line is looked at only
when it contains a keyword (case-insensitively); the pattern must match it;
the `secret` group (or the whole match) must reach `min_entropy` bits a byte
and, with `placeholders = true`, must not read as a placeholder.

Exit status 0 when everything holds; otherwise every problem is printed and
the status is 1.
"""

import math
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIR = ROOT / "taxonomy" / "secrets"

problems: list[str] = []


def problem(where: str, text: str) -> None:
    problems.append(f"{where}: {text}")


# ---------------------------------------------------------------------------
# Placeholders

PLACEHOLDER_KEYS = {"words", "values", "wrappers", "examples", "near_misses"}


class Placeholders:
    def __init__(self, table: dict):
        self.words = [w.lower() for w in table.get("words", [])]
        self.values = {v.lower() for v in table.get("values", [])}
        self.wrappers = [tuple(p) for p in table.get("wrappers", [])]

    def __call__(self, value: str) -> bool:
        low = value.lower()
        if not value:
            return True
        # One character repeated (`xxxxxxxx`, `********`, `00000000`).
        if len(set(value)) == 1:
            return True
        if low in self.values:
            return True
        if any(w in low for w in self.words):
            return True
        for start, end in self.wrappers:
            if (
                len(value) >= len(start) + len(end)
                and value.startswith(start)
                and value.endswith(end)
            ):
                return True
        return False


def load_placeholders(path: pathlib.Path) -> Placeholders:
    data = tomllib.loads(path.read_text())
    where = path.name
    if set(data) != {"placeholders"}:
        problem(where, f"top-level keys must be exactly [placeholders], got {sorted(data)}")
    table = data.get("placeholders", {})
    for key in table:
        if key not in PLACEHOLDER_KEYS:
            problem(where, f"unknown key `{key}` in [placeholders]")
    for key in ("words", "wrappers", "examples", "near_misses"):
        if key not in table:
            problem(where, f"missing `{key}` in [placeholders]")
    for w in table.get("words", []):
        if not isinstance(w, str) or not w or w != w.lower():
            problem(where, f"word {w!r} must be a non-empty lower-case string")
    for pair in table.get("wrappers", []):
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(x, str) for x in pair)
            and pair[0]
        ):
            problem(where, f"wrapper {pair!r} must be a pair of strings, the first non-empty")
    ph = Placeholders(table)
    for ex in table.get("examples", []):
        if not ph(ex):
            problem(where, f"example {ex!r} does not read as a placeholder")
    for nm in table.get("near_misses", []):
        if ph(nm):
            problem(where, f"near miss {nm!r} reads as a placeholder")
    if len(table.get("examples", [])) < 2 or len(table.get("near_misses", [])) < 2:
        problem(where, "needs at least 2 examples and 2 near misses")
    return ph


# ---------------------------------------------------------------------------
# Content detectors

DETECTOR_REQUIRED = {"id", "kind", "keywords", "pattern", "examples", "near_misses"}
DETECTOR_OPTIONAL = {"case_insensitive", "min_entropy", "placeholders"}
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
KIND_RE = re.compile(r"^(?:a|an|the) \S")

# Constructs outside the subset shared by Rust regex-automata and Python re.
FORBIDDEN = [
    ("(?=", "look-ahead"),
    ("(?!", "negative look-ahead"),
    ("(?<=", "look-behind"),
    ("(?<!", "negative look-behind"),
    ("(?P=", "named back-reference"),
    ("(?>", "atomic group"),
    ("(?#", "comment group"),
    ("\\Z", "\\Z"),
    ("\\z", "\\z"),
    ("\\A", "\\A (use ^)"),
    ("\\G", "\\G"),
    ("\\K", "\\K"),
    ("\\p", "Unicode class"),
    ("\\P", "Unicode class"),
    ("\\h", "\\h"),
    ("\\R", "\\R"),
    ("\\X", "\\X"),
]
# Bounds above this make the Thompson NFA big for little gain.
MAX_REPEAT = 4000


def entropy(s: str) -> float:
    if not s:
        return 0.0
    b = s.encode()
    n = len(b)
    counts: dict[int, int] = {}
    for x in b:
        counts[x] = counts.get(x, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def scan_pattern(where: str, pattern: str) -> None:
    """Lints a pattern for the shared subset, walking it once."""
    for token, name in FORBIDDEN:
        if token in pattern:
            problem(where, f"pattern uses {name} `{token}`")
    if re.search(r"\\[1-9]", pattern):
        problem(where, "pattern uses a back-reference")
    if re.search(r"\(\?[a-zA-Z-]+[:)]", pattern):
        problem(where, "pattern uses inline flags (use case_insensitive)")
    if re.search(r"\(\?<[A-Za-z]", pattern):
        problem(where, "pattern uses `(?<name>`; write `(?P<secret>`")
    names = re.findall(r"\(\?P<([^>]*)>", pattern)
    if len(names) > 1:
        problem(where, f"pattern has {len(names)} named groups (at most one)")
    for n in names:
        if n != "secret":
            problem(where, f"named group `{n}` (only `secret` is allowed)")
    i = 0
    n = len(pattern)
    prev_atom_big = False  # whether the atom before a quantifier is a class/./\S…
    while i < n:
        c = pattern[i]
        if c == "\\":
            esc = pattern[i + 1 : i + 2]
            if esc in ("x",):
                i += 4
            else:
                i += 2
            prev_atom_big = esc in ("S", "w", "W", "D", "d")
            continue
        if c == "[":
            # A class: Rust reads `[` inside as a nested class and `&&`,
            # `--`, `~~` as set operations; insist on escapes.
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                problem(where, "a class starting with `]`: escape it as `\\]`")
                j += 1
            body_start = j
            while j < n and pattern[j] != "]":
                if pattern[j] == "\\":
                    j += 2
                    continue
                if pattern[j] == "[":
                    problem(where, "unescaped `[` inside a class (Rust nests classes): write `\\[`")
                j += 1
            body = pattern[body_start:j]
            plain = re.sub(r"\\.", "", body)
            for op in ("&&", "--", "~~"):
                if op in plain:
                    problem(where, f"`{op}` inside a class is a set operation in Rust")
            i = j + 1
            prev_atom_big = True
            continue
        if c == "{":
            m = re.match(r"\{(\d+)(,(\d*))?\}", pattern[i:])
            if not m:
                problem(where, "a literal `{` must be escaped as `\\{` (Rust)")
                i += 1
                continue
            lo = int(m.group(1))
            hi = m.group(3)
            if m.group(2) is not None and hi == "":
                problem(where, f"open-ended repetition `{m.group(0)}`: give a maximum")
            elif hi is not None and int(hi) > MAX_REPEAT:
                problem(where, f"repetition `{m.group(0)}` above {MAX_REPEAT}")
            elif hi is not None and int(hi) < lo:
                problem(where, f"repetition `{m.group(0)}` with max < min")
            i += len(m.group(0))
            if i < n and pattern[i] == "+":
                problem(where, "possessive quantifier")
            prev_atom_big = False
            continue
        if c in "*+":
            if prev_atom_big:
                problem(where, f"unbounded `{c}` on a large class: use {{m,n}}")
            if i + 1 < n and pattern[i + 1] == "+":
                problem(where, "possessive quantifier")
            i += 1
            prev_atom_big = False
            continue
        if c == "?":
            if i + 1 < n and pattern[i + 1] == "+":
                problem(where, "possessive quantifier")
            i += 1
            prev_atom_big = False
            continue
        prev_atom_big = c == "."
        i += 1


class Detector:
    def __init__(self, where: str, table: dict, ph: Placeholders):
        self.where = where
        self.id = table.get("id", "?")
        self.kind = table.get("kind", "")
        self.keywords = table.get("keywords", [])
        self.pattern = table.get("pattern", "")
        self.case_insensitive = table.get("case_insensitive", False)
        self.min_entropy = table.get("min_entropy")
        self.use_placeholders = table.get("placeholders", False)
        self.examples = table.get("examples", [])
        self.near_misses = table.get("near_misses", [])
        self.ph = ph
        flags = re.ASCII | (re.IGNORECASE if self.case_insensitive else 0)
        try:
            self.regex = re.compile(self.pattern, flags)
        except re.error as e:
            problem(where, f"pattern does not compile: {e}")
            self.regex = None

    def find(self, text: str):
        """The first accepted match in `text` (split into lines), or None."""
        if self.regex is None:
            return None
        kws = [k.lower() for k in self.keywords]
        for line in text.split("\n"):
            low = line.lower()
            if not any(k in low for k in kws):
                continue
            for m in self.regex.finditer(line):
                secret = m.group("secret") if "secret" in self.regex.groupindex else None
                if secret is None:
                    secret = m.group(0)
                if self.min_entropy is not None and entropy(secret) < self.min_entropy:
                    continue
                if self.use_placeholders and self.ph(secret):
                    continue
                return m
        return None


def check_detector_table(where: str, table: dict, ph: Placeholders) -> Detector | None:
    for key in table:
        if key not in DETECTOR_REQUIRED | DETECTOR_OPTIONAL:
            problem(where, f"unknown key `{key}`")
    for key in DETECTOR_REQUIRED:
        if key not in table:
            problem(where, f"missing `{key}`")
    if not isinstance(table.get("id", ""), str) or not ID_RE.match(table.get("id", "")):
        problem(where, f"id {table.get('id')!r} is not kebab-case")
    if not KIND_RE.match(table.get("kind", "")):
        problem(where, f"kind {table.get('kind')!r} must be a noun phrase with an article")
    kws = table.get("keywords", [])
    if not isinstance(kws, list) or not kws:
        problem(where, "keywords must be a non-empty list")
    for k in kws:
        if not isinstance(k, str) or len(k) < 3 or not k.isascii():
            problem(where, f"keyword {k!r} must be ASCII and at least 3 characters")
    if len(set(k.lower() for k in kws)) != len(kws):
        problem(where, "duplicate keywords (compared case-insensitively)")
    for key, typ in (("case_insensitive", bool), ("placeholders", bool)):
        if key in table and not isinstance(table[key], typ):
            problem(where, f"`{key}` must be a boolean")
    if "min_entropy" in table and not isinstance(table["min_entropy"], (int, float)):
        problem(where, "`min_entropy` must be a number")
    for key in ("examples", "near_misses"):
        v = table.get(key, [])
        if not isinstance(v, list) or len(v) < 2:
            problem(where, f"`{key}` needs at least 2 entries")
    pattern = table.get("pattern", "")
    if not isinstance(pattern, str) or not pattern:
        problem(where, "pattern must be a non-empty string")
        return None
    if "\n" in pattern:
        problem(where, "pattern spans lines")
    scan_pattern(where, pattern)
    det = Detector(where, table, ph)
    if det.regex is None:
        return det
    for ex in det.examples:
        m = det.find(ex)
        if m is None:
            problem(where, f"example not detected: {ex!r}")
            continue
        if not any(k.lower() in m.group(0).lower() for k in det.keywords):
            problem(where, f"example match {m.group(0)!r} holds none of the keywords")
    for nm in det.near_misses:
        m = det.find(nm)
        if m is not None:
            problem(where, f"near miss detected: {nm!r} (matched {m.group(0)!r})")
    return det


def load_detectors(path: pathlib.Path, ph: Placeholders, seen: dict) -> list:
    data = tomllib.loads(path.read_text())
    out = []
    for key in data:
        if key != "detector":
            problem(path.name, f"unknown top-level key `{key}` (only [[detector]])")
    for i, table in enumerate(data.get("detector", [])):
        where = f"{path.name} [[detector]] #{i + 1} `{table.get('id', '?')}`"
        det = check_detector_table(where, table, ph)
        did = table.get("id")
        if did in seen:
            problem(where, f"id `{did}` already used in {seen[did]}")
        seen[did] = path.name
        if det is not None:
            out.append(det)
    return out


# ---------------------------------------------------------------------------
# Files by name

# Suffixes the code strips before matching (editor backups, compressed
# copies, archives), repeatedly, as src/spec/paths.rs `strip_backup` does.
BACKUPS = [
    ".bak", ".orig", ".old", ".save", ".backup", ".swp", "~", "-", ".gz", ".z", "-z",
    ".bz2", ".xz", ".lzma", ".lz", ".zst", ".lz4", ".tar", ".tgz", ".tbz2", ".txz",
    ".zip", ".7z",
]

FILE_TABLES = {
    "dirs": ({"kind", "names", "examples", "near_misses"}, set()),
    "names": ({"kind", "names", "examples", "near_misses"}, {"except_suffixes"}),
    "suffixes": ({"kind", "suffixes", "examples", "near_misses"}, {"except_suffixes"}),
    "paths": ({"kind", "paths", "examples", "near_misses"}, {"except_suffixes"}),
    "words": ({"kind", "words", "code_suffixes", "examples", "near_misses"}, set()),
}


def strip_backup(name: str) -> str:
    changed = True
    while changed:
        changed = False
        for b in BACKUPS:
            if len(name) > len(b) and name.endswith(b):
                name = name[: -len(b)]
                changed = True
                break
    return name


def components(path: str) -> list[str]:
    return [strip_backup(p.lower()) for p in path.split("/") if p]


def glob_one(pat: str, text: str) -> bool:
    """`*` is any run of characters inside one component; all else literal."""
    parts = pat.split("*")
    if len(parts) == 1:
        return pat == text
    if not text.startswith(parts[0]):
        return False
    pos = len(parts[0])
    for mid in parts[1:-1]:
        k = text.find(mid, pos)
        if k < 0:
            return False
        pos = k + len(mid)
    last = parts[-1]
    return len(text) - pos >= len(last) and text.endswith(last)


def glob_tail(pat: list[str], comps: list[str]) -> bool:
    """Whether `pat` (components, `**` any number of them) matches the end
    of `comps` (it may start anywhere)."""

    def match(pi: int, ci: int) -> bool:
        # Match pat[pi:] against comps[ci:] entirely.
        if pi == len(pat):
            return ci == len(comps)
        if pat[pi] == "**":
            return any(match(pi + 1, k) for k in range(ci, len(comps) + 1))
        return ci < len(comps) and glob_one(pat[pi], comps[ci]) and match(pi + 1, ci + 1)

    return any(match(0, start) for start in range(len(comps)))


def word_at_boundary(name: str, words: list[str]) -> bool:
    for w in words:
        start = name.find(w)
        while start >= 0:
            end = start + len(w)
            before = start == 0 or not name[start - 1].isalnum()
            after = end == len(name) or not name[end].isalnum()
            if before and after:
                return True
            start = name.find(w, start + 1)
    return False


class FileTable:
    def __init__(self, kind_of_table: str, table: dict, where: str):
        self.type = kind_of_table
        self.where = where
        self.kind = table.get("kind", "")
        self.examples = table.get("examples", [])
        self.near_misses = table.get("near_misses", [])
        self.except_suffixes = [s.lower() for s in table.get("except_suffixes", [])]
        if kind_of_table == "dirs":
            self.entries = [[c for c in n.lower().split("/")] for n in table.get("names", [])]
        elif kind_of_table == "names":
            self.entries = [n.lower() for n in table.get("names", [])]
        elif kind_of_table == "suffixes":
            self.entries = [s.lower() for s in table.get("suffixes", [])]
        elif kind_of_table == "paths":
            self.entries = [p.lower().split("/") for p in table.get("paths", [])]
        else:
            self.entries = [w.lower() for w in table.get("words", [])]
            self.code_suffixes = [s.lower() for s in table.get("code_suffixes", [])]

    def matches(self, path: str) -> str | None:
        """The entry that makes `path` secret, if any. A directory's name
        matches any component, the last one too: the code treats a path that
        names a credentials directory itself as secret (`tar czf k.tgz
        ~/.ssh`)."""
        comps = components(path)
        if not comps:
            return None
        last = comps[-1]
        if self.except_suffixes and any(last.endswith(s) for s in self.except_suffixes):
            return None
        if self.type == "dirs":
            for parts in self.entries:
                k = len(parts)
                for i in range(0, len(comps) - k + 1):
                    if comps[i : i + k] == parts:
                        return "/".join(parts)
            return None
        if self.type == "names":
            return last if last in self.entries else None
        if self.type == "suffixes":
            return next((s for s in self.entries if last.endswith(s)), None)
        if self.type == "paths":
            for pat in self.entries:
                if glob_tail(pat, comps):
                    return "/".join(pat)
            return None
        # words
        dot = last.rfind(".")
        if dot >= 0 and last[dot:] in self.code_suffixes:
            return None
        hit = [w for w in self.entries if word_at_boundary(last, [w])]
        return hit[0] if hit else None


def load_files(path: pathlib.Path) -> list[FileTable]:
    data = tomllib.loads(path.read_text())
    tables: list[FileTable] = []
    for key in data:
        if key not in FILE_TABLES:
            problem(path.name, f"unknown top-level key `{key}`")
    seen_entries: dict[tuple[str, str], str] = {}
    for ttype, (required, optional) in FILE_TABLES.items():
        for i, table in enumerate(data.get(ttype, [])):
            where = f"{path.name} [[{ttype}]] #{i + 1} ({table.get('kind', '?')})"
            for key in table:
                if key not in required | optional:
                    problem(where, f"unknown key `{key}`")
            for key in required:
                if key not in table:
                    problem(where, f"missing `{key}`")
            if not KIND_RE.match(table.get("kind", "")):
                problem(where, f"kind {table.get('kind')!r} must be a noun phrase with an article")
            if len(table.get("examples", [])) < 2 or len(table.get("near_misses", [])) < 2:
                problem(where, "needs at least 2 examples and 2 near misses")
            listkey = {"dirs": "names", "names": "names", "suffixes": "suffixes",
                       "paths": "paths", "words": "words"}[ttype]
            for entry in table.get(listkey, []):
                if not isinstance(entry, str) or not entry:
                    problem(where, f"entry {entry!r} must be a non-empty string")
                    continue
                if entry != entry.lower():
                    problem(where, f"entry {entry!r} must be in lower case")
                if strip_backup(entry.split("/")[-1]) != entry.split("/")[-1] and ttype != "suffixes":
                    problem(where, f"entry {entry!r} ends with a backup suffix the code strips")
                if ttype in ("dirs", "names", "words", "suffixes") and "*" in entry:
                    problem(where, f"entry {entry!r}: `*` is only for [[paths]]")
                if ttype in ("names", "words", "suffixes") and "/" in entry:
                    problem(where, f"entry {entry!r}: `/` is only for [[dirs]] and [[paths]]")
                if ttype == "paths":
                    for comp in entry.split("/"):
                        if comp == "" or ("**" in comp and comp != "**"):
                            problem(where, f"path {entry!r}: bad component {comp!r}")
                    if entry.split("/")[-1] == "**":
                        problem(where, f"path {entry!r} must end with a name, not `**`")
                    if any(ch in entry for ch in "?[]"):
                        problem(where, f"path {entry!r}: only `*` and `**` are wildcards")
                k = (ttype, entry)
                if k in seen_entries:
                    problem(where, f"entry {entry!r} repeats one in {seen_entries[k]}")
                seen_entries[k] = where
            tables.append(FileTable(ttype, table, where))
    for t in tables:
        for ex in t.examples:
            if t.matches(ex) is None:
                problem(t.where, f"example path not matched: {ex!r}")
        for nm in t.near_misses:
            for other in tables:
                hit = other.matches(nm)
                if hit is not None:
                    who = "its own table" if other is t else other.where
                    problem(t.where, f"near miss {nm!r} matched by {who} (entry {hit!r})")
    return tables


# ---------------------------------------------------------------------------


def main() -> int:
    if not DIR.is_dir():
        print(f"no directory {DIR}")
        return 1
    ph_path = DIR / "placeholders.toml"
    files_path = DIR / "files.toml"
    if not ph_path.exists():
        problem("placeholders.toml", "missing")
        ph = Placeholders({})
    else:
        ph = load_placeholders(ph_path)
    seen: dict[str, str] = {}
    detectors = []
    detector_files = 0
    for path in sorted(DIR.glob("*.toml")):
        if path.name in ("placeholders.toml", "files.toml"):
            continue
        detector_files += 1
        try:
            detectors += load_detectors(path, ph, seen)
        except tomllib.TOMLDecodeError as e:
            problem(path.name, f"TOML error: {e}")
    for other in DIR.iterdir():
        if other.suffix != ".toml" and other.name not in ("README.md",):
            problem(other.name, "unexpected file in taxonomy/secrets/")
    tables: list[FileTable] = []
    if files_path.exists():
        try:
            tables = load_files(files_path)
        except tomllib.TOMLDecodeError as e:
            problem("files.toml", f"TOML error: {e}")
    else:
        problem("files.toml", "missing")

    # Near misses are per detector: a wrong-length token assigned to
    # GITHUB_TOKEN is no GitHub token but is still a secret assignment. The
    # placeholders themselves, though, are secrets to no detector.
    if ph_path.exists():
        table = tomllib.loads(ph_path.read_text()).get("placeholders", {})
        for ex in table.get("examples", []):
            for d in detectors:
                m = d.find(ex)
                if m is not None:
                    problem("placeholders.toml", f"example {ex!r} is detected by `{d.id}`")

    n_examples = sum(len(d.examples) for d in detectors)
    n_near = sum(len(d.near_misses) for d in detectors)
    n_entries = sum(len(t.entries) for t in tables)
    n_file_cases = sum(len(t.examples) + len(t.near_misses) for t in tables)
    if problems:
        for p in problems:
            print(p)
        print(f"FAILED: {len(problems)} problem(s)")
        return 1
    print(
        f"ok: {len(detectors)} detectors in {detector_files} files "
        f"({n_examples} examples, {n_near} near misses); "
        f"{len(tables)} file tables with {n_entries} entries ({n_file_cases} cases)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
