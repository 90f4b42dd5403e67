"""One workload's global plan evaluated in parallel over ``k`` Spark tasks (MOTTO Section VII-C,
Figure 14b: "the parallelism does not decrease because of the sufficient number of sub-queries in
the global query plan").

MOTTO runs its jumbo query plan on SAP ESP, whose operators (the sub-queries) run on different
cores.  Our multi-pattern evaluator (:mod:`evaluators.multi`) runs a whole MPM in one thread, so
the parallel run here splits the plan, not the stream:

* **Partition** (:func:`partition_plan`): the plan's patterns are grouped into at most ``k`` groups.
  Patterns that share an internal node (a sub-tree two owners use) form a *sharing component*; a
  component is kept in one group, so that every shared node is still computed once.  Components are
  assigned longest-first to the group of least planned cost (LPT), the cost of a group being our
  Cost_tree^multi of its own MPM (:func:`algorithms.multi.costs.cost_multi`).  A component is split
  only when there are fewer pieces than groups, or when it alone costs more than a fair share
  (``total / k``), and only if the split lowers the largest group's cost: it is bisected
  spectrally (its patterns ordered by the Fiedler vector of their sharing graph, edges weighted by
  the planned cost of the nodes two patterns share, cut where the larger part's cost is least), and
  **each part then runs its own copy of the nodes they shared** (:attr:`Partition.copied_nodes`
  counts them).  Event buffers
  (leaves) are per group anyway: every task reads the whole stream.
* **Sub-plans** (:func:`sub_plan`): a group's MPM holds exactly the group's local plans and merges
  exactly what the whole plan merged among them (its ``shared_masks``), so each group detects, per
  pattern, exactly what the whole plan detects (:mod:`cep.global_plans`).
* **Run** (:func:`run_parallel`): one Spark job of ``k`` partitions, one group per partition; each
  task evaluates its group's MPM over the whole stream (the stream is rebuilt from its JSON
  specification once per Python worker, :mod:`experiments.data.streams`) and returns its
  per-pattern match counts.  Throughput is the stream's events over the wall time of the whole job
  measured at the driver -- task scheduling, the group's plan compilation and evaluation, and the
  collection of results included; session start-up excluded; one untimed warm-up job first (it
  starts the Python workers and builds their streams, :func:`warm_worker`); the median of
  ``repeats`` runs.
* **Sessions** (:func:`cores_session`): ``local[k]`` by default; with a standalone master
  (``spark://...``) the session asks for ``k`` executors of one core (``spark.cores.max = k``,
  ``spark.executor.cores = 1``) and waits until they are registered.  A JVM holds one SparkContext,
  so any running session (the experiment runner's) is stopped first: these runs happen in the
  driver, one after the other, never inside a Spark task (see :mod:`experiments.exps.motto`).
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components, laplacian

from algorithms.multi.costs import cost_multi, node_cost
from cep.errors import ConfigError
from cep.global_plans import GlobalPlan, build_global_plan
from evaluators.multi import evaluate_workload
from experiments.data.spark import get_spark, stop_spark
from experiments.data.streams import experiment_stream

MAX_CORES = 256  # a sanity bound on a core count from a config


@dataclass(frozen=True)
class Partition:
    """Pattern indices per group (each sorted; groups by decreasing planned cost) and what the split cost."""

    groups: tuple[tuple[int, ...], ...]
    costs: tuple[float, ...]  # planned cost (Cost_tree^multi) of each group's own MPM
    total_cost: float  # of the whole plan
    components: int  # sharing components of the whole plan
    split_components: int  # components whose patterns ended in two or more groups
    copied_nodes: int  # internal nodes of the whole plan that two or more groups compute (one copy each)

    @property
    def speedup_bound(self) -> float:
        """The whole plan's planned cost over the largest group's: the speedup the partition allows
        with one core per group (by the cost model)."""
        top = max(self.costs, default=0.0)
        return self.total_cost / top if top > 0 else 1.0


def check_cores(k) -> int:
    """A core count from a config: an integer in ``[1, MAX_CORES]`` (else a one-line ConfigError)."""
    if isinstance(k, bool) or not isinstance(k, (int, float)) or k != int(k) or not 1 <= int(k) <= MAX_CORES:
        raise ConfigError(f"a core count must be an integer from 1 to {MAX_CORES}, got {k!r}")
    return int(k)


# ---- partition ---------------------------------------------------------------------------------------
def _pattern_of(owner) -> int:
    return owner[0]


def sharing_weights(g: GlobalPlan, models=None):
    """The patterns (sorted) and a symmetric matrix: entry ``(a, b)`` the planned cost of the
    internal nodes patterns ``a`` and ``b`` both use (1 per node without ``models``)."""
    pats = sorted({_pattern_of(o) for o in g.clauses})
    at = {p: i for i, p in enumerate(pats)}
    w = np.zeros((len(pats), len(pats)))
    for n in g.nodes.values():
        if n.is_leaf:
            continue
        users = sorted({at[_pattern_of(o)] for o in n.users})
        if len(users) < 2:
            continue
        c = node_cost(g, n, models) if models is not None else 1.0
        for i, a in enumerate(users):
            for b in users[i + 1:]:
                w[a, b] += c
                w[b, a] += c
    return pats, w


def sharing_components(g: GlobalPlan) -> list[tuple[int, ...]]:
    """The patterns connected by shared internal nodes, each sorted, largest first."""
    pats, w = sharing_weights(g)
    _, label = connected_components(w > 0, directed=False)
    comps: dict[int, list[int]] = {}
    for p, lab in zip(pats, label):
        comps.setdefault(int(lab), []).append(p)
    return sorted((tuple(c) for c in comps.values()), key=lambda c: (-len(c), c))


def fiedler_order(piece: Sequence[int], pats: Sequence[int], w) -> list[int]:
    """The patterns of ``piece`` ordered by the Fiedler vector of their sharing graph's Laplacian
    (spectral bisection: a cut of this order separates the least shared cost)."""
    at = {p: i for i, p in enumerate(pats)}
    idx = [at[p] for p in piece]
    sub = w[np.ix_(idx, idx)]
    _vals, vecs = np.linalg.eigh(laplacian(sub))
    f = vecs[:, 1] if len(idx) > 1 else np.zeros(1)
    if f[np.argmax(np.abs(f))] < 0:  # a deterministic sign
        f = -f
    return [p for _, p in sorted(zip(np.round(f, 12), piece))]


def sub_plan(g: GlobalPlan, group: Sequence[int]) -> GlobalPlan:
    """The MPM of the patterns ``group`` (re-indexed ``0..len(group)-1`` in the given order): their
    local plans, merged exactly as the whole plan merges them (same ``share`` and ``shared_masks``)."""
    index = {p: j for j, p in enumerate(group)}
    owners = sorted(o for o in g.clauses if o[0] in index)
    ren = {o: (index[o[0]], o[1]) for o in owners}
    clauses = {ren[o]: g.clauses[o] for o in owners}
    plans = {ren[o]: g.plans[o] for o in owners}
    masks = None if g.shared_masks is None else {ren[o]: g.shared_masks.get(o, frozenset()) for o in owners}
    return build_global_plan(g.kind, clauses, plans, share=g.share, shared_masks=masks)


def _sub_models(models: Mapping, group: Sequence[int]) -> dict:
    index = {p: j for j, p in enumerate(group)}
    return {(index[o[0]], o[1]): m for o, m in models.items() if o[0] in index}


def group_cost(g: GlobalPlan, models: Mapping, group: Sequence[int]) -> float:
    """Planned cost (Cost_tree^multi) of the group's own MPM."""
    return cost_multi(sub_plan(g, group), _sub_models(models, group))


