"""The regime table that opens every section of REPORT.md: each parameter that defines an experiment's
regime at scale=paper, scale=standard and scale=quick, and the scale its stored results ran at.

The values are not written here, and no config is read: they are the settings record of the results
folder's ``metadata.json`` (:func:`experiments.running.settings.recorded`): the settings ``configs/``
resolved to at every scale when the run started (for results stored before runs recorded them,
``configs/`` as it is now), and the run's own, which the table compares with ``configs/`` at the stored
scale and names where they differ (the run overrode a value, or the configs changed since).  Arrival
rates and stream lengths are derived by the replay the run uses (:class:`experiments.data.replay.ReplaySpec`).

:func:`workloads_per_point` is the number of independent workloads (patterns, seeds) behind one point
of a figure at a scale, which the sizing table of the report (:mod:`experiments.reporting.sizing`)
sets against what the not-measurable claims would need.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from experiments.data.datasets import dataset_config, dataset_family
from experiments.data.replay import ReplaySpec
from experiments.running.settings import SCALES

#: the value shown where a scale does not set a parameter
NOT_SET = "-"

#: readable names of config keys (a key not listed is shown as it is written)
NAMES = {
    "workload_size": "workload size (patterns)", "pattern_size": "pattern size (events)", "window": "time window (s)",
    "count_window": "count window (events)", "search_time": "search time (s)",
    "search_neighbours": "search effort (neighbours evaluated)",
    "density": "MPG density", "rate_diff": "normalized rate difference", "structure": "pattern structure",
    "kleene_max": "largest Kleene set", "selectivity_range": "selectivities", "reshuffle_types": "types reshuffled (y)",
    "reshuffle_every": "reshuffle every x events", "chunk": "events per re-planning segment", "drift": "drift",
    "type_pool": "type pool (types)", "events_per_window": "events of the median type per window",
    "rate_ratio": "fastest / slowest rate", "windows": "stream length (windows)", "repeats": "evaluation runs per cell",
    "max_partial_matches": "cap: live partial matches", "max_work": "cap: join candidates", "queries": "queries",
    "r": "basic-workload ratio r", "length": "query length", "level": "nesting level", "window_ratio": "window ratio",
    "budget_s": "exact Steiner search budget (s)", "sharing_types": "Table V sharing types", "nesting": "nesting level",
    "cores": "cores", "cores_repeats": "timed runs per core count", "cores_windows": "core study stream (windows)",
    "events_per_minute": "events per minute", "default_queries": "queries (events-per-minute sweep)",
    "default_events_per_minute": "events per minute (queries sweep)", "window_s": "window (s)", "minutes": "stream (minutes)",
    "drivers": "drivers", "max_trends": "cap: two-step trends", "sharon_max_work": "cap: SHARON prefix extensions",
    "duration_s": "source seconds per measurement", "capacity": "node capacity (CPU s/s)",
    "capacity_single": "single node capacity (CPU s/s)", "offers_fig9": "queries offered (Fig. 9)",
    "patience": "rejections in a row that fill a node", "chunk_next": "queries measured together",
    "pool_fig9": "query pool (Fig. 9)", "pool_fig11": "query pool (Fig. 11)", "throughput_repeats": "throughput runs",
    "sizes": "sizes", "query_size": "query size (operators)", "nodes": "nodes", "workloads": "workloads",
    "stats_max_pairs": "events (pairs) per selectivity estimate", "min_events": "fewest events of a pool type",
    "window_seconds": "time window (s)", "start": "data from", "end": "data to",
    "value_order": "replayed values (real order, or drawn at random)",
}

#: the label of the row :func:`workloads_per_point` counts, per experiment kind
POINT_LABEL = {
    "jqpg": "patterns per set and size", "mcep": "workloads per point (seeds)", "motto": "workloads per point (seeds)",
    "next": "runs per point (seeds)", "hamlet": "runs per point (seeds)",
}


# ---- the parameters of each experiment kind, from its settings (experiment: exp's keys; scale: the resolved ones) ----
def _rates(window: float, per_window: float, ratio: float, windows: float, pool: int) -> tuple[str, float]:
    """The slowest-fastest replayed rate (events/s) as text, and the expected events of the stream."""
    spec = ReplaySpec(float(window), float(per_window), float(ratio), float(windows))
    r = spec.rates(int(pool))
    return f"{_show(float(r.min()))}-{_show(float(r.max()))}", spec.expected_events(int(pool))


def _families(exp: dict) -> list[str]:
    return list(dict.fromkeys(dataset_family(dataset_config(n)) for n in (exp.get("datasets") or [])))


def _jqpg(exp: dict, sc: dict) -> dict:
    out = {"datasets": list(exp["datasets"]), "pattern sets": list(exp["pattern_sets"]), "sizes": sc["sizes"],
           POINT_LABEL["jqpg"]: sc["patterns_per_size"]}
    if sc.get("planner_max_size") is not None:
        out["largest size planned"] = sc["planner_max_size"]
    for key in ("alphas", "strategies"):
        if exp.get(key) is not None:
            out[key] = list(exp[key])
    out["repeats"] = sc["repeats"]
    for fam in _families(exp):
        d = sc["families"][fam]
        row = {"window_seconds": d["window_seconds"], "type_pool": d["type_pool"], "kleene_max": d.get("kleene_max")}
        if d.get("replay") is not None:
            rp = d["replay"]
            row |= {"events_per_window": rp["events_per_window"], "rate_ratio": rp["rate_ratio"], "windows": rp["windows"],
                    "value_order": rp.get("value_order", ReplaySpec.value_order)}
            row["arrival rates (events/s)"], _ = _rates(d["window_seconds"], rp["events_per_window"], rp["rate_ratio"], rp["windows"],
                                                        d["type_pool"])
        else:
            row["replay"] = "none: the data at its own cadence"
        row |= {k: d[k] for k in ("start", "end") if d.get(k) is not None}  # a time slice of the data, where one is set
        out |= {f"{NAMES.get(k, k)} [{fam}]": v for k, v in row.items()}
    for key in ("max_partial_matches", "max_work", "stats_max_pairs"):
        out[key] = sc.get(key)
    return out


def _multi(exp: dict, sc: dict) -> dict:
    """MCEP (Figure 12 included) and MOTTO: the experiment's block ``exp.scales.<scale>`` and the replay it gives."""
    out = {"datasets": list(exp.get("datasets") or [exp.get("dataset", "nasdaq")]), POINT_LABEL["mcep"]: len(sc["seeds"])}
    for k, v in sc["base"].items():
        out[k] = f"{v[0]:g}-{v[1]:g}" if k == "selectivity_range" else v
        if k in sc.get("values", {}):
            out[f"{NAMES.get(k, k)}, swept"] = sc["values"][k]
    for k, v in sc.get("values", {}).items():
        if k not in sc["base"]:
            out[f"{NAMES.get(k, k)}, swept"] = v
    for sweep, changes in (sc.get("sweep_base") or {}).items():
        for k, v in changes.items():
            out[f"{NAMES.get(k, k)} in the {NAMES.get(sweep, sweep)} sweep"] = v
    for k, v in sc.items():
        if k not in ("seeds", "base", "values", "sweep_base"):
            out[k] = v
    out.setdefault("rate_ratio", ReplaySpec.rate_ratio)  # the replay's defaults (experiments/exps/kit.py:replayed_pool_stream)
    out.setdefault("value_order", ReplaySpec.value_order)
    rates, events = _rates(sc["base"]["window"], sc["events_per_window"], out["rate_ratio"], sc["windows"], sc["type_pool"])
    out["arrival rates (events/s)"] = rates
    out["stream (events, expected)"] = round(events)
    return out


