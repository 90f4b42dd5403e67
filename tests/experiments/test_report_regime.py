"""The regime table that opens every report section lists each parameter at scale=paper, standard and quick as
the configs resolve them, and names the scale the stored results ran at; the report works on a results
folder that mixes experiments stored at quick and at standard scale, and ends with the sizing table.

The table reads the settings record a run writes into ``metadata.json`` (the results only); results stored
before runs recorded their settings get the record rebuilt from their stored config and ``configs/``, and
that gives the same table as the record a run writes.  Real configs (configs/, composed as ``run`` composes
them) and real committed results (copied)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from experiments.commands.run import compose_config
from experiments.exps import resolved_settings, settings_keys
from experiments.reporting import SECTIONS, build_report, build_section
from experiments.reporting.regime import regime_table
from experiments.reporting.sizing import per_point_needed, sizing
from experiments.running.metadata import load_meta
from experiments.running.settings import SCALES, record, recorded, settings, upgrade

REPO = Path(__file__).resolve().parents[2]


def table_of(lines: list[str]) -> dict[str, tuple[str, ...]]:
    """The rows of a regime table: parameter -> (paper, standard, quick); the row of parameters equal at every
    scale is split into its parameters."""
    rows = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] in ("parameter", "---"):
            continue
        if cells[0] == "equal at every scale":
            for part in cells[1].split("; "):
                label, _, value = part.rpartition(" ")
                rows[label] = (value,) * 3
        else:
            rows[cells[0]] = tuple(cells[1:4])
    return rows


def composed(experiment: str, scale: str, *overrides: str):
    return compose_config([f"+exp={experiment}", f"scale={scale}", "runner=serial", "progress=false", *overrides])


def meta_at(experiment: str, scale: str, *overrides: str) -> dict:
    """The metadata a run of the experiment at this scale stores: its resolved config and its settings record."""
    cfg = composed(experiment, scale, *overrides)
    return {"config": OmegaConf.to_container(cfg, resolve=True), "settings": record(cfg, settings_keys(cfg))}


def table(experiment: str, meta: dict) -> list[str]:
    return regime_table(experiment, meta, recorded(meta, experiment))


@pytest.mark.parametrize("experiment", sorted(SECTIONS))
def test_every_section_has_a_table_of_the_three_scales(experiment):
    lines = table(experiment, meta_at(experiment, "quick"))
    assert lines[2].split("|")[2:5] == [" paper ", " standard ", " quick (stored) "]
    assert len(table_of(lines)) >= 5


@pytest.mark.parametrize("experiment", ["jqpg_fig3", "jqpg_fig7"])
def test_jqpg_rows_are_the_resolved_settings(experiment):
    rows = table_of(table(experiment, meta_at(experiment, "quick")))
    resolved = [resolved_settings(composed(experiment, s)) for s in SCALES]
    assert rows["patterns per set and size"] == tuple(str(r["patterns_per_size"]) for r in resolved)
    epw = tuple(f"{r['families']['nasdaq']['replay']['events_per_window']:,}" for r in resolved)
    assert rows["events of the median type per window"] == epw


@pytest.mark.parametrize("experiment", ["mcep_fig13", "fig12", "motto_fig14"])
def test_multi_query_rows_are_the_experiments_own_scale_blocks(experiment):
    rows = table_of(table(experiment, meta_at(experiment, "quick")))
    blocks = [resolved_settings(composed(experiment, s)) for s in SCALES]
    assert rows["workloads per point (seeds)"] == tuple(str(len(b["seeds"])) for b in blocks)
    assert rows["evaluation runs per cell"] == tuple(str(b["repeats"]) for b in blocks)
    assert rows["events of the median type per window"] == tuple(f"{b['events_per_window']:,}" for b in blocks)


@pytest.mark.parametrize("experiment", ["jqpg_fig3", "mcep_fig10", "motto_fig13"])
def test_the_ratio_column_is_standard_over_paper(experiment):
    """Issue [6 of 6]: each row shows standard / paper where both are numbers, "-" where they are not."""
    lines = table(experiment, meta_at(experiment, "standard"))
    assert lines[2].split("|")[5] == " standard / paper "
    checked = 0
    for line in lines[4:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] == "equal at every scale":
            continue
        paper, standard, ratio = cells[1], cells[2].removesuffix(" (stored)"), cells[4]
        try:
            p, s = float(paper.replace(",", "")), float(standard.replace(",", ""))
        except ValueError:
            assert ratio == "-", line
            continue
        assert float(ratio) == pytest.approx(s / p, rel=0.05), line
        checked += 1
    assert checked >= 3


def test_hamlet_rows_are_the_resolved_rates_and_queries():
    rows = table_of(table("hamlet_fig11", meta_at("hamlet_fig11", "quick")))
    resolved = [resolved_settings(composed("hamlet_fig11", s)) for s in SCALES]
    assert rows["events per minute"] == tuple(", ".join(f"{x:,}" for x in r["events_per_minute"]) for r in resolved)
    assert rows["runs per point (seeds)"] == tuple(str(len(r["seeds"])) for r in resolved)


def test_the_table_is_the_record_in_metadata_not_the_configs():
    """What the run recorded is what the table shows: a record whose paper block says 7 patterns per size
    shows 7, whatever configs/ says now."""
    meta = meta_at("jqpg_fig3", "quick")
    meta["settings"]["configs"]["paper"]["scale"]["patterns_per_size"] = 7
    assert table_of(table("jqpg_fig3", meta))["patterns per set and size"][0] == "7"


@pytest.mark.parametrize("scale", SCALES)
def test_the_table_names_the_stored_scale(scale):
    lines = table("mcep_fig10", meta_at("mcep_fig10", scale))
    assert f"ran at scale={scale};" in lines[0]
    assert [h.strip() for h in lines[2].split("|")[2:5] if "(stored)" in h] == [f"{scale} (stored)"]
    assert not any("differs from" in line for line in lines)  # the stored config is the configs' own


def test_a_stored_config_that_differs_from_configs_is_named():
    lines = table("mcep_fig10", meta_at("mcep_fig10", "standard", "exp.scales.standard.seeds=[0,1]"))
    note = next(line for line in lines if "differs from" in line)
    assert "workloads per point (seeds) (stored 2, configs " in note


def test_a_folder_without_metadata_says_so():
    assert "ran at scale=unknown" in table("jqpg_fig5", {})[0]


def _committed() -> list[str]:
    return sorted(n for n in SECTIONS if (REPO / "results" / n / "metadata.json").exists())


@pytest.mark.parametrize("experiment", _committed())
def test_a_runs_record_gives_the_table_the_rebuilt_record_gives(experiment):
    """A committed folder's table is the same from the settings record its run wrote and from the record
    rebuilt from its stored config (in today's layout, configs/ now); for a folder stored before runs
    wrote the record, the record such a run writes stands in for it (where the stored run differs from
    configs/ the note may differ, so the rows are compared)."""
    meta = load_meta(REPO / "results" / experiment)
    rebuilt = table(experiment, {k: v for k, v in meta.items() if k != "settings"})
    scale = meta["config"]["scale"]["name"]
    written = table(experiment, meta if "settings" in meta else {**meta, "settings": meta_at(experiment, scale)["settings"]})
    assert rebuilt[:3] == written[:3] and table_of(rebuilt) == table_of(written)


@pytest.mark.parametrize("experiment", ["jqpg_fig7", "jqpg_fig4", "next_fig9", "next_fig11", "hamlet_fig11"])
def test_an_old_layout_config_upgrades_to_the_settings_of_today(experiment):
    """A committed run's config (per-scale values in scale.<key>, scale.datasets, scale.next, scale.hamlet)
    upgraded to today's layout resolves to the settings configs/ resolve to at its scale (the committed
    runs used the configs' values)."""
    config = load_meta(REPO / "results" / experiment)["config"]
    old = upgrade(config)
    assert old["exp"]["kind"] == composed(experiment, "quick").exp.kind
    cfg = composed(experiment, config["scale"]["name"])
    assert settings(OmegaConf.create(old))["scale"] == resolved_settings(cfg)


def test_report_of_a_folder_mixing_quick_and_standard(tmp_path):
    """Two committed experiments copied, one's metadata saying scale=quick and the other's scale=standard
    (whatever the committed ones ran at): every section opens with its regime table naming its own
    scale, and the sizing table has both."""
    stored = {"hamlet_fig8": "quick", "next_fig11": "standard"}
    for name, scale in stored.items():
        shutil.copytree(REPO / "results" / name, tmp_path / name, ignore=shutil.ignore_patterns("figures"))
        meta = json.loads((tmp_path / name / "metadata.json").read_text())
        meta.update(meta_at(name, scale))
        (tmp_path / name / "metadata.json").write_text(json.dumps(meta))
    out, sections = build_report(tmp_path)
    text = out.read_text()
    assert {s.experiment: s.preface[0].split("ran at scale=")[1].split(";")[0] for s in sections} == stored
    sizing_rows = [line.split("|") for line in text.splitlines() if line.startswith("| `")]
    assert {r[1].strip().strip("`"): r[2].strip() for r in sizing_rows} == stored


def test_sizing_scales_a_claims_need_to_one_point():
    assert per_point_needed(3, 30, 60) == 6 and per_point_needed(3, 30, 61) == 7


def test_sizing_row_of_a_committed_section(tmp_path):
    shutil.copytree(REPO / "results" / "hamlet_fig8", tmp_path / "hamlet_fig8", ignore=shutil.ignore_patterns("figures"))
    section = build_section(tmp_path, "hamlet_fig8")
    row = sizing(section)
    assert row.standard == len(resolved_settings(composed("hamlet_fig8", "standard"))["seeds"])
    assert row.per_point == len(json.loads((REPO / "results" / "hamlet_fig8" / "metadata.json").read_text())["config"]["scale"]["hamlet"]["seeds"])
    needs = [per_point_needed(row.per_point, c.n, c.needed) for c in section.claims if c.verdict == "not measurable" and c.needed]
    assert row.needed == (max(needs) if needs else None)


def test_sizing_counts_claims_only_a_higher_cap_would_decide():
    """A claim kept open by bounds on both sides of its ratio gets no workload count; the sizing row
    counts it apart, so an experiment full of such claims does not read as decided."""
    from experiments.reporting.core import Claim, Section
    from experiments.reporting.rules import Interval, at_least, ratio_interval

    # half the units lower bounds below 1.7: their real values may put the median interval anywhere above
    values = [1.2, 1.3, 1.25, 1.35, 1.28, 1.32, 1.22, 1.3, 1.27, 1.31]
    mixed = at_least(ratio_interval(values, lower=[i % 2 == 0 for i in range(10)], upper=[i == 1 for i in range(10)]), 1.7)
    open_ = at_least(Interval(1.3, 0.6, 2.8, 10, "ratio", 0, 0, 1.0), 1.5)
    section = Section("hamlet_fig8", "t", claims=[Claim.judged("a", "p", mixed), Claim.judged("b", "p", open_)])
    row = sizing(section)
    assert (row.not_measurable, row.held_by_bounds) == (1, 1)
    assert section.claims[0].held_by_bounds and not section.claims[1].held_by_bounds
