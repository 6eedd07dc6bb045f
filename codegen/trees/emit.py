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

import struct

import numpy as np

from codegen.trees.partial import Residual

__all__ = ["emit_residual", "hexf"]


def hexf(v: float) -> str:
    """A double as an exact LLVM hex literal."""
    return "0x{:016X}".format(struct.unpack("<Q", struct.pack("<d", float(v)))[0])


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


def _tree_function(res: Residual, t: int, r0: int, names: _Names, attrs: str, tables: list[str]) -> str:
    """One live tree as a function of the row pointer (tree ``t``, residual root ``r0``)."""
    f = res.forest
    ty = "float" if f.float32_sums else "double"  # leaf values of float32 sums are float32 values
    lines = [f"define internal {ty} @tree_{t}(ptr %row) {attrs} {{", "entry:"]
    # collect the subtree (DFS order) and the columns it reads
    order, stack, used = [], [r0], set()
    while stack:
        r = stack.pop()
        order.append(r)
        if res.col[r] >= 0:
            used.add(int(res.col[r]))
            stack += [int(res.right[r]), int(res.left[r])]
    missing = {s: (below, upto) for s, below, upto in f.missing_values}
    for k in sorted(used):
        lines.append(f"  %p{k} = getelementptr inbounds double, ptr %row, i64 {k}")
        region = missing.get(res.delta[k])
        if region is None:
            lines.append(f"  %v{k} = load double, ptr %p{k}  ; {names.col(k)}")
            continue
        below, upto = region  # the model reads below < v <= upto as missing (a NaN below: no bound)
        lines.append(
            f"  %r{k} = load double, ptr %p{k}  ; {names.col(k)}\n"
            f"  %lo{k} = fcmp ugt double %r{k}, {hexf(below)}\n  %hi{k} = fcmp ole double %r{k}, {hexf(upto)}\n"
            f"  %z{k} = and i1 %lo{k}, %hi{k}\n"
            f"  %v{k} = select i1 %z{k}, double 0x7FF8000000000000, double %r{k}"
            f"  ; {_num(below)} < {names.col(k)} <= {_num(upto)} is read as missing"
        )
    lines.append(f"  br label %n{r0}")
    for r in order:
        node = int(res.node[r])
        k = int(res.col[r])
        if k < 0:
            lines.append(f"n{r}:\n  ret {ty} {hexf(f.value[node])}  ; leaf {_num(f.value[node])}")
            continue
        lo, hi = int(res.left[r]), int(res.right[r])
        cat = int(f.cat[node])
        miss = bool(f.missing_left[node])
        if cat < 0:
            thr = float(f.threshold[node])
            if np.isnan(thr):  # no value goes left (NaN maybe)
                cond = f"fcmp uno double %v{k}, 0.0" if miss else "icmp eq i1 0, 1"
                text = f"{names.col(k)} is NaN" if miss else "never"
            else:
                cond = f"fcmp {'ule' if miss else 'ole'} double %v{k}, {hexf(thr)}"
                text = f"{names.col(k)} <= {_num(thr)}" + (" or NaN" if miss else "")
            lines.append(f"n{r}:  ; {text}\n  %c{r} = {cond}")
        else:
            mask = f.cat_left[cat]
            ncat = len(f.schema.features[res.delta[k]].categories or ())
            text = f"{names.col(k)} in {names.cats(k, mask)}"
            # a code outside [0, ncat) (NaN too) is in no set, as in the kernel: it is never
            # converted, so no poison shift and no read outside the table
            lines.append(
                f"n{r}:  ; {text}\n  %lo{r} = fcmp oge double %v{k}, 0.0\n"
                f"  %hi{r} = fcmp olt double %v{k}, {hexf(float(ncat))}\n  %in{r} = and i1 %lo{r}, %hi{r}\n"
                f"  %w{r} = select i1 %in{r}, double %v{k}, double 0.0\n  %k{r} = fptosi double %w{r} to i64"
            )
            if ncat <= 64:
                bits = sum(1 << int(i) for i in np.flatnonzero(mask[:ncat]))
                lines.append(f"  %s{r} = lshr i64 {bits}, %k{r}\n  %t{r} = trunc i64 %s{r} to i1")
            else:
                g = f"@set{len(tables)}"
                vals = ", ".join(f"i8 {int(b)}" for b in mask[:ncat])
                tables.append(f"{g} = internal unnamed_addr constant [{ncat} x i8] [{vals}]")
                lines.append(
                    f"  %q{r} = getelementptr inbounds [{ncat} x i8], ptr {g}, i64 0, i64 %k{r}\n"
                    f"  %b{r} = load i8, ptr %q{r}\n  %t{r} = icmp ne i8 %b{r}, 0"
                )
            if miss:
                lines.append(
                    f"  %i{r} = and i1 %in{r}, %t{r}\n  %m{r} = fcmp uno double %v{k}, 0.0\n"
                    f"  %c{r} = or i1 %i{r}, %m{r}"
                )
            else:
                lines.append(f"  %c{r} = and i1 %in{r}, %t{r}")
        lines.append(f"  br i1 %c{r}, label %n{lo}, label %n{hi}")
    lines.append("}")
    return "\n".join(lines)


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
    ty, dt = ("float", np.float32) if f.float32_sums else ("double", np.float64)
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
    head = [
        f"; geco residual forest: {f.name}, P(class {f.desired_class!r})",
        f"; delta: {', '.join(f'{names.col(k)} (col {k})' for k in range(width)) or '(none)'}",
        f"; trees: {f.n_trees} total, {len(live)} live, {f.n_trees - len(live)} folded into constants;"
        f" {res.n_splits} live splits",
    ]
    if f.float32_sums:
        head.append("; sums in float32, as the model adds its margins")
    if x is not None:
        fixed = [i for i in range(len(f.schema)) if i not in res.delta]
        shown = ", ".join(f"{f.schema.names[i]}={f.schema.decode_value(f.schema.names[i], x[i])!r}" for i in fixed[:8])
        head.append(f"; x (fixed): {shown}{', ...' if len(fixed) > 8 else ''}")
    for k in range(K):
        head.append(
            f"; output {k}: bias = {_num(bias[k])} (init {_num(f.init[k])} + {first[k]} leading constant trees)"
        )
    tables: list[str] = []
    funcs = [_tree_function(res, t, live_root[t], names, attrs, tables) for t in sorted(live)]
    body = [
        "define void @score(ptr noalias %cols, i64 %n, ptr noalias %out) {",
        "entry:",
        "  %empty = icmp sle i64 %n, 0",
        "  br i1 %empty, label %exit, label %loop",
        "loop:",
        "  %i = phi i64 [0, %entry], [%i1, %loop]",
        f"  %off = mul i64 %i, {width}",
        "  %row = getelementptr inbounds double, ptr %cols, i64 %off",
    ]
    for k in range(K):
        acc = hexf(bias[k])
        body.append(f"  ; output {k}: starts at the folded bias {_num(bias[k])}")
        for j, t in enumerate(order_by_out[k][first[k]:]):
            name = f"%a{k}_{j}"
            if t in live:
                body.append(f"  %t{t} = call {ty} @tree_{t}(ptr %row)")
                body.append(f"  {name} = fadd {ty} {acc}, %t{t}")
            else:
                body.append(f"  {name} = fadd {ty} {acc}, {hexf(res.const[t])}  ; tree_{t} constant")
            acc = name
        if f.float32_sums:
            body.append(f"  %w{k} = fpext float {acc} to double")
            acc = f"%w{k}"
        if f.divisor is not None:
            body.append(f"  %p{k} = fdiv double {acc}, {hexf(f.divisor)}  ; mean over {int(f.divisor)} trees")
            acc = f"%p{k}"
            body.append("  %o0 = getelementptr inbounds double, ptr %out, i64 %i")
        else:
            body.append(f"  %ob{k} = mul i64 %i, {K}\n  %oi{k} = add i64 %ob{k}, {k}")
            body.append(f"  %o{k} = getelementptr inbounds double, ptr %out, i64 %oi{k}")
        body.append(f"  store double {acc}, ptr %o{k}")
    body += [
        "  %i1 = add i64 %i, 1",
        "  %done = icmp eq i64 %i1, %n",
        "  br i1 %done, label %exit, label %loop",
        "exit:",
        "  ret void",
        "}",
    ]
    return "\n".join([*head, "", *tables, *funcs, "", *body]) + "\n"
