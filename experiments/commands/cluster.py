"""``python -m experiments cluster start|status|stop|failover``: a real Spark standalone cluster on this machine.

``start`` launches a master and ``--workers`` workers of ``--cores`` cores on 127.0.0.1 from the pip
pyspark (:class:`experiments.tools.cluster.LocalCluster`), waits until every worker has registered, and
prints the master URL to pass as ``runner.master``; the cluster's processes are kept in
``runs/cluster.json`` (``--state``) so that ``status`` and ``stop`` find them.  A run pointed at it sends
its cells there; its results land in ``runs/<exp>/`` as any run's (the driver writes them).

``failover +exp=<name> [overrides] --out DIR`` is the whole demonstration in one command
(:mod:`experiments.tools.failover`): a local run, a cluster of its own (master and ``--workers``
workers), the same run on it with worker 0 killed mid-run, the cluster stopped, then the cells (none lost
or duplicated) and every deterministic metric (identical to the local run's) checked and summarized;
exit status 0 when everything holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from cep.errors import ConfigError
from experiments.data.datasets import resolve_path
from experiments.tools.cluster import LocalCluster
from experiments.tools.failover import format_summary, run_failover

HELP = "start, inspect or stop a Spark standalone cluster on 127.0.0.1 (master + workers)"
DEFAULT_STATE = "runs/cluster.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("start", "status", "stop", "failover"))
    p.add_argument("overrides", nargs="*", help="failover: the run's Hydra overrides (+exp=<name> scale=standard ...)")
    p.add_argument("--workers", type=int, default=2, help="start: number of workers (default 2)")
    p.add_argument("--cores", type=int, default=1, help="start: cores per worker (default 1)")
    p.add_argument("--memory", default="2g", help="start: memory per worker (default 2g)")
    p.add_argument("--state", default=DEFAULT_STATE, help=f"where the cluster's processes are kept (default {DEFAULT_STATE})")
    p.add_argument("--out", default="runs/failover", help="failover: results folder of both runs, local/ and cluster/ "
                   "(default runs/failover; the cluster part must not hold cells yet)")
    p.add_argument("--local", default=None, metavar="DIR", help="failover: a complete local run's results folder "
                   "(DIR/<exp>/, read only) to compare with instead of running one")
    p.add_argument("--kill-at", type=float, default=1 / 3, metavar="F",
                   help="failover: kill worker 0 once this fraction of the cells is stored (default 1/3)")


def main(args: argparse.Namespace) -> int:
    if args.action == "failover":
        return _failover(args)
    if args.overrides:
        raise ConfigError(f"{args.overrides[0]!r}: only failover takes overrides")
    state = resolve_path(args.state)
    if args.action == "start":
        if state.exists() and LocalCluster.load(state).alive():
            raise ConfigError(f"{state}: a cluster is running already (python -m experiments cluster stop)")
        c = LocalCluster.start(cores=args.cores, memory=args.memory, workers=args.workers)
        c.save(state)
        print(f"master {c.master_url}: {args.workers} worker(s) of {args.cores} core(s), logs in {c.work_dir}")
        print(f"run on it: python -m experiments run +exp=<name> runner.master={c.master_url}")
        return 0
    c = LocalCluster.load(state)
    if args.action == "status":
        alive = c.alive()
        try:
            s = c.state()
            info = {"workers_alive": s.get("aliveworkers"), "cores": s.get("cores"), "cores_used": s.get("coresused"),
                    "running_applications": len(s.get("activeapps", []))}
        except OSError:
            info = {"master": "not answering"}
        print(json.dumps({"master_url": c.master_url, "processes_alive": len(alive), **info}))
        return 0
    c.stop()
    state.unlink()
    print(f"stopped the cluster at {c.master_url}")
    return 0


def _failover(args: argparse.Namespace) -> int:
    if not args.overrides:
        raise ConfigError("cluster failover needs the run's overrides: +exp=<name> [scale=standard ...]")
    run = run_failover(list(args.overrides), resolve_path(args.out), local=resolve_path(args.local) if args.local else None,
                       workers=args.workers, cores=args.cores, kill_at=args.kill_at,
                       say=lambda line: print(f"[{_now()}] {line}", flush=True))
    print(format_summary(run), flush=True)
    sys.stdout.flush()
    return 0 if run.ok else 1


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
