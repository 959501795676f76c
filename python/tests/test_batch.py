import pytest

pa = pytest.importorskip("pyarrow", reason="classify_batch needs pyarrow")

import toolgate
from conftest import corpus_commands, scan

FIELDS = ["safety_label", "blast_radius", "category", "reason"]


def rows(struct):
    """The struct array as dicts without the null fields (None for a null row)."""
    out = []
    for row in struct.to_pylist():
        out.append(None if row is None else {k: v for k, v in row.items() if v is not None})
    return out


def test_the_result_is_a_struct_array_of_the_label_fields():
    out = toolgate.classify_batch(["git status", "rm -rf /", "npm test"])
    assert isinstance(out, pa.StructArray)
    assert [f.name for f in out.type] == FIELDS
    assert all(f.type == pa.string() for f in out.type)
    assert out.field(0).to_pylist() == ["safe", "destructive", "unknown"]
    assert out.field(2).to_pylist() == ["git-read", "fs-delete", None]


def test_every_row_is_the_labels_metadata_on_the_corpus():
    commands = corpus_commands(limit_per_file=400)
    assert len(commands) > 500
    got = rows(toolgate.classify_batch(commands))
    assert got == [toolgate.classify(c).metadata() for c in commands]


def test_every_row_matches_the_cli_scan(toolgate_bin):
    commands = corpus_commands(limit_per_file=300)
    expected = scan(toolgate_bin, [(c, None) for c in commands])
    assert rows(toolgate.classify_batch(commands)) == expected


@pytest.mark.parametrize("string_type", [pa.string(), pa.large_string(), pa.string_view()])
def test_every_arrow_string_layout_is_read(string_type):
    commands = ["git status", None, "rm -rf /"]
    out = toolgate.classify_batch(pa.array(commands, type=string_type))
    assert rows(out) == [
        toolgate.classify("git status").metadata(),
        None,
        toolgate.classify("rm -rf /").metadata(),
    ]


def test_chunked_arrays_and_slices():
    chunked = pa.chunked_array([["git status"], ["rm -rf /", "ls"]])
    assert toolgate.classify_batch(chunked).field(0).to_pylist() == ["safe", "destructive", "safe"]
    sliced = pa.array(["npm test", "git status", "rm -rf /", "ls"]).slice(1, 2)
    assert toolgate.classify_batch(sliced).field(0).to_pylist() == ["safe", "destructive"]
    assert len(toolgate.classify_batch(pa.chunked_array([], type=pa.string()))) == 0


def test_order_is_kept_on_every_thread_count():
    commands = corpus_commands(limit_per_file=200) * 3
    one = toolgate.classify_batch(commands, threads=1)
    many = toolgate.classify_batch(commands, threads=4)
    assert one.equals(many)


def test_cwds_put_absolute_paths_inside():
    out = toolgate.classify_batch(
        ["cat /p/a.txt", "cat /p/a.txt", "cat /p/a.txt"], cwds=["/p", None, "/q"]
    )
    assert out.field(0).to_pylist() == ["safe", "unknown", "unknown"]


def test_cwds_match_the_cli_scan(toolgate_bin):
    data = [("cat /w/src/main.rs", "/w"), ("ls /w/src", "/w"), ("cat /w/.env", "/w"), ("ls /w", None)]
    expected = scan(toolgate_bin, data)
    got = toolgate.classify_batch([c for c, _ in data], cwds=[d for _, d in data])
    assert rows(got) == expected


def test_bad_input_is_a_clear_error():
    with pytest.raises(TypeError, match="commands must be a list of str"):
        toolgate.classify_batch([1, 2])
    with pytest.raises(TypeError, match="not one string"):
        toolgate.classify_batch("git status")
    with pytest.raises(TypeError, match="must be an Arrow array of strings, got Int64"):
        toolgate.classify_batch(pa.array([1, 2]))
    with pytest.raises(ValueError, match="cwds has 1 rows but commands has 2"):
        toolgate.classify_batch(["ls", "ls"], cwds=["/p"])
    with pytest.raises(ValueError, match="absolute path"):
        toolgate.classify_batch(["ls"], cwds=["p"])
    with pytest.raises(ValueError, match="threads must be at least 1"):
        toolgate.classify_batch(["ls"], threads=0)


def test_empty_and_huge_input():
    assert len(toolgate.classify_batch([])) == 0
    out = toolgate.classify_batch(["echo " + "a" * 5_000_000, ""])
    assert out.field(0).to_pylist() == [toolgate.classify("echo " + "a" * 5_000_000).safety_label, "unknown"]
