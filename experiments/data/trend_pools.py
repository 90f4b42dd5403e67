"""The type pools of the trend aggregation streams (HAMLET Section 5.1): how many start and end types
surround the shared Kleene type, the name of the burst-calibrated stock stream, and the bursts of the
shared type (Definition 4.1)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cep.columnar import EventColumns

#: start and end types of a pool (beside the shared Kleene type)
STARTS, ENDS = 4, 4
#: the stock stream whose arrival process is calibrated to the paper's bursts (:mod:`experiments.data.bursty_stock`)
BURSTY_STOCK = "nasdaq-bursty"


def kleene_runs(stream: EventColumns, kleene: str, pool: Sequence[str] | None) -> tuple[int, int, int]:
    """Among the events of ``pool`` (every event without one): the runs of ``kleene`` events with no
    other event between (bursts, Definition 4.1), the ``kleene`` events, and the events counted."""
    codes = stream.codes if pool is None else stream.codes[stream.rows_of_types(pool)]
    k = stream.code_of([kleene])
    is_k = codes == k[0] if len(k) else np.zeros(len(codes), dtype=bool)
    runs = int(is_k[:1].sum() + (is_k[1:] & ~is_k[:-1]).sum())
    return runs, int(is_k.sum()), len(codes)
