"""The persistent compile cache: keys, damaged and foreign files, the size bound, concurrent
writers, and compile_ir loading from it instead of compiling."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegen.llvm import binding, disk_cache

ROOT = Path(__file__).resolve().parents[2]
IR = "define i64 @add_{n}(i64 %a) {{\n  %r = add i64 %a, {n}\n  ret i64 %r\n}}\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "llvm"
    monkeypatch.setenv("GECO_LLVM_CACHE", str(d))
    binding.clear_cache()
    yield d
    binding.clear_cache()


def _call(cm, n):
    import ctypes

    return cm.function(f"add_{n}", ctypes.c_int64, ctypes.c_int64)(40)


def test_compile_then_load_from_disk(cache_dir):
    ir = IR.format(n=2)
    cm = binding.compile_ir(ir, 2)
    assert _call(cm, 2) == 42
    assert binding.cache_info()["compiles"] == 1 and binding.cache_info()["disk_stores"] == 1
    files = list(cache_dir.glob("*.gobj"))
    assert [f.stem for f in files] == [binding.disk_key(ir, 2)]
    binding.clear_cache()  # a new process, as far as the cache can tell
    cm = binding.compile_ir(ir, 2)
    info = binding.cache_info()
    assert info["disk_hits"] == 1 and info["compiles"] == 0
    assert _call(cm, 2) == 42


def test_key_covers_opt_level_and_host():
    ir = IR.format(n=1)
    assert binding.disk_key(ir, 1) != binding.disk_key(ir, 2)
    host = binding.host_description()
    assert "llvmlite" in host and "LLVM" in host
    import llvmlite.binding as llvm

    assert llvm.get_host_cpu_name() in host


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign", "garbage", "empty"])
def test_damaged_or_foreign_files_are_ignored_and_rebuilt(cache_dir, damage):
    """LLVM aborts the process on a bad object file: such files must never reach it."""
    ir, other = IR.format(n=3), IR.format(n=4)
    binding.compile_ir(ir, 2)
    binding.compile_ir(other, 2)
    path = cache_dir / f"{binding.disk_key(ir, 2)}.gobj"
    blob = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flipped":
        path.write_bytes(blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:])
    elif damage == "foreign":  # a whole, valid file of another key under this key's name
        path.write_bytes((cache_dir / f"{binding.disk_key(other, 2)}.gobj").read_bytes())
    elif damage == "garbage":
        path.write_bytes(b"\x7fELF" + b"\x00" * 200)
    else:
        path.write_bytes(b"")
    binding.clear_cache()
    cm = binding.compile_ir(ir, 2)
    assert _call(cm, 3) == 43
    info = binding.cache_info()
    assert info["disk_hits"] == 0 and info["compiles"] == 1
    assert path.read_bytes() == blob  # rebuilt and written again


def test_size_bound_removes_least_recently_used(tmp_path):
    cache = disk_cache.DiskCache(tmp_path, max_bytes=10_000)
    for i in range(6):
        assert cache.store(f"k{i}", bytes([i]) * 3000)
        os.utime(cache.path(f"k{i}"), (1000 + i, 1000 + i))  # k0 oldest
    info = cache.info()
    assert info["bytes"] <= 10_000 and info["files"] == 2
    assert cache.load("k5") == bytes([5]) * 3000 and cache.load("k0") is None
    (tmp_path / ".stale-x.tmp").write_bytes(b"x")
    os.utime(tmp_path / ".stale-x.tmp", (0, 0))
    cache.prune()
    assert not (tmp_path / ".stale-x.tmp").exists()


def test_directory_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("GECO_CACHE_DIR", str(tmp_path / "geco"))
    monkeypatch.delenv("GECO_LLVM_CACHE", raising=False)
    assert disk_cache.current().directory == tmp_path / "geco" / "llvm"
    from geco.models import cache_dir

    assert disk_cache.default_directory() == cache_dir() / "llvm"  # one root for geco's files
    monkeypatch.setenv("GECO_LLVM_CACHE", "off")
    assert disk_cache.current() is None
    monkeypatch.setenv("GECO_LLVM_CACHE_MAX_MB", "1.5")
    monkeypatch.setenv("GECO_LLVM_CACHE", str(tmp_path / "x"))
    assert disk_cache.current() == disk_cache.DiskCache(tmp_path / "x", int(1.5 * 1024 * 1024))
    try:
        disk_cache.configure(tmp_path / "y", max_bytes=1000)
        assert disk_cache.current() == disk_cache.DiskCache(tmp_path / "y", 1000)
        assert disk_cache.settings() == {"directory": tmp_path / "y", "max_bytes": 1000}
        disk_cache.configure(False)
        assert disk_cache.current() is None and disk_cache.settings() == {"directory": False}
    finally:
        disk_cache.configure(None)
    assert disk_cache.current().directory == tmp_path / "x"
    with pytest.raises(ValueError, match="max_bytes"):
        disk_cache.configure(max_bytes=-1)


def test_an_unwritable_directory_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("GECO_LLVM_CACHE", str(blocker / "llvm"))
    binding.clear_cache()
    assert _call(binding.compile_ir(IR.format(n=5), 2), 5) == 45
    assert binding.cache_info()["disk_stores"] == 0


def test_concurrent_processes_share_one_directory(cache_dir):
    """Four processes compile the same modules into one directory at once: every file is whole,
    and a fifth process loads them all without compiling."""
    script = textwrap.dedent("""
        import ctypes, sys
        from codegen.llvm import binding
        for n in range(6):
            cm = binding.compile_ir("define i64 @add_%d(i64 %%a) {\\n  %%r = add i64 %%a, %d\\n  ret i64 %%r\\n}\\n" % (n, n), 2)
            assert cm.function("add_%d" % n, ctypes.c_int64, ctypes.c_int64)(40) == 40 + n
        print(binding.cache_info()["compiles"], binding.cache_info()["disk_hits"])
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT), GECO_LLVM_CACHE=str(cache_dir))
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, text=True) for _ in range(4)]  # fmt: skip
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0 and err == "", err
    files = sorted(cache_dir.glob("*.gobj"))
    assert len(files) == 6 and not list(cache_dir.glob("*.tmp"))
    cache = disk_cache.DiskCache(cache_dir)
    assert all(cache.load(f.stem) for f in files)
    last = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, text=True, timeout=120)
    assert last.returncode == 0 and last.stdout.split() == ["0", "6"]
