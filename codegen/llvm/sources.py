"""The hand-written LLVM IR kernels, kept as ``.ll`` files in this package (read, not imported).

A kernel that reads records filled by Python names their slots by placeholders (``{PLAN.local}``,
:mod:`codegen.llvm.slots`); :func:`ir_source` fills them from the kernel's declared blocks, so the
text that is compiled and the Python that fills the records use one declaration.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from codegen.llvm import trees_abi
from codegen.llvm.slots import SlotBlock, fill_slots

__all__ = ["SLOT_BLOCKS", "ir_source", "ir_template"]

#: the slot blocks each kernel file refers to (files not listed have no placeholders)
SLOT_BLOCKS: dict[str, tuple[SlotBlock, ...]] = {"trees": trees_abi.BLOCKS}


def ir_template(name: str) -> str:
    """The text of ``codegen/llvm/<name>.ll`` as written, placeholders included."""
    path = resources.files(__package__).joinpath(f"{name}.ll")
    if not path.is_file():
        raise FileNotFoundError(f"no IR kernel {name!r} in {__package__}")
    return path.read_text(encoding="utf-8")


@cache
def ir_source(name: str) -> str:
    """The compilable text of ``codegen/llvm/<name>.ll`` (e.g. ``"trees"``, ``"mlp_vector_math"``):
    its slot placeholders filled (:func:`codegen.llvm.slots.fill_slots`; raises
    :class:`codegen.llvm.slots.SlotLayoutError` if the file and its blocks disagree)."""
    return fill_slots(ir_template(name), SLOT_BLOCKS.get(name, ()), source=f"{name}.ll")
