"""The statistics job on Spark: arrival rates and selectivities as Spark DataFrame jobs.

Same definitions as :mod:`experiments.data.statistics` (read its docstring: rates over the live time);
without sampling the two give identical numbers, which the tests check.  All selectivities of a pattern or a whole workload
are computed in one batched job:

* a small *groups* table lists each condition group (``gid``), its event types, window length
  ``L``, condition *form* (the conditions with the variables renamed to roles ``x`` and ``y`` and
  each constant replaced by a parameter) and the constants themselves as columns ``k0, k1, ...``:
  ``jqpg_fig3``'s 770 NASDAQ groups, calibrated to 740 different constants, share two forms;
* filter groups join the events on their type; pair groups join ``x`` events and ``y`` events on
  ``(gid, bucket)``, where an event's bucket is ``floor(key / L)`` and ``x`` is exploded into its
  own and both neighbouring buckets (two keys within ``L`` of each other lie in the same or adjacent
  buckets), then keep ``|key(x) - key(y)| <= L`` and ``pos(x) != pos(y)``;
* groups with more than ``max_pairs`` candidates keep a seeded pseudo-random ``max_pairs`` of them: the
  ones with the smallest hash of (seed, group, event positions) -- a function of the candidate alone, so
  the sample does not depend on how Spark partitions and orders rows (``rand`` does: with adaptive
  query execution the same job sampled other rows on another run, and so gave other cell ids) -- and
  sampled estimates differ from pandas';
* one aggregation evaluates ``CASE form WHEN ... END`` over the sample joined to its group's
  constants and averages it per group.  (With a branch per distinct constant, 740 branches for
  ``jqpg_fig3``'s NASDAQ workload, Spark could not compile the expression and every row tested
  the branches one by one: 340 of the job's 400 s.)
"""

from __future__ import annotations

import itertools
import operator
from functools import lru_cache
from typing import Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from cep.columnar import EventColumns
from cep.conditions import ARITHMETIC_FUNCTIONS, COMPARISON_FUNCTIONS, Backend, Comparison, evaluate_comparison
from cep.errors import StatisticsError, StreamError
from cep.events import EventStream
from cep.pattern import Pattern, WindowKind
from cep.statistics import Statistics
from experiments.data.spark import get_spark
from experiments.data.statistics import DEFAULT_MAX_PAIRS, ConditionGroup, as_columns, condition_groups, live_gap_limit

# pyspark is imported inside the functions that build Spark columns and jobs, not here: the stats command and the
# JQPG experiments import this module also when they run without Spark (pyspark.sql adds about 100 modules).


def stream_frame(stream: EventColumns | EventStream, attributes: Sequence[str]) -> pd.DataFrame:
    """The columns the job needs: position, type, timestamp and the named attributes."""
    cols = as_columns(stream)
    data = {"pos": np.arange(len(cols), dtype=np.int64), "type": cols.type_per_event(), "ts": cols.ts}
    for a in attributes:
        try:
            data[f"a__{a}"] = np.asarray(cols.values(a), dtype=np.float64)
        except StreamError:
            raise StatisticsError(f"{cols.source}: some events have no attribute {a!r}") from None
        except (TypeError, ValueError):
            raise StatisticsError(f"{cols.source}: attribute {a!r} is not numeric") from None
    return pd.DataFrame(data)


@lru_cache(maxsize=1)
def _spark_backend() -> Backend:
    """Spark columns: a division by zero is null (``try_divide``), and so is every comparison over it."""
    from pyspark.sql import functions as F

    return Backend(
        const=lambda k: F.lit(float(k.value)),
        neg=operator.neg,
        arithmetic={**ARITHMETIC_FUNCTIONS, "/": F.try_divide},
        comparison=COMPARISON_FUNCTIONS,
    )


