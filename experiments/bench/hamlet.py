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
stream at EPM events per minute (``scale.hamlet``'s minutes and drivers, seed ``--seed``) and its
workload of ``--queries`` queries per driver.  SHARON and two-step stop at ``scale.hamlet``'s caps of
``configs/scale/quick.yaml`` (``--sharon-max-work``, ``--max-trends``); a capped engine's row is a
bound, as in the report (:mod:`experiments.reporting.bounds`): all events over its median time to the
cap is an upper bound on its throughput, HAMLET's ratio over it a lower bound.

Targets (issue 34): HAMLET at least 5x the public Java HAMLET, which does 21,340 events/s on 5 queries
on this machine (its GRETA about 520 events/s), and at least 10x our GRETA with 10 or more queries.
Each engine runs once to warm up, then ``--repeats`` times (GRETA once; ``--greta-repeats``), median
shown; every finished engine's results are checked equal.  The same engines of commit ``--against`` (default f697127, the engine
before the compiled kernels) run beside them in a subprocess on the same events (the stream written as
columns and rebuilt as events on both sides, :mod:`experiments.bench.baseline`), timed the same way
and their results compared: ``vs baseline`` is that commit's median seconds over ours (for an engine
both stop at the same cap, its time to the cap), measured in one run so that the machine's load cancels.  Wall-clock on a shared machine: noisier, never faster.
"""

from __future__ import annotations

import argparse
import statistics
import time

from experiments.tools.tables import fmt, print_rows

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
    p.add_argument("--max-trends", type=int, default=None, help="two-step's cap (default: scale quick's)")
    p.add_argument("--sharon-max-work", type=int, default=None, help="SHARON's cap (default: scale quick's)")
    p.add_argument("--benefit-model", default=None, help="the dynamic optimizer's benefit model: equation7 (default) or tuple-width")
    p.add_argument("--against", default=None, metavar="REV",
                   help="the earlier commit whose engines run beside these (default f697127); 'none' to skip")
    p.add_argument("--json", action="store_true", help="print one JSON object per engine and workload")


COLUMNS = {
    "queries": ("queries", fmt("d")), "engine": ("engine", str), "throughput_eps": ("events/s", fmt(",.0f")),
    "bound": ("", lambda b: "<=" if b else ""), "seconds": ("seconds", fmt(".3f")), "snapshots": ("snapshots", fmt("d")),
    "over_greta": ("vs greta", fmt(".1f")), "hamlet_over": ("hamlet over it", fmt(".1f")),
    "over_baseline": ("vs baseline", fmt(".2f")), "over_java": ("vs Java HAMLET", fmt(".1f")),
}

#: the public Java HAMLET's throughput on the issue's workload (3,000 ridesharing events, 5 queries sharing
#: Travel+), measured on this machine (issue 34)
JAVA_HAMLET_EPS = 21_340

#: the baseline side: rebuild the events from the columns, time each engine with that commit's :func:`_time`
#: (this module's there), and digest its result rows (``repr`` of the rows, the same on both sides when the
#: results are)
BASELINE_SCRIPT = '''
import hashlib
sys.set_int_max_str_digits(0)
from cep.parser import parse_patterns
from evaluators.trends import NoSharing, run_hamlet
from experiments.bench.hamlet import _time
try:
    from experiments.exps.hamlet_engines import engine
except ImportError:  # before the experiment side was named by paper
    from experiments.running.trend_engines import engine

pl = json.load(sys.stdin)
stream = load_columns(pl["stream"]).to_stream()
qs = parse_patterns(pl["queries"])
out = {}
for name in pl["engines"]:
    run = (lambda q, s, **kw: run_hamlet(q, s, policy=NoSharing(), **kw)) if name == "hamlet-nonshared" else engine(name)
    _time(run, qs, stream, 1, **pl["options"].get(name, {}))  # warm up
    sec, res, capped = _time(run, qs, stream, pl["repeats"].get(name, 1), **pl["options"].get(name, {}))
    out[name] = {"seconds": sec, "capped": capped, "digest": None if capped else hashlib.sha1(repr(res.rows()).encode()).hexdigest()}
print(json.dumps(out))
'''


def _quick_caps() -> dict:
    """``hamlet_fig8``'s settings at scale=quick (the caps, minutes and drivers of a quick cell), resolved as
    the experiment resolves them."""
    from experiments.exps.hamlet import SETTINGS
    from experiments.running.compose import compose_config
    from experiments.running.settings import resolve

    return resolve(compose_config(["+exp=hamlet_fig8", "scale=quick"]), SETTINGS)


def _runner(name: str, benefit_model: str | None = None):
    from evaluators.trends import NoSharing, run_hamlet
    from experiments.exps.hamlet_engines import engine

    if name == "hamlet-nonshared":
        return lambda qs, s: run_hamlet(qs, s, policy=NoSharing())
    return engine(name, benefit_model=benefit_model)


def _inputs(args: argparse.Namespace, sc: dict):
    """The stream, a line describing it, and per workload size its queries' text."""
    from experiments.workloads.hamlet import experiment_workload, sharing_workload

    sizes = [int(x) for x in args.queries.split(",")]
    if args.cell is not None:
        from experiments.data.trend_streams import trend_stream

        stream, pool = trend_stream("ridesharing", args.cell, float(sc["minutes"]), args.seed, int(sc["drivers"]))

        def spec(k: int) -> dict:
            return {"dataset": "ridesharing", "figure": "fig8", "params": {"queries": k, "window_s": int(sc["window_s"])}}

        line = (f"hamlet_fig8 quick cell: ridesharing at {args.cell:,} events/min for {sc['minutes']} min, {sc['drivers']} drivers, "
                f"{len(stream)} events, seed {args.seed}; windows of {sc['window_s']} s")
        return stream, line, {k: experiment_workload(spec(k), pool, stream) for k in sizes}
    from experiments.data.ridesharing import generate_ridesharing

    stream = generate_ridesharing(args.events, seed=args.seed, travel_share=args.travel_share, burst_mean=args.burst_mean)
    travel = stream.type_counts().get("Travel", 0)
    window = int(stream.span_seconds) + 1
    line = (f"ridesharing window: {len(stream)} events over {stream.span_seconds:.1f} s, {travel / len(stream):.0%} Travel, "
            f"seed {args.seed}; one window of {window} s")
    return stream, line, {k: sharing_workload(k, window_seconds=window, returns=args.returns) for k in sizes}


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


