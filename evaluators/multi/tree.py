"""The multi-pattern tree evaluator (MCEP Section 5) over a multi-pattern multitree (MPM).

Instance-based evaluation of the MPM: leaves shared per event type (and one-variable filter), every
shared subtree evaluated once for all its patterns, one root per pattern clause.  It runs on the
shared-join runtime (:mod:`evaluators.multi.runtime`).
"""

NAME = "multi-tree"
