"""A pattern's join plans encoded as arrays: what the compiled kernel (:mod:`evaluators.kernel`) interprets.

The kernel is compiled once (numba, cached on disk) and reads the plan from :class:`PlanTables`, so a new
pattern or plan costs no compilation -- experiments run thousands of cells with different plans in fresh
worker processes (the measurement behind this choice is in ``docs/engine.md``).  Everything
:mod:`evaluators.join_plan` places on a join tree becomes a row of a table here:

* every variable of every DNF clause gets a global id (``var_*``); every node of every clause's join tree
  a global id (``node_*``), and every node but a root a *store* (``store_*``) holding its instances as rows;
* the checks a node makes where its children meet -- SEQ order pairs, contiguity pairs, distinct-event
  pairs, conditions, early negation checks -- are lists in CSR form (``*_ptr`` offsets into a flat array);
* a condition ``left op right`` is two expression programs (``expr_ptr`` into ``op_code``/``op_a``/``op_b``/
  ``op_f``) for a small stack machine: push an attribute of a variable's event, push a constant, negate,
  add, subtract, multiply, divide (a division by zero makes the comparison false, as
  :meth:`cep.conditions.Comparison.evaluate` does);
* an equality condition whose sides each read one child of its node (``a.x = b.x + 1000``) is also a hash
  key: the sibling's store is bucketed by its side (``store_hash_expr``) and a new instance looks its own
  side up (``node_hash_probe``) instead of scanning the store (:mod:`evaluators.kernel`, "Candidates").

Text attributes.  Attribute values are numbers in the kernel.  A column of text (a CSV attribute that
does not parse as numbers, or a partition key) is replaced by the rank of each value among all the text
values and text constants the pattern compares, which keeps ``=``, ``!=`` and the order of Python's
string comparison; a comparison of text with a number is false for ``=``, true for ``!=`` and an error
for an order (as in Python), and arithmetic on text is an error (:func:`encode_conditions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from cep.conditions import Attr, BinOp, Comparison, Const, Neg
from cep.dnf import SimplePattern
from cep.errors import StreamError
from cep.pattern import SeqOrder, Strategy, WindowKind

from evaluators.join_plan import JoinNode, JoinPlan

import evaluators.kernel as kernel
from evaluators.kernel import (  # the codes the kernel reads, defined beside it
    ANY,
    CMP_FALSE,
    CMP_TRUE,
    EVENT_STORE,
    I_CLAUSES,
    I_COUNT_WINDOW,
    I_MAX_SLOTS,
    I_NEGS,
    I_NFA,
    I_NODES,
    I_POSITION_SPAN,
    I_SEQ_STRICT,
    I_STORES,
    I_STRATEGY,
    I_VARS,
    I_WINDOW_N,
    KLEENE,
    N_INTS,
    KLEENE_STORE,
    NEGATED,
    NEXT,
    NODE_STORE,
    OP_ADD,
    OP_ATTR,
    OP_CONST,
    OP_DIV,
    OP_MUL,
    OP_NEG,
    OP_SUB,
    PARTITION,
    PLAIN,
    RELEASE_AFTER_TS,
    RELEASE_NOW,
    RELEASE_WINDOW_COUNT,
    RELEASE_WINDOW_TIME,
    STRICT,
)

STRATEGY_CODE = {Strategy.ANY: ANY, Strategy.NEXT: NEXT, Strategy.STRICT: STRICT, Strategy.PARTITION: PARTITION}
ARITH = {"+": OP_ADD, "-": OP_SUB, "*": OP_MUL, "/": OP_DIV}
CMP = {"<": 0, "<=": 1, ">": 2, ">=": 3, "=": 4, "!=": 5}


class PlanTables(NamedTuple):
    """The arrays the kernel interprets (int64 unless noted); ``*_ptr`` arrays are CSR offsets."""

    # scalars: see the I_* indices
    ints: np.ndarray
    floats: np.ndarray  # [span limit L, window size W]
    # per pattern type code: the negated, then the positive variables its events feed, in processing order
    type_neg_ptr: np.ndarray
    type_neg: np.ndarray
    type_pos_ptr: np.ndarray
    type_pos: np.ndarray
    # variables
    var_clause: np.ndarray
    var_type: np.ndarray  # pattern type code
    var_kind: np.ndarray
    var_min: np.ndarray
    var_max: np.ndarray  # -1: unbounded
    var_leaf: np.ndarray  # node id of a positive variable's leaf
    var_contig: np.ndarray  # 1: a Kleene variable whose elements must be adjacent (contiguity)
    var_nb: np.ndarray  # negation buffer of a negated variable (-1 for positive ones)
    var_unary_ptr: np.ndarray
    var_unary: np.ndarray  # conditions on the variable alone (checked on each of its events)
    # negated variables (indexed by negation buffer id): what a kill check reads (cep.semantics, "Negation")
    neg_var: np.ndarray
    neg_same_ptr: np.ndarray
    neg_same: np.ndarray  # positive variables of its type (an event of theirs cannot kill)
    neg_pred_ptr: np.ndarray
    neg_pred: np.ndarray  # positive variables in D(n) that precede it
    neg_succ_ptr: np.ndarray
    neg_succ: np.ndarray  # positive variables in D(n) that follow it
    neg_dep_ptr: np.ndarray
    neg_dep: np.ndarray  # D(n): the window is checked against their events
    neg_cond_ptr: np.ndarray
    neg_cond: np.ndarray  # conditions of two or more variables mentioning it
    # nodes
    node_clause: np.ndarray
    node_left: np.ndarray
    node_right: np.ndarray
    node_parent: np.ndarray
    node_var: np.ndarray  # a leaf's variable (-1 for internal nodes)
    node_store: np.ndarray  # -1 for a root
    node_vars_ptr: np.ndarray
    node_vars: np.ndarray  # the slot order of its instances (its leaves in tree order)
    node_order_ptr: np.ndarray
    node_order: np.ndarray  # SEQ order pairs (u, v) checked where its children meet, flattened
    node_adj_ptr: np.ndarray
    node_adj: np.ndarray  # contiguity pairs (u, v): last event of u immediately before the first of v
    node_dist_ptr: np.ndarray
    node_dist: np.ndarray  # pairs of same-type variables (u, v) that must bind different events
    node_cond_ptr: np.ndarray
    node_cond: np.ndarray
    node_neg_ptr: np.ndarray
    node_neg: np.ndarray  # negated variables checked early here
    node_hash: np.ndarray  # (node, side of the new instance) -> condition looked up by hash, or -1
    node_hash_probe: np.ndarray  # (node, side) -> expression of the new instance's side, or -1
    # clauses
    clause_root: np.ndarray
    clause_pos_ptr: np.ndarray
    clause_pos: np.ndarray  # positive variables in declaration order (the slots of a match)
    clause_rootneg_ptr: np.ndarray
    clause_rootneg: np.ndarray  # negated variables checked when a match completes
    clause_earlyneg_ptr: np.ndarray
    clause_earlyneg: np.ndarray  # negated variables checked early: rechecked on later events at completion
    clause_earlyneg_node: np.ndarray
    clause_release: np.ndarray  # RELEASE_*
    # stores
    store_node: np.ndarray
    store_kind: np.ndarray
    store_width: np.ndarray  # row width: [mx, m, slots..., (hash chain)]
    store_hash_expr: np.ndarray  # expression keying its hash buckets, or -1
    # expressions and conditions
    expr_ptr: np.ndarray
    op_code: np.ndarray
    op_a: np.ndarray  # OP_ATTR: variable id; OP_CONST: -
    op_b: np.ndarray  # OP_ATTR: attribute column
    op_f: np.ndarray  # float64: OP_CONST value
    cond_left: np.ndarray  # expression id
    cond_right: np.ndarray
    cond_op: np.ndarray  # CMP value
    cond_kleene_ptr: np.ndarray
    cond_kleene: np.ndarray  # Kleene variables it mentions (it must hold for every element)
    cond_simple: np.ndarray  # 1: a simple condition, ``x.a + k op y.b + k'`` with no Kleene variable
    cond_sv: np.ndarray  # simple conditions: (variable, attribute column) of each side, -1 for a constant
    cond_sf: np.ndarray  # float64, simple conditions: the constant added on each side



def flatten(t: PlanTables) -> tuple[np.ndarray, np.ndarray]:
    """The tables as the kernel reads them: one int64 array (a header of where each int field starts,
    then the fields, 2-d ones row by row) and one float64 array (:mod:`evaluators.kernel`, "the plan
    blob")."""
    assert set(kernel.INT_FIELDS) | set(kernel.FLOAT_FIELDS) == set(PlanTables._fields)
    header = len(kernel.INT_FIELDS) + len(kernel.FLOAT_FIELDS)
    offsets, parts = [], []
    at = header
    for n in kernel.INT_FIELDS:
        a = np.ascontiguousarray(getattr(t, n), dtype=np.int64).ravel()
        offsets.append(at)
        parts.append(a)
        at += len(a)
    fparts = []
    fat = 0
    for n in kernel.FLOAT_FIELDS:
        a = np.ascontiguousarray(getattr(t, n), dtype=np.float64).ravel()
        offsets.append(fat)
        fparts.append(a)
        fat += len(a)
    return np.concatenate([np.asarray(offsets, np.int64), *parts]), np.concatenate(fparts)


@dataclass
class ClauseInfo:
    """What reporting needs of one clause: its positive variables (the slots of its matches) and which
    of them are Kleene variables."""

    index: int
    positive: tuple[str, ...]
    kleene: tuple[bool, ...]


@dataclass
class Program:
    """A pattern compiled for the kernel: its plan tables, and what :mod:`evaluators.runtime` needs to
    prepare the columns (types, attributes) and report the matches.  ``eager``: the clause runs on the
    eager path (:func:`eager_applies`)."""

    kind: str
    plans: list[JoinPlan]
    tables: PlanTables
    blob: tuple[np.ndarray, np.ndarray]  # flatten(tables)
    type_names: tuple[str, ...]
    attributes: tuple[str, ...]
    conditions: list[Comparison]  # by condition id
    condition_clause: list[int]  # the clause of each condition
    clauses: list[ClauseInfo]
    window_kind: WindowKind
    span_limit: float
    position_span: int | None
    strategy: Strategy
    partition_attribute: str | None
    eager: bool = False
    attribute_types: dict[str, set[str]] = field(default_factory=dict)  # attribute -> the types whose conditions read it


def eager_applies(plans: list[JoinPlan], kind: str, orders: list[tuple[str, ...]] | None) -> bool:
    """The eager path (JQPG Section 6, Figure 9): under strict contiguity and ``SEQ_ORDER strict`` a pure
    sequence whose order plan follows the pattern's own order is run as an NFA that extends, on each
    event, only the instances ending at the previous stream position -- nothing buffered, nothing
    reordered.  Kleene closures, negation, several clauses and the tree evaluator take the lazy path."""
    if kind != "nfa" or orders is None or len(plans) != 1:
        return False
    sp = plans[0].sp
    return (
        sp.strategy is Strategy.STRICT
        and sp.seq_order is SeqOrder.STRICT
        and sp.is_sequence
        and not sp.kleene
        and not sp.negated
        and tuple(orders[0]) == tuple(sp.positive)
    )


def type_names_of(plans: list[JoinPlan]) -> list[str]:
    """The event types of the clauses in order of first mention: a type's code is its index here."""
    out: list[str] = []
    for jp in plans:
        for v in jp.sp.variables:
            if v.type not in out:
                out.append(v.type)
    return out


def position_span(plans: list[JoinPlan]) -> int | None:
    """Under strict contiguity, the largest ``max P - min P`` of a match of any clause (its number of
    events minus one; Kleene variables at their largest size); None when unbounded or not strict."""
    if plans[0].sp.strategy is not Strategy.STRICT:
        return None
    spans = []
    for jp in plans:
        total = 0
        for v in jp.sp.positive:
            var = jp.sp.var[v]
            if v in jp.sp.kleene:
                if var.max_size is None:
                    return None
                total += var.max_size
            else:
                total += 1
        spans.append(total - 1)
    return max(spans)


class _Csr:
    """Lists of ints in CSR form, built one list at a time."""

    def __init__(self) -> None:
        self.ptr = [0]
        self.flat: list[int] = []

    def add(self, items) -> None:
        self.flat.extend(int(x) for x in items)
        self.ptr.append(len(self.flat))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.ptr, np.int64), np.asarray(self.flat or [0], np.int64)


