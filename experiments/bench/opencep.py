"""OpenCEP's reference stream: its ``NASDAQ_MEDIUM.txt`` repeated 10 times, copy ``k`` shifted ``k``
days later (16,520 events), written as a NASDAQ text file (the single- and multi-pattern
benchmarks' reference cases)."""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

OPENCEP_COPIES = 10


def write_shifted_copies(src: Path, dst: Path, copies: int, shift: timedelta) -> int:
    """Write ``copies`` copies of a NASDAQ text file, copy ``k`` with timestamps ``k * shift`` later."""
    lines = [ln for ln in src.read_text().splitlines() if ln.strip()]
    out = []
    for k in range(copies):
        for ln in lines:
            parts = ln.split(",")
            stamp = datetime.strptime(parts[1].strip(), "%Y%m%d%H%M") + k * shift
            parts[1] = stamp.strftime("%Y%m%d%H%M")
            out.append(",".join(parts))
    dst.write_text("\n".join(out) + "\n")
    return len(out)


def reference_stream():
    """OpenCEP's NASDAQ_MEDIUM.txt repeated 10 times, copy k shifted k days (16,520 events)."""
    from cep.columnar import read_nasdaq_text_columns
    from experiments.data.datasets import dataset_path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "NASDAQ_MEDIUM_x10.txt"
        write_shifted_copies(dataset_path("nasdaq_minute"), path, OPENCEP_COPIES, timedelta(days=1))
        return read_nasdaq_text_columns(path)
