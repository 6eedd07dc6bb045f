"""LLVM IR text for a partially evaluated MLP (no llvmlite import: text only).

One kernel per *model*: the folded bias of (x, Δ), a small descriptor of Δ's terms and the weights
are passed as buffers, so the machine code is compiled once per model and reused for every
instance and every Δ::

    void @mlp_score(i64 n, ptr cols, i64 ncols, ptr terms, i64 nterms,
                    ptr bias, ptr first, ptr dense, ptr out)

Rows go in tiles of ``TILE`` rows with explicit ``<8 x double>`` vectors (AVX-512 width; LLVM
legalises to 2x256 / 4x128 elsewhere): every dense layer is a loop over blocks of 8 output units;
an inner loop over the inputs does one vector load of the weight row segment and ``TILE``
broadcast-``fmuladd``s into register accumulators, so each weight load feeds ``TILE`` rows. Layer
widths are padded to multiples of 8 with zero weights (:func:`pack_dense`). Rows past ``n`` in the
last tile repeat row ``n-1`` (same value written twice), so there is no scalar tail loop.

``tanh``/``logistic`` hidden activations use the inlined vector ``exp`` of
``codegen/llvm/mlp_vector_math.ll`` (a few ulp, far below the 1e-12 contract). The output
probability uses libm's scalar ``exp`` like sklearn; a set of classes sums its columns'
probabilities in the order given (``predict_proba(X)[:, cols].sum(1)``); a regressor's identity
output unit is stored as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from codegen.llvm.ir_text import FunctionText, hex_double, module_comment
from codegen.llvm.sources import ir_source
from codegen.mlp.reader import MLP

__all__ = ["LANES", "TILE", "KernelShape", "emit_generic", "pack_dense", "pad"]

LANES = 8  # doubles per vector
TILE = 8  # rows per tile: 8 accumulators + 1 weight vector stay in registers
VEC = f"<{LANES} x double>"


def pad(n: int) -> int:
    """``n`` rounded up to whole vectors."""
    return -(-n // LANES) * LANES


@dataclass(frozen=True)
class KernelShape:
    """What the generic kernel's code depends on: layer sizes, activations, output, the scored
    class columns (their probabilities summed; ``(0,)`` for an identity output)."""

    sizes: tuple[int, ...]  # units per layer incl. input and output
    hidden: str
    output: str
    columns: tuple[int, ...]

    @classmethod
    def of(cls, mlp: MLP) -> KernelShape:
        return cls(mlp.layer_sizes, mlp.hidden, mlp.output, tuple(mlp.columns))

    @property
    def column(self) -> int:
        """The first (for one class: the only) scored column."""
        return self.columns[0]

    def describe_columns(self) -> str:
        """The header's words for what is scored."""
        if self.output == "identity":
            return "scoring the prediction"
        if len(self.columns) == 1:
            return f"desired column {self.column}"
        return f"desired columns {', '.join(map(str, self.columns))} (probabilities summed)"

    @property
    def padded(self) -> tuple[int, ...]:
        return tuple(pad(s) for s in self.sizes[1:])

    def dense_offsets(self) -> list[tuple[int, int]]:
        """(weight offset, bias offset) in doubles of layers 1.. inside the ``dense`` buffer."""
        offs, pos = [], 0
        for li in range(1, len(self.sizes) - 1):
            n_in, p_out = self.sizes[li], pad(self.sizes[li + 1])
            offs.append((pos, pos + n_in * p_out))
            pos += n_in * p_out + p_out
        return offs


def pack_dense(mlp: MLP) -> np.ndarray:
    """Layers 1.. as one float64 buffer: per layer ``W`` padded to ``(n_in, pad(n_out))`` then ``b``."""
    parts = []
    for w, b in zip(mlp.weights[1:], mlp.biases[1:]):
        wp = np.zeros((w.shape[0], pad(w.shape[1])))
        wp[:, : w.shape[1]] = w
        bp = np.zeros(pad(len(b)))
        bp[: len(b)] = b
        parts += [wp.ravel(), bp]
    return np.ascontiguousarray(np.concatenate(parts) if parts else np.zeros(LANES))


