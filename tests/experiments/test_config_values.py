"""Values of a run's config that would run nothing or fail deep inside (issue 36, items 6 and 7): a count of
patterns or repeats that is not a whole number at least 1, a seed that is not a whole number, a
configuration that gives no cells -- each one line and exit status 2, with nothing stored."""

from __future__ import annotations

import pytest

from experiments.cli import main as cli_main

SMALL = ["+exp=jqpg_fig3", "runner=serial", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq]", "exp.sizes=[3]",
         "progress=false", "exp.planners=[EFREQ]"]


@pytest.mark.parametrize("override, message", [
    ("exp.patterns_per_size=0", "exp.patterns_per_size=0: patterns_per_size is a count, a whole number at least 1"),
    ("exp.patterns_per_size=-3", "exp.patterns_per_size=-3: patterns_per_size is a count, a whole number at least 1"),
    ("exp.patterns_per_size=abc", "exp.patterns_per_size='abc': patterns_per_size is a count"),
    ("exp.repeats=0", "exp.repeats=0: repeats is a count"),
    ("seed=abc", "seed='abc': a seed is a whole number at least 0"),
    ("exp.sizes=[]", "jqpg_fig3: this configuration gives no cells"),
])
def test_a_run_of_nothing_or_of_a_value_of_the_wrong_kind_is_one_line_and_stores_nothing(tmp_path, capsys, override, message):
    assert cli_main(["run", *SMALL, override, f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not list(tmp_path.rglob("results.parquet")) and not list(tmp_path.rglob("metadata.json"))


@pytest.mark.parametrize("experiment, scale", [("jqpg_fig3", "quick"), ("mcep_fig10", "quick"), ("motto_fig13", "quick"),
                                               ("fig12", "quick")])
def test_a_cap_set_to_null_is_no_cap_not_a_traceback(experiment, scale):
    """scale=paper sets no cap on the join candidates (``max_work: null``); any scale may: the cells then carry
    None (no cap) where a number would be, and every other cap stays as configured."""
    from experiments.commands.run import compose_config
    from experiments.exps import kind_module
    from experiments.exps.kit import evaluation_caps

    cfg = compose_config([f"+exp={experiment}", f"scale={scale}", "runner=serial", "progress=false",
                          f"exp.scales.{scale}.max_work=null"] if experiment != "jqpg_fig3" else
                         [f"+exp={experiment}", f"scale={scale}", "runner=serial", "progress=false", "exp.datasets=[nasdaq]",
                          "exp.pattern_sets=[seq]", "exp.sizes=[3]", f"exp.scales.{scale}.max_work=null"])
    mod = kind_module(cfg.exp.kind)
    _, picked = mod.sample_specs(cfg, 2, 0) if hasattr(mod, "sample_specs") else (None, mod.specs(cfg, None)[:2])
    for spec in picked:
        caps = evaluation_caps(spec.get("params") or spec)
        assert caps["max_work"] is None and isinstance(caps["max_partial_matches"], int)
