"""Benchmarks: every ``python -m experiments bench`` subcommand; each prints figures."""
