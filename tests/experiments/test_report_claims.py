"""The report's claims, values and verdicts on results tables built by hand: each claim is judged by the
rule set (experiments/reporting/rules.py) on paired ratios per pattern; identical plans are one plan; a
tie is never support; capped runs enter the work effect as bounds."""

from __future__ import annotations

import pandas as pd

from experiments.reporting.core import (
    FAILED,
    HOLDS,
    NO_EFFECT,
    NOT_MEASURABLE,
    PARTLY,
    REVERSED,
    SectionInput,
)
from experiments.reporting.jqpg import fig3, fig4, fig6
from experiments.running.store import COLUMNS


def rows(cells: list[dict]) -> pd.DataFrame:
    """Tidy rows from ``{pattern, set, algorithm, kind, metric: value, ...}`` dicts."""
    out = []
    for c in cells:
        base = {k: None for k in COLUMNS}
        base.update(experiment="jqpg_fig3", dataset="nasdaq", workload=c["set"], size=3, pattern_id=c["pattern"], seed=0,
                    algorithm=c["algorithm"], kind=c["kind"], evaluator="nfa", alpha=0.0, strategy="skip-till-any-match",
                    status=c.get("status", "ok"), plan=c.get("plan", c["algorithm"]), params="{}",
                    cell_id=f"{c['pattern']}-{c['algorithm']}")
        for m, v in c["metrics"].items():
            out.append({**base, "metric": m, "value": float(v)})
    return pd.DataFrame(out, columns=list(COLUMNS))


def table(factor: dict[str, float], spread: float = 1.05, patterns: int = 12, metric: str = "throughput_eps") -> pd.DataFrame:
    """Every planner's metric = a per-pattern base times its factor (tiny per-pattern jitter)."""
    cells = []
    for i in range(patterns):
        base = 1000.0 * (1 + i)  # patterns differ by an order of magnitude
        for alg, f in factor.items():
            kind = "tree" if alg in ("ZSTREAM", "ZSTREAM-ORD", "DP-B") else "order"
            jitter = 1.0 + 0.01 * ((i * 7 + len(alg)) % 5 - 2)
            cells.append({"pattern": f"seq-3-{i}", "set": "seq" if i % 2 else "conj", "algorithm": alg, "kind": kind,
                          "metrics": {metric: base * f * jitter, "plan_cost": 100.0 / f, "plan_cost_tree": 100.0 / f, "throughput_spread": spread}})
    return rows(cells)


def claims_of(section) -> dict[str, tuple[str, str]]:
    return {c.claim: (c.ours, c.verdict) for c in section.claims}


FACTORS = {"TRIVIAL": 0.5, "EFREQ": 1.0, "GREEDY": 2.0, "II-RANDOM": 2.0, "II-GREEDY": 2.0, "DP-LD": 2.0,
           "ZSTREAM": 1.0, "ZSTREAM-ORD": 1.0, "DP-B": 1.0}


def test_figure_3_claims_on_a_hand_built_table(tmp_path):
    section = fig3(SectionInput("jqpg_fig3", table(FACTORS), {}, tmp_path))
    c = claims_of(section)
    ours, verdict = c["JQPG over native order-based plans: DP-LD over EFREQ throughput"]
    assert ours.startswith("2.00x [") and "(n=12)" in ours and verdict == HOLDS  # against the paper's 1.7x
    # DP-B and ZSTREAM tie within 2%: the claimed 1.7x is excluded -- a tie is not support
    assert c["JQPG over native tree-based plans: DP-B over ZSTREAM throughput"][1] in FAILED
    assert c["order-based: DP-LD and the JQPG heuristics comparable, no significant advantage of DP-LD"][1] == HOLDS
    # tree (1.0) below order (2.0): DP-B/DP-LD = 0.5 with a CI below 1
    ours, verdict = c["tree-based planners greatly outperform order-based ones (throughput; DP-B over DP-LD)"]
    assert ours.startswith("0.50x") and verdict == REVERSED
    assert (tmp_path / "figures" / "fig3_throughput.png").exists()
    for claim in section.claims:
        assert claim.rule  # every row states its rule


def test_comparable_heuristics_are_judged_one_by_one(tmp_path):
    """GREEDY 1.5x behind DP-LD while the II heuristics tie with it: the claim that DP-LD and the
    heuristics are comparable does not hold (pooling the three ratios would have hidden GREEDY)."""
    c = claims_of(fig3(SectionInput("jqpg_fig3", table(dict(FACTORS, GREEDY=2.0 / 1.5)), {}, tmp_path)))
    ours, verdict = c["order-based: DP-LD and the JQPG heuristics comparable, no significant advantage of DP-LD"]
    assert "DP-LD/GREEDY: 1.50x" in ours and "DP-LD/II-GREEDY: 1.00x" in ours and verdict in FAILED