class _Exprs:
    """Expression programs of the stack machine."""

    def __init__(self, attr_index: dict[str, int]) -> None:
        self.attr_index = attr_index
        self.ptr = [0]
        self.code: list[int] = []
        self.a: list[int] = []
        self.b: list[int] = []
        self.f: list[float] = []

    def add(self, expr, var_id: dict[str, int], text: dict | None = None) -> int:
        self._emit(expr, var_id, text)
        self.ptr.append(len(self.code))
        return len(self.ptr) - 2

    def _op(self, code: int, a: int = 0, b: int = 0, f: float = 0.0) -> None:
        self.code.append(code)
        self.a.append(a)
        self.b.append(b)
        self.f.append(f)

    def _emit(self, e, var_id, text) -> None:
        if isinstance(e, Attr):
            self._op(OP_ATTR, var_id[e.var], self.attr_index.setdefault(e.name, len(self.attr_index)))
        elif isinstance(e, Const):
            v = e.value
            self._op(OP_CONST, f=(float(text[v]) if text else 0.0) if isinstance(v, str) else float(v))  # text: re-encoded by rank at prepare
        elif isinstance(e, Neg):
            self._emit(e.operand, var_id, text)
            self._op(OP_NEG)
        else:
            self._emit(e.left, var_id, text)
            self._emit(e.right, var_id, text)
            self._op(ARITH[e.op])


