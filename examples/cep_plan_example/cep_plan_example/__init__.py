"""An example plan-generation package for the harness (README, "Benchmark your own planner").

* ``RARE-SEL`` (:class:`cep_plan_example.planners.RarestSelectivePlanner`): a single-pattern order
  planner, rarest event first, each next event chosen by its expected count discounted by the
  selectivity of its conditions with the events already placed;
* ``RANK-SHARE`` (:class:`cep_plan_example.multi.RankSharingOptimizer`): a multi-pattern optimizer
  that orders every pattern by one global ranking of the event types, so that patterns over the same
  rare types start with the same prefix, and shares those prefixes in a multi-pattern tree.

Both are registered through entry points in ``pyproject.toml``.
"""
