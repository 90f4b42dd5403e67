"""Evaluation mechanisms: run a plan over a stream and measure it.

* :func:`evaluate` -- the entry point (see :mod:`evaluators.engine`);
* :data:`EVALUATORS` -- the registry of evaluator names: ``"nfa"`` (the lazy NFA of JQPG Section 2.2,
  :mod:`evaluators.nfa`) and ``"tree"`` (the ZStream-style tree of JQPG Section 2.3,
  :mod:`evaluators.tree`);
* :func:`evaluators.brute_force.brute_force_matches` -- the reference matcher every evaluator must
  agree with.

Evaluators never import algorithms: they take a plan and a stream, whoever made the plan.
"""

from evaluators.engine import (
    DEFAULT_MAX_PARTIAL_MATCHES,
    EVALUATORS,
    METRIC_NAMES,
    EvaluationResult,
    compile_evaluator,
    default_evaluator,
    evaluate,
    evaluator_names,
    run_program,
)

__all__ = [
    "DEFAULT_MAX_PARTIAL_MATCHES",
    "EVALUATORS",
    "METRIC_NAMES",
    "EvaluationResult",
    "compile_evaluator",
    "default_evaluator",
    "evaluate",
    "evaluator_names",
    "run_program",
]
