"""Workloads of MOTTO's evaluation (MOTTO Section VII-A, Table V): seeded, no duplicate queries.

"We divide the workload into two groups with seven types of sharing opportunities shown in Table
V.  The first group (basic workload group) contains non-nested pattern query of the same operator,
and the same window constraint ...  The second group (complex workload group) contains pattern
queries with different operators, and different window constraints as well as nested pattern
queries."  ``r`` is the basic workload ratio.  Each draw adds the pair ``query(L)``, ``query(L')``
of one type (duplicates dropped) until the workload holds ``m`` queries:

1. ``L`` is a prefix of ``L'``:            ``SEQ(L)``, ``SEQ(L, E_x)``
2. ``L`` is a suffix of ``L'``:            ``CONJ(L)``, ``CONJ(E_x & L)``
3. subsequence, not substring:             ``SEQ(L)``, ``SEQ(L`` with ``E_x`` inside``)``
4. common substrings only:                 ``SEQ(E_x, L, E_y)``, ``SEQ(E_x', L, E_y')`` (Table V
   prints the same query twice, which the no-duplicates rule forbids; we read primes)
5. different windows:                      ``SEQ(L)`` within ``w/2``, ``SEQ(L, E_x)`` within ``w``
6. same list, different operators:         ``SEQ(L)``, ``CONJ(L)``
7. nested, common innermost sub-query:     ``SEQ(E_x, SEQ(L), E_y)``, ``CONJ(E_x & SEQ(L) & E_y)``,
   ``SEQ(L)`` wrapped ``level - 2`` more times, alternately in ``CONJ(E_z & .)`` and ``SEQ(E_z, .)``
   (Figure 14d varies the level from 2 to 8).  The outer query whose operator equals the outermost
   wrapper's absorbs it (CONJ in CONJ is one CONJ), so one of the two queries is a level lower.

The paper's stock workload has 13 event types (stock symbols); ``L`` has ``length`` operands.
"""

from __future__ import annotations

import random

from cep.errors import ConfigError
from cep.pattern import Window

from algorithms.motto.query import MOp, Query, conj, seq

BASIC_TYPES = (1, 2, 3, 4)
COMPLEX_TYPES = (5, 6, 7)


def sharing_pair(kind: int, rng: random.Random, types: list[str], *, length: int, window: Window, level: int = 2) -> tuple[Query, Query]:
    """One pair of Table V's sharing type ``kind`` over distinct types drawn from ``types``."""
    need = length + 4 + max(0, level - 2)
    if len(types) < need:
        raise ConfigError(f"Table V type {kind} with |L| = {length} needs {need} event types, got {len(types)}")
    pool = rng.sample(types, need)
    L, extra = pool[:length], pool[length:]
    x, y, x2, y2 = extra[:4]
    if kind == 1:
        return seq(*L, window=window), seq(*L, x, window=window)
    if kind == 2:
        return conj(*L, window=window), conj(x, *L, window=window)
    if kind == 3:
        at = rng.randrange(1, length) if length > 1 else 1
        return seq(*L, window=window), seq(*L[:at], x, *L[at:], window=window)
    if kind == 4:
        return seq(x, *L, y, window=window), seq(x2, *L, y2, window=window)
    if kind == 5:
        half = Window(window.kind, window.size / 2 if window.kind.value == "time" else max(1, int(window.size // 2)))
        return seq(*L, window=half), seq(*L, x, window=window)
    if kind == 6:
        return seq(*L, window=window), conj(*L, window=window)
    if kind == 7:
        inner: Query = seq(*L, window=window)
        for i, e in enumerate(extra[4 : 4 + level - 2]):  # deeper nesting: wrap the common part
            inner = Query(MOp.CONJ if i % 2 == 0 else MOp.SEQ, (e, inner), window)
        return seq(x, inner, y, window=window), conj(x, inner, y, window=window)
    raise ConfigError(f"Table V has sharing types 1-7, not {kind}")


def table_v_workload(
    m: int,
    *,
    seed: int = 0,
    r: float = 1.0,
    n_types: int = 13,
    length: int = 3,
    window: Window = Window.seconds(10),
    level: int = 2,
    pair_windows: tuple[Window, Window] | None = None,
    types: tuple[int, ...] = BASIC_TYPES + COMPLEX_TYPES,
) -> list[Query]:
    """``m`` distinct queries named ``q1..qm``; a fraction ``r`` of the pairs from the basic group.

    ``pair_windows`` (Figure 14c: "the window constraint of all the source queries ``s_w`` and ...
    of the corresponding beneficiary query ``b_w``") gives ``query(L)`` (the source) its first and
    ``query(L')`` (the beneficiary) its second window.  ``types`` restricts the sharing types drawn
    (a group left empty draws from the other)."""
    if not 0.0 <= r <= 1.0:
        raise ConfigError(f"basic workload ratio r must lie in [0, 1], got {r}")
    bad = sorted(set(types) - set(BASIC_TYPES + COMPLEX_TYPES))
    if bad or not types:
        raise ConfigError(f"Table V has sharing types 1-7; got {list(types)}")
    basic = tuple(t for t in BASIC_TYPES if t in types) or tuple(t for t in COMPLEX_TYPES if t in types)
    complex_ = tuple(t for t in COMPLEX_TYPES if t in types) or basic
    rng = random.Random(seed)
    types = [f"E{i}" for i in range(1, n_types + 1)]
    out: list[Query] = []
    keys: set[str] = set()
    tries = 0
    while len(out) < m:
        tries += 1
        if tries > 100 * m + 100:
            raise ConfigError(f"could not draw {m} distinct queries over {n_types} types")
        group = basic if rng.random() < r else complex_
        pair = sharing_pair(rng.choice(group), rng, types, length=length, window=window, level=level)
        if pair_windows is not None:
            pair = tuple(q.with_window(w) for q, w in zip(pair, pair_windows))
        for q in pair:
            if len(out) < m and q.key not in keys:
                keys.add(q.key)
                out.append(Query(q.op, q.operands, q.window, q.seq_order, f"q{len(out) + 1}"))
    return out
