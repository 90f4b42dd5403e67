"""The ``stats`` experiment: statistics of the bundled datasets, computed as Spark jobs.

For each dataset of ``exp.datasets`` it computes the arrival rate of every event type and the
selectivity of ``exp.example_pattern``'s condition over the dataset's two most frequent types, prints
a summary, and writes ``<results>/stats/<dataset>.json`` (usable as ``plan --stats``) and
``metadata.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from cep.io_utils import atomic_write_text
from cep.parser import parse_pattern
from cep.pattern import format_type
from experiments.data.datasets import experiment_datasets, load_dataset
from experiments.data.spark import get_spark, spark_version
from experiments.data.spark_statistics import compute_statistics_spark
from experiments.data.statistics import estimate_statistics, format_statistics
from experiments.running.metadata import RunMetadata, file_facts


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """The stats experiment has no cells (it is one Spark job per dataset)."""
    return []


def run(cfg: DictConfig, out_dir: Path) -> int:
    datasets = experiment_datasets(cfg)
    meta = RunMetadata(out_dir / "metadata.json", OmegaConf.to_container(cfg, resolve=True))
    spark = None
    use_spark = cfg.runner.name == "spark"
    if use_spark:
        spark = get_spark(cfg.runner.master, conf=OmegaConf.to_container(cfg.runner.conf))
        meta.update(spark_master=cfg.runner.master, spark_version=spark_version())
    meta.write()
    outputs = {}
    for dcfg in datasets:
        name = dcfg["name"]
        stream = load_dataset(dcfg)
        counts = stream.type_counts().most_common(2)
        if len(counts) < 2:
            a = b = counts[0][0]
        else:
            (a, _), (b, _) = counts
        pattern = parse_pattern(cfg.exp.example_pattern.replace("{A}", _quote(a)).replace("{B}", _quote(b)))
        if use_spark:
            stats = compute_statistics_spark(stream, [pattern], spark=spark, max_pairs=cfg.exp.max_pairs, seed=cfg.seed, progress=cfg.progress)
        else:
            stats = estimate_statistics(stream, [pattern], max_pairs=cfg.exp.max_pairs, seed=cfg.seed)
        info = {
            "dataset": name,
            "source": stream.source,
            "events": len(stream),
            "event_types": len(stream.types),
            "span_seconds": stream.span_seconds,
            "engine": "spark" if use_spark else "pandas",
            "example_pattern": str(pattern),
            "max_pairs": cfg.exp.max_pairs,
            "seed": cfg.seed,
        }
        path = out_dir / f"{name}.json"
        atomic_write_text(path, json.dumps({**stats.to_dict(), "meta": info}, indent=2, sort_keys=True) + "\n")
        outputs[name] = str(path)
        print(format_statistics(stats, info, top=10))
        print(f"example pattern: {pattern}")
        print(f"written: {path}\n")
    meta.update(datasets={d["name"]: file_facts(d) for d in datasets})
    meta.finish(outputs=outputs)
    return 0


def _quote(t: str) -> str:
    return format_type(t)
