"""LLVM IR text for a residual forest (:class:`codegen.trees.partial.Residual`).

Why text and not ``llvmlite.ir``: string emission is about 10x faster for large modules and reads
naturally in ``geco ir``. No llvmlite import here; :mod:`codegen.llvm.binding` compiles the text.

Shape of the module (readable on purpose, users debug with it)::

    ; header: model, desired class, x, Δ, tree counts, the folded bias
    define internal double @tree_17(ptr %row) noinline { ... }   ; one per live tree, numbered as
                                                                  ; in the estimator
    define void @score(ptr noalias %cols, i64 %n, ptr noalias %out)

``score`` loops over the ``n`` rows of the C-contiguous ``(n, len(Δ))`` block. Per row and per
output it starts from the folded bias (the initial value plus the leading run of constant trees,
summed in order - exact), then adds every remaining tree *in estimator order*: a call for a live
tree, an ``fadd`` of the constant (commented with the tree number) for a folded one. So the sums
are sklearn's sums, bit for bit. Forests end with ``fdiv`` by the tree count and store P(desired);
boosting stores the raw scores ``out[i*K + k]`` and the caller applies sklearn's own link. XGBoost
sums its margins in float32: there the trees return ``float`` and the sums are ``fadd float``
(the bias folded in float32 too), widened to double only for the store.

Splits: ``fcmp ole double %v, T`` (``ule`` when NaN goes left; ``T`` already folded to the user's
scale and float32 rounding, see :mod:`codegen.trees.fold`); categorical code sets of up to 64 codes are
one shift of a 64-bit mask, larger sets a byte-table load. Categorical inputs must be valid codes.
Values a model reads as missing (``Forest.missing_values``: 0 behind a sparse XGBoost input) are
turned into NaN by a ``select`` right after their load.
"""

from __future__ import annotations

import math

import numpy as np

from codegen.llvm.ir_text import FunctionText, hex_double, module_comment
from codegen.outputs import output_of
from codegen.trees.partial import Residual

__all__ = ["SCORE_SIGNATURE", "emit_residual"]

#: the entry point of every emitted module (the compiled tier reads its ctypes types from here)
SCORE_SIGNATURE = "define void @score(ptr noalias %cols, i64 %n, ptr noalias %out)"


def _num(v: float) -> str:
    return repr(float(v))


class _Names:
    """Feature / category names for comments (kept short: a comment per split)."""

    def __init__(self, res: Residual):
        self.schema = res.forest.schema
        self.delta = res.delta

    def col(self, k: int) -> str:
        return self.schema.names[self.delta[k]]

    def cats(self, k: int, mask: np.ndarray) -> str:
        cats = self.schema.features[self.delta[k]].categories or ()
        shown = [str(cats[i]) for i in np.flatnonzero(mask[: len(cats)])]
        s = ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")
        return "{" + s + "}"


class _Nodes:
    """The residual nodes as Python lists (one conversion per module: reading numpy scalars one by
    one would cost more than writing the text), with the forest's test of each node."""

    __slots__ = ("cat", "col", "left", "missing_left", "right", "threshold", "value")

    def __init__(self, res: Residual):
        f, nd = res.forest, res.node
        self.col: list[int] = res.col.tolist()
        self.left: list[int] = res.left.tolist()
        self.right: list[int] = res.right.tolist()
        self.value: list[float] = f.value[nd].tolist()
        self.threshold: list[float] = f.threshold[nd].tolist()
        self.cat: list[int] = f.cat[nd].tolist()
        self.missing_left: list[bool] = f.missing_left[nd].astype(bool).tolist()


