from typing import Optional

from pyspark.sql import DataFrame

def classify_column(
    df: DataFrame, column: str, cwd: Optional[str] = None, threads: int = 1
) -> DataFrame: ...
