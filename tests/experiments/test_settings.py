"""Per-scale settings resolve in one place: ``exp.scales.<scale>`` (with what a paper's figures share in
``configs/scales/<paper>.yaml``), a key set on ``exp`` itself winning at every scale; a kind gets exactly the
keys it declares, and a missing or unknown key is a one-line ConfigError naming the config.  Real configs."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from cep.errors import ConfigError
from experiments.commands.run import compose_config
from experiments.exps import resolved_settings, settings_keys
from experiments.exps.jqpg import SETTINGS as JQPG
from experiments.running.settings import SCALES, Keys, record, resolve


def composed(experiment: str, scale: str = "quick", *overrides: str):
    return compose_config([f"+exp={experiment}", f"scale={scale}", "runner=serial", "progress=false", *overrides])


def test_a_figure_shares_its_papers_settings_and_changes_its_own():
    fig3, fig7 = resolved_settings(composed("jqpg_fig3", "paper")), resolved_settings(composed("jqpg_fig7", "paper"))
    assert fig3["families"] == fig7["families"]  # configs/scales/jqpg.yaml
    assert fig3["sizes"] == [3, 4, 5, 6, 7] and fig7["sizes"] == list(range(3, 23))  # jqpg_fig7's own block
    assert "planner_max_size" not in fig3 and fig7["planner_max_size"] == {"DP-B": 22, "DP-LD": 22}


def test_a_key_set_on_exp_holds_at_every_scale():
    for scale in SCALES:
        assert resolved_settings(composed("jqpg_fig3", scale, "exp.patterns_per_size=1"))["patterns_per_size"] == 1
        assert resolved_settings(composed("hamlet_fig8", scale, "+exp.seeds=[7]"))["seeds"] == [7]
    assert resolved_settings(composed("jqpg_fig4"))["repeats"] == 1  # jqpg_fig4's exp.repeats, at every scale


def test_a_kind_gets_exactly_its_keys():
    assert set(resolved_settings(composed("next_fig10"))) == {"seeds", "duration_s", "throughput_repeats"}
    assert set(resolved_settings(composed("jqpg_fig5"))) == set(JQPG.required)


def test_an_unknown_or_missing_key_is_one_line_naming_the_config():
    with pytest.raises(ConfigError, match=r"configs/exp/jqpg_fig3.yaml: exp.scales.quick: unknown key 'sizez'"):
        resolve(composed("jqpg_fig3", "quick", "+exp.scales.quick.sizez=[3]"), JQPG)
    cfg = composed("jqpg_fig3")
    with pytest.raises(ConfigError, match=r"configs/exp/jqpg_fig3.yaml: exp.scales.quick lacks extra"):
        resolve(cfg, Keys(JQPG.required + ("extra",)))
    with pytest.raises(ConfigError, match=r"has no block for scale 'huge'"):
        resolve(composed("jqpg_fig3", "quick", "scale.name=huge"), JQPG)


def test_the_record_holds_the_run_and_configs_at_every_scale():
    cfg = composed("mcep_fig10", "quick", "exp.scales.quick.seeds=[0]")
    rec = record(cfg, settings_keys(cfg))
    assert (rec["kind"], rec["scale"]) == ("mcep", "quick")
    assert rec["run"]["scale"]["seeds"] == [0] and rec["configs"]["quick"]["scale"]["seeds"] == [0, 1, 2]
    assert sorted(rec["configs"]) == sorted(SCALES)
    assert rec["run"]["experiment"]["datasets"] == ["nasdaq", "traffic"] and "scales" not in rec["run"]["experiment"]
    assert OmegaConf.create(rec)  # JSON-able: it is written into metadata.json
    assert record(composed("stats"), settings_keys(composed("stats"))) is None  # no per-scale settings
