"""Subcommands of ``python -m experiments`` (see :mod:`experiments.cli`)."""