# ------------------------------------------------------------------------------------ emitter
class _Fn(FunctionText):
    """A function's IR text (:class:`codegen.llvm.ir_text.FunctionText`) with fresh names,
    labels and loops with loop-carried values."""

    __slots__ = ("block", "n")

    def __init__(self, signature: str) -> None:
        super().__init__(signature)
        self.n = 0
        self.block = "entry"

    def tmp(self, stem: str = "t") -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def emit(self, line: str) -> None:
        self.instr(line)

    def label(self, name: str, note: str | None = None) -> None:
        super().label(name, note)
        self.block = name

    def fresh_label(self, stem: str) -> str:
        self.n += 1
        return f"{stem}.{self.n}"

    def op(self, text: str, stem: str = "t") -> str:
        r = self.tmp(stem)
        self.emit(f"{r} = {text}")
        return r

    # -- loops: `for i in range(start, end, step)` carrying values through phis
    def loop(self, stem: str, start: str, end: str, step: int = 1, carried: Sequence[tuple[str, str]] = ()):
        """Open a loop; returns (state, index, carried values). Close with :meth:`end_loop`."""
        name = self.fresh_label(stem)
        pred = self.block
        self.emit(f"br label %{name}.head")
        self.label(f"{name}.head")
        i = f"%{name}.i"
        phis = []
        for j, (ty, init) in enumerate(carried):
            phis.append((f"%{name}.c{j}", ty, init))
        self.instr(f"{i} = phi i64 [ {start}, %{pred} ], [ %{name}.next, %{name}.LATCH ]")
        for pname, ty, init in phis:
            self.instr(f"{pname} = phi {ty} [ {init}, %{pred} ], [ {pname}.next, %{name}.LATCH ]")
        cond = f"%{name}.cond"
        self.emit(f"{cond} = icmp slt i64 {i}, {end}")
        self.emit(f"br i1 {cond}, label %{name}.body, label %{name}.exit")
        self.label(f"{name}.body")
        return (name, step, phis, len(self.lines)), i, [p[0] for p in phis]

    def end_loop(self, state, updates: Sequence[str] = ()) -> list[str]:
        name, step, phis, _ = state
        latch = self.block
        self.emit(f"%{name}.next = add nuw nsw i64 %{name}.i, {step}")
        for (pname, ty, _init), new in zip(phis, updates):
            self.emit(f"{pname}.next = {_same(ty, new)}")
        self.emit(f"br label %{name}.head")
        self.label(f"{name}.exit")
        # patch the placeholder latch label in the phis
        for idx, ln in enumerate(self.lines):
            if f"%{name}.LATCH" in ln:
                self.lines[idx] = ln.replace(f"%{name}.LATCH", f"%{latch}")
        return [p[0] for p in phis]

    # -- small vector helpers
    def splat(self, scalar: str) -> str:
        v = self.op(f"insertelement {VEC} poison, double {scalar}, i64 0", "s")
        return self.op(f"shufflevector {VEC} {v}, {VEC} poison, <{LANES} x i32> zeroinitializer", "sv")

    def gep(self, base: str, idx: str, stem: str = "p") -> str:
        return self.op(f"getelementptr inbounds double, ptr {base}, i64 {idx}", stem)

    def vload(self, base: str, idx: str) -> str:
        return self.op(f"load {VEC}, ptr {self.gep(base, idx)}, align 8", "v")

    def vstore(self, val: str, base: str, idx: str) -> None:
        self.emit(f"store {VEC} {val}, ptr {self.gep(base, idx)}, align 8")

    def fma(self, a: str, b: str, c: str) -> str:
        return self.op(f"call {VEC} @llvm.fmuladd.v{LANES}f64({VEC} {a}, {VEC} {b}, {VEC} {c})", "acc")


def _same(ty: str, value: str) -> str:
    """An instruction that copies ``value`` (phi inputs must be named values)."""
    if ty == "i64":
        return f"add i64 {value}, 0"
    if ty == "ptr":
        return f"getelementptr i8, ptr {value}, i64 0"
    return f"fadd {ty} {value}, {'zeroinitializer' if ty.startswith('<') else '0.0'}"


def _cvec(v: float) -> str:
    return "<" + ", ".join([f"double {hex_double(v)}"] * LANES) + ">"


