"""One million logged commands through Spark (local[2]) three ways.

    target/python-venv/bin/python python/bench/bench_spark.py [ROWS] [TOOLGATE_BIN]

1. `toolgate.spark.classify_column` (mapInArrow: Arrow batches to Rust);
2. a plain Python UDF that calls `toolgate.classify` row by row and returns
   the same four fields;
3. the CLI, `toolgate scan --format summary` of the same rows, as a text
   file, on the same two cores.

A fourth job, the floor, makes the same mapInArrow round trip and
classifies nothing: Spark's own share of the arrow path.

Every job reads the same Parquet file and counts rows by label, as an
auditing job would. Each Spark job runs twice; the second (warm) run is
reported, with the first beside it.
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def rows(n):
    lines = []
    for path in sorted(CORPUS.glob("*.txt")):
        lines += [l for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    if not lines:
        sys.exit(f"no corpus at {CORPUS}")
    return (lines * (n // len(lines) + 1))[:n]


def timed(f):
    start = time.perf_counter()
    out = f()
    return time.perf_counter() - start, out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    toolgate_bin = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "target/release/toolgate")
    commands = rows(n)
    work = pathlib.Path(tempfile.mkdtemp(prefix="toolgate-spark-bench-"))
    # Four files, so that Spark reads four partitions over its two cores.
    parquet = work / "calls"
    parquet.mkdir()
    quarter = len(commands) // 4 + 1
    for i in range(4):
        part = commands[i * quarter : (i + 1) * quarter]
        pq.write_table(pa.table({"command": pa.array(part, pa.string())}), parquet / f"part-{i}.parquet")
    text = work / "calls.txt"
    text.write_text("\n".join(commands) + "\n", encoding="utf-8")

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    import toolgate
    from toolgate.spark import classify_column

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("toolgate-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    calls = spark.read.parquet(str(parquet))

    def arrow_job():
        labelled = classify_column(calls, "command")
        return {r[0]: r[1] for r in labelled.groupBy("safety_label").count().collect()}

    def floor_job():
        # The same mapInArrow round trip with nothing classified: Spark's
        # own cost of handing the batches to Python and taking back four
        # string columns (all null).
        schema = StructType(
            list(calls.schema.fields) + [StructField(f, StringType(), True) for f in toolgate.LABEL_FIELDS]
        )

        def nulls(batches):
            import pyarrow as pa

            for b in batches:
                extra = [pa.nulls(b.num_rows, pa.string()) for _ in toolgate.LABEL_FIELDS]
                yield pa.RecordBatch.from_arrays(list(b.columns) + extra, names=schema.names)

        labelled = calls.mapInArrow(nulls, schema)
        return {r[0]: r[1] for r in labelled.groupBy("safety_label").count().collect()}

    fields = StructType([StructField(f, StringType(), True) for f in toolgate.LABEL_FIELDS])

    @F.udf(returnType=fields)
    def label_udf(cmd):
        import toolgate

        md = toolgate.classify(cmd).metadata()
        return tuple(md.get(f) for f in toolgate.LABEL_FIELDS)

    def udf_job():
        labelled = calls.withColumn("label", label_udf("command")).select("command", "label.*")
        return {r[0]: r[1] for r in labelled.groupBy("safety_label").count().collect()}

    results = {}
    jobs = (
        ("mapInArrow floor", floor_job),
        ("arrow (mapInArrow)", arrow_job),
        ("plain Python UDF", udf_job),
    )
    for name, job in jobs:
        cold, counts = timed(job)
        warm, again = timed(job)
        assert counts == again
        results[name] = (warm, cold, counts)

    def cli():
        out = subprocess.run(
            [toolgate_bin, "scan", "--format", "summary", "--threads", "2", str(text)],
            capture_output=True, text=True, check=True,
        )
        return out.stdout

    cli()
    cli_time = min(timed(cli)[0] for _ in range(3))
    spark.stop()

    print(f"{n:,} rows (the shared corpus repeated), Spark local[2], 2 cores")
    for name, (warm, cold, counts) in results.items():
        print(f"  {name:<20} {warm:7.2f} s  ({n / warm:10,.0f} rows/s; first run {cold:.2f} s)  {dict(sorted(counts.items()))}")
    print(f"  {'toolgate scan (CLI)':<20} {cli_time:7.2f} s  ({n / cli_time:10,.0f} rows/s; best of 3, reading the text file)")
    arrow, udf = results["arrow (mapInArrow)"][0], results["plain Python UDF"][0]
    floor = results["mapInArrow floor"][0]
    print(f"  arrow path: {udf / arrow:.1f}x the plain UDF; {arrow - floor:.2f} s of it above the floor")
    print(f"  (above the floor: arrow {arrow - floor:.2f} s, plain UDF {udf - floor:.2f} s: {(udf - floor) / max(arrow - floor, 1e-9):.1f}x)")


if __name__ == "__main__":
    main()