def expression_kind(expr, column_is_text: dict[str, bool]) -> str:
    """``"text"`` or ``"number"``: the kind of value an expression gives; arithmetic on text is an error."""
    if isinstance(expr, Attr):
        return "text" if column_is_text.get(expr.name, False) else "number"
    if isinstance(expr, Const):
        return "text" if isinstance(expr.value, str) else "number"
    if isinstance(expr, Neg):
        if expression_kind(expr.operand, column_is_text) == "text":
            raise StreamError(f"the expression {expr} negates a text value")
        return "number"
    if "text" in (expression_kind(expr.left, column_is_text), expression_kind(expr.right, column_is_text)):
        raise StreamError(f"the expression {expr} does arithmetic on a text value")
    return "number"


def encode_conditions(conds: list[Comparison], var_ids: list[dict[str, int]], kleene: list[set[str]],
                      attr_index: dict[str, int], column_is_text: dict[str, bool] | None = None,
                      text_rank: dict[str, int] | None = None) -> dict[str, np.ndarray]:
    """The expression programs and condition table of ``conds`` (condition ``i`` belongs to the clause whose
    variable ids are ``var_ids[i]``); text columns compare by ``text_rank``."""
    is_text = column_is_text or {}
    ex = _Exprs(attr_index)
    left, right, op = [], [], []
    simple, sv, sf = [], [], []
    kcsr = _Csr()
    for c, ids, kl in zip(conds, var_ids, kleene):
        kinds = (expression_kind(c.left, is_text), expression_kind(c.right, is_text))
        code = CMP[c.op]
        if kinds[0] != kinds[1]:
            if c.op not in ("=", "!="):
                raise StreamError(f"the condition {c} compares text with a number by {c.op}")
            code = CMP_FALSE if c.op == "=" else CMP_TRUE
        left.append(ex.add(c.left, ids, text_rank))
        right.append(ex.add(c.right, ids, text_rank))
        op.append(code)
        kcsr.add(ids[v] for v in sorted(c.variables) if v in kl)
        sides = (_linear(c.left, ids, attr_index, text_rank), _linear(c.right, ids, attr_index, text_rank))
        is_simple = None not in sides and code not in (CMP_FALSE, CMP_TRUE) and not (c.variables & kl)
        simple.append(int(is_simple))
        sv.extend(x for side in sides for x in ((side[0], side[1]) if is_simple else (-1, 0)))
        sf.extend(side[2] if is_simple else 0.0 for side in sides)
    kptr, kflat = kcsr.arrays()
    return {
        "cond_left": np.asarray(left or [0], np.int64),
        "cond_right": np.asarray(right or [0], np.int64),
        "cond_op": np.asarray(op or [0], np.int64),
        "cond_kleene_ptr": kptr,
        "cond_kleene": kflat,
        "cond_simple": np.asarray(simple or [0], np.int64),
        "cond_sv": np.asarray(sv or [-1, 0, -1, 0], np.int64),
        "cond_sf": np.asarray(sf or [0.0, 0.0], np.float64),
        "_exprs": ex,
    }