def condition_column(c: Comparison, role_of, const=None):
    """A boolean Spark column for a comparison; null (division by zero) counts as false.  ``const``
    makes the column of a constant (default: the literal)."""
    from pyspark.sql import functions as F

    backend = _spark_backend()
    if const is not None:
        backend = Backend(const, backend.neg, backend.arithmetic, backend.comparison)
    cmp = evaluate_comparison(c, lambda a: F.col(f"{role_of(a.var)}__{a.name}"), backend)
    return F.coalesce(cmp, F.lit(False))


def _roles(g: ConditionGroup) -> dict:
    return dict(zip(sorted(g.vtypes), ("x", "y")))


def _parameterized(g: ConditionGroup) -> tuple[tuple[str, ...], list[float]]:
    """The group's *form* -- its conditions over roles ``x`` and ``y``, printed with each constant a
    parameter ``K`` -- and its constants in the order they appear (column ``k<i>`` holds the ``i``-th)."""
    found: list[float] = []

    def const(k):
        found.append(float(k.value))
        return "K"

    shape = Backend(
        const=const,
        neg=lambda a: f"(-{a})",
        arithmetic={op: (lambda a, b, op=op: f"({a} {op} {b})") for op in ARITHMETIC_FUNCTIONS},
        comparison={op: (lambda a, b, op=op: f"{a} {op} {b}") for op in COMPARISON_FUNCTIONS},
    )
    roles = _roles(g)
    form = tuple(evaluate_comparison(c.rename(roles), lambda a: f"{a.var}.{a.name}", shape) for c in g.conditions)
    return form, found


def _form_column(g: ConditionGroup):
    """A boolean Spark column of the group's form, its ``i``-th constant read from column ``k<i>``."""
    from pyspark.sql import functions as F

    params = (F.col(f"k{i}") for i in itertools.count())
    ok = F.lit(True)
    for c in g.conditions:
        ok = ok & condition_column(c.rename(_roles(g)), lambda role: role, const=lambda k: next(params))
    return ok


def compute_statistics_spark(
    stream: EventColumns | EventStream,
    patterns: Sequence[Pattern] = (),
    *,
    spark=None,
    master: str = "local[*]",
    max_pairs: int = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    progress: bool = True,
) -> Statistics:
    """Rates and selectivities of ``patterns``' conditions (keys shared across patterns)."""
    return _compute(stream, patterns, spark, master, max_pairs, seed, progress, per_pattern=False)[0]


def compute_workload_statistics_spark(
    stream: EventColumns | EventStream,
    patterns: Sequence[Pattern],
    *,
    spark=None,
    master: str = "local[*]",
    max_pairs: int = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    progress: bool = True,
) -> list[Statistics]:
    """One Statistics per pattern (shared rates), all selectivities in one batched Spark job."""
    return _compute(stream, patterns, spark, master, max_pairs, seed, progress, per_pattern=True)


def _compute(stream, patterns, spark, master, max_pairs, seed, progress, per_pattern):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    groups = condition_groups(patterns, per_pattern=per_pattern)
    attrs = sorted({a.name for g in groups for c in g.conditions for a in c.attributes})
    steps = tqdm(total=4, desc="statistics on Spark", unit="step", disable=not progress, leave=False)
    spark = spark or get_spark(master)
    steps.set_postfix_str("loading events")
    df = spark.createDataFrame(stream_frame(stream, attrs)).cache()
    steps.update(1)

    steps.set_postfix_str("arrival rates")
    limit = live_gap_limit(patterns)
    gap = F.coalesce(F.col("ts") - F.lag("ts").over(Window.orderBy("pos")), F.lit(0.0))  # the first event has none
    gap = gap if limit == float("inf") else F.least(gap, F.lit(float(limit)))
    live = round(df.select(gap.alias("gap")).agg(F.sum("gap").alias("live")).collect()[0]["live"] or 0.0, 6)
    if live <= 0:
        df.unpersist()
        raise StatisticsError(f"{stream.source}: the stream spans {stream.span_seconds} seconds ({len(stream)} events); rates need a positive span")
    counts = {r["type"]: r["count"] for r in df.groupBy("type").count().collect()}
    rates = {t: c / live for t, c in counts.items()}
    for p in patterns:
        for t in p.event_types:
            rates.setdefault(t, 0.0)
    steps.update(1)

    sel = _selectivities(spark, df, groups, max_pairs, seed, steps) if groups else {}
    steps.close()
    df.unpersist()
    n_scopes = len(patterns) if per_pattern else 1
    per_scope: list[dict[str, float]] = [{} for _ in range(n_scopes)]
    for gid, g in enumerate(groups):
        per_scope[g.scope][g.key] = sel.get(gid, 1.0)  # no candidates at all: 1.0, as in pandas
    source = f"{stream.source} (Spark {spark.version})"
    return [Statistics(rates, s, source=source) for s in per_scope]


