"""``python -m experiments bench hamlet``: HAMLET's executor against GRETA on the issue's workload.

The workload of the issue's speed targets: one ridesharing window of ``--events`` events (default
3,000; ``experiments/data/ridesharing.py``, 75% Travel in bursts, 10,000 events per minute, one partition)
and ``k`` COUNT(*) queries ``SEQ(S_i s, Travel t+, E_i e)`` sharing ``Travel+`` (``--queries``, default
5 and 10), one window holding the whole stream; ``--returns`` replaces the RETURN clause (e.g.
``"COUNT(*), SUM(t.speed), AVG(t.duration), MAX(t.price)"``: the other aggregates share too).  Engines: ``hamlet`` (dynamic sharing),
``hamlet-static``, ``hamlet-nonshared`` (the same executor with sharing switched off: running sums per
query -- not a registered engine, shown to separate the gain of sharing from that of the running
sums), ``greta`` (Equation 2 visiting every predecessor vertex, quadratic per query), ``sharon``
(Kleene flattened into fixed-length sequences) and ``two-step`` (construct every trend, then
aggregate).  ``--cell EPM`` times a ``hamlet_fig8`` quick cell instead: the experiment's ridesharing
stream at EPM events per minute (the figure's minutes and drivers at scale=quick, seed ``--seed``) and its
workload of ``--queries`` queries per driver.  SHARON and two-step stop at the figure's caps at scale=quick
(``--sharon-max-work``, ``--max-trends``); a capped engine's row is a
bound, as in the report (:mod:`experiments.reporting.bounds`): all events over its median time to the
cap is an upper bound on its throughput, HAMLET's ratio over it a lower bound.

Targets (the issue): the public Java HAMLET does about 21,000 events/s on 5 queries on this machine
(its GRETA about 520 events/s); ours should do at least that, and at least 10x our GRETA with 10 or
more queries.  Each engine runs ``--repeats`` times (GRETA once; ``--greta-repeats``), median shown;
every finished engine's results are checked equal.  Wall-clock on a shared machine: noisier, never faster.
"""

from __future__ import annotations

import argparse
import statistics
import time

from experiments.tools.tables import fmt, print_rows

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

HELP = ("HAMLET: events/s of the HAMLET executor vs GRETA, SHARON and two-step on a 3,000-event ridesharing window "
        "or a hamlet_fig8 quick cell (prints a table)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events", type=int, default=3000, help="events in the window (default 3000)")
    p.add_argument("--queries", default="5,10", help="comma-separated workload sizes (default 5,10)")
    p.add_argument("--engines", default="hamlet,hamlet-static,hamlet-nonshared,greta,sharon,two-step", help="engines to time")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per engine (median; default 3)")
    p.add_argument("--greta-repeats", type=int, default=1, help="timed runs of GRETA (default 1)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--travel-share", type=float, default=0.75, help="share of Travel events (default 0.75)")
    p.add_argument("--burst-mean", type=float, default=30.0, help="mean Travel burst length (default 30)")
    p.add_argument("--returns", default="COUNT(*)", help="the queries' RETURN clause (default COUNT(*); variables s, t, e)")
    p.add_argument("--cell", type=int, default=None, metavar="EPM",
                   help="time a hamlet_fig8 quick cell at EPM events per minute instead of the one window")
    p.add_argument("--max-trends", type=int, default=None, help="two-step's cap (default: hamlet_fig8's at scale=quick)")
    p.add_argument("--sharon-max-work", type=int, default=None, help="SHARON's cap (default: hamlet_fig8's at scale=quick)")
    p.add_argument("--json", action="store_true", help="print one JSON object per engine and workload")


COLUMNS = {
    "queries": ("queries", fmt("d")), "engine": ("engine", str), "throughput_eps": ("events/s", fmt(",.0f")),
    "bound": ("", lambda b: "<=" if b else ""), "seconds": ("seconds", fmt(".3f")), "snapshots": ("snapshots", fmt("d")),
    "over_greta": ("vs greta", fmt(".1f")), "hamlet_over": ("hamlet over it", fmt(".1f")),
}


def _quick_caps() -> dict:
    """``hamlet_fig8``'s settings at scale=quick (the caps, minutes and drivers of a quick cell), resolved as
    the experiment resolves them."""
    from experiments.exps.hamlet import SETTINGS
    from experiments.running.compose import compose_config
    from experiments.running.settings import resolve

    return resolve(compose_config(["+exp=hamlet_fig8", "scale=quick"]), SETTINGS)


