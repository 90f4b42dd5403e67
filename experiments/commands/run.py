"""``python -m experiments run +exp=<name> [overrides] [--multirun]``: run an experiment with Hydra.

The working directory does not change; outputs land under ``runs/<exp name>/`` (ignored by git), or
``results/<exp name>/`` -- the committed reference reproduction -- with ``reference=true``.  The
config is composed once before Hydra runs it, so every mistake in an override (an unknown key or
option, ``exp=`` without its ``+``) is one line on stderr with exit status 2, not Hydra's report.
A run whose cells failed ends with their count and exit status 1; the run then draws its report
section and says where its figure is.
"""

from __future__ import annotations

import argparse
import sys

from cep.errors import CEPError, ConfigError

HELP = "run an experiment: python -m experiments run +exp=<name> [key=value ...] [--multirun]"

GROUPS = ("exp", "dataset", "runner", "scale")
EXIT_FAILED_CELLS = 1


def experiments_table() -> str:
    """Every experiment of configs/exp/ with the first line of its description."""
    from experiments.data.datasets import CONFIG_DIR

    rows = []
    for p in sorted((CONFIG_DIR / "exp").glob("*.yaml")):
        desc = ""
        for line in p.read_text().splitlines():
            line = line.strip()
            if line.startswith("#") and "@package" not in line:
                desc = line.lstrip("# ").strip()
                break
        rows.append(f"  {p.stem:<14} {desc}")
    return "\n".join(rows)


def description() -> str:
    return (
        "Run an experiment configured by Hydra (configs/). Results go to runs/<exp>/ (ignored by git);\n"
        "reference=true rewrites the committed reproduction in results/<exp>/ instead.\n\n"
        "Examples:\n"
        "  python -m experiments run +exp=jqpg_fig3\n"
        "  python -m experiments run +exp=jqpg_fig7 dataset=traffic runner=serial\n"
        "  python -m experiments run +exp=jqpg_fig7 dataset=nasdaq dataset.path=/data/events.parquet\n"
        "  python -m experiments run +exp=jqpg_fig7 results_dir=/tmp/results --multirun seed=0,1\n\n"
        "Overrides: dataset=<name> runs on one dataset (configs/dataset/), dataset.path=<file> points it at\n"
        "another file; runner=spark|joblib|serial, runner.master=spark://host:7077; scale=quick|paper;\n"
        "results_dir=<dir>; reference=true; seed=<n>; progress=false; any exp.* or scale.* value.\n\n"
        "Experiments:\n" + experiments_table()
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = description()
    p.add_argument("overrides", nargs="*", help="Hydra overrides: +exp=<name> (required), dataset=..., runner=..., scale=..., key=value")
    p.add_argument("--multirun", "-m", action="store_true", help="sweep over comma-separated override values")


def main(args: argparse.Namespace) -> int:
    return run_hydra(list(args.overrides) + (["--multirun"] if args.multirun else []))


def _options(group: str) -> list[str]:
    from experiments.data.datasets import CONFIG_DIR

    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def check_overrides(argv: list[str]) -> None:
    """Compose the config of ``argv`` (the first value of each sweep) and turn every error into one
    line naming the override and what was expected."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    overrides = [a for a in argv if not a.startswith("-")]
    unknown_flags = [a for a in argv if a.startswith("-") and a not in ("--multirun", "-m")]
    if unknown_flags:
        raise ConfigError(f"unknown option {unknown_flags[0]!r}; run takes Hydra overrides (key=value) and --multirun")
    first: list[str] = []
    for a in overrides:
        try:
            (o,) = parser.parse_overrides([a])
        except OverrideParseException as e:
            msg = " ".join(str(e).split("See https://")[0].split())
            raise ConfigError(f"cannot parse override {a!r}: {msg} (quote values with brackets or commas, e.g. runner.master=\"'local[2]'\")") from None
        key = o.get_key_element()
        bare = key.lstrip("+~")
        values = list(o.sweep_string_iterator()) if o.is_sweep_override() else [o.get_value_element_as_str()]
        if bare == "exp" and not key.startswith("+"):
            raise ConfigError(f"choose the experiment with a plus sign: +exp={values[0]}; known: {', '.join(_options('exp'))}")
        if bare in GROUPS:
            for v in values:
                if v not in _options(bare):
                    raise ConfigError(f"unknown {bare} {v!r}; known: {', '.join(_options(bare))}")
        first.append(f"{key}={values[0]}")
    if not any(o.lstrip("+").startswith("exp=") for o in first):
        raise ConfigError(f"choose an experiment with +exp=<name>; known: {', '.join(_options('exp'))}")
    if any(o.startswith("dataset.") for o in first) and not any(o.startswith("dataset=") for o in first):
        path = next(o for o in first if o.startswith("dataset."))
        raise ConfigError(
            f"{path} needs the dataset whose settings apply: dataset=<name> {path} (datasets: {', '.join(_options('dataset'))})"
        )
    _compose(first)


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from experiments.data.datasets import CONFIG_DIR

    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(CONFIG_DIR), job_name="check"):
            return compose(config_name="config", overrides=overrides)
    except Exception as e:  # noqa: BLE001 - every composition error becomes one line
        text = str(e).strip()
        head = text.splitlines()[0] if text else type(e).__name__
        if "To append to your config use" in text:
            suggestion = text.split("To append to your config use", 1)[1].strip().splitlines()[0]
            key = head.split("'")[1] if "'" in head else head
            raise ConfigError(f"unknown config key {key!r}; add a new key with {suggestion}, or check the spelling (python -m experiments run --help)") from None
        raise ConfigError(f"invalid overrides: {head}") from None


def run_hydra(argv: list[str]) -> int:
    import hydra
    from omegaconf import DictConfig

    from experiments.data.datasets import CONFIG_DIR

    check_overrides(argv)
    outcome = {"code": 0}

    @hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")
    def _app(cfg: DictConfig) -> None:
        from experiments.running.experiment import run_experiment

        try:
            failed = run_experiment(cfg)
        except CEPError as e:
            print(f"error: {e}", file=sys.stderr)
            outcome["code"] = 2
            raise SystemExit(2)
        if failed:
            outcome["code"] = EXIT_FAILED_CELLS

    # Hydra's argparse takes its flags before the overrides (`--multirun seed=0,1` after an override
    # would be rejected), so flags go first
    flags = [a for a in argv if a.startswith("-")]
    overrides = [a for a in argv if not a.startswith("-")]
    saved = sys.argv
    sys.argv = [saved[0], *flags, *overrides]
    try:
        _app()
    finally:
        sys.argv = saved
    return outcome["code"]