def _selectivities(spark, df, groups: list[ConditionGroup], max_pairs: int, seed: int, steps) -> dict[int, float]:
    from pyspark.sql import functions as F

    forms: dict[tuple[str, ...], int] = {}
    rows = []
    constants = []
    for gid, g in enumerate(groups):
        vs = sorted(g.vtypes)
        form, ks = _parameterized(g)
        fid = forms.setdefault(form, len(forms))
        limit = float(g.window.span_limit)
        rows.append(
            {
                "gid": gid,
                "form": fid,
                "tu": g.vtypes[vs[0]],
                "tv": g.vtypes[vs[1]] if len(vs) == 2 else None,
                "L": limit,
                "width": limit if limit > 0 else 1.0,
                "by_pos": g.window.kind is WindowKind.COUNT,
            }
        )
        constants.append(ks)
    gtab = spark.createDataFrame(pd.DataFrame(rows))
    width = max(map(len, constants), default=0)
    ktab = pd.DataFrame({"gid": range(len(groups))})
    for j in range(width):
        ktab[f"k{j}"] = [ks[j] if j < len(ks) else float("nan") for ks in constants]  # a form reads only its own
    attr_cols = [c for c in df.columns if c.startswith("a__")]
    key = F.when(F.col("by_pos"), F.col("pos").cast("double")).otherwise(F.col("ts"))

    steps.set_postfix_str(f"{len(groups)} selectivities: candidates")
    filt = (
        df.join(F.broadcast(gtab.filter(F.col("tv").isNull())), df["type"] == F.col("tu"))
        .select("gid", "form", F.col("pos").alias("x__pos"), F.lit(-1).cast("long").alias("y__pos"),
                *[F.col(c).alias(f"x__{c[3:]}") for c in attr_cols], *[F.lit(None).cast("double").alias(f"y__{c[3:]}") for c in attr_cols])
    )
    pair_groups = F.broadcast(gtab.filter(F.col("tv").isNotNull()))
    x = (
        df.join(pair_groups, df["type"] == F.col("tu"))
        .select(
            "gid",
            "form",
            "L",
            F.col("pos").alias("x__pos"),
            key.alias("x__key"),
            F.explode(F.array(*(F.floor(key / F.col("width")).cast("long") + d for d in (-1, 0, 1)))).alias("bucket"),
            *[F.col(c).alias(f"x__{c[3:]}") for c in attr_cols],
        )
    )
    y = (
        df.join(pair_groups, df["type"] == F.col("tv"))
        .select(
            F.col("gid").alias("y_gid"),
            F.col("pos").alias("y__pos"),
            key.alias("y__key"),
            F.floor(key / F.col("width")).cast("long").alias("y_bucket"),
            *[F.col(c).alias(f"y__{c[3:]}") for c in attr_cols],
        )
    )
    pairs = (
        x.join(y, (x["gid"] == y["y_gid"]) & (x["bucket"] == y["y_bucket"]))
        .filter((F.abs(F.col("x__key") - F.col("y__key")) <= F.col("L")) & (F.col("x__pos") != F.col("y__pos")))
        .select("gid", "form", "x__pos", "y__pos", *[f"x__{c[3:]}" for c in attr_cols], *[f"y__{c[3:]}" for c in attr_cols])
    )
    cand = filt.unionByName(pairs).cache()
    sizes = {r["gid"]: r["count"] for r in cand.groupBy("gid").count().collect()}
    steps.update(1)

    steps.set_postfix_str(f"{len(groups)} selectivities: evaluating")
    cand_s = _sample(spark, cand, sizes, max_pairs, seed)
    first = {}
    for gid, r in enumerate(rows):
        first.setdefault(r["form"], gid)
    case = None
    for fid in sorted(first):
        ok = _form_column(groups[first[fid]])
        case = F.when(F.col("form") == fid, ok) if case is None else case.when(F.col("form") == fid, ok)
    if width:
        cand_s = cand_s.join(F.broadcast(spark.createDataFrame(ktab)), "gid")
    result = {
        r["gid"]: float(r["s"]) for r in cand_s.groupBy("gid").agg(F.avg(case.cast("double")).alias("s")).collect()
    }
    steps.update(1)
    cand.unpersist()
    return result


