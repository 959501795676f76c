"""classify_column on a real local Spark (local[2]), checked against the CLI."""

import os
import shutil
import subprocess
import sys

import pytest

pyspark = pytest.importorskip("pyspark", reason="the Spark tests need pyspark")
pa = pytest.importorskip("pyarrow", reason="the Spark tests need pyarrow")

from conftest import corpus_commands, scan


def _java_ok():
    java = shutil.which("java")
    if java is None and os.environ.get("JAVA_HOME"):
        java = os.path.join(os.environ["JAVA_HOME"], "bin", "java")
    if java is None or not os.path.exists(java):
        return "no java on PATH or in JAVA_HOME (install openjdk-17-jre-headless)"
    out = subprocess.run([java, "-version"], capture_output=True, text=True)
    if out.returncode != 0:
        return f"java -version failed: {out.stderr.strip()}"
    return None


@pytest.fixture(scope="module")
def spark():
    why = _java_ok()
    if why:
        pytest.skip(f"Spark needs Java 17: {why}")
    from pyspark.sql import SparkSession

    # The executors' Python workers run this interpreter, the one with
    # toolgate and pyarrow installed (not whatever `python3` PATH names).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("toolgate-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_every_row_of_the_corpus_matches_the_cli_scan(spark, toolgate_bin):
    from toolgate.spark import classify_column

    commands = corpus_commands()
    assert len(commands) > 1000
    df = spark.createDataFrame([(i, c) for i, c in enumerate(commands)], "id long, command string")
    labelled = classify_column(df.repartition(4), "command")
    assert labelled.columns == ["id", "command", "safety_label", "blast_radius", "category", "reason"]
    got = {r["id"]: r for r in labelled.collect()}
    assert len(got) == len(commands)
    expected = scan(toolgate_bin, [(c, None) for c in commands])
    mismatches = []
    for i, want in enumerate(expected):
        row = got[i].asDict()
        assert row["command"] == commands[i]
        have = {k: row[k] for k in ("safety_label", "blast_radius", "category", "reason") if row[k] is not None}
        if have != want:
            mismatches.append((want, have))
    assert mismatches == [], mismatches[:5]


def test_a_cwd_column_and_nulls(spark):
    from toolgate.spark import classify_column

    df = spark.createDataFrame(
        [("cat /p/a.txt", "/p"), ("cat /p/a.txt", None), (None, "/p"), ("rm -rf /", None)],
        "command string, cwd string",
    )
    out = classify_column(df, "command", cwd="cwd").collect()
    assert [r["safety_label"] for r in out] == ["safe", "unknown", None, "destructive"]
    assert out[3]["category"] == "fs-delete"


def test_bad_columns_are_clear_errors(spark):
    from toolgate.spark import classify_column

    df = spark.createDataFrame([(1, "ls")], "n long, command string")
    with pytest.raises(ValueError, match="'cmd' is not in the DataFrame"):
        classify_column(df, "cmd")
    with pytest.raises(TypeError, match="must be a string column, not bigint"):
        classify_column(df, "n")
    with pytest.raises(ValueError, match="already has the label column"):
        classify_column(df.withColumnRenamed("n", "category"), "command")


def test_counting_by_label_as_a_user_would(spark):
    from toolgate.spark import classify_column

    df = spark.createDataFrame([("git status",), ("ls -la",), ("rm -rf /",), ("npm test",)], ["command"])
    counts = {r["safety_label"]: r["count"] for r in classify_column(df, "command").groupBy("safety_label").count().collect()}
    assert counts == {"safe": 2, "destructive": 1, "unknown": 1}
