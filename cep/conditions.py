"""Conditions of a pattern: comparisons between arithmetic expressions over event attributes.

A pattern's WHERE clause is a conjunction of :class:`Comparison` objects (JQPG Section 2.1: "a Boolean
CNF formula of inter-event constraints").  A comparison whose expressions mention one variable is a
*filter* (``g.close > 10``); one that mentions two is a *binary* condition (``m.diff < a.diff``); more
than two variables are allowed and are checked once all of them are bound.

Comparisons compile once into plain Python callables (``compile``): the hot path of the evaluators
calls ``f(e1, e2)`` on :class:`cep.events.Event` objects with no interpretation overhead.

Elsewhere one walker evaluates a condition (``evaluate_comparison``) with a :class:`Backend` per kind
of value: Python values here (``Comparison.evaluate``), NumPy arrays in
:mod:`experiments.data.statistics`, Spark columns in :mod:`experiments.data.spark_statistics`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Union

COMPARISON_OPS = ("<", "<=", ">", ">=", "=", "!=")
ARITH_OPS = ("+", "-", "*", "/")



@dataclass(frozen=True)
class Attr:
    """``var.name``: attribute ``name`` of the event bound to variable ``var``."""

    var: str
    name: str

    def __str__(self) -> str:
        return f"{self.var}.{self.name}"


@dataclass(frozen=True)
class Const:
    """A number, or a string (``r.type = 'Pool'`` in trend aggregation queries, cep/trends.py)."""

    value: float | str

    def __str__(self) -> str:
        v = self.value
        if isinstance(v, str):
            return "'" + v + "'"
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
            return str(int(v)) if v >= 0 else f"({int(v)})"
        return repr(v) if v >= 0 else f"({v!r})"


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Neg:
    operand: "Expr"

    def __str__(self) -> str:
        return f"(-{self.operand})"


Expr = Union[Attr, Const, BinOp, Neg]


def expr_variables(expr: Expr) -> frozenset[str]:
    if isinstance(expr, Attr):
        return frozenset((expr.var,))
    if isinstance(expr, Const):
        return frozenset()
    if isinstance(expr, Neg):
        return expr_variables(expr.operand)
    return expr_variables(expr.left) | expr_variables(expr.right)


def expr_attributes(expr: Expr) -> frozenset[Attr]:
    if isinstance(expr, Attr):
        return frozenset((expr,))
    if isinstance(expr, Const):
        return frozenset()
    if isinstance(expr, Neg):
        return expr_attributes(expr.operand)
    return expr_attributes(expr.left) | expr_attributes(expr.right)


def expression_source(expr: Expr, render_attr: Callable[[Attr], str]) -> str:
    """Python source of an arithmetic expression; ``render_attr`` writes an attribute access (event
    objects, columnar arrays, ...), everything else is fixed here."""
    if isinstance(expr, Attr):
        return render_attr(expr)
    if isinstance(expr, Const):
        return repr(expr.value) if isinstance(expr.value, str) else repr(float(expr.value))
    if isinstance(expr, Neg):
        return f"(-{expression_source(expr.operand, render_attr)})"
    return f"({expression_source(expr.left, render_attr)} {expr.op} {expression_source(expr.right, render_attr)})"


#: the Python operator of each comparison operator (the pattern language's ``=`` is ``==``)
PYTHON_COMPARISON_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "=": "==", "!=": "!="}


def comparison_source(c: Comparison, render_attr: Callable[[Attr], str]) -> str:
    """Python source of a comparison, ``(left op right)``, its sides written by
    :func:`expression_source` with ``render_attr``."""
    return (f"({expression_source(c.left, render_attr)} {PYTHON_COMPARISON_OPS[c.op]} "
            f"{expression_source(c.right, render_attr)})")


def expression_divides(expr: Expr) -> bool:
    """Whether evaluating ``expr`` may divide (a division by zero makes its comparison false)."""
    if isinstance(expr, BinOp):
        return expr.op == "/" or expression_divides(expr.left) or expression_divides(expr.right)
    if isinstance(expr, Neg):
        return expression_divides(expr.operand)
    return False


def _strip_outer(s: str) -> str:
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(s) - 1:
                return s
        return s[1:-1]
    return s


@dataclass(frozen=True)
class Comparison:
    """``left op right`` with ``op`` in ``< <= > >= = !=``."""

    op: str
    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        if self.op not in COMPARISON_OPS:
            raise ValueError(f"unknown comparison operator {self.op!r}")

    @property
    def variables(self) -> frozenset[str]:
        return expr_variables(self.left) | expr_variables(self.right)

    @property
    def attributes(self) -> frozenset[Attr]:
        return expr_attributes(self.left) | expr_attributes(self.right)

    @property
    def key(self) -> str:
        """The statistics key of this condition: its variables, sorted, joined by commas."""
        return selectivity_key(self.variables)

    def __str__(self) -> str:
        return f"{_strip_outer(str(self.left))} {self.op} {_strip_outer(str(self.right))}"

    def evaluate(self, binding: dict) -> bool:
        """Evaluate on ``binding`` (variable -> Event); for tests and the brute-force matcher."""
        try:
            return evaluate_comparison(self, lambda a: binding[a.var].attrs[a.name], PYTHON_BACKEND)
        except ZeroDivisionError:
            return False

    def rename(self, mapping: dict[str, str]) -> "Comparison":
        return Comparison(self.op, _rename(self.left, mapping), _rename(self.right, mapping))


def _rename(e: Expr, mapping: dict[str, str]) -> Expr:
    if isinstance(e, Attr):
        return Attr(mapping.get(e.var, e.var), e.name)
    if isinstance(e, Const):
        return e
    if isinstance(e, Neg):
        return Neg(_rename(e.operand, mapping))
    return BinOp(e.op, _rename(e.left, mapping), _rename(e.right, mapping))


# ---- evaluating a condition: one walker, a back end per kind of value ------------------------------
@dataclass(frozen=True)
class Backend:
    """What the operators of a condition mean for one kind of value (Python numbers, NumPy arrays,
    Spark columns): ``const`` makes a value of a constant, ``neg`` negates, ``arithmetic[op]``
    (``+ - * /``) and ``comparison[op]`` (``< <= > >= = !=``) combine two values.  How a division by
    zero makes the comparison false is the back end's affair."""

    const: Callable[[Const], Any]
    neg: Callable[[Any], Any]
    arithmetic: Mapping[str, Callable[[Any, Any], Any]]
    comparison: Mapping[str, Callable[[Any, Any], Any]]