def test_identical_plans_are_one_plan(tmp_path):
    """DP-LD and GREEDY chose the same plan on every pattern but their timed runs differ by 1.6x (noise):
    the same computation, so their ratio is 1 and they are comparable."""
    t = table(dict(FACTORS, GREEDY=2.0 / 1.6))
    t.loc[t["algorithm"].isin(["DP-LD", "GREEDY"]), "plan"] = "same"
    c = claims_of(fig3(SectionInput("jqpg_fig3", t, {}, tmp_path)))
    ours, verdict = c["order-based: DP-LD and the JQPG heuristics comparable, no significant advantage of DP-LD"]
    assert "DP-LD/GREEDY: 1.00x" in ours and verdict == HOLDS


def test_a_real_effect_smaller_than_claimed_is_partly(tmp_path):
    c = claims_of(fig3(SectionInput("jqpg_fig3", table(dict(FACTORS, **{"DP-LD": 1.2})), {}, tmp_path)))
    ours, verdict = c["JQPG over native order-based plans: DP-LD over EFREQ throughput"]
    assert ours.startswith("1.20x") and verdict == PARTLY


def test_capped_runs_enter_the_work_effect_as_bounds_and_are_counted(tmp_path):
    """EFREQ stopped at the work cap on three patterns: no throughput was stored for them, so those pairs
    are counted, not silently dropped, and EFREQ's work enters as lower bounds (the count its status names)."""
    t = table(FACTORS)
    work = t[t["metric"] == "throughput_eps"].assign(metric="work")
    work["value"] = 1e6 / work["value"]
    t = pd.concat([t, work], ignore_index=True)
    cap = "capped: nfa evaluator: its joins examined 20000123 candidate combinations, past the cap of 20000000"
    hit = (t["algorithm"] == "EFREQ") & t["pattern_id"].isin(["seq-3-0", "seq-3-1", "seq-3-2"])
    evaluation = t["metric"].isin(["throughput_eps", "work", "throughput_spread"])
    t = t[~(hit & evaluation)]  # a capped cell stores no throughput or work ...
    hit = (t["algorithm"] == "EFREQ") & t["pattern_id"].isin(["seq-3-0", "seq-3-1", "seq-3-2"])
    events = t[hit & (t["metric"] == "plan_cost")].assign(metric="events", value=100.0, status=cap)
    t = pd.concat([t, events], ignore_index=True)  # ... only what it could measure, with its status
    c = claims_of(fig3(SectionInput("jqpg_fig3", t, {}, tmp_path)))
    ours, verdict = c["JQPG over native order-based plans: DP-LD over EFREQ throughput"]
    assert "(n=9)" in ours and "3 units with a capped side left out" in ours
    assert verdict == HOLDS
    # the work sibling keeps the capped patterns, as lower bounds of EFREQ's work
    ours, verdict = c["JQPG over native order-based plans: DP-LD over EFREQ throughput (work: join candidates examined)"]
    assert "(n=12, 3 lower bounds" in ours and verdict == HOLDS


def test_a_capped_run_that_stored_its_time_bounds_the_throughput_ratio(tmp_path):
    """EFREQ stopped at the cap on three patterns after ``capped_elapsed_s`` seconds: its throughput over
    the whole stream is at most events / that time, so DP-LD over EFREQ on those patterns is a lower
    bound -- it enters the interval as one, and is not left out; a slope over the sizes leaves it out."""
    t = table(FACTORS)
    hit = (t["algorithm"] == "EFREQ") & t["pattern_id"].isin(["seq-3-0", "seq-3-1", "seq-3-2"])
    cap = "capped: nfa evaluator: its joins examined 20000123 candidate combinations, past the cap of 20000000"
    t = t[~(hit & t["metric"].isin(["throughput_eps", "throughput_spread"]))]
    hit = (t["algorithm"] == "EFREQ") & t["pattern_id"].isin(["seq-3-0", "seq-3-1", "seq-3-2"])
    plan_rows = t[hit & (t["metric"] == "plan_cost")]
    timed = pd.concat([plan_rows.assign(metric="events", value=1000.0, status=cap),
                       plan_rows.assign(metric="capped_elapsed_s", value=2.0, status=cap)], ignore_index=True)
    t = pd.concat([t, timed], ignore_index=True)
    ours, verdict = claims_of(fig3(SectionInput("jqpg_fig3", t, {}, tmp_path)))["JQPG over native order-based plans: DP-LD over EFREQ throughput"]
    # censored: the sign-test interval of the median, decided because every value the bounds allow agrees
    assert ours.startswith("median 2.00x") and "(n=12, 3 lower bounds, sign test" in ours and "left out" not in ours
    assert verdict == HOLDS


def test_figure_4_memory_claims_on_a_hand_built_table(tmp_path):
    mem = {"TRIVIAL": 2.0, "EFREQ": 1.0, "GREEDY": 0.75, "II-RANDOM": 0.75, "II-GREEDY": 0.7, "DP-LD": 0.75,
           "ZSTREAM": 3.0, "ZSTREAM-ORD": 2.0, "DP-B": 1.0}
    section = fig4(SectionInput("jqpg_fig4", table(mem, metric="peak_memory_bytes"), {}, tmp_path))
    c = claims_of(section)
    ours, verdict = c["order-based JQPG plans use less memory than EFREQ's"]
    assert "GREEDY/EFREQ 1.33x" in ours and verdict == HOLDS  # 75% of EFREQ's, inside the paper's 65-85%
    ours, verdict = c["DP-B uses up to ~4x less memory than ZSTREAM"]
    assert ours.startswith("3.0") and verdict == PARTLY  # a real 3x, short of the claimed 4x
    # "slightly" asks for a direction only: a real 1.07x holds
    assert c["II-GREEDY is slightly more memory-efficient than DP-LD"][1] == HOLDS