def _tree_function(res: Residual, nodes: _Nodes, t: int, r0: int, names: _Names, attrs: str,
                   tables: list[str]) -> str:  # fmt: skip
    """One live tree as a function of the row pointer (tree ``t``, residual root ``r0``)."""
    f = res.forest
    col, left, right = nodes.col, nodes.left, nodes.right
    ty = "float" if f.float32_sums else "double"  # leaf values of float32 sums are float32 values
    fn = FunctionText(f"define internal {ty} @tree_{t}(ptr %row) {attrs}")
    label, instr, instrs = fn.label, fn.instr, fn.instrs
    label("entry")
    # collect the subtree (DFS order) and the columns it reads
    order, stack, used = [], [r0], set()
    while stack:
        r = stack.pop()
        order.append(r)
        if col[r] >= 0:
            used.add(col[r])
            stack += [right[r], left[r]]
    missing = {s: (below, upto) for s, below, upto in f.missing_values}
    for k in sorted(used):
        instr(f"%p{k} = getelementptr inbounds double, ptr %row, i64 {k}")
        region = missing.get(res.delta[k])
        if region is None:
            instr(f"%v{k} = load double, ptr %p{k}", names.col(k))
            continue
        below, upto = region  # the model reads below < v <= upto as missing (a NaN below: no bound)
        instr(f"%r{k} = load double, ptr %p{k}", names.col(k))
        instrs(
            f"%lo{k} = fcmp ugt double %r{k}, {hex_double(below)}",
            f"%hi{k} = fcmp ole double %r{k}, {hex_double(upto)}",
            f"%z{k} = and i1 %lo{k}, %hi{k}",
            f"%v{k} = select i1 %z{k}, double 0x7FF8000000000000, double %r{k}",
            note=f"{_num(below)} < {names.col(k)} <= {_num(upto)} is read as missing",
        )
    instr(f"br label %n{r0}")
    for r in order:
        k = col[r]
        if k < 0:
            value = nodes.value[r]
            label(f"n{r}")
            instr(f"ret {ty} {hex_double(value)}", f"leaf {value!r}")
            continue
        branch = f"br i1 %c{r}, label %n{left[r]}, label %n{right[r]}"
        cat = nodes.cat[r]
        miss = nodes.missing_left[r]
        if cat < 0:
            thr = nodes.threshold[r]
            if math.isnan(thr):  # no value goes left (NaN maybe)
                cond = f"fcmp uno double %v{k}, 0.0" if miss else "icmp eq i1 0, 1"
                text = f"{names.col(k)} is NaN" if miss else "never"
            else:
                cond = f"fcmp {'ule' if miss else 'ole'} double %v{k}, {hex_double(thr)}"
                text = f"{names.col(k)} <= {thr!r}" + (" or NaN" if miss else "")
            label(f"n{r}", text)
            instrs(f"%c{r} = {cond}", branch)
            continue
        mask = f.cat_left[cat]
        ncat = len(f.schema.features[res.delta[k]].categories or ())
        label(f"n{r}", f"{names.col(k)} in {names.cats(k, mask)}")
        # a code outside [0, ncat) (NaN too) is in no set, as in the kernel: it is never
        # converted, so no poison shift and no read outside the table
        instrs(
            f"%lo{r} = fcmp oge double %v{k}, 0.0",
            f"%hi{r} = fcmp olt double %v{k}, {hex_double(float(ncat))}",
            f"%in{r} = and i1 %lo{r}, %hi{r}",
            f"%w{r} = select i1 %in{r}, double %v{k}, double 0.0",
            f"%k{r} = fptosi double %w{r} to i64",
        )
        if ncat <= 64:
            bits = sum(1 << int(i) for i in np.flatnonzero(mask[:ncat]))
            instrs(f"%s{r} = lshr i64 {bits}, %k{r}", f"%t{r} = trunc i64 %s{r} to i1")
        else:
            g = f"@set{len(tables)}"
            vals = ", ".join(f"i8 {int(b)}" for b in mask[:ncat])
            tables.append(f"{g} = internal unnamed_addr constant [{ncat} x i8] [{vals}]")
            instrs(
                f"%q{r} = getelementptr inbounds [{ncat} x i8], ptr {g}, i64 0, i64 %k{r}",
                f"%b{r} = load i8, ptr %q{r}",
                f"%t{r} = icmp ne i8 %b{r}, 0",
            )
        if miss:
            instrs(f"%i{r} = and i1 %in{r}, %t{r}", f"%m{r} = fcmp uno double %v{k}, 0.0", f"%c{r} = or i1 %i{r}, %m{r}",
                   branch)  # fmt: skip
        else:
            instrs(f"%c{r} = and i1 %in{r}, %t{r}", branch)
    return fn.text()


