"""Multi-pattern optimization (MCEP): the multi-pattern graph (:mod:`~algorithms.multi.mpg`),
global costs (:mod:`~algorithms.multi.costs`), neighbourhoods (:mod:`~algorithms.multi.neighborhoods`),
simulated annealing and Tabu search (:mod:`~algorithms.multi.search`), and the one registry of
multi-pattern optimizers (:mod:`~algorithms.multi.registry`, :func:`plan_workload`)."""

from algorithms.multi.registry import MULTI_PLANNERS, MultiPlanned, multi_planner_names, plan_workload

__all__ = ["MULTI_PLANNERS", "MultiPlanned", "multi_planner_names", "plan_workload"]