def test_figure_6_trends_are_slopes_over_distinct_plans(tmp_path):
    """Throughput ~ cost^-2 holds "1/x^c with c >= 1"; throughput flat in the cost does not.  One slope per
    pattern over its distinct plans (GREEDY and II-GREEDY planned alike: one point), the interval over
    patterns."""
    cells = []
    for i in range(12):
        for alg, plan, cost in (("GREEDY", f"p{i}", 10.0 * 2 ** i), ("II-GREEDY", f"p{i}", 10.0 * 2 ** i),
                                ("DP-LD", f"q{i}", 10.0 * 2 ** i * (3 + i % 2))):
            cells.append({"pattern": f"seq-3-{i}", "set": "seq", "algorithm": alg, "kind": "order", "plan": plan,
                          "metrics": {"throughput_eps": 1e9 / cost ** 2 * (1.0 + 0.01 * (i % 3)), "plan_cost": cost,
                                      "peak_memory_bytes": 5.0 * cost, "plan_cost_tree": cost}})
    c = claims_of(fig6(SectionInput("jqpg_fig6", rows(cells), {}, tmp_path)))
    ours, verdict = c["nasdaq/order: throughput falls as the plan cost grows"]
    assert verdict == HOLDS and "24 distinct plans of 12 patterns" in ours and "(n=12)" in ours
    assert c["nasdaq/order: memory grows with the plan cost"][1] == HOLDS
    for cell in cells:
        cell["metrics"]["throughput_eps"] = 1000.0 * (1.0 + 0.01 * (int(cell["pattern"].split("-")[-1]) % 3))
    c = claims_of(fig6(SectionInput("jqpg_fig6", rows(cells), {}, tmp_path)))
    assert c["nasdaq/order: throughput falls as the plan cost grows"][1] == NO_EFFECT


def test_every_throughput_claim_has_a_work_sibling_with_the_same_rule(tmp_path):
    """Figure 3 on four patterns whose timed throughput is noisy (each cell off by up to 2x) while the
    work is exact: every claim on throughput is followed by its sibling on work under the same rule
    (and stated size); the noise leaves DP-LD over EFREQ undecided, the deterministic work decides it."""
    noise = [1.0, 2.0, 0.5, 1.4, 0.7]
    cells = []
    for i in range(4):
        base = 1000.0 * (1 + i)
        for k, (alg, f) in enumerate(FACTORS.items()):
            kind = "tree" if alg in ("ZSTREAM", "ZSTREAM-ORD", "DP-B") else "order"
            cells.append({"pattern": f"seq-3-{i}", "set": "seq", "algorithm": alg, "kind": kind,
                          "metrics": {"throughput_eps": base * f * noise[(i + k) % 5], "work": 1e6 / (base * f),
                                      "plan_cost": 100.0 / f, "plan_cost_tree": 100.0 / f}})
    section = fig3(SectionInput("jqpg_fig3", rows(cells), {}, tmp_path))
    label = " (work: join candidates examined)"
    work_rows = [i for i, c in enumerate(section.claims) if c.claim.endswith(label)]
    assert len(work_rows) == len(section.claims) - len(work_rows) == 8
    for i in work_rows:  # each sibling right after its throughput row, judged by the same rule
        assert not section.claims[i - 1].claim.endswith(label) and section.claims[i].rule == section.claims[i - 1].rule
    c = claims_of(section)
    assert c["JQPG over native order-based plans: DP-LD over EFREQ throughput"][1] == NOT_MEASURABLE
    ours, verdict = c["JQPG over native order-based plans: DP-LD over EFREQ throughput" + label]
    assert ours.startswith("2.00x [2.00, 2.00] (n=4)") and verdict == HOLDS


def test_figure_8_alpha_ratios_pair_only_patterns_measured_at_both_alphas():
    from experiments.reporting.jqpg import _alpha_measured

    c = pd.DataFrame([  # pattern 3 ran at alpha 0 only (capped at alpha 1): it has no ratio
        dict(algorithm="DP-LD", alpha=a, pattern_id=p, capped=(p == 3 and a == 1.0), plan=f"{p}-{a if p == 1 else 0}",
             throughput_eps=t)
        for p, a, t in [(1, 0.0, 100.0), (1, 1.0, 50.0), (2, 0.0, 80.0), (2, 1.0, 80.0), (3, 0.0, 70.0), (3, 1.0, None)]])
    e, capped = _alpha_measured(c, "throughput_eps")(0.0, 1.0)
    assert e.n == 2 and capped == 1  # pattern 1 at 2x (other plans), pattern 2 the same plan: exactly 1
    assert abs(e.estimate - 2 ** 0.5) < 1e-9
