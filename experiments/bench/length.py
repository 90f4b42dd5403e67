"""``python -m experiments bench length``: is a stream of k windows long enough?

Issue [6 of 6] runs every figure on short streams at the papers' density and asks to show that the length
suffices: on a sample of an experiment's cells, the throughput and the deterministic work per event over
k measured windows and over ``factor`` x k agree within noise.  This benchmark runs each sampled cell
twice, on its replayed stream as configured (``windows`` = k) and on the same replay ``factor`` times as
long, and prints both beside their ratio.  The cell's workload, statistics and plans are made once, from
the configured stream, as the run makes them (a multi-pattern cell draws its workload and estimates its
statistics on its stream): both evaluations run the same plans, so that only the stream's length differs.

A cell *agrees* when its work per event over the long stream is within ``--work-tolerance`` of the short
stream's and its throughput ratio lies within the noise of its own repeated runs (the larger of the two
runs' ``throughput_spread``, the max/min of a cell's timed repeats, and at least ``--min-noise``).  A
run stopped at a cap is a bound, so a cell capped in either run is reported as capped, not judged.
With ``--halves`` each cell's plans are also evaluated on the first and the second half of the long stream
apart (windows 0 to k and k to 2k of one replay, each half starting empty): where the two lengths disagree,
halves that agree point at the start of the stream, halves that differ at its content (a real series that
drifts, or a heavy-tailed work that k windows do not average).
The cells are those ``run --estimate`` samples (the same seed picks the same cells) among the kinds whose
cells replay a stream of a number of windows (JQPG, MCEP, MOTTO); every cell runs in this process, short
then long, each evaluation with the cell's own repeats.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

HELP = "does a figure's stream length suffice? throughput and work per event over k and 2k windows, per sampled cell"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("overrides", nargs="+", help="Hydra overrides as for run: +exp=<name> (required), scale=..., exp.<key>=...")
    p.add_argument("--sample", type=int, default=6, help="cells sampled (default 6)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--factor", type=float, default=2.0, help="the long stream is this many times the configured windows (default 2)")
    p.add_argument("--work-tolerance", type=float, default=0.1, metavar="T",
                   help="work per event agrees when the ratio is within 1 +- T (default 0.1)")
    p.add_argument("--min-noise", type=float, default=1.15, metavar="R",
                   help="the least throughput noise band, as a max/min ratio (default 1.15)")
    p.add_argument("--halves", action="store_true",
                   help="also evaluate the first and the second half of the long stream apart (work per event of each)")


def _with_windows(spec: dict, windows: float) -> dict:
    out = copy.deepcopy(spec)
    out["stream"]["replay"]["windows"] = float(windows)
    return out


def _selectivities(stats) -> list[float]:
    """Every selectivity of a cell's statistics (one :class:`cep.statistics.Statistics`, or one per pattern)."""
    return [float(v) for st in (stats if isinstance(stats, (list, tuple)) else [stats]) for v in st.selectivities.values()]


def _evaluations(kind, spec: dict, factor: float, halves: bool = False) -> tuple[list[dict[str, dict]], list[float]]:
    """Per algorithm, the metrics and status of the cell's evaluation on its configured stream and on the one
    ``factor`` times as long, both of the plans made from the configured stream
    (:func:`experiments.running.cells.run_cell`'s steps); with ``halves`` also on the long stream's first and
    second half (split at half its duration), each evaluated apart; and the selectivities the plans were made with."""
    k = float(spec["stream"]["replay"]["windows"])
    stream, workload, stats = kind.inputs(spec)
    planned = kind.plan(spec, workload, stats)
    long_spec = _with_windows(spec, k * factor)
    long = kind.stream(long_spec)
    runs = [(spec, stream), (long_spec, long)]
    if halves:
        mid = int(np.searchsorted(long.ts, k * factor * float(spec["stream"]["replay"]["window_seconds"]) / 2))
        runs += [(long_spec, long.slice(0, mid)), (long_spec, long.slice(mid, len(long)))]
    out = []
    for s, st in runs:
        evaluated = kind.evaluate(s, st, workload, planned)
        out.append({alg: {**e.metrics, "status": e.status} for alg, e in evaluated.items()})
    return out, _selectivities(stats)


def _per_event(m: dict, key: str) -> float | None:
    v, n = m.get(key), m.get("events")
    return None if v is None or not n else v / n


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or a == 0 else b / a


def _fmt(v: float | None, spec: str = ",.0f") -> str:
    return "n/a" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)