def _linear(expr, var_id: dict[str, int], attr_index: dict[str, int], text: dict | None):
    """``(variable, attribute column, k)`` when ``expr`` is ``x.a``, ``x.a + k``, ``k + x.a`` or ``x.a - k``
    (``(-1, 0, k)`` for a constant): the kernel computes ``attrs[column, event] + k``, the same float as
    Python's ``x.a + k`` (IEEE addition is commutative, and ``x - k`` is ``x + (-k)``); None otherwise."""
    def const(e):
        if isinstance(e, Const):
            return (float(text[e.value]) if text else 0.0) if isinstance(e.value, str) else float(e.value)
        if isinstance(e, Neg) and isinstance(e.operand, Const) and not isinstance(e.operand.value, str):
            return -float(e.operand.value)
        return None

    if isinstance(expr, Attr):
        return var_id[expr.var], attr_index.setdefault(expr.name, len(attr_index)), 0.0
    k = const(expr)
    if k is not None:
        return -1, 0, k
    if isinstance(expr, BinOp) and expr.op in "+-":
        a, b = expr.left, expr.right
        if isinstance(a, Attr) and const(b) is not None:
            return var_id[a.var], attr_index.setdefault(a.name, len(attr_index)), const(b) if expr.op == "+" else -const(b)
        if expr.op == "+" and isinstance(b, Attr) and const(a) is not None:
            return var_id[b.var], attr_index.setdefault(b.name, len(attr_index)), const(a)
    return None


