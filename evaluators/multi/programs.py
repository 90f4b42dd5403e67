"""Conditions as small programs for the compiled multi-pattern kernel (:mod:`evaluators.multi.kernel`).

The kernel is compiled once for every plan (numba, cached on disk), so it cannot run generated
Python: a condition (:class:`cep.conditions.Comparison`) becomes a short program over the *slots* of
the instance it is checked on -- the event positions a node's instance binds, in the node's slot
order -- which the kernel interprets.  An instruction is a row ``(op, a, b, c, d)`` of int64:

* ``ATTR a b``: push attribute column ``b`` of the event in slot ``a``; ``CONST a``: push constant
  ``a``; ``ADD``, ``SUB``, ``MUL``, ``DIV`` (a division by zero makes the whole comparison false, as
  :meth:`cep.conditions.Comparison.evaluate` does), ``NEG``;
* ``CMP+k``: pop two values and compare them with comparison ``k`` (:data:`CMP_CODES`) -- the last
  instruction of a condition;
* fused forms of the two commonest conditions, each a whole program of one instruction:
  ``CMP_AA+k a b c d`` (attribute ``b`` of slot ``a`` against attribute ``d`` of slot ``c``) and
  ``CMP_AC+k a b c`` (attribute against constant ``c``).

A *value* program (no comparison at the end) computes one side of an equality condition: the key
under which a node's instances are put in hash buckets.  A condition that mentions a Kleene slot
holds for every element of its tuple (every combination when it mentions several,
:mod:`cep.semantics`); the program lists those slots and the kernel loops over their elements.

Values are float64.  Text attributes (``r.type = 'Pool'``) are order-preserving codes of every text
value in the stream and every text constant (:class:`ConstTable`), so comparisons between texts keep
their meaning; arithmetic on text, or a comparison of text with a number, is refused with a
:class:`~cep.errors.PatternError` when the stream shows it.
"""

from __future__ import annotations

import numpy as np

from cep.conditions import Attr, BinOp, Comparison, Const, Neg
from cep.errors import PatternError

ATTR, CONST, ADD, SUB, MUL, DIV, NEG = 1, 2, 3, 4, 5, 6, 7
CMP, CMP_AA, CMP_AC = 10, 20, 30
#: comparison operator -> code ``k`` of ``CMP+k``, ``CMP_AA+k``, ``CMP_AC+k``
CMP_CODES = {"<": 0, "<=": 1, ">": 2, ">=": 3, "=": 4, "!=": 5}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_ARITH = {"+": ADD, "-": SUB, "*": MUL, "/": DIV}


class ConstTable:
    """The constants of every program: numbers, and texts whose codes are set per stream."""

    def __init__(self) -> None:
        self.values: list[float | str] = []
        self._index: dict = {}

    def add(self, v: float | str) -> int:
        key = (type(v) is str, v)
        got = self._index.get(key)
        if got is None:
            got = self._index[key] = len(self.values)
            self.values.append(v if isinstance(v, str) else float(v))
        return got

    @property
    def texts(self) -> set[str]:
        return {v for v in self.values if isinstance(v, str)}

    def array(self, text_codes: dict[str, float] | None = None) -> np.ndarray:
        """The constants as float64, texts replaced by their codes in the stream's text order."""
        out = np.zeros(max(1, len(self.values)), np.float64)
        for i, v in enumerate(self.values):
            out[i] = (text_codes or {}).get(v, np.nan) if isinstance(v, str) else v
        return out