def judge(short: dict, long: dict, work_tolerance: float, min_noise: float) -> str:
    """``agrees``, ``differs: <what>`` or ``capped`` for one algorithm of one cell (module docstring)."""
    if short["status"] != "ok" or long["status"] != "ok":
        return "capped (a bound, not judged)"
    wr = _ratio(_per_event(short, "work"), _per_event(long, "work"))
    noise = max(min_noise, short.get("throughput_spread") or 1.0, long.get("throughput_spread") or 1.0)
    tr = _ratio(short.get("throughput_eps"), long.get("throughput_eps"))
    bad = []
    if wr is not None and abs(wr - 1) > work_tolerance:
        bad.append(f"work/event x{wr:.2f}")
    if tr is not None and not (1 / noise <= tr <= noise):
        bad.append(f"throughput x{tr:.2f} outside the noise x{noise:.2f}")
    return "differs: " + ", ".join(bad) if bad else "agrees"


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.running.compose import compose_config
    from experiments.exps import kind_module

    if args.sample < 1:
        raise ConfigError(f"--sample {args.sample}: at least one cell")
    if not args.factor > 1:
        raise ConfigError(f"--factor {args.factor}: the long stream is longer than the configured one (factor > 1)")
    cfg = compose_config([*args.overrides, "runner=serial", "progress=false"])
    mod = kind_module(cfg.exp.kind)
    if hasattr(mod, "sample_specs"):
        _, picked = mod.sample_specs(cfg, args.sample, args.seed)
    else:
        with tempfile.TemporaryDirectory(prefix="cep-length-") as tmp:
            specs = mod.specs(cfg, Path(tmp))
        picked = random.Random(args.seed).sample(specs, min(args.sample, len(specs)))
    picked = [s for s in picked if isinstance(s.get("stream"), dict) and (s["stream"].get("replay") or {}).get("windows")]
    if not picked or not hasattr(mod, "cell_kind"):
        raise ConfigError(f"{cfg.exp.name}: its cells do not replay a stream of a number of windows; nothing to lengthen")
    k = float(picked[0]["stream"]["replay"]["windows"])
    print(f"{cfg.exp.name} at scale={cfg.scale.name}: {len(picked)} sampled cells, {k:g} windows against {k * args.factor:g}")
    head = ["cell", "algorithm", "events", "events long", "throughput", "throughput long", "ratio",
            "work/event", "work/event long", "ratio", "verdict"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    verdicts, wratios, tratios, halves, sels = [], [], [], [], []
    for spec in picked:
        (short, long, *parts), cell_sels = _evaluations(mod.cell_kind(spec), spec, args.factor, args.halves)
        sels.append((spec["pattern_id"], cell_sels))
        if parts:
            halves += [(spec["pattern_id"], alg, parts[0][alg], parts[1][alg]) for alg in parts[0] if alg in parts[1]]
        for alg in short:
            if alg not in long:
                continue
            s, lo = short[alg], long[alg]
            v = judge(s, lo, args.work_tolerance, args.min_noise)
            verdicts.append(v)
            wr, tr = _ratio(_per_event(s, "work"), _per_event(lo, "work")), _ratio(s.get("throughput_eps"), lo.get("throughput_eps"))
            if v != "capped (a bound, not judged)":
                wratios += [wr] if wr is not None else []
                tratios += [tr] if tr is not None else []
            print(f"| {spec['pattern_id']} | {alg} | {_fmt(s.get('events'))} | {_fmt(lo.get('events'))} | "
                  f"{_fmt(s.get('throughput_eps'))} | {_fmt(lo.get('throughput_eps'))} | {_fmt(tr, '.2f')} | "
                  f"{_fmt(_per_event(s, 'work'), '.3g')} | {_fmt(_per_event(lo, 'work'), '.3g')} | {_fmt(wr, '.3f')} | {v} |")
            sys.stdout.flush()
    agree = sum(v == "agrees" for v in verdicts)
    capped = sum(v.startswith("capped") for v in verdicts)
    med = (lambda xs: f"{statistics.median(xs):.3f}" if xs else "n/a")
    print(f"\n{agree} of {len(verdicts) - capped} judged evaluations agree ({capped} capped); median ratio long/short: "
          f"throughput {med(tratios)}, work per event {med(wratios)}")
    print("\nthe selectivities each cell's plans were made with (estimated on its stream; the papers': 0.002-0.88):")
    for pid, xs in sels:
        print(f"  {pid}: {len(xs)} selectivities, " + (f"min {min(xs):.3g}, median {statistics.median(xs):.3g}, max {max(xs):.3g}"
                                                         if xs else "none"))
    if halves:
        print("\nthe long stream's halves evaluated apart (each starts empty):")
        head = ["cell", "algorithm", "events, first half", "events, second half", "work/event, first", "work/event, second", "ratio"]
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for pid, alg, a, b in halves:
            wa, wb = _per_event(a, "work"), _per_event(b, "work")
            capped = " (capped: a bound)" if a["status"] != "ok" or b["status"] != "ok" else ""
            print(f"| {pid} | {alg} | {_fmt(a.get('events'))} | {_fmt(b.get('events'))} | {_fmt(wa, '.3g')} | {_fmt(wb, '.3g')} | "
                  f"{_fmt(_ratio(wa, wb), '.2f')}{capped} |")
    return 0
