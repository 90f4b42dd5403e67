"""Compose a run's config from ``configs/`` (Hydra's compose API), as ``python -m experiments run`` does: the
overrides' mistakes become one-line errors before Hydra sees them.  Kept apart from the command so that the
report (:mod:`experiments.reporting.regime`) composes configs exactly as a run does without importing the
command that draws the report."""

from __future__ import annotations

from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from cep.errors import ConfigError
from experiments.data.datasets import CONFIG_DIR

GROUPS = ("exp", "map", "dataset", "runner", "scale")
#: the group that chooses what runs: an experiment (``run +exp=<name>``) or a regime map (``map +map=<name>``)
SELECTORS = ("exp", "map")


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def check_job(overrides: list[str], select: str = "exp") -> None:
    """Turn the mistakes of a run's overrides into one line naming the override and what was expected;
    ``select``: the group that chooses what runs (``exp``, or ``map`` for a regime map), required and alone."""
    keys = {o.split("=", 1)[0]: o.split("=", 1)[1] for o in overrides}
    what = "an experiment" if select == "exp" else "a map"
    for key, value in keys.items():
        bare = key.lstrip("+~")
        if bare in SELECTORS and bare != select:
            raise ConfigError(f"{key}={value}: choose {what} with +{select}=<name> (+{bare}=... belongs to "
                              f"python -m experiments {'run' if bare == 'exp' else 'map'})")
        if bare == select and not key.startswith("+"):
            raise ConfigError(f"choose {what} with a plus sign: +{select}={value}; known: {', '.join(_options(select))}")
        if bare in GROUPS and value not in _options(bare):
            raise ConfigError(f"unknown {bare} {value!r}; known: {', '.join(_options(bare))}")
    if f"+{select}" not in keys:
        raise ConfigError(f"choose {what} with +{select}=<name>; known: {', '.join(_options(select))}")
    dotted = [k for k in keys if k.startswith("dataset.")]
    if dotted and "dataset" not in keys:
        path = f"{dotted[0]}={keys[dotted[0]]}"
        raise ConfigError(f"{path} needs the dataset whose settings apply: dataset=<name> {path} "
                          f"(datasets: {', '.join(_options('dataset'))})")


def compose_config(overrides: list[str], select: str = "exp"):
    """The composed config of one run (Hydra's compose API) of an experiment, or of a map with ``select="map"``;
    a composition error is one line."""
    # Hydra when a config is composed: the command line imports this module to build run's parser
    from hydra import compose, initialize_config_dir

    check_job(overrides, select)
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(CONFIG_DIR), job_name="run"):
            cfg = compose(config_name="config", overrides=overrides)
    except Exception as e:  # noqa: BLE001 - every composition error becomes one line
        cause = e.__cause__
        if isinstance(cause, (ConfigAttributeError, ConfigKeyError)) and cause.full_key:
            raise ConfigError(f"unknown config key {cause.full_key!r}; add a new key with +{cause.full_key}=..., or check "
                              "the spelling (python -m experiments run --help)") from None
        text = str(e).strip()
        raise ConfigError(f"invalid overrides: {text.splitlines()[0] if text else type(e).__name__}") from None
    seed = cfg.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed={seed!r}: a seed is a whole number at least 0")
    for key in ("progress", "report", "model_paper"):
        if key in cfg and not isinstance(cfg.get(key), bool):
            raise ConfigError(f"{key}={cfg.get(key)!r}: true or false")
    return cfg