class Programs:
    """Every condition and value program of one plan, as the kernel's arrays (:meth:`arrays`).

    ``columns`` numbers the attributes the programs read; ``text`` records, per program, the attribute
    columns and constants it reads as ``(column or const, is_const)`` with the expression kind each is
    used in, so the stream can be checked for text used as a number (:meth:`check_text`)."""

    def __init__(self, columns: dict[str, int] | None = None) -> None:
        self.instructions: list[tuple[int, int, int, int, int]] = []
        self.bounds: list[tuple[int, int]] = []
        self.kleene_slots: list[tuple[int, ...]] = []
        self.columns: dict[str, int] = dict(columns or {})
        self.consts = ConstTable()
        self._cache: dict = {}
        self._uses: list[tuple[str, object, str]] = []  # (context, operand, "number" | "compare")
        self._compared: list[tuple[str, object, object]] = []  # (context, left operand, right operand)

    def column(self, name: str) -> int:
        return self.columns.setdefault(name, len(self.columns))

    # ---- building ----------------------------------------------------------------------------
    def condition(self, c: Comparison, slot_of: dict[str, int], kleene: dict[int, bool]) -> int:
        """The program of ``c`` with each variable ``v`` read from slot ``slot_of[v]``."""
        key = ("c", str(c), tuple(sorted(slot_of.items())), tuple(sorted(kleene.items())))
        got = self._cache.get(key)
        if got is not None:
            return got
        code: list = []
        left, right, op = c.left, c.right, c.op
        if isinstance(left, Const) and isinstance(right, Attr):
            left, right, op = right, left, _FLIP[op]
        k = CMP_CODES[op]
        ctx = str(c)
        if isinstance(left, Attr) and isinstance(right, Attr):
            code.append((CMP_AA + k, slot_of[left.var], self.column(left.name), slot_of[right.var], self.column(right.name)))
            self._compared.append((ctx, ("attr", left.name), ("attr", right.name)))
        elif isinstance(left, Attr) and isinstance(right, Const):
            code.append((CMP_AC + k, slot_of[left.var], self.column(left.name), self.consts.add(right.value), 0))
            self._compared.append((ctx, ("attr", left.name), ("const", right.value)))
        else:
            self._expr(left, slot_of, code, ctx)
            self._expr(right, slot_of, code, ctx)
            code.append((CMP + k, 0, 0, 0, 0))
            self._compared.append((ctx, _operand(left), _operand(right)))
        slots = {slot_of[v] for v in c.variables}
        return self._add(key, code, tuple(sorted(s for s in slots if kleene.get(s, False))))

    def value(self, e, slot_of: dict[str, int]) -> int:
        """The program computing expression ``e`` (one side of an equality), no comparison."""
        key = ("v", str(e), tuple(sorted(slot_of.items())))
        got = self._cache.get(key)
        if got is not None:
            return got
        code: list = []
        self._expr(e, slot_of, code, str(e))
        return self._add(key, code, ())

    def _add(self, key, code: list, kleene_slots: tuple[int, ...]) -> int:
        pid = len(self.bounds)
        start = len(self.instructions)
        self.instructions.extend(code)
        self.bounds.append((start, len(self.instructions)))
        self.kleene_slots.append(kleene_slots)
        self._cache[key] = pid
        return pid

    def _expr(self, e, slot_of: dict[str, int], code: list, ctx: str) -> None:
        if isinstance(e, Attr):
            code.append((ATTR, slot_of[e.var], self.column(e.name), 0, 0))
        elif isinstance(e, Const):
            code.append((CONST, self.consts.add(e.value), 0, 0, 0))
        elif isinstance(e, Neg):
            self._number(e.operand, ctx)
            self._expr(e.operand, slot_of, code, ctx)
            code.append((NEG, 0, 0, 0, 0))
        elif isinstance(e, BinOp):
            self._number(e.left, ctx)
            self._number(e.right, ctx)
            self._expr(e.left, slot_of, code, ctx)
            self._expr(e.right, slot_of, code, ctx)
            code.append((_ARITH[e.op], 0, 0, 0, 0))
        else:  # pragma: no cover - the AST has no other node
            raise PatternError(f"condition {ctx}: cannot compile {e!r}")

    def _number(self, e, ctx: str) -> None:
        if isinstance(e, Attr):
            self._uses.append((ctx, ("attr", e.name), "number"))
        elif isinstance(e, Const) and isinstance(e.value, str):
            raise PatternError(f"condition {ctx}: text {e} used in arithmetic")

    # ---- checking text -----------------------------------------------------------------------
    def check_text(self, text_columns: set[str]) -> None:
        """Refuse what Python would not evaluate: arithmetic on a text attribute, a comparison of
        text with a number (``=`` and ``!=`` included: they would always be false or true)."""
        for ctx, (_, name), _ in self._uses:
            if name in text_columns:
                raise PatternError(f"condition {ctx}: text attribute {name!r} used in arithmetic")
        for ctx, a, b in self._compared:
            if _is_text(a, text_columns) != _is_text(b, text_columns):
                raise PatternError(f"condition {ctx} compares text with a number")

    # ---- the kernel's arrays ------------------------------------------------------------------
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(instructions[k, 5], bounds[p, 2], kleene_bounds[p, 2], kleene_slots[m])``."""
        ins = np.asarray(self.instructions or [(0, 0, 0, 0, 0)], np.int64).reshape(-1, 5)
        bounds = np.asarray(self.bounds or [(0, 0)], np.int64).reshape(-1, 2)
        flat: list[int] = []
        kb = []
        for ks in self.kleene_slots or [()]:
            kb.append((len(flat), len(flat) + len(ks)))
            flat.extend(ks)
        return ins, bounds, np.asarray(kb, np.int64).reshape(-1, 2), np.asarray(flat or [0], np.int64)


def _operand(e):
    if isinstance(e, Attr):
        return ("attr", e.name)
    if isinstance(e, Const):
        return ("const", e.value)
    return ("expr", None)


def _is_text(operand, text_columns: set[str]) -> bool:
    kind, v = operand
    if kind == "attr":
        return v in text_columns
    if kind == "const":
        return isinstance(v, str)
    return False
