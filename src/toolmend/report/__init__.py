"""`toolmend report`: what went wrong, by model and category, from the proxy's log lines.

The pieces, each with one job: `sources` picks the files, `store` reads and judges every line
into DuckDB, `aggregate` computes the numbers, `summary` is their shape (and JSON form), `text`
and `html` format them, `export` writes Parquet, `command` is the CLI. Only `command` is
imported without the `report` extra (DuckDB, Plotly) installed.
"""
