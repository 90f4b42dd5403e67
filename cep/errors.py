"""Errors of the harness: one base class, a few user-facing subclasses.

User and configuration errors (bad pattern text, malformed event files, invalid statistics, unknown
planner names) raise a subclass of :class:`CEPError` whose message is one line naming the component
and the offending value.  Violations of internal invariants are plain ``assert`` statements.
"""

from __future__ import annotations


class CEPError(Exception):
    """Base class of every user-facing error; ``str(err)`` is a single line."""

    def __str__(self) -> str:  # keep messages on one line whatever the caller passed
        return " ".join(super().__str__().split())


class PatternSyntaxError(CEPError):
    """Pattern text that does not parse; names line, column and what was expected."""


class PatternError(CEPError):
    """A pattern that parses but is not valid (undeclared variable, NOT inside OR, ...)."""


class StreamError(CEPError):
    """An events file that cannot be read: names file, row and field."""


class StatisticsError(CEPError):
    """Statistics that are missing a rate, or hold a selectivity outside [0, 1], or NaN."""


class PlanError(CEPError):
    """An unknown planner, or a plan that does not fit its pattern."""


class ConfigError(CEPError):
    """A configuration value that names something that does not exist."""


class EvaluationLimitError(CEPError):
    """An evaluation stopped at one of its configured caps (a result to record, not a crash).

    ``processed``: how many events of the stream the evaluation had fully processed when it stopped,
    where the evaluator knows it (``None`` otherwise); with the time until the cap it makes the run a
    bound (:mod:`experiments.reporting.bounds`)."""

    def __init__(self, *args, processed: int | None = None) -> None:
        super().__init__(*args)
        self.processed = processed


class PartialMatchLimitError(EvaluationLimitError):
    """An evaluation crossed its configured cap on live partial matches."""


class WorkLimitError(EvaluationLimitError):
    """An evaluation crossed its configured cap on candidate combinations examined by its joins."""


class StoreError(CEPError):
    """A file of a results folder (``results.parquet``, ``cells.jsonl.gz``, ``metadata.json``) cannot be read
    as what it is: truncated, empty or edited by hand.  The message names the file."""


class ExitRefused(CEPError):
    """Code the harness runs (a plugin's planner or optimizer) tried to end the process -- ``sys.exit`` or
    ``os._exit`` -- which would have passed for the command's or the run's own exit status."""