def _expr_arrays(ex: _Exprs) -> dict[str, np.ndarray]:
    return {
        "expr_ptr": np.asarray(ex.ptr, np.int64),
        "op_code": np.asarray(ex.code or [0], np.int64),
        "op_a": np.asarray(ex.a or [0], np.int64),
        "op_b": np.asarray(ex.b or [0], np.int64),
        "op_f": np.asarray(ex.f or [0.0], np.float64),
    }


def _hashable_equality(c: Comparison, new_side: set[str], sib_side: set[str], kleene: set[str]):
    """For an equality between one expression over the new instance's variables and one over the
    sibling's, ``(sibling expression, new expression)``; None otherwise (Kleene variables excluded:
    the condition holds per element)."""
    if c.op != "=":
        return None
    lv, rv = _vars(c.left), _vars(c.right)
    if not lv or not rv or (lv | rv) & kleene:
        return None
    if lv <= sib_side and rv <= new_side:
        return c.left, c.right
    if rv <= sib_side and lv <= new_side:
        return c.right, c.left
    return None


def _vars(expr) -> set[str]:
    from cep.conditions import expr_variables

    return set(expr_variables(expr))


def build_program(plans: list[JoinPlan], *, kind: str, orders: list[tuple[str, ...]] | None = None) -> Program:
    """Encode the join plans of one pattern's clauses (``orders``: the order plans, when the plans came
    from orders; they decide :func:`eager_applies`)."""
    sp0 = plans[0].sp
    type_names = type_names_of(plans)
    type_code = {t: i for i, t in enumerate(type_names)}
    attr_index: dict[str, int] = {}
    var_ids: list[dict[str, int]] = []
    n_vars = 0
    for jp in plans:
        var_ids.append({v.name: n_vars + i for i, v in enumerate(jp.sp.variables)})
        n_vars += len(jp.sp.variables)

    # ---- conditions: unary (per variable), node conditions, negation conditions -----------------
    conds: list[Comparison] = []
    cond_clause: list[int] = []
    cond_id: dict[tuple[int, Comparison], int] = {}

    def cid(k: int, c: Comparison) -> int:
        key = (k, c)
        if key not in cond_id:
            cond_id[key] = len(conds)
            conds.append(c)
            cond_clause.append(k)
        return cond_id[key]

    # ---- variables -------------------------------------------------------------------------------
    var_clause = np.zeros(n_vars, np.int64)
    var_type = np.zeros(n_vars, np.int64)
    var_kind = np.zeros(n_vars, np.int64)
    var_min = np.ones(n_vars, np.int64)
    var_max = np.full(n_vars, -1, np.int64)
    var_leaf = np.full(n_vars, -1, np.int64)
    var_contig = np.zeros(n_vars, np.int64)
    var_nb = np.full(n_vars, -1, np.int64)
    unary = _Csr()
    neg_var: list[int] = []
    neg_same, neg_pred, neg_succ, neg_dep, neg_cond = _Csr(), _Csr(), _Csr(), _Csr(), _Csr()
    for k, jp in enumerate(plans):
        sp = jp.sp
        ids = var_ids[k]
        pos = set(sp.positive)
        for v in sp.variables:
            i = ids[v.name]
            var_clause[i] = k
            var_type[i] = type_code[v.type]
            var_kind[i] = NEGATED if v.name in sp.negated else KLEENE if v.name in sp.kleene else PLAIN
            var_min[i] = v.min_size
            var_max[i] = -1 if v.max_size is None else v.max_size
            var_contig[i] = int(v.name in jp.contiguous_kleene)
            unary.add(cid(k, c) for c in jp.unary[v.name])
        for n in sp.negated:
            var_nb[ids[n]] = len(neg_var)
            neg_var.append(ids[n])
            dset = sp.negation_dependencies(n)
            neg_same.add(ids[v] for v in sp.positive if sp.type_of(v) == sp.type_of(n))
            neg_pred.add(ids[u] for u in sorted(sp.preds[n] & pos & dset))
            neg_succ.add(ids[v] for v in sorted(sp.succs[n] & pos & dset))
            neg_dep.add(ids[d] for d in sorted(dset, key=lambda d: ids[d]))
            neg_cond.add(cid(k, c) for c in sp.negation_conditions(n) if len(c.variables) > 1)

    # ---- nodes and stores ------------------------------------------------------------------------
    nodes: list[tuple[int, JoinNode]] = []
    node_id: dict[int, int] = {}
    for k, jp in enumerate(plans):
        for node in jp.nodes:  # post-order
            node_id[id(node)] = len(nodes)
            nodes.append((k, node))
    n_nodes = len(nodes)
    node_clause = np.zeros(n_nodes, np.int64)
    node_left = np.full(n_nodes, -1, np.int64)
    node_right = np.full(n_nodes, -1, np.int64)
    node_parent = np.full(n_nodes, -1, np.int64)
    node_var = np.full(n_nodes, -1, np.int64)
    node_store = np.full(n_nodes, -1, np.int64)
    node_hash = np.full((n_nodes, 2), -1, np.int64)
    node_hash_probe = np.full((n_nodes, 2), -1, np.int64)
    nvars, order, adj, dist, ncond, nneg = _Csr(), _Csr(), _Csr(), _Csr(), _Csr(), _Csr()
    store_node, store_kind, store_width = [], [], []
    hash_exprs: list[tuple[int, object, int]] = []  # (store, expression, clause)
    probe_exprs: list[tuple[int, int, object, int]] = []  # (node, side, expression, clause)
    max_slots = 1
    for gid, (k, node) in enumerate(nodes):
        ids = var_ids[k]
        sp = plans[k].sp
        node_clause[gid] = k
        nvars.add(ids[v] for v in node.vars)
        max_slots = max(max_slots, len(node.vars))
        if node.is_leaf:
            node_var[gid] = ids[node.var]
            var_leaf[ids[node.var]] = gid
        else:
            node_left[gid] = node_id[id(node.left)]
            node_right[gid] = node_id[id(node.right)]
        if node.parent is not None:
            node_parent[gid] = node_id[id(node.parent)]
        if node.parent is not None or (node.is_leaf and node.var in sp.kleene):  # a Kleene root keeps its subsets
            node_store[gid] = len(store_node)
            store_node.append(gid)
            kleene_leaf = node.is_leaf and node.var in sp.kleene
            store_kind.append(KLEENE_STORE if kleene_leaf else EVENT_STORE if node.is_leaf else NODE_STORE)
            store_width.append(2 + len(node.vars))  # widened below when hashed
        order.add(x for u, v in node.order_pairs for x in (ids[u], ids[v]))
        adj.add(x for u, v in node.adjacent_pairs for x in (ids[u], ids[v]))
        dist.add(x for u, v in node.distinct_pairs for x in (ids[u], ids[v]))
        ncond.add(cid(k, c) for c in node.conditions)
        nneg.add(ids[n] for n in node.negations)
    # hash keys: an equality condition between the two children of a node
    for gid, (k, node) in enumerate(nodes):
        if node.is_leaf:
            continue
        kl = set(plans[k].sp.kleene)
        for side, (new, sib) in enumerate(((node.left, node.right), (node.right, node.left))):
            for c in node.conditions:
                split = _hashable_equality(c, set(new.vars), set(sib.vars), kl)
                if split is None:
                    continue
                sib_expr, new_expr = split
                s = node_store[node_id[id(sib)]]
                node_hash[gid, side] = cid(k, c)
                hash_exprs.append((s, sib_expr, k))
                probe_exprs.append((gid, side, new_expr, k))
                break

    # ---- clauses ---------------------------------------------------------------------------------
    clause_root = np.zeros(len(plans), np.int64)
    clause_release = np.zeros(len(plans), np.int64)
    cpos, crootneg, cearly = _Csr(), _Csr(), _Csr()
    early_nodes: list[int] = []
    for k, jp in enumerate(plans):
        sp = jp.sp
        ids = var_ids[k]
        clause_root[k] = node_id[id(jp.root)]
        cpos.add(ids[v] for v in sp.positive)
        crootneg.add(ids[n] for n in jp.root_negations)
        cearly.add(ids[n] for n in jp.early_negations)
        early_nodes.extend(node_id[id(nd)] for nd in jp.early_negations.values())
        if not sp.negated:
            clause_release[k] = RELEASE_NOW
        elif not sp.unbounded_negations:
            clause_release[k] = RELEASE_AFTER_TS
        elif sp.window.kind is WindowKind.TIME:
            clause_release[k] = RELEASE_WINDOW_TIME
        else:
            clause_release[k] = RELEASE_WINDOW_COUNT

    # ---- per type: negated variables first, then positive ones (of every clause) ---------------------
    tneg, tpos = _Csr(), _Csr()
    for t in type_names:
        tneg.add(var_ids[k][n] for k, jp in enumerate(plans) for n in jp.sp.negated if jp.sp.type_of(n) == t)
        tpos.add(var_ids[k][v] for k, jp in enumerate(plans) for v in jp.sp.positive if jp.sp.type_of(v) == t)

    cond_vars = [var_ids[k] for k in cond_clause]
    cond_kl = [set(plans[k].sp.kleene) for k in cond_clause]
    enc = encode_conditions(conds, cond_vars, cond_kl, attr_index)
    ex: _Exprs = enc.pop("_exprs")
    store_hash_expr = np.full(max(len(store_node), 1), -1, np.int64)
    for s, e, k in hash_exprs:
        store_hash_expr[s] = ex.add(e, var_ids[k])
        store_width[s] = 3 + len(nodes[store_node[s]][1].vars)
    for gid, side, e, k in probe_exprs:
        node_hash_probe[gid, side] = ex.add(e, var_ids[k])

    ints = np.zeros(N_INTS, np.int64)
    ints[I_CLAUSES] = len(plans)
    ints[I_VARS] = n_vars
    ints[I_NODES] = n_nodes
    ints[I_STORES] = len(store_node)
    ints[I_STRATEGY] = STRATEGY_CODE[sp0.strategy]
    ints[I_SEQ_STRICT] = int(sp0.seq_order is SeqOrder.STRICT)
    ints[I_COUNT_WINDOW] = int(sp0.window.kind is WindowKind.COUNT)
    ints[I_MAX_SLOTS] = max_slots
    ints[I_NEGS] = len(neg_var)
    ints[I_WINDOW_N] = int(sp0.window.size) if sp0.window.kind is WindowKind.COUNT else 0
    pspan = position_span(plans)
    ints[I_POSITION_SPAN] = -1 if pspan is None else pspan
    ints[I_NFA] = int(kind == "nfa")

    def csr(c: _Csr, name: str) -> dict:
        p, f = c.arrays()
        return {f"{name}_ptr": p, name: f}

    tables = PlanTables(
        ints=ints,
        floats=np.asarray([float(sp0.window.span_limit), float(sp0.window.size)], np.float64),
        **csr(tneg, "type_neg"), **csr(tpos, "type_pos"),
        var_clause=var_clause, var_type=var_type, var_kind=var_kind, var_min=var_min, var_max=var_max, var_leaf=var_leaf,
        var_contig=var_contig, var_nb=var_nb, **csr(unary, "var_unary"),
        neg_var=np.asarray(neg_var or [0], np.int64),
        **csr(neg_same, "neg_same"), **csr(neg_pred, "neg_pred"), **csr(neg_succ, "neg_succ"),
        **csr(neg_dep, "neg_dep"), **csr(neg_cond, "neg_cond"),
        node_clause=node_clause, node_left=node_left, node_right=node_right, node_parent=node_parent,
        node_var=node_var, node_store=node_store, **csr(nvars, "node_vars"), **csr(order, "node_order"),
        **csr(adj, "node_adj"), **csr(dist, "node_dist"), **csr(ncond, "node_cond"), **csr(nneg, "node_neg"),
        node_hash=node_hash, node_hash_probe=node_hash_probe,
        clause_root=clause_root, **csr(cpos, "clause_pos"), **csr(crootneg, "clause_rootneg"),
        **csr(cearly, "clause_earlyneg"), clause_earlyneg_node=np.asarray(early_nodes or [0], np.int64),
        clause_release=clause_release,
        store_node=np.asarray(store_node or [0], np.int64), store_kind=np.asarray(store_kind or [0], np.int64),
        store_width=np.asarray(store_width or [0], np.int64), store_hash_expr=store_hash_expr,
        **_expr_arrays(ex), **enc,
    )
    attribute_types: dict[str, set[str]] = {a: set() for a in attr_index}
    for c, k in zip(conds, cond_clause):
        for at in c.attributes:
            attribute_types[at.name].add(plans[k].sp.type_of(at.var))
    return Program(
        kind=kind,
        plans=list(plans),
        tables=tables,
        blob=flatten(tables),
        type_names=tuple(type_names),
        attributes=tuple(attr_index),
        conditions=conds,
        condition_clause=cond_clause,
        clauses=[ClauseInfo(k, jp.sp.positive, tuple(v in jp.sp.kleene for v in jp.sp.positive)) for k, jp in enumerate(plans)],
        window_kind=sp0.window.kind,
        span_limit=float(sp0.window.span_limit),
        position_span=pspan,
        strategy=sp0.strategy,
        partition_attribute=sp0.partition_attribute,
        eager=eager_applies(plans, kind, orders),
        attribute_types=attribute_types,
    )