def _next(exp: dict, sc: dict) -> dict:
    sc = dict(sc)
    out = {"workloads": list(exp["workloads"]), POINT_LABEL["next"]: len(sc.pop("seeds"))}
    for key in ("sizes", "queries", "query_size", "nodes"):
        if exp.get(key) is not None:
            out[key] = exp[key]
    if "chunk" in sc:
        sc["chunk_next"] = sc.pop("chunk")
    return out | sc


#: HAMLET's settings shown last: the stream's drivers, the caps and the timed runs
_HAMLET_LAST = ("drivers", "max_trends", "sharon_max_work", "repeats")


def _hamlet(exp: dict, sc: dict) -> dict:
    out = {"datasets": list(exp["datasets"]), POINT_LABEL["hamlet"]: len(sc["seeds"]), "window_s": sc["window_s"], "minutes": sc["minutes"]}
    out |= {k: v for k, v in sc.items() if k not in ("seeds", "window_s", "minutes", *_HAMLET_LAST)}
    return out | {k: sc[k] for k in _HAMLET_LAST}


KINDS: dict[str, Callable[[dict, dict], dict]] = {"jqpg": _jqpg, "mcep": _multi, "motto": _multi, "next": _next, "hamlet": _hamlet}


def parameters(kind: str, settings: dict) -> dict[str, object]:
    """The regime of one experiment's settings (``experiment`` and ``scale``, :mod:`experiments.running.settings`):
    readable parameter name -> value, in the kind's order; empty for a kind without a regime table."""
    if kind not in KINDS:
        return {}
    return {NAMES.get(k, k): v for k, v in KINDS[kind](settings["experiment"], settings["scale"]).items()}


def workloads_per_point(kind: str, settings: dict | None) -> int | None:
    """How many independent workloads (patterns per set and size, seeds) one point of the figure has."""
    if settings is None or kind not in POINT_LABEL:
        return None
    return parameters(kind, settings).get(POINT_LABEL[kind])


