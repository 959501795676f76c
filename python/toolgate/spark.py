"""Label a Spark DataFrame's column of shell commands, on the executors.

>>> from toolgate.spark import classify_column
>>> labelled = classify_column(df, "command")            # doctest: +SKIP
>>> labelled.groupBy("safety_label").count().show()      # doctest: +SKIP

Each executor hands Arrow record batches to Rust (``mapInArrow``): no
Python object per row, and the same code runs on ``local[2]`` and on a
cluster, where only the master URL changes (the executors need this
package installed, like any Python dependency of a job).
"""

from __future__ import annotations

from typing import Optional

from toolgate import LABEL_FIELDS

__all__ = ["classify_column"]


def classify_column(df, column: str, cwd: Optional[str] = None, threads: int = 1):
    """``df`` with the label columns added after its own.

    ``column`` names a string column of commands; ``cwd``, when given, a
    string column of each command's absolute working directory (null:
    unknown). The new columns are ``safety_label``, ``blast_radius``,
    ``category`` and ``reason`` (strings; null where a label has no such
    field, all null for a null command), exactly what ``toolgate scan``
    writes for the same commands. ``threads`` is per Spark task: Spark
    already runs one task per core, so one thread each is the default.
    """
    from pyspark.sql.types import StringType, StructField, StructType

    names = df.columns
    for wanted, what in ((column, "command"), (cwd, "cwd")):
        if wanted is not None and wanted not in names:
            raise ValueError(f"the {what} column {wanted!r} is not in the DataFrame: {names}")
    clash = [f for f in LABEL_FIELDS if f in names]
    if clash:
        raise ValueError(
            f"the DataFrame already has the label column(s) {clash}: rename or drop them first"
        )
    for wanted in (column, cwd):
        if wanted is not None and not isinstance(df.schema[wanted].dataType, StringType):
            raise TypeError(
                f"column {wanted!r} must be a string column, not {df.schema[wanted].dataType.simpleString()}"
            )
    schema = StructType(
        list(df.schema.fields) + [StructField(f, StringType(), True) for f in LABEL_FIELDS]
    )
    command_index = names.index(column)
    cwd_index = None if cwd is None else names.index(cwd)

    def label_batches(batches):
        # Runs on the executors: the imports are theirs.
        import pyarrow as pa

        import toolgate

        for batch in batches:
            commands = batch.column(command_index)
            cwds = None if cwd_index is None else batch.column(cwd_index)
            labels = toolgate.classify_batch(commands, cwds, threads=threads)
            columns = list(batch.columns) + [labels.field(i) for i in range(len(LABEL_FIELDS))]
            yield pa.RecordBatch.from_arrays(columns, names=names + list(LABEL_FIELDS))

    return df.mapInArrow(label_batches, schema)
