"""Conditions of a pattern: comparisons between arithmetic expressions over event attributes.

A pattern's WHERE clause is a conjunction of :class:`Comparison` objects (JQPG Section 2.1: "a Boolean
CNF formula of inter-event constraints").  A comparison whose expressions mention one variable is a
*filter* (``g.close > 10``); one that mentions two is a *binary* condition (``m.diff < a.diff``); more
than two variables are allowed and are checked once all of them are bound.

Comparisons compile once into plain Python callables (``compile``): the hot path of the evaluators
calls ``f(e1, e2)`` on :class:`cep.events.Event` objects with no interpretation overhead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Union

COMPARISON_OPS = ("<", "<=", ">", ">=", "=", "!=")
ARITH_OPS = ("+", "-", "*", "/")

_PY_OP = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "=": "==", "!=": "!="}
_NEGATED_OP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
_MIRRORED_OP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}


@dataclass(frozen=True)
class Attr:
    """``var.name``: attribute ``name`` of the event bound to variable ``var``."""

    var: str
    name: str

    def __str__(self) -> str:
        return f"{self.var}.{self.name}"


@dataclass(frozen=True)
class Const:
    value: float

    def __str__(self) -> str:
        v = self.value
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
        return repr(float(expr.value))
    if isinstance(expr, Neg):
        return f"(-{expression_source(expr.operand, render_attr)})"
    return f"({expression_source(expr.left, render_attr)} {expr.op} {expression_source(expr.right, render_attr)})"


def expression_divides(expr: Expr) -> bool:
    """Whether evaluating ``expr`` may divide (a division by zero makes its comparison false)."""
    if isinstance(expr, BinOp):
        return expr.op == "/" or expression_divides(expr.left) or expression_divides(expr.right)
    if isinstance(expr, Neg):
        return expression_divides(expr.operand)
    return False


def _py_source(expr: Expr, argname: Callable[[str], str]) -> str:
    return expression_source(expr, lambda a: f"{argname(a.var)}.attrs[{a.name!r}]")


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

    def python_source(self, argname: Callable[[str], str] = lambda v: v) -> str:
        """A Python expression for this comparison; variables are named by ``argname``."""
        return f"({_py_source(self.left, argname)} {_PY_OP[self.op]} {_py_source(self.right, argname)})"

    def compile(self, args: tuple[str, ...] | None = None) -> Callable[..., bool]:
        """A callable ``f(*events)`` taking one event per variable in ``args`` (default: sorted variables).

        Division by zero makes the comparison false rather than raising.
        """
        args = tuple(sorted(self.variables)) if args is None else tuple(args)
        missing = self.variables - set(args)
        assert not missing, f"compile args {args} miss variables {sorted(missing)}"
        names = {v: f"_v{i}" for i, v in enumerate(args)}
        body = self.python_source(lambda v: names[v])
        src = f"def _cond({', '.join(names[v] for v in args)}):\n"
        if self._divides():
            src += f"    try:\n        return {body}\n    except ZeroDivisionError:\n        return False\n"
        else:
            src += f"    return {body}\n"
        ns: dict = {}
        exec(compile(src, f"<condition {self}>", "exec"), ns)  # noqa: S102 - generated from our own AST
        fn = ns["_cond"]
        fn.__doc__ = str(self)
        return fn

    def evaluate(self, binding: dict) -> bool:
        """Evaluate on ``binding`` (variable -> Event); for tests and the brute-force matcher."""
        try:
            return _compare(self.op, _eval(self.left, binding), _eval(self.right, binding))
        except ZeroDivisionError:
            return False

    def _divides(self) -> bool:
        return expression_divides(self.left) or expression_divides(self.right)

    def negated(self) -> "Comparison":
        return Comparison(_NEGATED_OP[self.op], self.left, self.right)

    def mirrored(self) -> "Comparison":
        return Comparison(_MIRRORED_OP[self.op], self.right, self.left)

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


def _eval(e: Expr, binding: dict) -> float:
    if isinstance(e, Attr):
        return binding[e.var].attrs[e.name]
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Neg):
        return -_eval(e.operand, binding)
    a, b = _eval(e.left, binding), _eval(e.right, binding)
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return a * b
    return a / b


def _compare(op: str, a: float, b: float) -> bool:
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "=":
        return a == b
    return a != b


def selectivity_key(variables) -> str:
    """Canonical statistics key of a set of variable names: sorted and comma-joined (``"a,g"``)."""
    return ",".join(sorted(variables))


def is_finite_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