def stored_scale(meta: dict) -> str | None:
    """``scale.name`` of the config a results folder was run with (its ``metadata.json``)."""
    return ((meta or {}).get("config") or {}).get("scale", {}).get("name")


# ---- the table -----------------------------------------------------------------------------------------
def _show(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            return "n/a"
        if float(v).is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, dict):  # by key: a run's settings record (JSON, sorted) and its config list them in other orders
        return ", ".join(f"{k} {_show(x)}" for k, x in sorted(v.items()))
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and list(v) == sorted(v):
            return ", ".join(_runs(list(v)))
        return ", ".join(_show(x) for x in v)
    return str(v)


def _runs(xs: list[int]) -> list[str]:
    """Consecutive integers of three or more as ``a-b``."""
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out += [f"{xs[i]}-{xs[j]}"] if j - i >= 2 else [f"{x:,}" for x in xs[i:j + 1]]
        i = j + 1
    return out


def _ratio(standard, paper) -> str:
    """standard / paper for two numbers (a count, a rate, a cap), :data:`NOT_SET` for anything else (a list,
    a text, no cap at one of the scales)."""
    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    if not (number(standard) and number(paper)) or paper == 0:
        return NOT_SET
    r = standard / paper
    return f"{r:.2g}" if r < 0.1 else f"{r:.3g}"


def _rows(by_scale: dict[str, dict]) -> list[tuple[str, tuple[str, ...], str]]:
    """(parameter, its value at each scale, standard / paper; :data:`NOT_SET` where a scale does not set it
    or the ratio is not a number) in the order of the scales' parameters; a parameter given per dataset
    family (``name [family]``) is one row when every family has the same values, else one row per family,
    side by side."""
    labels = list(dict.fromkeys(k for s in SCALES for k in by_scale.get(s, {})))
    rows = {k: (tuple(_show(by_scale[s][k]) if k in by_scale.get(s, {}) else NOT_SET for s in SCALES),
                _ratio(by_scale.get("standard", {}).get(k), by_scale.get("paper", {}).get(k)))
            for k in labels}
    merged: dict[str, list[tuple[str, tuple[str, ...], str]]] = {}
    for k, (vals, ratio) in rows.items():
        merged.setdefault(k.partition(" [")[0], []).append((k, vals, ratio))
    out = []
    for base, variants in merged.items():
        out += [(base, variants[0][1], variants[0][2])] if len({v for _, v, _ in variants}) == 1 else variants
    return out


def regime_table(experiment: str, meta: dict, rec: dict | None) -> list[str]:
    """The markdown lines that open a section: one row per parameter (paper / standard / quick and the
    ratio of standard to paper where both are numbers; those equal at every scale in one row), the scale the stored results ran at, and where the run's settings differ
    from ``configs/`` at that scale.  ``rec``: the settings record of ``meta``
    (:func:`experiments.running.settings.recorded`).  Empty for an experiment with no settings at any scale."""
    if not rec or not rec.get("configs"):
        return []
    kind = rec["kind"]
    by_scale = {s: parameters(kind, rec["configs"][s]) for s in SCALES if s in rec["configs"]}
    stored = stored_scale(meta)
    head = [f"{s} (stored)" if s == stored else s for s in SCALES]
    intro = (f"**Regime** (`configs/`, resolved as `run +exp={experiment} scale=<scale>` resolves them; the results "
             f"below ran at scale={stored or 'unknown: no metadata.json config'}; {NOT_SET}: not set at that scale):")
    lines = [intro, "",
             f"| parameter | {' | '.join(head)} | standard / paper |", "| --- | --- | --- | --- | --- |"]
    same = []
    for label, vals, ratio in _rows(by_scale):
        if len(set(vals)) == 1:
            same.append(f"{label} {vals[0]}")
        else:
            lines.append(f"| {label} | {' | '.join(vals)} | {ratio} |")
    if same:
        lines.append(f"| equal at every scale | {'; '.join(same)} | | | |")
    run = parameters(kind, rec["run"]) if rec.get("run") else None
    differ = _stored_differences(by_scale.get(stored or ""), run)
    if differ:
        lines += ["", f"The stored run's `metadata.json` differs from `configs/` at scale={stored} in: {'; '.join(differ)}."]
    return lines


def _stored_differences(current: dict | None, stored: dict | None) -> list[str]:
    if current is None or stored is None:
        return []
    keys = list(dict.fromkeys([*current, *stored]))
    def show(d: dict, k: str) -> str:
        return _show(d[k]) if k in d else NOT_SET

    return [f"{k} (stored {show(stored, k)}, configs {show(current, k)})" for k in keys if show(stored, k) != show(current, k)]
