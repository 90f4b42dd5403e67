"""The filters of MOTTO's rewrites: predicates on composite events (MOTTO Sections IV-A, IV-C, IV-D).

A composite event is a mapping ``event type -> event`` of the primitive events it binds (types are
distinct in a query, :mod:`algorithms.motto.query`).  Every filter is stateless: it passes or drops
each composite event and stores nothing.  Each filter records the query whose composite events it
outputs (``output``), which is what the cost model charges it (:mod:`algorithms.motto.cost`).

* :class:`OrderFilter` -- MOTTO's time filter of the MST merge (Section IV-A, Example 1:
  ``E_1.ts < E_2.ts < E_3.ts``) and ``Filter_sc`` of Table I (SEQ to CONJ): the bound events of
  group ``k`` all precede those of group ``k + 1`` (and of every later group).  A group is the types
  of one operand of the SEQ (one type, or a nested operand's types).  "Precede" is the SEQ relation
  of the output query (``<=`` on timestamps by default, ``<`` with ``seq_order strict``).
* :class:`CompleteFilter` -- ``Filter_cd`` of Table I (CONJ to DISJ): "eliminates it unless the
  result is a composite event consist of all types of events in L": every group (operand of the
  CONJ) binds at least one event (a nested DISJ operand need not bind all of its types); scoped to
  an operand of a DISJ, it holds when the operand is absent.  An OrderFilter needs no scope: it
  only compares the events that are bound.
* :class:`WindowFilter` -- the window mark-point filter of Section IV-D: drops composites whose
  events span more than the output query's window (time: timestamps, count: stream positions).
* :class:`ConditionFilter` -- ours: the target's WHERE conditions its source does not check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from cep.events import Event
from cep.pattern import SeqOrder, WindowKind
from cep.semantics import before

from algorithms.motto.query import Query

Composite = Mapping[str, Event]


@dataclass(frozen=True)
class OrderFilter:
    """Filter_sc / MST time filter: group ``i``'s bound events precede group ``j``'s for ``i < j``."""

    groups: tuple[tuple[str, ...], ...]
    output: Query
    label: str = "Filter_sc"

    def holds(self, comp: Composite) -> bool:
        so: SeqOrder = self.output.seq_order
        bound = [[comp[t].ts for t in g if t in comp] for g in self.groups]
        for i in range(len(bound)):
            if not bound[i]:
                continue
            hi = max(bound[i])
            for j in range(i + 1, len(bound)):
                if bound[j] and not before(hi, min(bound[j]), so):
                    return False
        return True

    def __str__(self) -> str:
        return f"{self.label}(" + " < ".join("{" + ",".join(g) + "}" if len(g) > 1 else g[0] for g in self.groups) + ")"


@dataclass(frozen=True)
class CompleteFilter:
    """Filter_cd: every group binds at least one event.  With ``scoped`` the filter constrains only
    composites that bind some of its types (an operand of a DISJ, which may be absent)."""

    groups: tuple[tuple[str, ...], ...]
    output: Query
    label: str = "Filter_cd"
    scoped: bool = False

    def holds(self, comp: Composite) -> bool:
        if self.scoped and not any(t in comp for g in self.groups for t in g):
            return True
        return all(any(t in comp for t in g) for g in self.groups)

    def __str__(self) -> str:
        return f"{self.label}(" + " & ".join("{" + ",".join(g) + "}" if len(g) > 1 else g[0] for g in self.groups) + ")"


@dataclass(frozen=True)
class WindowFilter:
    """The mark-point filter: the composite fits ``output.window``."""

    output: Query
    label: str = "Filter_window"

    def holds(self, comp: Composite) -> bool:
        w = self.output.window
        keys = [e.ts if w.kind is WindowKind.TIME else e.pos for e in comp.values()]
        return not keys or max(keys) - min(keys) <= w.span_limit

    def __str__(self) -> str:
        return f"{self.label}({self.output.window})"


@dataclass(frozen=True)
class ConditionFilter:
    """The target's WHERE conditions that its source does not check (ours: MOTTO has no conditions).
    A condition constrains a composite that binds all of its types."""

    conditions: tuple
    output: Query
    label: str = "Filter_where"

    def holds(self, comp: Composite) -> bool:
        return all(c.evaluate(comp) for c in self.conditions if c.variables <= comp.keys())

    def __str__(self) -> str:
        return f"{self.label}(" + " AND ".join(map(str, self.conditions)) + ")"


Filter = OrderFilter | CompleteFilter | WindowFilter | ConditionFilter
