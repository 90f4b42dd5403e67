"""Multi-pattern evaluators (MCEP Sections 3.1 and 5): one pass over the stream for a whole workload.

* :func:`evaluate_workload` -- run a global plan (:mod:`cep.global_plans`) over a stream; per
  pattern, exactly the matches the pattern alone has (:mod:`cep.semantics`);
* :func:`evaluate_segments` -- the same over a stream whose plan changes between segments (adaptive
  re-planning), with the same matches;
* ``"multi-nfa"`` (:mod:`evaluators.multi.nfa`): the multi-pattern lazy NFA over an MPT;
* ``"multi-tree"`` (:mod:`evaluators.multi.tree`): the multi-pattern tree evaluator over an MPM.

Both are the shared-join runtime of :mod:`evaluators.multi.runtime`.
"""

from evaluators.multi.engine import (
    MULTI_EVALUATORS,
    compile_workload,
    evaluate_segments,
    evaluate_workload,
)
from evaluators.multi.runtime import MultiResult

__all__ = ["MULTI_EVALUATORS", "MultiResult", "compile_workload", "evaluate_segments", "evaluate_workload"]
