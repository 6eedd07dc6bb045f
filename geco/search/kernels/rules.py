"""The grounded rules compiled: PLAF programs (:mod:`plaf_grammar.programs`) run an
instruction at a time over many rows, and the action cascade over them, one call for all the
candidates and rules instead of a numpy call per tree node per rule.

:func:`cascade` does what :func:`geco.search.operators.action_cascade` does for a program
without cross rules (each ties the groups it reads, :mod:`geco.search.ties`, and a tie's repair
redraws rows: those keep the numpy cascade): the same repairs from the same draws (an
implication's values drawn with replacement, ``rng.random(n)`` for its ``n`` broken rows in row
order, as the reference draws them), the same survivors, the same rejection counts.
"""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import jit, search_right, true_indices
from plaf_grammar.programs import OPCODES

__all__ = ["cascade", "holds"]

# module constants, which numba compiles in
_COL, _CONST, _NEG, _ABS, _ADD, _SUB, _MUL, _DIV = (OPCODES[k] for k in ("col", "const", "neg", "abs", "+", "-", "*", "/"))
_EQ, _NE, _LT, _LE, _GT, _GE = (OPCODES[k] for k in ("==", "!=", "<", "<=", ">", ">="))
_IN, _NOT_IN, _NOT, _AND = (OPCODES[k] for k in ("in", "not in", "not", "and"))


@jit
def _run(code, constants, start, stop, rows, idx, stack, out):
    """Program ``code[start:stop]`` on rows ``idx`` of ``rows``, an instruction at a time over
    all of them (tight loops the compiler vectorises; ``stack``: (depth, >= len(idx))): sets
    ``out[:len(idx)]`` to whether each holds."""
    m = len(idx)
    top = -1
    for t in range(start, stop):
        op, a, b = code[t, 0], code[t, 1], code[t, 2]
        if op == _COL:
            top += 1
            for j in range(m):
                stack[top, j] = rows[idx[j], a]
        elif op == _CONST:
            top += 1
            c = constants[a]
            for j in range(m):
                stack[top, j] = c
        elif op == _NEG:
            for j in range(m):
                stack[top, j] = -stack[top, j]
        elif op == _ABS:
            for j in range(m):
                stack[top, j] = abs(stack[top, j])
        elif op == _NOT:
            for j in range(m):
                stack[top, j] = 1.0 if stack[top, j] == 0.0 else 0.0
        elif op in (_IN, _NOT_IN):
            negated = op == _NOT_IN
            for j in range(m):
                v, hit = stack[top, j], False
                for s in range(a, a + b):
                    if constants[s] == v:
                        hit = True
                        break
                stack[top, j] = 1.0 if hit != negated else 0.0
        else:
            top -= 1
            lv, rv = stack[top], stack[top + 1]
            if op == _ADD:
                for j in range(m):
                    lv[j] = lv[j] + rv[j]
            elif op == _SUB:
                for j in range(m):
                    lv[j] = lv[j] - rv[j]
            elif op == _MUL:
                for j in range(m):
                    lv[j] = lv[j] * rv[j]
            elif op == _DIV:
                for j in range(m):
                    lv[j] = lv[j] / rv[j]
            elif op == _EQ:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] == rv[j] else 0.0
            elif op == _NE:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] != rv[j] else 0.0
            elif op == _LT:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] < rv[j] else 0.0
            elif op == _LE:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] <= rv[j] else 0.0
            elif op == _GT:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] > rv[j] else 0.0
            elif op == _GE:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] >= rv[j] else 0.0
            elif op == _AND:
                for j in range(m):
                    lv[j] = 1.0 if lv[j] != 0.0 and rv[j] != 0.0 else 0.0
            else:  # or
                for j in range(m):
                    lv[j] = 1.0 if lv[j] != 0.0 or rv[j] != 0.0 else 0.0
    for j in range(m):
        out[j] = stack[0, j] != 0.0


