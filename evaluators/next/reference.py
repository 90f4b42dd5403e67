"""The reference matcher of NEXT patterns: the semantics of :mod:`cep.next_algebra`, applied literally.

It reads a pattern the n-ary way -- chains of ``;`` and groups of ``|`` flattened -- so it does not
depend on the grouping (the plan), and computes every operator's items over the whole stream by the
definitions: ``SUCC`` by scanning every item of the operand, guards by scanning every item of the
exception's operand.  Slow (quadratic) and obviously correct: tests use it as the oracle for the
streaming operator engine (:mod:`evaluators.next.engine`) and for rewriting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cep.next_algebra as algebra
from cep.events import Event
from cep.matches import Match

NEG_INF = -math.inf


@dataclass(frozen=True)
class Item:
    """A detected (or failed) composite event: its timestamp sequence, binding, flag and guard."""

    times: tuple[float, ...]
    binding: tuple[tuple[str, object], ...]  # (variable, Event or tuple of Events), in binding order
    failed: bool = False
    guard: float = NEG_INF

    @property
    def ts(self) -> float:
        return self.times[0]

    @property
    def te(self) -> float:
        return self.times[-1]

    @property
    def key(self) -> tuple:
        """Sort key of the complete-history order (NEXT Section 3.2): timestamps compared from the
        end; a longer sequence whose suffix is the shorter one comes first."""
        return tuple(reversed(self.times)) + (math.inf,)

    def as_dict(self) -> dict:
        return dict(self.binding)


def reference_matches(pattern: algebra.NextPattern, stream: Sequence[Event]) -> list[Match]:
    """Every composite event of ``pattern`` on ``stream``, as :class:`cep.Match` values, sorted."""
    return sorted(Match.from_binding(it.as_dict()) for it in reference_items(pattern, stream))


def reference_items(pattern: algebra.NextPattern, stream: Sequence[Event]) -> list[Item]:
    ev = _Evaluator(pattern, stream)
    return [it for it in ev.items(()) if _is_result(it)]


def _is_result(it: Item) -> bool:
    return not it.failed and it.guard <= it.ts


def _holds(conds, binding: dict) -> bool:
    """Every condition whose variables are all bound holds (the others hold vacuously)."""
    return all(c.evaluate(binding) for c in conds if c.variables <= binding.keys())


class _Evaluator:
    def __init__(self, pattern: algebra.NextPattern, stream: Sequence[Event]) -> None:
        self.p = pattern
        self.a = pattern.analysis
        self.w = float(pattern.window.size)
        self.by_type: dict[str, list[Event]] = {}
        for e in stream:
            self.by_type.setdefault(e.type, []).append(e)
        self.cache: dict[tuple, list[Item]] = {}

    def items(self, path: tuple) -> list[Item]:
        if path not in self.cache:
            out = [it for it in self._items(path) if it.te - it.ts <= self.w]
            self.cache[path] = out
        return self.cache[path]

    def _items(self, path: tuple) -> list[Item]:
        e = self.a.nodes[path]
        filters = self.a.filters.get(path, ())
        if isinstance(e, algebra.Source):
            return [
                Item((x.ts,), ((e.var, x),))
                for x in self.by_type.get(e.type, [])
                if _holds(filters, {e.var: x})
            ]
        if isinstance(e, algebra.Union):
            return [it for q in _union_leaves(e, path) for it in self.items(q)]
        if isinstance(e, algebra.Next):
            return self._chain(self.a.chains[path])
        if isinstance(e, algebra.Iteration):
            return self._iteration(e, path)
        if isinstance(e, algebra.Except):
            return self._except(e, path)
        assert isinstance(e, algebra.Time)
        return [
            Item(x.times + (x.te + e.seconds,), x.binding, x.failed, x.guard)
            for x in self.items(path + (0,))
        ]

    def _chain(self, chain: algebra.Chain) -> list[Item]:
        operands = [self.items(o) for o in chain.operands]
        skip = {}
        for c, _, q in chain.skip:
            skip.setdefault(q, []).append(c)
        fails = [c for c, _, _ in chain.fail]
        out: list[Item] = []

        def extend(q: int, prefix: list[Item], binding: dict) -> None:
            if q == len(operands):
                failed = any(x.failed for x in prefix) or not _holds(fails, binding)
                failed = failed or any(prefix[i].guard > prefix[i - 1].te for i in range(1, len(prefix)))
                times = tuple(t for x in prefix for t in x.times)
                out.append(Item(times, tuple(kv for x in prefix for kv in x.binding), failed, prefix[0].guard))
                return
            prev = prefix[-1].te
            cands = []
            for y in operands[q]:
                if y.ts > prev:
                    b = {**binding, **dict(y.binding)}
                    if _holds(skip.get(q, ()), b):
                        cands.append((y, b))
            if not cands:
                return
            best = min(y.key for y, _ in cands)
            for y, b in cands:
                if y.key == best:
                    extend(q + 1, prefix + [y], b)

        for x0 in operands[0]:
            extend(1, [x0], dict(x0.binding))
        return out

    def _iteration(self, e: algebra.Iteration, path: tuple) -> list[Item]:
        elems = sorted(self.items(path + (0,)), key=lambda it: it.key)
        var = e.child.var
        out: list[Item] = []

        def extend(run: list[Item]) -> None:
            if run[-1].te - run[0].ts > self.w:
                return
            if len(run) >= e.min_size:
                out.append(Item(tuple(x.ts for x in run), ((var, tuple(x.binding[0][1] for x in run)),)))
            if e.max_size is not None and len(run) >= e.max_size:
                return
            later = [y for y in elems if y.ts > run[-1].te]
            if later:
                first = later[0].key
                for y in later:
                    if y.key == first:
                        extend(run + [y])

        for x in elems:
            extend([x])
        return out

    def _except(self, e: algebra.Except, path: tuple) -> list[Item]:
        fails = [f for f in self.items(path + (1,)) if _is_result(f)]
        lam = self.a.lam.get(path, ())
        out = []
        for x in self.items(path + (0,)):
            g = x.guard
            xb = dict(x.binding)
            for f in fails:
                if f.te < x.te and f.ts > g and _holds(lam, {**xb, **dict(f.binding)}):
                    g = f.ts
            out.append(Item(x.times, x.binding, x.failed, g))
        return out


def _union_leaves(e: algebra.Expr, path: tuple) -> list[tuple]:
    if isinstance(e, algebra.Union):
        return _union_leaves(e.left, path + (0,)) + _union_leaves(e.right, path + (1,))
    return [path]