def _lpt(pieces: list[tuple[int, ...]], cost: Mapping, k: int) -> list[list[int]]:
    """Pieces assigned longest-first to the group of least cost so far (ties: the lower index)."""
    groups: list[list[int]] = [[] for _ in range(k)]
    load = [0.0] * k
    for p in sorted(pieces, key=lambda p: (-cost[p], p)):
        i = min(range(k), key=lambda j: (load[j], j))
        groups[i].extend(p)
        load[i] += cost[p]
    return [sorted(x) for x in groups if x]


def partition_plan(g: GlobalPlan, models: Mapping, k: int) -> Partition:
    """At most ``k`` groups of the plan's patterns (module docstring: components kept whole where
    possible, balanced by planned cost)."""
    k = check_cores(k)
    pats, w = sharing_weights(g, models)
    comps = sharing_components(g)
    memo: dict = {}

    def cost(p) -> float:
        if p not in memo:
            memo[p] = group_cost(g, models, p)
        return memo[p]

    def bottleneck(groups) -> float:
        return max(cost(tuple(x)) for x in groups)

    pieces = list(comps)
    groups = _lpt(pieces, {p: cost(p) for p in pieces}, k)
    total = cost(tuple(sorted(o for c in comps for o in c)))
    while True:
        splittable = [p for p in pieces if len(p) >= 2]
        if not splittable:
            break
        big = max(splittable, key=lambda p: (cost(p), p))
        if len(pieces) >= k and cost(big) <= total / k:
            break
        order = fiedler_order(big, pats, w)
        cut = min(range(1, len(order)), key=lambda i: (max(cost(tuple(sorted(order[:i]))), cost(tuple(sorted(order[i:])))), i))
        trial = [p for p in pieces if p != big] + [tuple(sorted(order[:cut])), tuple(sorted(order[cut:]))]
        tg = _lpt(trial, {p: cost(p) for p in trial}, k)
        if bottleneck(tg) >= bottleneck(groups):
            break
        pieces, groups = trial, tg
    groups = sorted(groups, key=lambda x: (-cost(tuple(x)), x))
    where = {p: i for i, grp in enumerate(groups) for p in grp}
    split = sum(1 for c in comps if len({where[p] for p in c}) > 1)
    copied = sum(1 for n in g.nodes.values() if not n.is_leaf and len({where[o[0]] for o in n.users}) > 1)
    return Partition(tuple(tuple(x) for x in groups), tuple(cost(tuple(x)) for x in groups), total, len(comps), split, copied)