def tables_for_text(program: Program, column_is_text: dict[str, bool], text_rank: dict[str, int]) -> PlanTables:
    """The program's tables with conditions re-encoded for text columns (ranks in place of strings)."""
    t = program.tables
    var_ids, kls = [], []
    for k in program.condition_clause:
        base = sum(len(jp.sp.variables) for jp in program.plans[:k])
        var_ids.append({v.name: base + i for i, v in enumerate(program.plans[k].sp.variables)})
        kls.append(set(program.plans[k].sp.kleene))
    attr_index = {a: i for i, a in enumerate(program.attributes)}
    enc = encode_conditions(program.conditions, var_ids, kls, attr_index, column_is_text, text_rank)
    ex: _Exprs = enc.pop("_exprs")
    # the hash keys and probes were appended after the conditions: re-append them in the same order
    n_cond_exprs = len(ex.ptr) - 1
    old_ptr = t.expr_ptr
    for e in range(n_cond_exprs, len(old_ptr) - 1):
        lo, hi = old_ptr[e], old_ptr[e + 1]
        for i in range(lo, hi):  # a text attribute keys its bucket by rank: its column holds ranks
            ex._op(int(t.op_code[i]), int(t.op_a[i]), int(t.op_b[i]), float(t.op_f[i]))
        ex.ptr.append(len(ex.code))
    node_hash, probe = t.node_hash.copy(), t.node_hash_probe.copy()
    constant = np.isin(enc["cond_op"], (CMP_FALSE, CMP_TRUE))
    drop = (node_hash >= 0) & constant[np.maximum(node_hash, 0)]
    node_hash[drop] = -1  # a comparison of text with a number is no hash key: scan, and let it decide
    probe[drop] = -1
    return t._replace(**_expr_arrays(ex), **enc, node_hash=node_hash, node_hash_probe=probe)
