"""Trend aggregation engines (HAMLET, SIGMOD'21): semantics in :mod:`cep.trends`.

* :mod:`~evaluators.trends.reference` -- enumerate every trend literally (tiny inputs);
* :mod:`~evaluators.trends.greta` -- GRETA, non-shared online aggregation (Equations 1-3, panes);
* :mod:`~evaluators.trends.hamlet` -- the HAMLET executor (Algorithm 1) under a sharing policy:
  static sharing here; the dynamic optimizer's policy comes from :mod:`algorithms.trends`;
* :mod:`~evaluators.trends.two_step` -- construct all trends on the multi-pattern runtime, then aggregate
  (with a cap);
* :mod:`~evaluators.trends.sharon` -- SHARON-style flattening of Kleene into fixed-length sequences.

GRETA and HAMLET run compiled (:mod:`~evaluators.trends.kernels`, exact numbers as rows of limbs) on the
row tables of :mod:`~evaluators.trends.tables`; :mod:`~evaluators.trends.coefficients` lays out a shared
graphlet's coefficients.

Every engine is ``run(queries, stream, **options) -> TrendResult``; :data:`ENGINES` maps the names
the command line uses to the engines that need no optimizer (the dynamic ``hamlet`` is wired in
``experiments``, which may import both layers).
"""

from evaluators.trends.common import TrendResult
from evaluators.trends.greta import run_greta
from evaluators.trends.hamlet import HamletExecutor, NoSharing, StaticSharing, run_hamlet
from evaluators.trends.reference import run_reference
from evaluators.trends.sharon import run_sharon
from evaluators.trends.two_step import run_two_step

ENGINES = {
    "hamlet-static": lambda queries, stream, **kw: run_hamlet(queries, stream, policy=StaticSharing(), **kw),
    "greta": run_greta,
    "two-step": run_two_step,
    "sharon": run_sharon,
    "reference": run_reference,
}

__all__ = ["ENGINES", "HamletExecutor", "NoSharing", "StaticSharing", "TrendResult", "run_greta", "run_hamlet",
           "run_reference", "run_sharon", "run_two_step"]
