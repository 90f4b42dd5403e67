"""Per-scale settings, resolved in one place, and recorded with the results.

An experiment's values at a scale live in ``exp.scales.<scale>`` of its config
(``configs/exp/<name>.yaml``; what all the figures of a paper share is in ``configs/scales/<paper>.yaml``,
which each figure's config includes), chosen by ``scale=<name>``.  A key set on ``exp`` itself holds at
every scale: that is what a command-line override ``exp.<key>=...`` (``+exp.<key>=...`` where the config
does not name the key) sets.  Every experiment kind declares the keys it reads (:class:`Keys`), and
:func:`resolve` gives it exactly those, or a one-line ConfigError naming the config and the key.

A run writes its :func:`record` into ``metadata.json`` (``settings``): its own resolved settings, and
those of ``configs/`` at every scale when it started, so that the report's regime table reads the results
only.  :func:`recorded` reads that record back; for a ``metadata.json`` written before runs recorded
their settings it rebuilds the record: the run's from the config stored beside it (in the layout of its
day, :func:`upgrade`), the scales' from ``configs/`` as they are now.
"""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import DictConfig, OmegaConf

from cep.errors import ConfigError
from experiments.data.datasets import CONFIG_DIR
from experiments.running.compose import compose_config

#: the scales, as the regime table orders them
SCALES = ("paper", "standard", "quick")

#: experiment kinds by the names stored results were run under before the kinds were named by paper
RENAMED_KINDS = {"grid": "jqpg", "fig12": "mcep"}


@dataclass(frozen=True)
class Keys:
    """The per-scale keys an experiment kind reads: each scale's block must set the ``required`` ones
    and may set the ``optional`` ones (the kind's code says what an unset one means); any other key is
    a mistake."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return self.required + self.optional


def _plain(value):
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def scale_name(cfg: DictConfig) -> str:
    return str(cfg.scale.get("name", "quick"))


def resolve(cfg: DictConfig, keys: Keys | None = None) -> dict:
    """The experiment's settings at the chosen scale: every key of ``keys`` (every key of the scale's
    block without them) from ``exp.scales.<scale>``, or from ``exp.<key>`` where that is set; in the
    block's order."""
    exp, name = cfg.exp, scale_name(cfg)
    where = f"configs/exp/{exp.name}.yaml: exp.scales"
    blocks = exp.get("scales") or {}
    if name not in blocks:
        raise ConfigError(f"{where} has no block for scale {name!r} (has {', '.join(blocks) or 'none'})")
    block = _plain(blocks[name])
    names = keys.names if keys is not None else tuple(block)
    unknown = [k for k in block if k not in names]
    if unknown:
        raise ConfigError(f"{where}.{name}: unknown key {unknown[0]!r}; known: {', '.join(names)}")
    out = dict(block)
    out.update({k: _plain(exp[k]) for k in names if exp.get(k) is not None})
    missing = [k for k in (keys.required if keys is not None else ()) if k not in out]
    if missing:
        raise ConfigError(f"{where}.{name} lacks {', '.join(missing)}")
    for k in COUNTS:
        v = out.get(k)
        if k in out and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            set_by = f"exp.{k}" if exp.get(k) is not None else f"{where}.{name}.{k}"
            raise ConfigError(f"{set_by}={v!r}: {k} is a count, a whole number at least 1")
    return out


#: per-scale keys that count things a run makes (patterns, repetitions): whole numbers at least 1
COUNTS = ("patterns_per_size", "repeats")


def settings(cfg: DictConfig, keys: Keys | None = None) -> dict:
    """What an experiment's cells read: ``experiment``, the keys of ``exp`` but its scales, and ``scale``,
    the resolved per-scale ones (:func:`resolve`)."""
    experiment = {k: _plain(v) for k, v in cfg.exp.items() if k != "scales"}
    return {"experiment": experiment, "scale": resolve(cfg, keys)}


def has_config(experiment: str) -> bool:
    return (CONFIG_DIR / "exp" / f"{experiment}.yaml").is_file()