def emit_residual(res: Residual, *, inline: bool | None = None, x: np.ndarray | None = None) -> str:
    """The IR module for ``res``. ``inline``: let LLVM inline the tree functions (only sensible for
    small residuals; the default decides by size - inlining hundreds of trees into the row loop
    makes compile time explode)."""
    f = res.forest
    if inline is None:
        inline = res.n_splits <= 2000
    attrs = "alwaysinline" if inline else "noinline"
    names = _Names(res)
    width = len(res.delta)
    K = f.n_outputs
    live = set(int(t) for t in res.live)
    live_root = dict(zip((int(t) for t in res.live), (int(r) for r in res.root)))
    # leading constants per output fold exactly into the bias
    order_by_out: list[list[int]] = [[t for t in range(f.n_trees) if f.output[t] == k] for k in range(K)]
    dt = np.float32 if f.float32_sums else np.float64
    bias, first = [], []
    for k in range(K):
        ts = order_by_out[k]
        j = 0
        acc = np.array([f.init[k]], dtype=dt)
        while j < len(ts) and ts[j] not in live:
            acc = acc + dt(res.const[ts[j]])  # the same IEEE addition, in order
            j += 1
        bias.append(float(acc[0]))
        first.append(j)
    scored = f"P(class {f.desired_class!r})" if output_of(f.desired_class).kind == "proba" else f"{f.desired_class!r}"
    head = [
        f"geco residual forest: {f.name}, {scored}",
        f"delta: {', '.join(f'{names.col(k)} (col {k})' for k in range(width)) or '(none)'}",
        f"trees: {f.n_trees} total, {len(live)} live, {f.n_trees - len(live)} folded into constants;"
        f" {res.n_splits} live splits",
    ]
    if f.float32_sums:
        head.append("sums in float32, as the model adds its margins")
    if x is not None:
        fixed = [i for i in range(len(f.schema)) if i not in res.delta]
        shown = ", ".join(f"{f.schema.names[i]}={f.schema.decode_value(f.schema.names[i], x[i])!r}" for i in fixed[:8])
        head.append(f"x (fixed): {shown}{', ...' if len(fixed) > 8 else ''}")
    for k in range(K):
        head.append(f"output {k}: bias = {_num(bias[k])} (init {_num(f.init[k])} + {first[k]} leading constant trees)")
    tables: list[str] = []
    nodes = _Nodes(res)
    funcs = [_tree_function(res, nodes, t, live_root[t], names, attrs, tables) for t in sorted(live)]
    return "\n".join([*map(module_comment, head), "", *tables, *funcs, "", _score_function(res, order_by_out, bias, first)]) + "\n"


def _score_function(res: Residual, order_by_out: list[list[int]], bias: list[float], first: list[int]) -> str:
    """``@score``: the row loop adding, per output, the folded bias and then every remaining tree in
    estimator order (``first[k]`` leading constant trees of output ``k`` are in ``bias[k]``)."""
    f = res.forest
    K = f.n_outputs
    ty = "float" if f.float32_sums else "double"
    live = set(int(t) for t in res.live)
    fn = FunctionText(SCORE_SIGNATURE)
    label, instr, instrs = fn.label, fn.instr, fn.instrs
    label("entry")
    instrs("%empty = icmp sle i64 %n, 0", "br i1 %empty, label %exit, label %loop")
    label("loop")
    instrs(
        "%i = phi i64 [0, %entry], [%i1, %loop]",
        f"%off = mul i64 %i, {len(res.delta)}",
        "%row = getelementptr inbounds double, ptr %cols, i64 %off",
    )
    for k in range(K):
        acc = hex_double(bias[k])
        fn.comment(f"output {k}: starts at the folded bias {_num(bias[k])}")
        for j, t in enumerate(order_by_out[k][first[k]:]):
            name = f"%a{k}_{j}"
            if t in live:
                instrs(f"%t{t} = call {ty} @tree_{t}(ptr %row)", f"{name} = fadd {ty} {acc}, %t{t}")
            else:
                instr(f"{name} = fadd {ty} {acc}, {hex_double(res.const[t])}", f"tree_{t} constant")
            acc = name
        if f.float32_sums:
            instr(f"%w{k} = fpext float {acc} to double")
            acc = f"%w{k}"
        if f.divisor is not None:
            instr(f"%p{k} = fdiv double {acc}, {hex_double(f.divisor)}", f"mean over {int(f.divisor)} trees")
            acc = f"%p{k}"
            instr("%o0 = getelementptr inbounds double, ptr %out, i64 %i")
        else:
            instrs(
                f"%ob{k} = mul i64 %i, {K}",
                f"%oi{k} = add i64 %ob{k}, {k}",
                f"%o{k} = getelementptr inbounds double, ptr %out, i64 %oi{k}",
            )
        instr(f"store double {acc}, ptr %o{k}")
    instrs("%i1 = add i64 %i, 1", "%done = icmp eq i64 %i1, %n", "br i1 %done, label %exit, label %loop")
    label("exit")
    instr("ret void")
    return fn.text()