def _digest(res) -> str:
    import hashlib
    import sys

    sys.set_int_max_str_digits(0)
    return hashlib.sha1(repr(res.rows()).encode()).hexdigest()


def _columns_file(stream, folder) -> str:
    """The stream's columns written to a file (what the baseline reads; :func:`main` rebuilds ours from it too)."""
    from pathlib import Path

    from experiments.bench.baseline import save_columns

    return str(save_columns(stream, Path(folder) / "stream.npz"))


def main(args: argparse.Namespace) -> int:
    import tempfile

    from algorithms.trends import DEFAULT_BENEFIT_MODEL
    from cep.columnar import EventColumns
    from cep.parser import parse_patterns
    from experiments.bench.baseline import BASELINE_REVISION, run_at_revision

    against = None if (args.against or "").lower() == "none" else (args.against or BASELINE_REVISION)
    sc = _quick_caps()
    max_trends = args.max_trends if args.max_trends is not None else int(sc["max_trends"])
    max_work = args.sharon_max_work if args.sharon_max_work is not None else int(sc["sharon_max_work"])
    options = {"two-step": {"max_trends": max_trends}, "sharon": {"max_work": max_work}}
    stream, line, texts = _inputs(args, sc)
    # parsed before anything is printed: a bad --returns is the CLI's one-line error (exit 2)
    workloads = {k: parse_patterns(t) for k, t in texts.items()}
    names = [n.strip() for n in args.engines.split(",") if n.strip()]
    repeats = {n: args.greta_repeats if n == "greta" else args.repeats for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        columns = _columns_file(stream, tmp)
        # the events exactly as the baseline sees them, as objects: the trend engines take event objects
        stream = EventColumns(**_npz_columns(columns)).to_stream()
        if not args.json:
            print(f"{line}; RETURN {args.returns if args.cell is None else 'COUNT(*)'}; repeats {args.repeats} (GRETA {args.greta_repeats}); "
                  f"benefit model {args.benefit_model or DEFAULT_BENEFIT_MODEL}; "
                  f"caps: two-step {max_trends:,} trends, SHARON {max_work:,} prefix extensions"
                  + (f"; baseline: the engines of {against} on the same events" if against else ""))
        status = 0
        for k, qs in workloads.items():
            results, rows = {}, []
            for name in names:
                run = _runner(name, args.benefit_model)
                _time(run, qs, stream, 1, **options.get(name, {}))  # warm up (imports, kernels), as the baseline does
                sec, res, capped = _time(run, qs, stream, repeats[name], **options.get(name, {}))
                if capped is None:
                    results[name] = res.as_dict()
                rows.append({"queries": k, "engine": name, "events": len(stream), "throughput_eps": len(stream) / sec,
                             "bound": "upper" if capped else None, "seconds": sec, "snapshots": None if capped else res.snapshots,
                             "capped": capped, "digest": None if capped else _digest(res)})
            base = {}
            if against is not None:
                base = run_at_revision(BASELINE_SCRIPT, {"stream": columns, "queries": texts[k], "engines": names,
                                                         "repeats": repeats, "options": options}, rev=against)
            by = {r["engine"]: r for r in rows}
            same = all(v == next(iter(results.values())) for v in results.values())
            for r in rows:
                greta, hamlet = by.get("greta"), by.get("hamlet")
                r["over_greta"] = r["throughput_eps"] / greta["throughput_eps"] if greta and not greta["bound"] and not r["bound"] else None
                r["hamlet_over"] = hamlet["throughput_eps"] / r["throughput_eps"] if hamlet and not hamlet["bound"] else None
                r["results_identical"] = same
                b = base.get(r["engine"])
                r["baseline"] = against if b else None
                r["baseline_seconds"] = b["seconds"] if b else None
                # both finished, or both stopped at the same cap (the same work: the ratio of their times to it)
                r["over_baseline"] = b["seconds"] / r["seconds"] if b and b["capped"] == r["capped"] else None
                r["baseline_identical"] = (b["digest"] == r["digest"]) if b and not b["capped"] and not r["bound"] else None
                r["over_java"] = r["throughput_eps"] / JAVA_HAMLET_EPS if r["engine"] == "hamlet" and not r["bound"] else None
            print_rows(rows, COLUMNS, as_json=args.json)
            if not args.json:
                for r in rows:
                    if r["capped"]:
                        print(f"{r['engine']} capped ({r['capped']}): its events/s is an upper bound, HAMLET over it a lower bound")
                print(f"results identical across engines that finished: {same}")
                if against is not None:
                    diff = [r["engine"] for r in rows if r["baseline_identical"] is False]
                    print(f"results identical to {against}'s engines: {not diff}" + (f" (differ: {', '.join(diff)})" if diff else ""))
                h = by.get("hamlet")
                if h and not h["bound"]:
                    print(f"HAMLET: {h['throughput_eps']:,.0f} events/s = {h['over_java']:.1f}x the public Java HAMLET's "
                          f"{JAVA_HAMLET_EPS:,} events/s (its workload: 3,000 events, 5 queries)"
                          + (f"; {h['over_baseline']:.2f}x {against}'s engine ({len(stream) / h['baseline_seconds']:,.0f} events/s)"
                             if h.get("over_baseline") else ""))
            if not same or any(r["baseline_identical"] is False for r in rows):
                status = 1
    return status


def _npz_columns(path: str) -> dict:
    """The keyword arguments of :class:`~cep.columnar.EventColumns` for a file of :func:`save_columns`."""
    import numpy as np

    z = np.load(path, allow_pickle=False)
    return {"type_names": [str(x) for x in z["type_names"]], "codes": z["codes"], "ts": z["ts"],
            "columns": {k[2:]: z[k] for k in z.files if k.startswith("a_")}}
