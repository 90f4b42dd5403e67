"""Search effort in *evaluated neighbours*: the one budget and the one count of every local search here
(MCEP's simulated annealing and Tabu search, :mod:`algorithms.multi.search`; MOTTO's annealing over
Steiner vertices, :func:`algorithms.motto.steiner.simulated_annealing`).

MCEP Section 4.2: "A step is defined as a single selection of a neighbor and evaluating its cost."
An **evaluated neighbour** is exactly that: a candidate the search drew from the neighbourhood of its
current solution and whose cost it computed.  Counted once each, whatever happens to it next (accepted,
rejected and undone, one of Tabu search's ``L`` candidates of a round, one of annealing's ``I``
neighbours that set its initial threshold).  Not counted: the initial solution, re-costing a state
already evaluated (undoing a rejected move, moving to Tabu search's chosen candidate), and draws
refused before any cost is computed (MCEP's rule against re-sharing what is already shared).

A search given a budget of ``N`` evaluates exactly ``N`` neighbours, unless its neighbourhood runs
out first (no neighbour left to draw), which :class:`Effort` records as ``exhausted``.  Seconds are
a machine's speed, evaluated neighbours are the search's own: with a budget in neighbours a search
takes the same path on every machine, and a Python search is given the effort the papers' Java
searches had (docs/mcep.md, "Search effort").
"""

from __future__ import annotations

from dataclasses import dataclass

from cep.errors import ConfigError


def check_budget(neighbours, what: str = "the search budget") -> int | None:
    """``neighbours`` as an int >= 0 (None: no budget, the clock decides); anything else is a one-line
    ConfigError naming ``what``."""
    if neighbours is None:
        return None
    try:
        whole = not isinstance(neighbours, bool) and float(neighbours).is_integer() and int(neighbours) >= 0
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise ConfigError(f"{what} must be a whole number of evaluated neighbours >= 0, got {neighbours!r}")
    return int(neighbours)


@dataclass
class Effort:
    """The evaluated neighbours of one search (or one part of it) against its ``budget`` (None: no
    budget in neighbours; a clock or an iteration count stops the search)."""

    budget: int | None = None
    evaluated: int = 0
    exhausted: bool = False  # stopped because the neighbourhood had no neighbour left to draw

    def left(self) -> bool:
        """Whether the budget allows one more evaluated neighbour."""
        return self.budget is None or self.evaluated < self.budget

    def spend(self) -> None:
        """Count one evaluated neighbour: call it exactly where a neighbour's cost is computed."""
        self.evaluated += 1


def shares(budget: int, sizes: list[int], done: list[int]) -> int:
    """The budget of the next part of a search split over parts of ``sizes`` (MCEP's components of the
    multi-pattern graph, searched one after the other), given the neighbours ``done`` by the parts
    before it: what is left, in proportion to the part's size among the parts left (the last part
    takes all that is left), so the parts together spend exactly ``budget`` unless one runs out of
    neighbours, whose unspent share passes on to the parts after it."""
    i = len(done)
    left = budget - sum(done)
    rest = sum(sizes[i:])
    if i == len(sizes) - 1 or rest <= 0:
        return max(left, 0)
    return max(left, 0) * sizes[i] // rest