def evaluate_expression(expr: Expr, attr: Callable[[Attr], Any], backend: Backend) -> Any:
    """The value of ``expr`` in ``backend``, reading each attribute with ``attr``; operands are
    evaluated left to right."""
    if isinstance(expr, Attr):
        return attr(expr)
    if isinstance(expr, Const):
        return backend.const(expr)
    if isinstance(expr, Neg):
        return backend.neg(evaluate_expression(expr.operand, attr, backend))
    left = evaluate_expression(expr.left, attr, backend)
    return backend.arithmetic[expr.op](left, evaluate_expression(expr.right, attr, backend))


def evaluate_comparison(c: Comparison, attr: Callable[[Attr], Any], backend: Backend) -> Any:
    """The truth of ``c`` in ``backend`` (left side first), reading each attribute with ``attr``."""
    left = evaluate_expression(c.left, attr, backend)
    return backend.comparison[c.op](left, evaluate_expression(c.right, attr, backend))


# the operators as Python functions; NumPy arrays and Spark columns overload them too
ARITHMETIC_FUNCTIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
COMPARISON_FUNCTIONS = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq, "!=": operator.ne,
}
# Python values: a division by zero raises ZeroDivisionError, which Comparison.evaluate makes false
PYTHON_BACKEND = Backend(const=lambda c: c.value, neg=operator.neg, arithmetic=ARITHMETIC_FUNCTIONS, comparison=COMPARISON_FUNCTIONS)


def selectivity_key(variables) -> str:
    """Canonical statistics key of a set of variable names: sorted and comma-joined (``"a,g"``)."""
    return ",".join(sorted(variables))