#: a large group's hash cut expects to keep ``OVERSAMPLE * (max_pairs + 8 sqrt(max_pairs))`` rows (:func:`_sample`)
OVERSAMPLE = 1.0


def _sample(spark, cand, sizes: dict[int, int], max_pairs: int, seed: int):
    """Each group's candidates, at most ``max_pairs`` of them: the first in the order of a hash of (seed,
    group, positions), so the sample is a function of the candidates, not of how Spark partitions them.

    Ranking a group's candidates sorts all of them, which spills on large groups (JQPG Figure 7's
    statistics job spent most of its time there), so a group of ``n > max_pairs`` is first cut to the
    rows whose hash, read as a fraction of its range, is below ``m / n`` with ``m = max_pairs + 8
    sqrt(max_pairs)``.  The number kept is binomial with mean ``m`` and a standard deviation below
    ``sqrt(max_pairs)``, so it falls short of ``max_pairs`` with a probability of about 1e-15 (the
    normal tail at 8 standard deviations), and a group cut too short is ranked whole.  The rows kept are
    a prefix of the hash order, so the ranked sample is the same as ranking the whole group.  (A cut to
    4x the sample kept nearly every row of ``jqpg_fig3``'s groups, which average 4x the sample.)"""
    from pyspark.sql import Window as W
    from pyspark.sql import functions as F

    big = {g: n for g, n in sizes.items() if n > max_pairs}
    if not big:
        return cand
    cand = cand.withColumn("_draw", F.xxhash64(F.lit(seed), F.col("gid"), F.col("x__pos"), F.col("y__pos")))
    fraction = (F.col("_draw").cast("double") + 2.0**63) / 2.0**64

    def cut(keep: dict[int, float]):
        limits = spark.createDataFrame(pd.DataFrame({"gid": list(keep), "_keep": [float(v) for v in keep.values()]}))
        return cand.join(F.broadcast(limits), "gid", "left").filter(F.col("_keep").isNull() | (fraction < F.col("_keep")))

    keep = {g: min(2.0, OVERSAMPLE * (max_pairs + 8.0 * max_pairs**0.5) / n) for g, n in big.items()}
    kept = cut(keep)
    counts = {r["gid"]: r["count"] for r in kept.filter(F.col("gid").isin(list(big))).groupBy("gid").count().collect()}
    short = [g for g in big if counts.get(g, 0) < max_pairs]
    if short:
        kept = cut({**keep, **{g: 2.0 for g in short}})  # fraction < 2 always: the whole group
    rank = F.row_number().over(W.partitionBy("gid").orderBy("_draw", "x__pos", "y__pos"))
    return kept.withColumn("_rank", rank).filter(F.col("_rank") <= max_pairs)
