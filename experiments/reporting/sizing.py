"""The sizing table at the end of REPORT.md: per experiment, how many workloads per point its not-measurable
claims would need, beside how many scale=standard runs.

A not-measurable claim carries about how many independent workloads ``needed`` would decide it at the
observed mean and spread (:func:`experiments.reporting.rules._needed`), against the ``n`` it rests on.  A
claim pools the points of its figure, so ``n`` grows in proportion to the workloads per point ``k`` of the
run: ``k x needed / n`` (rounded up) is what one point would need.  The experiment's row is its largest
such need (the claim that sets it is named), set against ``k`` at the stored scale and at scale=standard
(:func:`experiments.reporting.regime.workloads_per_point`, from the settings record of the run's
``metadata.json``: its own, and ``configs/``'s at scale=standard), and how many of its
not-measurable claims standard's ``k`` would decide.  The estimate assumes the spread stays as observed:
another scale changes the streams and workloads too, so it sizes a run, it does not predict a verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from experiments.reporting.core import NOT_MEASURABLE, Section
from experiments.reporting.regime import stored_scale, workloads_per_point


@dataclass(frozen=True)
class Sizing:
    """One experiment's row of the sizing table."""

    experiment: str
    stored_scale: str | None
    per_point: int | None  # workloads per point of the stored run
    standard: int | None  # workloads per point at scale=standard (configs/)
    not_measurable: int  # its not-measurable claims that say how many workloads would decide them
    needed: int | None  # the largest workloads per point they need
    claim: str  # the claim that needs it
    decided_at_standard: int  # of the not-measurable claims, how many standard's workloads per point would decide
    held_by_bounds: int = 0  # not-measurable claims that only a higher cap would decide (Claim.held_by_bounds)


def per_point_needed(per_point: int, n: int, needed: int) -> int:
    """The workloads per point at which a claim resting on ``n`` workloads (``per_point`` per point) reaches
    the ``needed`` that would decide it."""
    return math.ceil(per_point * needed / n)


def _per_point(rec: dict | None, scale: str | None) -> int | None:
    """Workloads per point of the run (its own settings), or of ``configs/`` at ``scale`` where the run's
    settings are not known."""
    if not rec:
        return None
    own = workloads_per_point(rec["kind"], rec.get("run"))
    if own is not None:
        return int(own)
    return _at_scale(rec, scale) if scale else None


def _at_scale(rec: dict | None, scale: str) -> int | None:
    value = workloads_per_point(rec["kind"], (rec.get("configs") or {}).get(scale)) if rec else None
    return int(value) if value is not None else None


def sizing(section: Section) -> Sizing:
    """The sizing row of one report section (its claims and its run's metadata)."""
    per_point = _per_point(section.settings, stored_scale(section.meta))
    standard = _at_scale(section.settings, "standard")
    open_claims = [c for c in section.claims if c.verdict == NOT_MEASURABLE and c.needed and c.n]
    needs = [(per_point_needed(per_point, c.n, c.needed), c.claim) for c in open_claims] if per_point else []
    top = max(needs, default=(None, ""), key=lambda t: t[0] or 0)
    decided = sum(k <= standard for k, _ in needs) if standard else 0
    bounded = sum(c.held_by_bounds for c in section.claims)
    return Sizing(section.experiment, stored_scale(section.meta), per_point, standard, len(open_claims), top[0], top[1], decided, bounded)


def sizing_section(sections: list[Section]) -> list[str]:
    """The markdown of the sizing table (empty without sections)."""
    if not sections:
        return []
    intro = ("Per experiment, its not-measurable claims (each says about how many workloads would decide it at the observed "
             "spread) turned into workloads per point -- the claim's workloads scale with the run's workloads per point "
             "(patterns per set and size in JQPG, seeds elsewhere), so a claim resting on n of them that needs N needs "
             "k x N / n per point -- and the largest of these beside what the stored run had (k) and what scale=standard "
             "runs (`configs/`). It assumes the spread stays as observed; standard's streams and workloads differ from "
             "quick's too (`experiments/reporting/sizing.py`). A claim whose workloads mix capped runs on both sides of "
             "its ratio, or whose bounds withhold the verdict its interval reaches, is not measurable at any number of "
             "workloads: only a higher cap would decide it (the last column).")
    head = ("| experiment | stored at | workloads per point (stored) | not-measurable claims more workloads would decide | largest need per point | "
            "set by | scale=standard runs | standard decides | not measurable by their bounds |")
    lines = ["## Sizing: workloads per point that would decide the not-measurable claims", "", intro, "", head,
             "| --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: |"]
    for s in sections:
        z = sizing(s)
        need = "-" if z.needed is None else f"{z.needed:,}"
        decides = "-" if not z.not_measurable else f"{z.decided_at_standard} of {z.not_measurable}"
        lines.append(f"| `{z.experiment}` | {z.stored_scale or '?'} | {z.per_point if z.per_point is not None else '?'} | "
                     f"{z.not_measurable} | {need} | {z.claim or '-'} | {z.standard if z.standard is not None else '?'} | {decides} | "
                     f"{z.held_by_bounds} |")
    return lines
