"""Experiment kinds (see :mod:`experiments.running.experiment`)."""
