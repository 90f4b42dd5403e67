"""The single-pattern planners of JQPG Section 6.1, one module each; see :mod:`algorithms.registry`."""
