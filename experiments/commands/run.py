"""``python -m experiments run +exp=<name> [overrides] [--multirun]``: run an experiment with Hydra.

The working directory does not change; outputs land under ``${results_dir}/<exp name>/``.
Config errors (an unknown experiment, dataset, runner or scale) are one line, not a traceback.
"""

from __future__ import annotations

import argparse
import sys

from cep.errors import CEPError, ConfigError

HELP = "run an experiment: python -m experiments run +exp=<name> [key=value ...] [--multirun]"
DESCRIPTION = (
    "Run an experiment configured by Hydra (configs/). Examples:\n"
    "  python -m experiments run +exp=stats\n"
    "  python -m experiments run +exp=jqpg_fig3 dataset=traffic runner=serial\n"
    "  python -m experiments run +exp=jqpg_fig7 results_dir=/tmp/results --multirun seed=0,1"
)

GROUPS = ("exp", "dataset", "runner", "scale")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("overrides", nargs="*", help="Hydra overrides: +exp=<name> (required), dataset=..., runner=..., scale=..., key=value")
    p.add_argument("--multirun", "-m", action="store_true", help="sweep over comma-separated override values")


def main(args: argparse.Namespace) -> int:  # reached only via --help handling paths
    return run_hydra(list(args.overrides) + (["--multirun"] if args.multirun else []))


def check_overrides(argv: list[str]) -> None:
    """One-line errors for unknown config-group options (Hydra would print a multi-line error)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    from experiments.datasets import CONFIG_DIR

    parser = OverridesParser.create()
    for a in argv:
        if a.startswith("-"):
            continue
        try:
            parser.parse_overrides([a])
        except OverrideParseException as e:
            msg = " ".join(str(e).split("See https://")[0].split())
            raise ConfigError(f"cannot parse override {a!r}: {msg} (quote values with brackets or commas, e.g. runner.master=\"'local[2]'\")") from None
    has_exp = False
    for a in argv:
        if a.startswith("-") or "=" not in a:
            continue
        key, value = a.split("=", 1)
        key = key.lstrip("+~")
        if key in GROUPS:
            has_exp |= key == "exp"
            options = sorted(p.stem for p in (CONFIG_DIR / key).glob("*.yaml"))
            for v in value.split(","):
                if v.strip() not in options:
                    raise ConfigError(f"unknown {key} {v.strip()!r}; known: {', '.join(options)}")
    if not has_exp:
        options = sorted(p.stem for p in (CONFIG_DIR / "exp").glob("*.yaml"))
        raise ConfigError(f"choose an experiment with +exp=<name>; known: {', '.join(options)}")


def run_hydra(argv: list[str]) -> int:
    import hydra
    from omegaconf import DictConfig

    from experiments.datasets import CONFIG_DIR

    check_overrides(argv)
    outcome = {"code": 0}

    @hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")
    def _app(cfg: DictConfig) -> None:
        from experiments.experiment import run_experiment

        try:
            run_experiment(cfg)
        except CEPError as e:
            print(f"error: {e}", file=sys.stderr)
            outcome["code"] = 2
            if cfg.get("_multirun_abort", True):
                raise SystemExit(2)

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