def _activation(fn: _Fn, name: str, v: str) -> str:
    """Hidden activation on one vector (sklearn: identity, relu, tanh, logistic=expit)."""
    if name == "identity":
        return v
    if name == "relu":
        # ugt: NaN passes through like np.maximum(NaN, 0)
        c = fn.op(f"fcmp ugt {VEC} {v}, zeroinitializer", "gt")
        return fn.op(f"select <{LANES} x i1> {c}, {VEC} {v}, {VEC} zeroinitializer", "relu")
    if name == "logistic":
        neg = fn.op(f"fneg {VEC} {v}", "neg")
        e = fn.op(f"call {VEC} @geco_vexp({VEC} {neg})", "e")
        d = fn.op(f"fadd {VEC} {e}, {_cvec(1.0)}", "d")
        return fn.op(f"fdiv {VEC} {_cvec(1.0)}, {d}", "sig")
    if name == "tanh":
        # tanh(v) = sign(v) * (1 - 2 / (exp(2|v|) + 1)); absolute error ~1e-16 near 0
        a = fn.op(f"call {VEC} @llvm.fabs.v8f64({VEC} {v})", "abs")
        a2 = fn.op(f"fadd {VEC} {a}, {a}", "a2")
        e = fn.op(f"call {VEC} @geco_vexp({VEC} {a2})", "e")
        d = fn.op(f"fadd {VEC} {e}, {_cvec(1.0)}", "d")
        q = fn.op(f"fdiv {VEC} {_cvec(2.0)}, {d}", "q")
        t = fn.op(f"fsub {VEC} {_cvec(1.0)}, {q}", "th")
        return fn.op(f"call {VEC} @llvm.copysign.v8f64({VEC} {t}, {VEC} {v})", "tanh")
    raise ValueError(name)


