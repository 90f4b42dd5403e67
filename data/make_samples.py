"""Derive the bundled samples in data/ from the staged full datasets (a maintenance script).

Not used at run time.  Run from the repository root with the full datasets at ../shared/data:

    python data/make_samples.py ../shared/data

It writes
  * data/nasdaq/nasdaq_5min_sample.parquet: 200 tickers of the NASDAQ 5-minute Parquet, chosen to
    span the range of bar counts (tickers with >= 100 bars, sorted by bar count then name, every
    k-th taken), all 15 trading days (2026-06-01 .. 2026-06-22);
  * data/traffic/aarhus_traffic_week.parquet: every observation point of the Aarhus traffic Parquet,
    the 7 days 2014-08-01 00:00 .. 2014-08-08 00:00 (local time as given).
Rows are copied unchanged (same columns, types and sort order: ts, then type).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

N_TICKERS = 200
MIN_BARS = 100
TRAFFIC_START, TRAFFIC_END = "2014-08-01T00:00:00", "2014-08-08T00:00:00"


def nasdaq_sample(src: Path, dst: Path) -> None:
    table = pq.read_table(src)
    tickers = pc.cast(table.column("ticker"), pa.string())
    counts = pc.value_counts(tickers).to_pylist()
    eligible = sorted((c["counts"], c["values"]) for c in counts if c["counts"] >= MIN_BARS)
    step = len(eligible) / N_TICKERS
    chosen = sorted({eligible[int(i * step)][1] for i in range(N_TICKERS)})
    sample = table.filter(pc.is_in(tickers, value_set=pa.array(chosen)))
    pq.write_table(sample, dst, compression="zstd", compression_level=19)
    print(f"{dst}: {sample.num_rows} rows, {len(chosen)} tickers")


def traffic_sample(src: Path, dst: Path) -> None:
    start = pa.scalar(pa.array([TRAFFIC_START]).cast(pa.timestamp("ms"))[0].value, pa.timestamp("ms"))
    end = pa.scalar(pa.array([TRAFFIC_END]).cast(pa.timestamp("ms"))[0].value, pa.timestamp("ms"))
    table = pq.read_table(src, filters=[("ts", ">=", start), ("ts", "<", end)])
    pq.write_table(table, dst, compression="zstd", compression_level=19)
    print(f"{dst}: {table.num_rows} rows, {len(pc.unique(table.column('report_id')))} observation points")


def main(shared: str) -> None:
    root = Path(__file__).resolve().parent
    s = Path(shared)
    nasdaq_sample(s / "nasdaq" / "nasdaq_stooq_5min_2026-06.parquet", root / "nasdaq" / "nasdaq_5min_sample.parquet")
    traffic_sample(s / "traffic" / "aarhus_traffic.parquet", root / "traffic" / "aarhus_traffic_week.parquet")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
