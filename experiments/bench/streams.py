"""``bench streams``: what building an experiment's stream costs -- its events, the seconds, the bytes
per event its columns hold and the process's peak memory -- each stream built in a fresh process.

For every dataset of a JQPG experiment (``--exp``, the grid kind) at ``--scale``, the dataset is read
(seconds shown apart) and the replayed stream its cells evaluate (:mod:`experiments.data.streams`) is
built as columns, in chunks (:meth:`experiments.data.replay.ReplayPlan.build`), and the attributes its
patterns read (``--attributes``, default the JQPG ``diff``) are gathered.  ``bytes/event`` is numpy's
``nbytes`` of what the stream then holds of its own (type codes, timestamps, the index of its real
events, the gathered columns) over its events; the real columns it gathers from (the dataset's, a
fixed size) are shown apart.  ``peak RSS`` is the building process's maximum resident set while the
replay is built (Linux's VmHWM, reset once the dataset is read), and ``B/event while building`` its
growth over the process with the dataset read, per event; the seconds are wall and CPU time (the CPU time moves less with the machine's load).
``--against REV`` builds the same stream with commit ``REV``'s builder too
(f697127: one event object per event), in its own fresh process, for the ratio.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from cep.errors import ConfigError
from experiments.bench.baseline import REPO, run_at_revision
from experiments.data.datasets import experiment_datasets, resolve_path
from experiments.exps import kind_module
from experiments.running.compose import compose_config

HELP = "build an experiment's streams as columns: seconds, bytes per event, peak memory (and an earlier commit's)"

#: run in a fresh process (this tree's or an earlier commit's): build the stream of ``spec``, report
SNIPPET = r'''
import json, sys, time


def status_bytes(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def rss_bytes():
    return status_bytes("VmRSS")


pl = json.loads(sys.stdin.read())
from experiments.data.streams import experiment_stream, raw_stream

t0 = time.perf_counter()
raw = raw_stream(pl["stream"])
out = {"raw_events": len(raw), "load_s": time.perf_counter() - t0}
before = rss_bytes()
with open("/proc/self/clear_refs", "w") as f:  # the peak (VmHWM) from here: the replay's, not the dataset read's
    f.write("5")
t0, c0 = time.perf_counter(), time.process_time()
stream = experiment_stream(pl["stream"])
out.update(events=len(stream), build_s=time.perf_counter() - t0, build_cpu_s=time.process_time() - c0, rss_before=before)
if hasattr(stream, "materialized"):
    held = stream.materialized(pl["attributes"])
    real = [raw.array(a) for a in raw.attributes]
    out["bytes_per_event"] = held.nbytes_excluding(real) / max(1, len(stream))
    out["real_bytes"] = held.nbytes - held.nbytes_excluding(real)
out["peak_rss"] = status_bytes("VmHWM")
out["rss_growth_per_event"] = (out["peak_rss"] - before) / max(1, len(stream))
print(json.dumps(out))
'''


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", default="jqpg_fig3", help="a JQPG experiment (grid kind; default jqpg_fig3)")
    p.add_argument("--scale", default="standard", help="quick, standard or paper (default standard)")
    p.add_argument("--dataset", default=None, help="one dataset of the experiment (default: each of its datasets)")
    p.add_argument("--attributes", default="diff", help="attributes gathered, comma-separated (default diff, the JQPG patterns')")
    p.add_argument("--against", default=None, metavar="REV", help="also build each stream with commit REV's builder (e.g. f697127)")
    p.add_argument("--json", action="store_true", help="one JSON object per stream")
    p.add_argument("overrides", nargs="*", help="Hydra overrides of the experiment's config "
                   "(e.g. scale.datasets.nasdaq.replay.events_per_window=3000)")


def _fresh(payload: dict, rev: str | None) -> dict:
    """Run :data:`SNIPPET` in a fresh process: this tree's code, or ``rev``'s."""
    if rev is not None:
        return run_at_revision(SNIPPET, payload, rev=rev)
    proc = subprocess.run([sys.executable, "-c", SNIPPET], input=json.dumps(payload), capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise ConfigError(f"building the stream failed: {(proc.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(args: argparse.Namespace) -> int:
    overrides = [f"+exp={args.exp}", f"scale={args.scale}", "runner=serial"] + ([f"dataset={args.dataset}"] if args.dataset else [])
    overrides += list(args.overrides)
    cfg = compose_config(overrides)
    mod = kind_module(cfg.exp.kind)
    if not hasattr(mod, "dataset_stream_spec"):
        raise ConfigError(f"bench streams builds the streams of JQPG experiments (grid kind); {args.exp} is {cfg.exp.kind}")
    attributes = [a.strip() for a in args.attributes.split(",") if a.strip()]
    gib = 2**30
    for dcfg in experiment_datasets(cfg):
        spec = mod.dataset_stream_spec(cfg, dcfg)
        spec["dataset"] = {**spec["dataset"], "path": str(resolve_path(spec["dataset"]["path"]))}  # for any tree
        payload = {"stream": spec, "attributes": attributes}
        row = {"experiment": args.exp, "scale": args.scale, "dataset": dcfg["name"], **_fresh(payload, None)}
        if args.against:
            row["against"] = {"revision": args.against, **_fresh(payload, args.against)}
        if args.json:
            print(json.dumps(row))
            continue
        print(f"{args.exp} {args.scale} {dcfg['name']}: {row['events']:,} events built as columns in {row['build_s']:.1f} s "
              f"({row['build_cpu_s']:.1f} s of CPU) "
              f"(the dataset's {row['raw_events']:,} events read in {row['load_s']:.1f} s before); "
              f"{row['bytes_per_event']:.1f} bytes/event held (codes, timestamps, the real events' index, {', '.join(attributes)}) "
              f"besides the dataset's columns ({row['real_bytes'] / 2**20:.1f} MiB); peak RSS {row['peak_rss'] / gib:.2f} GiB, "
              f"{row['rss_growth_per_event']:.1f} B/event while building")
        if args.against:
            a = row["against"]
            print(f"  {args.against}'s builder: {a['build_s']:.1f} s ({a['build_cpu_s']:.1f} s of CPU; dataset read in {a['load_s']:.1f} s before), "
                  f"peak RSS {a['peak_rss'] / gib:.2f} GiB, {a['rss_growth_per_event']:.1f} B/event while building; columns: "
                  f"{a['rss_growth_per_event'] / max(row['rss_growth_per_event'], 1e-9):.1f}x less memory, "
                  f"{a['build_s'] / max(row['build_s'], 1e-9):.1f}x less time")
    return 0
