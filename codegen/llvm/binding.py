"""The one module that imports llvmlite: target machine, optimisation, JIT, machine-code cache.

Why one module: llvmlite's binding layer has global state (native target initialisation), owns
objects whose lifetime matters (an execution engine must outlive every function pointer taken
from it) and changes API between versions (0.45 dropped ``llvm.initialize()`` and the legacy
pass manager). Keeping all of it here means readers, partial evaluators and emitters only
produce arrays and IR *text*.

Compiled modules are cached in memory by ``sha256(IR text, opt level)``: two instances whose
specialised models emit the same IR share one piece of machine code. The cache is an LRU bounded
by entry count. Below it, the object code MCJIT produced is kept on disk across processes
(:mod:`codegen.llvm.disk_cache`) and can travel inside a pickled scorer
(:func:`object_codes` / :func:`preload_objects`), so a worker process loads instead of compiling.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import llvmlite
import llvmlite.binding as llvm

from codegen.llvm import disk_cache

__all__ = [
    "CompiledModule",
    "cache_info",
    "clear_cache",
    "compile_ir",
    "disk_key",
    "emit_assembly",
    "is_cached",
    "object_codes",
    "optimize_ir",
    "preload_objects",
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


@functools.cache
def host_description() -> str:
    """Target triple, CPU name and features, llvmlite and LLVM versions: part of any key of code
    kept beyond this process (the host does not change while it runs)."""
    _init()
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    return (
        f"{llvm.get_process_triple()}|{llvm.get_host_cpu_name()}|{_host_features()}|"
        f"llvmlite {llvmlite.__version__}|LLVM {llvm_version}"
    )


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
    """Machine code for one IR module; keeps its engine alive as long as it is referenced.

    ``object_code``: the relocatable object MCJIT produced or loaded (what the disk cache and a
    pickled scorer carry). It does not pickle itself: machine code lives in one process, so a
    scorer pickles its arrays and rebuilds its modules in the new process."""

    key: str
    engine: object
    seconds: float
    object_code: bytes | None = None
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

    def __reduce__(self):
        raise TypeError(
            "compiled machine code does not pickle or copy: pickle the scorer that owns it "
            "(it rebuilds its modules in the new process)"
        )


_CACHE: OrderedDict[str, CompiledModule] = OrderedDict()
_CACHE_MAX = 512
#: object code received from another process (a pickled scorer), by :func:`disk_key`
_PRELOADED: OrderedDict[str, bytes] = OrderedDict()
_PRELOADED_MAX = 64
_STATS_ZERO = {
    "hits": 0, "misses": 0, "compiles": 0, "compile_seconds": 0.0, "load_seconds": 0.0,
    "disk_hits": 0, "disk_stores": 0, "preloaded_hits": 0,
}  # fmt: skip
_stats = dict(_STATS_ZERO)


def ir_key(ir_text: str, opt_level: int) -> str:
    return hashlib.sha256(f"O{opt_level}\n{ir_text}".encode()).hexdigest()


def is_cached(ir_text: str, opt_level: int = 2) -> bool:
    """Whether :func:`compile_ir` would return without compiling: the module is in this process,
    or its object code was received or is on disk. (A load takes milliseconds: a cost model fed
    with it would take compiling for cheap.)"""
    with _lock:
        if ir_key(ir_text, opt_level) in _CACHE:
            return True
    dkey = disk_key(ir_text, opt_level)
    with _lock:
        if dkey in _PRELOADED:
            return True
    cache = disk_cache.current()
    return cache is not None and cache.path(dkey).is_file()


def disk_key(ir_text: str, opt_level: int) -> str:
    """Key of the object code beyond this process: IR hash + opt level + :func:`host_description`."""
    return hashlib.sha256(f"{host_description()}\nO{opt_level}\n{ir_text}".encode()).hexdigest()


def _load_object(blob: bytes, opt_level: int):
    """An engine holding a finished object: MCJIT asks its object cache for the (empty) module's
    code and gets ``blob`` instead of compiling. ``blob`` must be a whole object file for this
    host (LLVM aborts the process on a damaged one): callers pass checked payloads only."""
    mod = _parse("")
    engine = llvm.create_mcjit_compiler(mod, target_machine(opt_level))
    engine.set_object_cache(getbuffer_func=lambda _m: blob)
    engine.finalize_object()
    return engine


def _compile(ir_text: str, opt_level: int) -> tuple[object, bytes | None]:
    mod = _parse(ir_text)
    _run_passes(mod, opt_level)
    engine = llvm.create_mcjit_compiler(mod, target_machine(opt_level))
    produced: list[bytes] = []
    engine.set_object_cache(notify_func=lambda _m, buf: produced.append(bytes(buf)))
    engine.finalize_object()
    return engine, (produced[0] if produced else None)


def compile_ir(ir_text: str, opt_level: int = 2) -> CompiledModule:
    """Parse, optimise and JIT-compile IR text; cached by a hash of the text and opt level.

    Where the code comes from, first hit wins: this process's LRU of modules; object code a
    pickled scorer brought (:func:`preload_objects`); the disk cache
    (:mod:`codegen.llvm.disk_cache`, keyed by :func:`disk_key`); else LLVM compiles it, and the
    object is stored on disk for the next process."""
    key = ir_key(ir_text, opt_level)
    with _lock:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            _stats["hits"] += 1
            return hit
    t0 = time.perf_counter()
    dkey = disk_key(ir_text, opt_level)
    cache = disk_cache.current()
    with _lock:
        blob = _PRELOADED.get(dkey)
    source = "preloaded_hits" if blob is not None else ""
    if blob is None and cache is not None:
        blob = cache.load(dkey)
        source = "disk_hits" if blob is not None else ""
    if blob is not None:
        engine = _load_object(blob, opt_level)
        if cache is not None and source == "preloaded_hits" and not cache.path(dkey).exists():
            cache.store(dkey, blob)  # the next process on this host finds it on disk
    else:
        engine, blob = _compile(ir_text, opt_level)
        if cache is not None and blob is not None:
            stored = cache.store(dkey, blob)
            with _lock:
                _stats["disk_stores"] += int(stored)
    seconds = time.perf_counter() - t0
    compiled = CompiledModule(key, engine, seconds, blob)
    with _lock:
        _stats["misses"] += 1
        if source:
            _stats[source] += 1
            _stats["load_seconds"] += seconds
        else:
            _stats["compiles"] += 1
            _stats["compile_seconds"] += seconds
        _CACHE[key] = compiled
        while len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return compiled


def object_codes(modules: list[tuple[str, int]]) -> dict[str, bytes]:
    """``{disk_key: object code}`` for those of the ``(IR text, opt level)`` modules this process
    holds compiled (what a pickled scorer carries to a worker)."""
    out = {}
    with _lock:
        for ir_text, opt_level in modules:
            cm = _CACHE.get(ir_key(ir_text, opt_level))
            if cm is not None and cm.object_code:
                out[disk_key(ir_text, opt_level)] = cm.object_code
    return out


def preload_objects(objects: dict[str, bytes]) -> None:
    """Keep object code received from another process, for :func:`compile_ir` to load instead of
    compiling. Keys hold the sender's host description: code for another CPU is never used."""
    with _lock:
        for k, blob in objects.items():
            if isinstance(k, str) and isinstance(blob, bytes) and blob:
                _PRELOADED[k] = blob
                _PRELOADED.move_to_end(k)
        while len(_PRELOADED) > _PRELOADED_MAX:
            _PRELOADED.popitem(last=False)


def clear_cache() -> None:
    """Forget this process's compiled modules, received object code and statistics (the disk
    cache stays: :func:`codegen.llvm.disk_cache.current` ``.clear()`` empties it)."""
    with _lock:
        _CACHE.clear()
        _PRELOADED.clear()
        _stats.clear()
        _stats.update(_STATS_ZERO)


def cache_info() -> dict:
    """Counters since the last :func:`clear_cache`: ``hits`` (in memory), ``misses``, of which
    ``compiles`` (``compile_seconds``) and loads of finished objects (``disk_hits``,
    ``preloaded_hits``; ``load_seconds``); ``disk_stores``; ``entries`` in memory."""
    with _lock:
        return dict(_stats, entries=len(_CACHE))
