"""The shared CEP vocabulary: events and streams, patterns and their text language, conditions,
windows, selection strategies, match semantics, statistics and plan types.

Imported by every other package; imports nothing of ours.
"""

from cep.conditions import Attr, BinOp, Comparison, Const, Neg, selectivity_key
from cep.dnf import KLEENE, NEGATED, POSITIVE, SimplePattern, Variable, to_dnf
from cep.errors import (
    CEPError,
    ConfigError,
    EvaluationLimitError,
    PartialMatchLimitError,
    WorkLimitError,
    PatternError,
    PatternSyntaxError,
    PlanError,
    StatisticsError,
    StreamError,
)
from cep.events import Event, EventStream
from cep.matches import Match
from cep.parser import parse_pattern, parse_pattern_file, parse_patterns
from cep.pattern import (
    EventRef,
    Kleene,
    Not,
    Op,
    Operator,
    Pattern,
    SeqOrder,
    Strategy,
    Window,
    WindowKind,
    format_pattern,
)
from cep.plans import OrderPlan, PatternPlan, TreePlan, left_deep_tree
from cep.statistics import Statistics

__all__ = [name for name in dir() if not name.startswith("_")]
