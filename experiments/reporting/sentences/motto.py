"""The claims of MOTTO (Zhang et al., ICDE'17) Section VII the report judges, one entry each
(:mod:`experiments.reporting.sentences`)."""

from __future__ import annotations

from experiments.reporting.rules import BEATS, DIRECTION, GREATLY, TREND
from experiments.reporting.sentences.base import entries

B, C = "VII-B, Fig. 13(a)", "VII-C"
MST_LCSE = ("First, as the basic workload ratio (r) decreases, the workload contains an increasing number of queries of the second "
            "group. Therefore, the throughput of MST and LCSE decreases.")
SCALES = "First, the improvement with both approaches scales with an increasing number of queries."
BETTER = "As expected, the exact algorithm gives a better performance improvement."
WINDOWS = ("Figure 14c shows the results when the relative window constraints between s_w and b_w is varied from 4:1 to 1:4. "
           "MOTTO improves the throughput on all settings.")
NESTED = ("As shown in Figure 14d, MOTTO is still able to significantly reduce the execution cost of multiple nested pattern "
          "queries, even though the deeper nested level decreases the sharing opportunities.")
FALLS_R = "a bare trend, TREND per unit r, of its throughput over NA (one slope per seed)"
SENTENCES = entries("MOTTO", [
    # ---- Figure 13 -------------------------------------------------------------------------------------
    dict(key="mst_falls", where=B, line=384, text=MST_LCSE, direction="falls", size=TREND, size_from=FALLS_R,
         claim="MST's throughput falls as r decreases"),
    dict(key="lcse_falls", where=B, line=384, text=MST_LCSE, direction="falls", size=TREND, size_from=FALLS_R,
         claim="LCSE's throughput falls as r decreases"),
    dict(key="motto_falls", where=B, line=384,
         text="Second, as r decreases, the throughput of MOTTO decreases, because the sharing opportunities in queries in the "
              "second group tend to be more strict, which we study in detail in the sensitivity study.",
         direction="falls", size=TREND, size_from=FALLS_R, claim="MOTTO's throughput falls as r decreases"),
    dict(key="motto_beats_mst_lcse", where=B, line=384,
         text="In contrast, MOTTO gives much more efficient execution solution.",
         direction="higher", size=GREATLY, size_from="\"much more efficient\": GREATLY, over MST and over LCSE",
         claim="MOTTO beats MST and LCSE"),
    dict(key="motto_over_na", where=B, line=384,
         text="MOTTO takes advantage of those sharing opportunities and effectively reduces global execution cost.",
         direction="every", size=BEATS, size_from="\"effectively reduces\": BEATS over NA, at every r",
         claim="MOTTO improves over NA at every r"),
    dict(key="stock_over_datacenter", where=B, line=384,
         text="Third, the improvement is more significant in the stock market monitoring than in data center monitoring.",
         direction="higher", size=BEATS, size_from="\"more significant\": a bare comparison, BEATS",
         claim="the stock workload gains more than data-center monitoring"),
    # ---- Figure 14(a) ------------------------------------------------------------------------------------
    dict(key="improvement_scales", where=C + ", Fig. 14(a)", line=418, text=SCALES, direction="grows", size=TREND,
         size_from="\"scales with an increasing number of queries\": a bare trend, TREND, of the throughput over NA (one slope per seed)",
         claim="{alg}: the throughput improvement grows with the number of queries"),
    dict(key="exact_better", where=C + ", Fig. 14(a)", line=418, text=BETTER, direction="higher", size=BEATS,
         size_from="a bare \"better\": BEATS, exact over annealing throughput",
         claim="the exact search's plans give more throughput than annealing's"),
    dict(key="optimizer_time", where=C + ", Fig. 14(a)", line=418,
         text="Second, the approximate solution coversages in a constant running time of 20 seconds with significant "
              "improvements, while the overhead of exact solution increases fast with increasing number of queries.",
         direction="grows", size=1.0,
         size_from="\"increases fast\": the exact search's time at least linear in the queries (slope >= 1); \"a constant running "
                   "time\": annealing's flat within +- LINEAR",
         claim="the exact search's time grows fast; annealing's stays near constant"),
    # ---- Figure 14(b) ------------------------------------------------------------------------------------
    dict(key="cores_scale", where=C + ", Fig. 14(b)", line=420, text="MOTTO demonstrates excellent scalability.",
         direction="higher", size=GREATLY, size_from="\"excellent scalability\": GREATLY from 1 to 2 cores (linear would be 2x)",
         claim="throughput grows from 1 to 2 cores"),
    dict(key="cores_six", where=C + ", Fig. 14(b)", line=420,
         text="Figure 14b shows the throughput of varying the number of CPU cores from 1 to 6. MOTTO demonstrates excellent "
              "scalability.",
         direction="grows", size=TREND, size_from="throughput growing up to 6 cores",
         claim="throughput keeps growing up to 6 cores"),
    # ---- Figure 14(c) ------------------------------------------------------------------------------------
    dict(key="windows_all", where=C + ", Fig. 14(c)", line=424, text=WINDOWS, direction="every", size=BEATS,
         size_from="\"improves the throughput on all settings\": BEATS over NA at every window ratio",
         claim="MOTTO improves throughput at every window ratio"),
    dict(key="windows_equal_highest", where=C + ", Fig. 14(c)", line=424,
         text="First, the performance gain for the case where s_w = b_w is the highest since sharing is enabled without extra "
              "overhead on handling different window constraints.",
         direction="every", size=DIRECTION, size_from="\"the highest\": an ordering, a direction only over each other ratio",
         claim="the gain is highest when the windows are equal"),
    dict(key="windows_smaller_lowest", where=C + ", Fig. 14(c)", line=424,
         text="Third, the performance gain for the case where s_w < b_w is the lowest because we need to extend the window of the "
              "source query, which essentially increases the chance of detecting the composite event of source query and hence "
              "adds computation cost.",
         direction="higher", size=DIRECTION,
         size_from="\"the lowest\": an ordering, a direction only; the gain at s_w > b_w over that at s_w < b_w",
         claim="a smaller source window gains least"),
    # ---- Figure 14(d) ------------------------------------------------------------------------------------
    dict(key="nesting_gains", where=C + ", Fig. 14(d)", line=428, text=NESTED, direction="every", size=GREATLY,
         size_from="\"significantly reduce\": GREATLY over NA at every nesting level",
         claim="MOTTO still gains over NA at every nesting level"),
    dict(key="nesting_falls", where=C + ", Fig. 14(d)", line=428, text=NESTED, direction="falls", size=TREND,
         size_from="\"the deeper nested level decreases the sharing opportunities\": a bare trend, TREND (one slope per seed)",
         claim="deeper nesting lowers MOTTO's gain"),
])

