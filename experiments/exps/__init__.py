"""Experiment kinds (see :mod:`experiments.experiment`)."""
