"""Everything that reads results: loading, statistics, plots, the report.

It reads the runner's Parquet dataset and manifest only, never the engine.
"""