# ---- the parallel run ----------------------------------------------------------------------------------
def group_payloads(patterns: Sequence, g: GlobalPlan, part: Partition, stream_spec: Mapping, *,
                   max_partial_matches: int | None = None, max_work: int | None = None,
                   collect_matches: bool = False) -> list[dict]:
    """What each task needs (picklable): the stream's JSON specification, the group's patterns,
    local plans and merge masks, the limits, and whether to return the matches themselves."""
    out = []
    for i, group in enumerate(part.groups):
        index = {p: j for j, p in enumerate(group)}
        owners = sorted(o for o in g.clauses if o[0] in index)
        out.append({
            "group": i, "patterns_idx": list(group), "patterns": [patterns[p] for p in group], "kind": g.kind, "share": g.share,
            "clauses": {(index[o[0]], o[1]): g.clauses[o] for o in owners},
            "plans": {(index[o[0]], o[1]): g.plans[o] for o in owners},
            "masks": None if g.shared_masks is None else {(index[o[0]], o[1]): g.shared_masks.get(o, frozenset()) for o in owners},
            "stream": dict(stream_spec), "max_partial_matches": max_partial_matches, "max_work": max_work,
            "collect_matches": bool(collect_matches),
        })
    return out


def run_group(payload: Mapping) -> dict:
    """One task: the group's MPM over the whole stream; its per-pattern counts (by the whole
    workload's pattern index), its own detection time, and with ``collect_matches`` each pattern's
    matches (as :attr:`cep.matches.Match.bindings`: each variable's stream positions)."""
    gp = build_global_plan(payload["kind"], payload["clauses"], payload["plans"], share=payload["share"],
                           shared_masks=payload["masks"])
    stream = experiment_stream(payload["stream"]).to_stream()  # the multi-pattern runtime takes event objects
    collect = bool(payload.get("collect_matches"))
    res = evaluate_workload(payload["patterns"], gp, stream, collect_matches=collect,
                            max_partial_matches=payload["max_partial_matches"], max_work=payload["max_work"])
    out = {"group": payload["group"], "counts": dict(zip(payload["patterns_idx"], res.counts)),
           "elapsed_s": res.metrics["elapsed_s"], "work": res.metrics["work"], "events": res.metrics["events"]}
    if collect:
        out["matches"] = {p: [tuple(m.bindings) for m in ms] for p, ms in zip(payload["patterns_idx"], res.matches_by_pattern)}
    return out