def _runner(name: str):
    from evaluators.trends import NoSharing, run_hamlet
    from experiments.exps.hamlet_engines import engine

    if name == "hamlet-nonshared":
        return lambda qs, s: run_hamlet(qs, s, policy=NoSharing())
    return engine(name)


def _inputs(args: argparse.Namespace, sc: dict):
    """The stream, a line describing it, and per workload size its parsed queries."""
    from cep.parser import parse_patterns
    from experiments.workloads.hamlet import experiment_workload, sharing_workload

    sizes = [int(x) for x in args.queries.split(",")]
    if args.cell is not None:
        from experiments.data.trend_streams import trend_stream

        stream, pool = trend_stream("ridesharing", args.cell, float(sc["minutes"]), args.seed, int(sc["drivers"]))

        def spec(k: int) -> dict:
            return {"dataset": "ridesharing", "figure": "fig8", "params": {"queries": k, "window_s": int(sc["window_s"])}}

        line = (f"hamlet_fig8 quick cell: ridesharing at {args.cell:,} events/min for {sc['minutes']} min, {sc['drivers']} drivers, "
                f"{len(stream)} events, seed {args.seed}; windows of {sc['window_s']} s")
        workloads = {k: parse_patterns(experiment_workload(spec(k), pool, stream)) for k in sizes}
        return stream.to_stream(), line, workloads  # the trend engines take event objects
    from experiments.data.ridesharing import generate_ridesharing

    stream = generate_ridesharing(args.events, seed=args.seed, travel_share=args.travel_share, burst_mean=args.burst_mean)
    travel = stream.type_counts()["Travel"]
    window = int(stream.span_seconds) + 1
    line = (f"ridesharing window: {len(stream)} events over {stream.span_seconds:.1f} s, {travel / len(stream):.0%} Travel, "
            f"seed {args.seed}; one window of {window} s")
    # parsed before anything is printed: a bad --returns is the CLI's one-line error (exit 2)
    return stream.to_stream(), line, {k: parse_patterns(sharing_workload(k, window_seconds=window, returns=args.returns)) for k in sizes}


def _time(run, qs, stream, repeats: int, **options) -> tuple[float, object, str | None]:
    """Median seconds of ``repeats`` runs, the last result, and the cap's message if the engine stopped
    at its cap (then the seconds are its median time to the cap)."""
    from cep.errors import EvaluationLimitError

    times, res, capped = [], None, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            res = run(qs, stream, **options)
        except EvaluationLimitError as e:
            capped = str(e)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), res, capped


def main(args: argparse.Namespace) -> int:
    sc = _quick_caps()
    max_trends = args.max_trends if args.max_trends is not None else int(sc["max_trends"])
    max_work = args.sharon_max_work if args.sharon_max_work is not None else int(sc["sharon_max_work"])
    options = {"two-step": {"max_trends": max_trends}, "sharon": {"max_work": max_work}}
    stream, line, workloads = _inputs(args, sc)
    if not args.json:
        print(f"{line}; RETURN {args.returns if args.cell is None else 'COUNT(*)'}; repeats {args.repeats} (GRETA {args.greta_repeats}); "
              f"caps: two-step {max_trends:,} trends, SHARON {max_work:,} prefix extensions")
    names = [n.strip() for n in args.engines.split(",") if n.strip()]
    for k, qs in workloads.items():
        _runner(names[0])(qs, stream)  # warm up imports
        results, rows = {}, []
        for name in names:
            repeats = args.greta_repeats if name == "greta" else args.repeats
            sec, res, capped = _time(_runner(name), qs, stream, repeats, **options.get(name, {}))
            if capped is None:
                results[name] = res.as_dict()
            rows.append({"queries": k, "engine": name, "events": len(stream), "throughput_eps": len(stream) / sec,
                         "bound": "upper" if capped else None, "seconds": sec, "snapshots": None if capped else res.snapshots,
                         "capped": capped})
        by = {r["engine"]: r for r in rows}
        same = all(v == next(iter(results.values())) for v in results.values())
        for r in rows:
            greta, hamlet = by.get("greta"), by.get("hamlet")
            r["over_greta"] = r["throughput_eps"] / greta["throughput_eps"] if greta and not greta["bound"] and not r["bound"] else None
            r["hamlet_over"] = hamlet["throughput_eps"] / r["throughput_eps"] if hamlet and not hamlet["bound"] else None
            r["results_identical"] = same
        print_rows(rows, COLUMNS, as_json=args.json)
        if not args.json:
            for r in rows:
                if r["capped"]:
                    print(f"{r['engine']} capped ({r['capped']}): its events/s is an upper bound, HAMLET over it a lower bound")
            print(f"results identical across engines that finished: {same}")
        if not same:
            return 1
    return 0