# ------------------------------------------------------------------------------------ the body
class _Body:
    """Emits the row-tile loop; the first-layer terms come from a callback."""

    def __init__(self, fn: _Fn, shape: KernelShape, tile: int = TILE):
        self.fn, self.shape, self.tile = fn, shape, tile
        self.pmax = max(shape.padded)

    def run(self, n: str, cols: str, ncols: str, bias: str, dense_ptrs, emit_terms, out: str) -> None:
        fn, T = self.fn, self.tile
        size = T * self.pmax
        fn.comment(f"two activation buffers of {T} rows x {self.pmax} padded units (ping-pong)")
        bufs = [fn.op(f"alloca [{size} x double], align 64", "buf"), fn.op(f"alloca [{size} x double], align 64", "buf")]
        rem = fn.op(f"urem i64 {n}, {T}", "rem")
        nfull = fn.op(f"sub i64 {n}, {rem}", "nfull")
        nm1 = fn.op(f"sub i64 {n}, 1", "nm1")
        fn.comment(f"whole tiles of {T} rows")
        self._section(T, "0", nfull, None, bufs, cols, ncols, bias, dense_ptrs, emit_terms, out)
        tail = max(1, T // 2)
        fn.comment(
            f"the last n mod {T} rows in tiles of {tail}; rows past n-1 repeat row n-1 (same value "
            "stored twice): a half tile still keeps the FMA pipes busy, one row alone would not"
        )
        self._section(tail, nfull, n, nm1, bufs, cols, ncols, bias, dense_ptrs, emit_terms, out)
        self.tile = T
        fn.emit("ret void")

    def _section(self, T, start, end, clamp, bufs, cols, ncols, bias, dense_ptrs, emit_terms, out) -> None:
        fn, sh = self.fn, self.shape
        self.tile = T
        st, r0, _ = fn.loop("tile", start, end, T)
        rows = []
        for t in range(T):
            rt = fn.op(f"add i64 {r0}, {t}", "row") if t else r0
            if clamp is not None:
                rt = fn.op(f"call i64 @llvm.umin.i64(i64 {rt}, i64 {clamp})", "row")
            rows.append(rt)
        h1p = sh.padded[0]
        z = bufs[0]
        fn.comment(f"layer 1 ({sh.sizes[0]} -> {sh.sizes[1]}): z = folded bias + the terms of the features in Delta")
        stj, jb, _ = fn.loop("zinit", "0", str(h1p), LANES)
        b = fn.vload(bias, jb)
        for t in range(T):
            fn.vstore(b, z, fn.op(f"add i64 {jb}, {t * self.pmax}", "o"))
        fn.end_loop(stj)
        emit_terms(self, rows, cols, ncols, z)
        n_layers = len(sh.sizes) - 1
        cur = z
        if n_layers > 1:
            fn.comment(f"hidden activation ({sh.hidden}) of layer 1")
            nxt = bufs[1]
            stj, jb, _ = fn.loop("act1", "0", str(h1p), LANES)
            for t in range(T):
                o = fn.op(f"add i64 {jb}, {t * self.pmax}", "o")
                fn.vstore(_activation(fn, sh.hidden, fn.vload(cur, o)), nxt, o)
            fn.end_loop(stj)
            cur = nxt
        for li in range(1, n_layers):
            w_ptr, b_ptr = dense_ptrs[li - 1]
            n_in, n_out = sh.sizes[li], sh.sizes[li + 1]
            p_out = pad(n_out)
            last = li == n_layers - 1
            act = "identity" if last else sh.hidden
            dst = bufs[0] if cur == bufs[1] else bufs[1]
            fn.comment(
                f"layer {li + 1} ({n_in} -> {n_out}{', output' if last else ', ' + act}): "
                f"8 units x {T} rows per block, one weight vector feeds {T} rows"
            )
            stj, jb, _ = fn.loop(f"l{li + 1}.blk", "0", str(p_out), LANES)
            bv = fn.vload(b_ptr, jb)
            sti, i, accs = fn.loop(f"l{li + 1}.in", "0", str(n_in), 1, [(VEC, bv)] * T)
            wrow = fn.op(f"mul nuw nsw i64 {i}, {p_out}", "wr")
            w = fn.vload(w_ptr, fn.op(f"add i64 {wrow}, {jb}", "wo"))
            new = []
            for t in range(T):
                ai = fn.op(f"load double, ptr {fn.gep(cur, fn.op(f'add i64 {i}, {t * self.pmax}', 'ai'))}, align 8", "a")
                new.append(fn.fma(fn.splat(ai), w, accs[t]))
            accs = fn.end_loop(sti, new)
            for t in range(T):
                fn.vstore(_activation(fn, act, accs[t]), dst, fn.op(f"add i64 {jb}, {t * self.pmax}", "o"))
            fn.end_loop(stj)
            cur = dst
        self._finish(cur, rows, out)
        fn.end_loop(st)

    def _finish(self, buf: str, rows: list[str], out: str) -> None:
        fn, sh = self.fn, self.shape
        k_out = sh.sizes[-1]
        c, cols = sh.column, sh.columns
        several = len(cols) > 1
        if sh.output == "identity":
            fn.comment("identity output: the prediction is the output unit itself")
        elif sh.output == "softmax":
            what = f"P(class column {c})" if not several else f"P(class columns {', '.join(map(str, cols))}) summed in that order"
            fn.comment(f"softmax over {k_out} classes (max-shifted, as sklearn); {what}")
        elif k_out == 1 and several:
            fn.comment(f"logistic output: p1 = 1 / (1 + exp(-z)); columns {', '.join(map(str, cols))} of (1 - p1, p1) summed")
        elif k_out == 1:
            fn.comment(f"logistic output: p1 = 1 / (1 + exp(-z)); desired column {c}" + (" -> 1 - p1" if c == 0 else ""))
        elif several:
            fn.comment(f"multi-label logistic output, columns {', '.join(map(str, cols))} summed")
        else:
            fn.comment(f"multi-label logistic output, column {c}")
        for t, row in enumerate(rows):
            zs = [
                fn.op(f"load double, ptr {fn.gep(buf, str(t * self.pmax + k))}, align 8", "z")
                for k in range(k_out)
            ]
            if sh.output == "identity":
                p = zs[0]
            elif sh.output == "softmax":
                m = zs[0]
                for zk in zs[1:]:
                    gt = fn.op(f"fcmp ogt double {zk}, {m}", "gt")
                    m = fn.op(f"select i1 {gt}, double {zk}, double {m}", "max")
                es = [fn.op(f"call double @llvm.exp.f64(double {fn.op(f'fsub double {zk}, {m}', 'sh')})", "e") for zk in zs]
                s = es[0]
                for e in es[1:]:
                    s = fn.op(f"fadd double {s}, {e}", "sum")
                p = self._sum(fn.op(f"fdiv double {es[k]}, {s}", "p") for k in cols)
            elif k_out == 1:
                e = fn.op(f"call double @llvm.exp.f64(double {fn.op(f'fneg double {zs[0]}', 'neg')})", "e")
                p1 = fn.op(f"fdiv double 1.0, {fn.op(f'fadd double {e}, 1.0', 'd')}", "p")
                p0 = fn.op(f"fsub double 1.0, {p1}", "p0") if 0 in cols else None
                p = self._sum(p0 if k == 0 else p1 for k in cols)
            else:
                ps = []
                for k in cols:
                    e = fn.op(f"call double @llvm.exp.f64(double {fn.op(f'fneg double {zs[k]}', 'neg')})", "e")
                    ps.append(fn.op(f"fdiv double 1.0, {fn.op(f'fadd double {e}, 1.0', 'd')}", "p"))
                p = self._sum(ps)
            fn.emit(f"store double {p}, ptr {fn.gep(out, row)}, align 8")

    def _sum(self, values) -> str:
        """``values`` added left to right (one value: itself)."""
        values = list(values)
        total = values[0]
        for v in values[1:]:
            total = self.fn.op(f"fadd double {total}, {v}", "pset")
        return total

    # -- first-layer term bodies
    def affine_term(self, rows, cols, ncols, k, params, wrow, z) -> None:
        """z[t] += (((v_t - sub) / div) * mul + add) * wrow for the tile's rows."""
        fn, T = self.fn, self.tile
        sub, div, mul, add, lo, hi = params
        svs = []
        for t in range(T):
            idx = fn.op(f"add i64 {fn.op(f'mul i64 {rows[t]}, {ncols}', 'ri')}, {k}", "ci")
            v = fn.op(f"load double, ptr {fn.gep(cols, idx)}, align 8", "col")
            u = v
            for opcode, const in (("fsub", sub), ("fdiv", div), ("fmul", mul), ("fadd", add)):
                u = fn.op(f"{opcode} double {u}, {const}", "u")
            # np.clip(u, lo, hi) = min(max(u, lo), hi); lo, hi = -inf, inf without a clip
            u = fn.op(f"call double @llvm.maxnum.f64(double {u}, double {lo})", "u")
            u = fn.op(f"call double @llvm.minnum.f64(double {u}, double {hi})", "u")
            svs.append(fn.splat(u))
        st, jb, _ = fn.loop("aff", "0", str(self.shape.padded[0]), LANES)
        w = fn.vload(wrow, jb)
        for t in range(T):
            o = fn.op(f"add i64 {jb}, {t * self.pmax}", "o")
            fn.vstore(fn.fma(svs[t], w, fn.vload(z, o)), z, o)
        fn.end_loop(st)

    def table_term(self, rows, cols, ncols, k, block, z) -> None:
        """z[t] += table[code_t] (a categorical value picks its precomputed weight row).

        ``block`` holds ``n_codes`` in its first lane, then the table; a value that is not one
        of the codes 0..n_codes-1 (NaN, out of range, fractional) picks row ``n_codes``, the NaN
        row, and is never converted to an integer unchecked: no read outside the table."""
        fn, T = self.fn, self.tile
        h1p = self.shape.padded[0]
        ncodes = fn.op(f"load double, ptr {block}, align 8", "ncodes")
        table = fn.gep(block, str(LANES), "table")
        bases = []
        for t in range(T):
            idx = fn.op(f"add i64 {fn.op(f'mul i64 {rows[t]}, {ncols}', 'ri')}, {k}", "ci")
            v = fn.op(f"load double, ptr {fn.gep(cols, idx)}, align 8", "col")
            lo = fn.op(f"fcmp oge double {v}, 0.0", "lo")
            hi = fn.op(f"fcmp olt double {v}, {ncodes}", "hi")
            inside = fn.op(f"and i1 {lo}, {hi}", "in")
            safe = fn.op(f"select i1 {inside}, double {v}, double {ncodes}", "safe")
            code = fn.op(f"fptosi double {safe} to i64", "code")
            whole = fn.op(f"fcmp oeq double {fn.op(f'sitofp i64 {code} to double', 'back')}, {v}", "whole")
            row = fn.op(f"select i1 {whole}, i64 {code}, i64 {fn.op(f'fptosi double {ncodes} to i64', 'nc')}", "trow")
            bases.append(fn.gep(table, fn.op(f"mul i64 {row}, {h1p}", "co"), "trow"))
        st, jb, _ = fn.loop("tab", "0", str(h1p), LANES)
        for t in range(T):
            o = fn.op(f"add i64 {jb}, {t * self.pmax}", "o")
            s = fn.op(f"fadd {VEC} {fn.vload(z, o)}, {fn.vload(bases[t], jb)}", "zt")
            fn.vstore(s, z, o)
        fn.end_loop(st)


def _header(shape: KernelShape, title: str) -> list[str]:
    sizes = " -> ".join(str(s) for s in shape.sizes)
    return [
        module_comment(title),
        module_comment(
            f"network {sizes}, hidden activation {shape.hidden}, output {shape.output}, "
            f"{shape.describe_columns()}; vectors of {LANES} doubles, tiles of {TILE} rows"
        ),
    ]


def emit_generic(shape: KernelShape, tile: int = TILE) -> str:
    """The per-model kernel ``@mlp_score`` (all numbers passed as buffers)."""
    sig = (
        "define void @mlp_score(i64 %n, ptr noalias readonly %cols, i64 %ncols, ptr noalias readonly %terms, "
        "i64 %nterms, ptr noalias readonly %bias, ptr noalias readonly %first, ptr noalias readonly %dense, "
        "ptr noalias %out) nounwind"
    )
    fn = _Fn(sig)
    body = _Body(fn, shape, tile)
    fn.label("entry")
    dense_ptrs = []
    for li, (wo, bo) in enumerate(shape.dense_offsets(), start=2):
        dense_ptrs.append((_named_gep(fn, f"%W{li}", "%dense", wo), _named_gep(fn, f"%b{li}", "%dense", bo)))

    def terms(b: _Body, rows, cols, ncols, z) -> None:
        f = b.fn
        f.comment("terms[q] = (kind: 0 affine | 1 table, column in the block, offset into first)")
        st, q, _ = f.loop("term", "0", "%nterms", 1)
        base = f.op(f"mul nuw nsw i64 {q}, 3", "q3")
        fields = []
        for j, nm in enumerate(("kind", "k", "off")):
            idx = f.op(f"add i64 {base}, {j}", "q")
            ptr = f.op(f"getelementptr inbounds i64, ptr %terms, i64 {idx}", "tp")
            fields.append(f.op(f"load i64, ptr {ptr}, align 8", nm))
        kind, k, off = fields
        blk = f.gep("%first", off, "blk")
        is_aff = f.op(f"icmp eq i64 {kind}, 0", "isaff")
        la, lt, lj = f.fresh_label("affine"), f.fresh_label("table"), f.fresh_label("join")
        f.emit(f"br i1 {is_aff}, label %{la}, label %{lt}")
        f.label(la)
        params = [
            f.op(f"load double, ptr {f.gep(blk, str(j))}, align 8", nm)
            for j, nm in enumerate(("sub", "div", "mul", "add", "lo", "hi"))
        ]
        b.affine_term(rows, cols, ncols, k, params, f.gep(blk, str(LANES), "wrow"), z)
        f.emit(f"br label %{lj}")
        f.label(lt)
        b.table_term(rows, cols, ncols, k, blk, z)
        f.emit(f"br label %{lj}")
        f.label(lj)
        f.end_loop(st)

    body.run("%n", "%cols", "%ncols", "%bias", dense_ptrs, terms, "%out")
    head = _header(shape, "generic kernel: one per model; x and Delta arrive as data")
    return "\n".join([*head, _vector_math(), "", fn.text(), ""])


def _named_gep(fn: _Fn, name: str, base: str, offset: int) -> str:
    fn.emit(f"{name} = getelementptr inbounds double, ptr {base}, i64 {offset}")
    return name


def _vector_math() -> str:
    """The intrinsic declarations and ``@geco_vexp`` (``codegen/llvm/mlp_vector_math.ll``),
    without the file's own header comment."""
    text = ir_source("mlp_vector_math")
    return "\n" + text[text.index("declare "):].rstrip("\n")