@dataclass(frozen=True)
class ParallelRun:
    tasks: int
    events: int
    wall_s: list[float]  # per timed repeat, at the driver
    task_s: list[list[float]]  # per repeat, each task's own detection time
    counts: list[int]  # per pattern of the whole workload
    work: int
    matches: dict | None = None  # pattern index -> its matches' bindings (the last run; with collect_matches)

    @property
    def throughput_eps(self) -> float:
        return self.events / statistics.median(self.wall_s)


def warm_worker(payload: Mapping) -> int:
    """A warm-up task: build the stream in this Python worker (cached; the evaluator is imported with this
    module when the task's function arrives)."""
    return len(experiment_stream(payload["stream"]))


def run_parallel(spark, payloads: Sequence[Mapping], *, repeats: int = 3) -> ParallelRun:
    """Run the groups as one Spark job of ``len(payloads)`` tasks ``repeats`` times, after one
    untimed warm-up job of as many tasks (:func:`warm_worker`: the Python workers started, their
    streams built); every run must report the same per-pattern counts."""
    sc = spark.sparkContext
    n = len(payloads)
    sc.parallelize(list(payloads), n).map(warm_worker).collect()
    walls, tasks, counts = [], [], None
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = sc.parallelize(list(payloads), n).map(run_group).collect()
        wall = time.perf_counter() - t0
        got: dict[int, int] = {}
        for x in out:
            got.update(x["counts"])
        c = [got[i] for i in sorted(got)]
        assert sorted(got) == list(range(len(got))), "every pattern is evaluated by exactly one task"
        assert counts is None or c == counts, "a repeat of the parallel run reported other counts"
        counts = c
        walls.append(wall)
        tasks.append(sorted(x["elapsed_s"] for x in out))
    found = {p: ms for x in out for p, ms in x.get("matches", {}).items()} if out and "matches" in out[0] else None
    return ParallelRun(n, out[0]["events"] if out else 0, walls, tasks, counts or [], sum(x["work"] for x in out), found)


# ---- sessions ------------------------------------------------------------------------------------------
def cores_master(k: int, master: str | None) -> tuple[str, dict]:
    """The master and properties of a session of ``k`` cores: ``local[k]``, or ``k`` one-core
    executors of a standalone master (``spark://...``)."""
    k = check_cores(k)
    if master and str(master).startswith("spark://"):
        return str(master), {"spark.cores.max": k, "spark.executor.cores": 1, "spark.task.maxFailures": 1}
    if master and not str(master).startswith("local"):
        raise ConfigError(f"the core study runs on local[k] or a standalone master (spark://host:port), not {master!r}")
    return f"local[{k}]", {}


def _wait_executors(spark, k: int, timeout: float) -> None:
    sc = spark.sparkContext
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(sc.statusTracker().getExecutorInfos()) - 1 >= k:  # the driver is listed too
            return
        time.sleep(0.25)
    raise ConfigError(f"the Spark master {sc.master} gave fewer than {k} executors within {timeout:.0f} s")


@contextlib.contextmanager
def cores_session(k: int, master: str | None = None, *, conf: Mapping | None = None, timeout: float = 120.0):
    """A SparkSession of ``k`` cores (:func:`cores_master`), stopped on exit; any running session
    is stopped first."""
    url, props = cores_master(k, master)
    stop_spark()
    spark = get_spark(url, app_name=f"cep-plan-bench-cores{k}", conf={**(conf or {}), **props})
    try:
        if url.startswith("spark://"):
            _wait_executors(spark, k, timeout)
        yield spark
    finally:
        spark.stop()
