"""The one module that imports llvmlite: target machine, optimisation, JIT, machine-code cache.

Why one module: llvmlite's binding layer has global state (native target initialisation), owns
objects whose lifetime matters (an execution engine must outlive every function pointer taken
from it) and changes API between versions (0.45 dropped ``llvm.initialize()`` and the legacy
pass manager). Keeping all of it here means readers, partial evaluators and emitters only
produce arrays and IR *text*.

Compiled modules are cached in memory by ``sha256(IR text, opt level)``: two instances whose
specialised models emit the same IR share one piece of machine code. The cache is an LRU bounded
by entry count.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import llvmlite
import llvmlite.binding as llvm

__all__ = [
    "CompiledModule",
    "cache_info",
    "clear_cache",
    "compile_ir",
    "disk_key",
    "emit_assembly",
    "is_cached",
    "optimize_ir",
]

_lock = threading.RLock()
_initialized = False


def _init() -> None:
    global _initialized
    if _initialized:
        return
    with _lock:
        if _initialized:
            return
        version = tuple(int(p) for p in llvmlite.__version__.split(".")[:2])
        if version < (0, 45):  # pragma: no cover - older llvmlite still needs this
            llvm.initialize()
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _initialized = True


def _host_features() -> str:
    try:
        return llvm.get_host_cpu_features().flatten()
    except RuntimeError:  # some hosts cannot report their features
        return ""


def target_machine(opt_level: int = 2) -> llvm.TargetMachine:
    """A fresh target machine for the host CPU (MCJIT takes ownership of the one it gets)."""
    _init()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=_host_features(),
        opt=opt_level,
        reloc="pic",
        codemodel="jitdefault",
        jit=True,
    )


def host_description() -> str:
    """CPU name + features + llvmlite version: part of any on-disk cache key."""
    _init()
    return f"{llvm.get_process_triple()}|{llvm.get_host_cpu_name()}|{_host_features()}|{llvmlite.__version__}"


def _parse(ir_text: str) -> llvm.ModuleRef:
    _init()
    mod = llvm.parse_assembly(ir_text)
    mod.verify()
    return mod


def _run_passes(mod: llvm.ModuleRef, opt_level: int) -> None:
    if opt_level <= 0:
        return
    tm = target_machine(opt_level)
    pto = llvm.create_pipeline_tuning_options(speed_level=min(opt_level, 3))
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def optimize_ir(ir_text: str, opt_level: int = 2) -> str:
    """The IR after LLVM's optimisation pipeline (for users inspecting what will run)."""
    mod = _parse(ir_text)
    _run_passes(mod, opt_level)
    return str(mod)


def emit_assembly(ir_text: str, opt_level: int = 2) -> str:
    """Host assembly for the IR (for ``geco ir --asm``)."""
    mod = _parse(ir_text)
    _run_passes(mod, opt_level)
    return target_machine(opt_level).emit_assembly(mod)


@dataclass
class CompiledModule:
    """Machine code for one IR module; keeps its engine alive as long as it is referenced."""

    key: str
    engine: object
    seconds: float
    _functions: dict = field(default_factory=dict)

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise KeyError(f"no function {name!r} in compiled module")
        return addr

    def function(self, name: str, restype, *argtypes):
        """A ctypes callable (CFUNCTYPE: releases the GIL while it runs). It holds this module in
        its ``module`` attribute, so the machine code lives as long as the callable."""
        k = (name, restype, argtypes)
        fn = self._functions.get(k)
        if fn is None:
            fn = ctypes.CFUNCTYPE(restype, *argtypes)(self.address(name))
            fn.module = self
            self._functions[k] = fn
        return fn


_CACHE: OrderedDict[str, CompiledModule] = OrderedDict()
_CACHE_MAX = 512
_stats = {"hits": 0, "misses": 0, "compile_seconds": 0.0}


def ir_key(ir_text: str, opt_level: int) -> str:
    return hashlib.sha256(f"O{opt_level}\n{ir_text}".encode()).hexdigest()


def is_cached(ir_text: str, opt_level: int = 2) -> bool:
    """Whether :func:`compile_ir` would return a cached module (for hit/miss statistics)."""
    with _lock:
        return ir_key(ir_text, opt_level) in _CACHE


def _disk_dir() -> str | None:
    """Directory of the on-disk object cache: ``$GECO_LLVM_CACHE`` (unset or empty: no disk cache)."""
    d = os.environ.get("GECO_LLVM_CACHE", "")
    return d or None


def disk_key(ir_text: str, opt_level: int) -> str:
    """Object-file key: IR hash + llvmlite/LLVM version + host CPU and features + opt level."""
    return hashlib.sha256(f"{host_description()}\nO{opt_level}\n{ir_text}".encode()).hexdigest()


def compile_ir(ir_text: str, opt_level: int = 2) -> CompiledModule:
    """Parse, optimise and JIT-compile IR text; cached by a hash of the text and opt level.

    In memory: an LRU of compiled modules. On disk (opt-in, ``GECO_LLVM_CACHE=<dir>``): the
    relocatable object MCJIT produced, keyed by :func:`disk_key`, reloaded through MCJIT's object
    cache (milliseconds instead of a compile)."""
    key = ir_key(ir_text, opt_level)
    with _lock:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            _stats["hits"] += 1
            return hit
    t0 = time.perf_counter()
    disk = _disk_dir()
    path = os.path.join(disk, disk_key(ir_text, opt_level) + ".o") if disk else None
    blob = None
    if path and os.path.exists(path):
        with open(path, "rb") as fh:
            blob = fh.read()
    if blob is not None:
        # the object already holds every symbol; MCJIT takes it from the cache instead of compiling
        mod = _parse("")
        engine = llvm.create_mcjit_compiler(mod, target_machine(opt_level))
        engine.set_object_cache(getbuffer_func=lambda _m: blob)
        engine.finalize_object()
        _stats["disk_hits"] = _stats.get("disk_hits", 0) + 1
    else:
        mod = _parse(ir_text)
        _run_passes(mod, opt_level)
        engine = llvm.create_mcjit_compiler(mod, target_machine(opt_level))
        if path:

            def _store(_m, buf: bytes, path: str = path) -> None:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as fh:
                    fh.write(buf)
                os.replace(tmp, path)  # atomic: concurrent processes never read half a file

            engine.set_object_cache(notify_func=_store)
        engine.finalize_object()
    seconds = time.perf_counter() - t0
    compiled = CompiledModule(key, engine, seconds)
    with _lock:
        _stats["misses"] += 1
        _stats["compile_seconds"] += seconds
        _CACHE[key] = compiled
        while len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return compiled


def clear_cache() -> None:
    with _lock:
        _CACHE.clear()
        _stats.update(hits=0, misses=0, compile_seconds=0.0)


def cache_info() -> dict:
    with _lock:
        return dict(_stats, entries=len(_CACHE))
