"""``bench length`` and ``bench model-density`` (issue [6 of 6], item 1): each sampled cell runs on its configured stream and on one
twice as long; its verdict says whether work per event and throughput agree within noise, and a capped run
is a bound that is not judged.  The judgement on constructed metrics, then one real cell end to end."""

from __future__ import annotations

from experiments.bench.length import _with_windows, judge
from experiments.cli import main as cli_main


def ok(**m):
    return {"status": "ok", "events": 1000, **m}


def test_equal_work_per_event_and_throughput_within_the_noise_agree():
    assert judge(ok(work=500, throughput_eps=1e6), ok(events=2000, work=1040, throughput_eps=1.1e6), 0.1, 1.15) == "agrees"


def test_work_per_event_beyond_the_tolerance_differs():
    v = judge(ok(work=500), ok(events=2000, work=1400), 0.1, 1.15)
    assert v.startswith("differs") and "work/event x1.40" in v


def test_throughput_beyond_its_own_repeats_noise_differs_within_it_agrees():
    short, long = ok(work=10, throughput_eps=1e6, throughput_spread=1.5), ok(events=2000, work=20, throughput_eps=1.4e6)
    assert judge(short, long, 0.1, 1.15) == "agrees"  # within the 1.5x spread of the cell's own repeats
    v = judge({**short, "throughput_spread": 1.0}, long, 0.1, 1.15)
    assert v.startswith("differs") and "throughput x1.40" in v


def test_a_capped_run_is_not_judged():
    assert judge(ok(work=1), {"status": "capped: partial matches", "events": 2000}, 0.1, 1.15).startswith("capped")


def test_the_long_stream_changes_only_its_windows():
    spec = {"pattern_id": "p", "stream": {"pool": ["A"], "replay": {"windows": 6.0, "events_per_window": 20.0}}}
    longer = _with_windows(spec, 12)
    assert longer["stream"]["replay"] == {"windows": 12.0, "events_per_window": 20.0}
    assert spec["stream"]["replay"]["windows"] == 6.0


def test_a_real_cell_runs_at_both_lengths_and_on_the_long_streams_halves(capsys):
    assert cli_main(["bench", "length", "+exp=jqpg_fig5", "scale=quick", "exp.sizes=[3]", "--sample", "1", "--halves"]) == 0
    out = capsys.readouterr().out
    assert "6 windows against 12" in out
    row, halves = (line for line in out.splitlines() if line.startswith("| seq-3-"))
    events, events_long = (int(c.strip().replace(",", "")) for c in row.split("|")[3:5])
    assert 1.8 < events_long / events < 2.2
    first, second = (int(c.strip().replace(",", "")) for c in halves.split("|")[3:5])
    assert first + second == events_long and 0.4 < first / events_long < 0.6
    sel = next(line for line in out.splitlines() if line.strip().startswith("seq-3-") and "selectivities" in line)
    lo, med, hi = (float(sel.split(w)[1].split(",")[0]) for w in ("min ", "median ", "max "))
    assert 0 <= lo <= med <= hi <= 1


def test_model_density_predicts_more_partial_matches_at_a_higher_density(capsys):
    """``bench model-density`` (docs/dense.md): on the committed jqpg_fig5 cells, the predicted partial matches per
    cell and the share of cells past the cap grow with the density factor, and the stored density is the first row's."""
    assert cli_main(["bench", "model-density", "--exp", "jqpg_fig5", "--factors", "1,3", "--cap", "1e5"]) == 0
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r[1].strip() for r in rows] == ["1", "3"]
    median = [float(r[2]) for r in rows]
    over = [float(r[4].strip().rstrip("%")) for r in rows]
    assert median[1] > median[0] and over[1] >= over[0]
    assert 2.5 < int(rows[1][0].replace(",", "")) / int(rows[0][0].replace(",", "")) < 3.5


def test_model_density_rebuilds_mcep_cells_exactly_and_predicts_more_at_a_higher_density(capsys):
    """The MCEP part rebuilds sampled TRIVIAL cells of the committed mcep_fig10 as the run built them: the trivial
    global plan's Cost^multi at factor 1 is the stored plan cost of every one; with the paper's density added, the
    predicted live partial matches grow with the factor."""
    assert cli_main(["bench", "model-density", "--exp", "mcep_fig10", "--sample", "8", "--factors", "1,2", "--paper"]) == 0
    out = capsys.readouterr().out
    assert "8 sampled cells rebuilt (Cost^multi at factor 1 equal to the stored plan cost in 8)" in out
    rows = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r[1].strip() for r in rows][:2] == ["1", "2"] and float(rows[2][1]) > 100
    median = [float(r[2]) for r in rows]
    assert median[0] < median[1] < median[2]


def test_model_density_rebuilds_motto_cells_from_their_na_plans(capsys):
    assert cli_main(["bench", "model-density", "--exp", "motto_fig13", "--sample", "4", "--factors", "1,5"]) == 0
    out = capsys.readouterr().out
    assert "motto_fig13, NA: 4 sampled cells rebuilt (Cost^multi at factor 1 equal to the stored plan cost in 4)" in out
    rows = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert float(rows[0][2]) < float(rows[1][2])