@jit
def holds(code, constants, starts, depth, p, rows):
    """(n,) whether each row of ``rows`` meets program ``p`` of the stacked table: one rule
    alone, as :func:`plaf_grammar.programs.evaluate` runs it with numpy (and the tests
    compare)."""
    n = len(rows)
    out = np.empty(n, dtype=np.bool_)
    _run(code, constants, starts[p], starts[p + 1], rows, np.arange(n), np.empty((max(depth, 1), n)), out)
    return out


@jit
def _broken(code, constants, starts, imp, rows, idx, stack, cond, cons):
    """Sets ``cond[:len(idx)]`` to whether rows ``idx`` break implication ``imp`` (programs
    ``2 imp``: its condition, ``2 imp + 1``: its consequence; ``cons``: scratch)."""
    c = 2 * imp
    _run(code, constants, starts[c], starts[c + 1], rows, idx, stack, cond)
    _run(code, constants, starts[c + 1], starts[c + 2], rows, idx, stack, cons)
    for j in range(len(idx)):
        cond[j] = cond[j] and not cons[j]


@jit
def cascade(rng, rows, changed, code, constants, starts, depth, n_imp, groups, feat_starts, features,
            value_starts, values, cum_starts, cumulative):  # fmt: skip
    """The action cascade, in place on ``rows`` and ``changed``, for ``n_imp`` implications
    (programs 0 .. 2 n_imp - 1 of the stacked table: condition and consequence of each, in
    cascade order). Implication ``i`` repairs its consequence group ``groups[i]``, whose columns are
    ``features[feat_starts[i]:feat_starts[i + 1]]``, from its values that satisfy it (rows of
    ``values[value_starts[i]:]``, that many columns each; ``cumulative[cum_starts[i]:cum_starts[i
    + 1]]`` their cumulative weights; none: the row is dropped).

    Returns whether each row survives, and per implication the rows its first check dropped
    (no value to repair with) and the repaired rows its second check dropped."""
    n = len(rows)
    alive = np.ones(n, dtype=np.bool_)
    repaired = np.zeros(n, dtype=np.bool_)
    first_drop = np.zeros(n_imp, dtype=np.int64)
    second_drop = np.zeros(n_imp, dtype=np.int64)
    stack = np.empty((max(depth, 1), n))
    bad, scratch = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
    live = np.arange(n)
    for imp in range(n_imp):
        _broken(code, constants, starts, imp, rows, live, stack, bad, scratch)
        n_bad = 0
        for j in range(len(live)):
            n_bad += bad[j]
        if n_bad == 0:
            continue
        k = cum_starts[imp + 1] - cum_starts[imp]
        if k == 0:
            first_drop[imp] += n_bad
            for j in range(len(live)):
                if bad[j]:
                    alive[live[j]] = False
            live = true_indices(alive)
            continue
        cum = cumulative[cum_starts[imp]:cum_starts[imp + 1]]
        f0, f1 = feat_starts[imp], feat_starts[imp + 1]
        width, g = f1 - f0, groups[imp]
        u = rng.random(n_bad)
        t = 0
        for j in range(len(live)):
            if not bad[j]:
                continue
            i = live[j]
            pick = min(search_right(cum, u[t] * cum[k - 1]), k - 1)
            t += 1
            at = value_starts[imp] + pick * width
            for c in range(width):
                rows[i, features[f0 + c]] = values[at + c]
            changed[i, g] = True
            repaired[i] = True
    # a repair may have re-violated an earlier rule: only repaired rows can have
    for i in range(n):
        repaired[i] = repaired[i] and alive[i]
    again = true_indices(repaired)
    if len(again):
        for imp in range(n_imp):
            _broken(code, constants, starts, imp, rows, again, stack, bad, scratch)
            for j in range(len(again)):
                if bad[j] and alive[again[j]]:
                    second_drop[imp] += 1
                    alive[again[j]] = False
    return alive, first_drop, second_drop
