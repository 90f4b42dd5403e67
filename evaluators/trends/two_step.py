"""Two-step trend aggregation: construct every trend, then aggregate (the MCEP-style baseline of
HAMLET Section 5.1: "MCEP constructs all event trends prior to computing their aggregation ... it
shares event trend construction").

**Step one** runs the trend queries' PATTERNs on the multi-pattern runtime (:mod:`evaluators.multi`,
MCEP Sections 3-5).  Queries with the same partition attributes (grouping and equivalence,
:attr:`cep.trends.TrendQuery.partition_attributes`) form one workload whose global plan is the MPT of
their SEQ orders (MCEP 3.2: common prefixes are shared, e.g. ``SEQ(S s, Travel t+)`` of two queries
with the same start; the MPM of their left-deep trees has the same nodes), run once per partition
sub-stream under skip-till-any-match and strict SEQ
order.  The written order joins a Kleene element after its predecessors, so the runtime can run
with its start-anchored Kleene node (``anchor_kleene``): a ``t+`` after its
predecessors grows from the start events' partial matches, as an NFA state with a Kleene self-loop,
instead of joining every subset of the Kleene type's events in the window, which the plain leaf
enumerates whether or not a start event precedes them (measured on the Figure 8 cell at 500
events/min: with the plain leaf this engine stores 98,303 partial matches in one driver's run at seed
1, against 8,194, and runs 43x slower, 970 against 41,748 events/s; at seed 0 it passes the 100,000
cap).  A match is a trend of every window ``[k*s, k*s + w)`` holding its first
and last events (:meth:`~evaluators.trends.common.CompiledQuery.windows_of_span`); every trend is
stored.  **Step two** aggregates the stored trends when the stream ends.

What the runtime's patterns cannot say is decided per event beforehand, exactly as the other engines
decide it (:func:`~evaluators.trends.common._filter_fn`): an element's comparisons (false when they
cannot be evaluated) and, for an aggregated attribute, that it is a number.  Each distinct filter of
an event type becomes a 0/1 flag attribute of the sub-stream's events and the pattern's one
comparison on that variable (``v.k3 = 1``), so queries with equal filters still share a leaf.

``max_trends`` caps the constructed trends: the stored complete trends plus the partial matches of
the current partition run; past it the run stops with :class:`~cep.errors.PartialMatchLimitError` (a
capped result, as the evaluators' partial-match cap).  The number of trends is exponential in the
matched events, which is the point of the comparison.  Metrics: ``trends`` (constructed),
``peak_partial_trends`` (the largest peak of stored partial matches of one partition run, expired
ones included until the runtime drops them), ``peak_partial_trends_summed`` (those peaks summed over
the runs: what one pass holding every partition at its peak at once would store) and ``runs``.
Latency: a partition run's wall time spread over its distinct timestamps (the runtime takes a
sub-stream in one call), so the mean is the time per arriving timestamp and the p95 is over
partitions.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence

from cep.conditions import Attr, Comparison, Const
from cep.errors import PartialMatchLimitError
from cep.events import Event, EventStream
from cep.global_plans import build_global_plan, workload_clauses
from cep.pattern import Pattern, SeqOrder, Window
from cep.plans import OrderPlan
from cep.trends import TrendQuery, number
from evaluators.multi.runtime import MultiRuntime
from evaluators.trends.common import (
    Clock,
    CompiledQuery,
    PaneClock,
    TrendResult,
    _filter_fn,
    add_result,
    compile_queries,
)

DEFAULT_MAX_TRENDS = 1_000_000


class _Workload:
    """One multi-pattern workload: the queries of one partition attribute set, their patterns over
    flag attributes, the MPT of their SEQ orders and its runtime."""

    def __init__(self, attrs: tuple[str, ...], cqs: list[CompiledQuery]) -> None:
        self.attrs = attrs
        self.cqs = cqs
        flags: dict = {}  # filter key -> flag name
        self.by_type: dict[str, list] = {}  # type -> [(flag, filter)]
        self.always: set[str] = set()  # types some element or negation takes unfiltered
        patterns = []
        for cq in cqs:
            q = cq.query
            conds = []
            uses = [(e.type, e.var, e.conditions, cq.agg.required.get(i, []), cq.filters[i]) for i, e in enumerate(q.elements)]
            part = q.partition_attributes
            uses += [(n.type, n.var, n.conditions, [], _filter_fn(n.conditions, part)) for n in q.negations]
            for t, var, cs, numeric, fn in uses:
                if not cs and not numeric:
                    self.always.add(t)
                    continue
                key = (t, tuple(sorted(str(c.rename({var: "_0"})) for c in cs)), tuple(numeric))
                name = flags.get(key)
                if name is None:
                    name = flags[key] = f"k{len(flags)}"
                    self.by_type.setdefault(t, []).append((name, fn))
                conds.append(Comparison("=", Attr(var, name), Const(1.0)))
            # one ulp wider than the window: spans are checked exactly against panes afterwards
            window = Window.seconds(math.nextafter(float(q.window), math.inf))
            patterns.append(Pattern(q.pattern.structure, tuple(conds), window, seq_order=SeqOrder.STRICT))
        self.types = self.always | set(self.by_type)
        clauses = workload_clauses(patterns)
        gplan = build_global_plan("order", clauses, {o: OrderPlan(sp.positive) for o, sp in clauses.items()})
        self.runtime = MultiRuntime(patterns, gplan, name="multi-nfa", anchor_kleene=True)
        self.vars = [[e.var for e in cq.query.elements] for cq in cqs]

    def partitions(self, events) -> dict[tuple, list[tuple[int, dict]]]:
        """The events some pattern may use, as (stream index, flags), by partition key."""
        parts: dict[tuple, list] = {}
        attrs, by_type, always, types = self.attrs, self.by_type, self.always, self.types
        for j, e in enumerate(events):
            t = e.type
            if t not in types:
                continue
            a = e.attrs
            try:
                key = tuple(a[x] for x in attrs)
            except KeyError:
                continue
            fl = {name: int(fn(a)) for name, fn in by_type.get(t, ())}
            if t in always or any(fl.values()):
                parts.setdefault(key, []).append((j, fl))
        return parts


def _aggregate(cq: CompiledQuery, vars_: list[str], matches, orig: list[Event], panes: list[int], st: dict) -> None:
    """Step two for one query and one partition run: every constructed trend's state added to the
    windows holding its first and last events.  A COUNT(*)-only query's trends add 1 each, so they are
    counted per (first pane, last pane) first and each pair is added once."""
    grp = tuple(orig[0].attrs[a] for a in cq.query.group_by)
    if cq.agg.count_only:
        names = sorted(vars_)  # Match.bindings are sorted by variable: the first and last elements' slots
        f, la = names.index(vars_[0]), names.index(vars_[-1])
        spans = Counter((panes[m.bindings[f][1][0]], panes[m.bindings[la][1][-1]]) for m in matches)
        for (sp, ep), n in spans.items():
            add_result(cq, st, grp, sp, ep, [n])
        return
    specs = [(kind, vars_[ei], attr) for kind, ei, attr in cq.agg.specs]
    for m in matches:
        b = dict(m.bindings)
        ps = m.positions
        s = [1]
        for kind, var, attr in specs:
            vals = [1 if attr is None else number(orig[p].attrs[attr]) for p in b[var]]
            s.append(sum(vals) if kind == "sum" else (min(vals) if kind == "min" else max(vals)))
        add_result(cq, st, grp, panes[ps[0]], panes[ps[-1]], s)


def run_two_step(queries: Sequence[TrendQuery], stream, *, max_trends: int = DEFAULT_MAX_TRENDS) -> TrendResult:
    clock = Clock()
    events = list(stream)
    pane, compiled = compile_queries(queries)
    pane_clock = PaneClock(pane)
    all_panes = [pane_clock(e.ts) for e in events]
    states: list[dict] = [{} for _ in compiled]
    groups: dict[tuple, list[CompiledQuery]] = {}
    for cq in compiled:
        groups.setdefault(tuple(sorted(set(cq.query.partition_attributes))), []).append(cq)
    stored = []  # (workload, sub-stream's events, panes, per-query matches)
    n_trends = peak = summed = runs = 0
    lat: list[float] = []
    done = 0  # events of the partitions processed to the end (what a capped run has processed)
    for attrs, cqs in groups.items():
        wl = _Workload(attrs, cqs)
        for evs in wl.partitions(events).values():
            t0 = time.perf_counter()
            orig = [events[j] for j, _ in evs]
            sub = EventStream([Event(e.type, e.ts, fl) for e, (_, fl) in zip(orig, evs)])
            try:
                res = wl.runtime.run(sub, collect_matches=True, max_partial_matches=max_trends - n_trends)
            except PartialMatchLimitError:
                raise PartialMatchLimitError(f"two-step: more than {max_trends:,} constructed trends",
                                             processed=done // len(groups)) from None
            runs += 1
            n_trends += sum(res.counts)
            peak = max(peak, res.metrics["peak_partial_matches"])
            summed += res.metrics["peak_partial_matches"]
            if n_trends > max_trends:
                raise PartialMatchLimitError(f"two-step: more than {max_trends:,} constructed trends", processed=done // len(groups))
            done += len(evs)
            stored.append((wl, orig, [all_panes[j] for j, _ in evs], res.matches_by_pattern))
            n_ts = len({e.ts for e in orig})
            lat.extend([(time.perf_counter() - t0) * 1000.0 / n_ts] * n_ts)
    # step two: aggregate the constructed trends
    for wl, orig, panes, found in stored:
        for cq, vars_, matches in zip(wl.cqs, wl.vars, found):
            if matches:
                _aggregate(cq, vars_, matches, orig, panes, states[cq.index])
    res = TrendResult(list(queries), compiled, states, "two-step", len(events), clock.elapsed())
    res.latencies_ms = lat
    res.extra["trends"] = n_trends
    res.extra["peak_partial_trends"] = peak
    res.extra["peak_partial_trends_summed"] = summed
    res.extra["runs"] = runs
    return res
