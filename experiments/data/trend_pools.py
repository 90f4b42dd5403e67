"""The type pools of the trend aggregation streams (HAMLET Section 5.1): how many start and end types
surround the shared Kleene type, and the name of the burst-calibrated stock stream."""

#: start and end types of a pool (beside the shared Kleene type)
STARTS, ENDS = 4, 4
#: the stock stream whose arrival process is calibrated to the paper's bursts (:mod:`experiments.data.bursty_stock`)
BURSTY_STOCK = "nasdaq-bursty"