def configs_at_scales(experiment: str, keys: Keys | None = None) -> dict[str, dict]:
    """``configs/`` resolved as ``run +exp=<experiment> scale=<scale>`` resolves them, at every scale that
    has a block; empty for an experiment with no config."""
    if not has_config(experiment):
        return {}
    out = {}
    for s in SCALES:
        try:
            out[s] = settings(compose_config([f"+exp={experiment}", f"scale={s}", "runner=serial", "progress=false"]), keys)
        except ConfigError:  # configs/ sets nothing at that scale
            continue
    return out


def record(cfg: DictConfig, keys: Keys | None) -> dict | None:
    """What a run writes into ``metadata.json`` as ``settings`` (see the module docstring); None for a kind
    without per-scale settings (``keys`` None)."""
    if keys is None:
        return None
    return {"kind": str(cfg.exp.kind), "scale": scale_name(cfg), "run": settings(cfg, keys),
            "configs": configs_at_scales(str(cfg.exp.name), keys)}


# ---- results stored before runs recorded their settings ---------------------------------------------
#: the per-scale keys of the JQPG figures, which lived at the top of ``configs/scale/<scale>.yaml``
#: (``datasets`` there is ``families`` now)
_SCALE_LEVEL_JQPG = ("sizes", "patterns_per_size", "repeats", "planner_max_size", "max_partial_matches", "max_work",
                     "stats_max_pairs")
#: the keys of ``scale.next`` each NEXT figure read
_NEXT_KEYS = {"fig9": ("seeds", "duration_s", "chunk", "capacity_single", "patience", "pool_fig9", "offers_fig9"),
              "fig10": ("seeds", "duration_s", "throughput_repeats"),
              "fig11": ("seeds", "duration_s", "chunk", "capacity", "patience", "pool_fig11")}


def upgrade(config: dict) -> dict:
    """A config stored in ``metadata.json`` before the per-scale settings moved into ``exp.scales`` (and
    before the kinds were named by paper), in today's layout: ``scale.<key>`` and ``scale.datasets`` of
    the JQPG figures, ``scale.next`` and ``scale.hamlet`` become the scale's block (a value the
    experiment's own block set before wins, as it did)."""
    exp, scale = dict(config.get("exp") or {}), dict(config.get("scale") or {})
    kind = RENAMED_KINDS.get(exp.get("kind"), exp.get("kind"))
    name = scale.get("name", "quick")
    own = dict((exp.get("scales") or {}).get(name) or {})
    if kind == "jqpg" and "datasets" in scale:
        old = {k: scale[k] for k in _SCALE_LEVEL_JQPG if k in scale}
        own = {**old, **own, "families": scale["datasets"]}
    elif kind == "next" and "next" in scale:
        own = {k: v for k, v in scale["next"].items() if k in _NEXT_KEYS.get(exp.get("figure"), ())}
    elif kind == "hamlet" and "hamlet" in scale:
        own = {**scale["hamlet"], **own}
    else:
        return {**config, "exp": {**exp, "kind": kind}}
    return {**config, "exp": {**exp, "kind": kind, "scales": {name: own}}}


def recorded(meta: dict, experiment: str) -> dict | None:
    """The settings record of a results folder (its ``metadata.json``, ``meta``): the one its run wrote, or
    for an older run the one rebuilt from its stored config and ``configs/`` (see the module docstring);
    None when there is no record and neither a stored config nor ``configs/`` has per-scale settings.
    ``run`` is None where the stored config cannot be read in today's layout."""
    meta = meta or {}
    if meta.get("settings"):
        return meta["settings"]
    config = meta.get("config") or {}
    run = kind = None
    if (config.get("exp") or {}).get("kind"):
        stored = upgrade(config)
        kind = stored["exp"]["kind"]
        try:
            run = settings(OmegaConf.create(stored)) if stored["exp"].get("scales") else None
        except Exception:  # noqa: BLE001 - an old or hand-edited metadata.json only loses its run's settings
            run = None
    configs = configs_at_scales(experiment)
    if run is None and not configs:
        return None
    kind = kind or next(iter(configs.values()))["experiment"].get("kind")
    return {"kind": kind, "scale": (config.get("scale") or {}).get("name"), "run": run, "configs": configs}
