"""The statistics job on Spark: arrival rates and selectivities as Spark DataFrame jobs.

Same definitions as :mod:`experiments.statistics` (read its docstring); without sampling the two
give identical numbers, which the tests check.  Window pairs are found with a bucketed equi-join:
each event's window key is cut into buckets of the window length ``L``; a pair within ``L`` of each
other lies in the same or an adjacent bucket, so ``x`` is joined with ``y`` on
``bucket(y) in {bucket(x) - 1, bucket(x), bucket(x) + 1}`` and then filtered on
``|key(x) - key(y)| <= L``.  Sampling (when there are more candidates than ``max_pairs``) uses
Spark's seeded Poisson sampling and keeps at most ``max_pairs`` rows, so sampled estimates differ
from the pandas ones.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from cep.conditions import Attr, Comparison, Const, Neg
from cep.errors import StatisticsError
from cep.events import EventStream
from cep.pattern import Pattern, WindowKind
from cep.statistics import Statistics
from experiments.statistics import DEFAULT_MAX_PAIRS, condition_groups


def stream_frame(stream: EventStream, attributes: Sequence[str]) -> pd.DataFrame:
    """The columns the job needs: position, type, timestamp and the named attributes."""
    data = {
        "pos": [e.pos for e in stream],
        "type": [e.type for e in stream],
        "ts": [float(e.ts) for e in stream],
    }
    for a in attributes:
        try:
            data[f"a__{a}"] = [float(e.attrs[a]) for e in stream]
        except KeyError:
            raise StatisticsError(f"{stream.source}: some events have no attribute {a!r}") from None
    return pd.DataFrame(data)


def _column(expr, prefix_of):
    from pyspark.sql import functions as F

    if isinstance(expr, Attr):
        return F.col(f"{prefix_of(expr.var)}__{expr.name}")
    if isinstance(expr, Const):
        return F.lit(float(expr.value))
    if isinstance(expr, Neg):
        return -_column(expr.operand, prefix_of)
    a, b = _column(expr.left, prefix_of), _column(expr.right, prefix_of)
    if expr.op == "+":
        return a + b
    if expr.op == "-":
        return a - b
    if expr.op == "*":
        return a * b
    return F.try_divide(a, b)  # null on division by zero: the comparison becomes false below


def condition_column(c: Comparison, prefix_of):
    """A boolean Spark column for a comparison; null (division by zero) counts as false."""
    from pyspark.sql import functions as F

    left, right = _column(c.left, prefix_of), _column(c.right, prefix_of)
    cmp = {
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
        "=": left == right,
        "!=": left != right,
    }[c.op]
    return F.coalesce(cmp, F.lit(False))


def compute_statistics_spark(
    stream: EventStream,
    patterns: Sequence[Pattern] = (),
    *,
    spark=None,
    master: str = "local[*]",
    max_pairs: int = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    progress: bool = True,
) -> Statistics:
    """Rates and selectivities of ``patterns``' conditions over ``stream``, computed by Spark."""
    from pyspark.sql import functions as F
    from tqdm import tqdm

    from experiments.spark import get_spark

    groups = condition_groups(patterns)
    for key, (vtypes, _, _) in groups.items():
        if len(vtypes) > 2:
            raise StatisticsError(
                f"conditions over {len(vtypes)} variables ({key}) are not estimated; give their selectivity in a statistics file"
            )
    attrs = sorted({a.name for _, conds, _ in groups.values() for c in conds for a in c.attributes})
    steps = tqdm(total=2 + len(groups), desc="statistics on Spark", unit="job", disable=not progress, leave=False)
    spark = spark or get_spark(master)
    steps.set_postfix_str("loading events")
    df = spark.createDataFrame(stream_frame(stream, attrs)).cache()
    steps.update(1)

    steps.set_postfix_str("arrival rates")
    bounds = df.agg(F.min("ts").alias("lo"), F.max("ts").alias("hi"), F.count("*").alias("n")).collect()[0]
    span = (bounds["hi"] - bounds["lo"]) if bounds["n"] else 0.0
    if not span or span <= 0:
        df.unpersist()
        raise StatisticsError(f"{stream.source}: the stream spans {span or 0} seconds; rates need a positive span")
    counts = {r["type"]: r["count"] for r in df.groupBy("type").count().collect()}
    rates = {t: c / span for t, c in counts.items()}
    for p in patterns:
        for t in p.event_types:
            rates.setdefault(t, 0.0)
    steps.update(1)

    sels: dict[str, float] = {}
    for key, (vtypes, conds, window) in groups.items():
        steps.set_postfix_str(f"selectivity {key}")
        sels[key] = _selectivity(df, vtypes, conds, window, max_pairs, seed)
        steps.update(1)
    steps.close()
    df.unpersist()
    return Statistics(rates, sels, source=f"{stream.source} (Spark {spark.version})")


def _selectivity(df, vtypes, conds, window, max_pairs: int, seed: int) -> float:
    from pyspark.sql import functions as F

    vs = sorted(vtypes)
    key_col = F.col("ts") if window.kind is WindowKind.TIME else F.col("pos").cast("double")
    if len(vs) == 1:
        (u,) = vs
        ev = df.filter(F.col("type") == vtypes[u])
        n = ev.count()
        if n == 0:
            return 1.0
        if n > max_pairs:
            ev = ev.sample(withReplacement=True, fraction=max_pairs / n, seed=seed).limit(max_pairs)
        ok = F.lit(True)
        for c in conds:
            ok = ok & condition_column(c, lambda var: "a")
        row = ev.agg(F.avg(ok.cast("double")).alias("s"), F.count("*").alias("n")).collect()[0]
        return float(row["s"]) if row["n"] else 1.0

    u, v = vs
    limit = float(window.span_limit)
    attr_cols = [c for c in df.columns if c.startswith("a__")]

    def side(var: str, t: str):
        s = df.filter(F.col("type") == t).select(
            F.col("pos").alias(f"{var}__pos"),
            key_col.alias(f"{var}__key"),
            *[F.col(c).alias(f"{var}__{c[3:]}") for c in attr_cols],
        )
        if limit > 0:
            s = s.withColumn(f"{var}__bucket", F.floor(F.col(f"{var}__key") / F.lit(limit)).cast("long"))
        return s

    x, y = side(u, vtypes[u]), side(v, vtypes[v])
    if limit > 0:
        x = x.withColumn("jb", F.explode(F.array(*(F.col(f"{u}__bucket") + d for d in (-1, 0, 1)))))
        pairs = x.join(y, x["jb"] == y[f"{v}__bucket"])
    else:
        pairs = x.join(y, x[f"{u}__key"] == y[f"{v}__key"])
    pairs = pairs.filter(
        (F.abs(F.col(f"{u}__key") - F.col(f"{v}__key")) <= F.lit(limit)) & (F.col(f"{u}__pos") != F.col(f"{v}__pos"))
    )
    total = pairs.count()
    if total == 0:
        return 1.0
    if total > max_pairs:
        pairs = pairs.sample(withReplacement=True, fraction=max_pairs / total, seed=seed).limit(max_pairs)
    ok = F.lit(True)
    for c in conds:
        ok = ok & condition_column(c, lambda var: var)
    row = pairs.agg(F.avg(ok.cast("double")).alias("s"), F.count("*").alias("n")).collect()[0]
    return float(row["s"]) if row["n"] else 1.0


