"""Records of slots that Python fills and a hand-written ``.ll`` kernel reads, declared once.

Why: such a record is a contract written on both sides - Python stores an address or a count at
slot ``i``, the kernel loads slot ``i`` - and a wrong index reads the wrong memory without any
error. So a record's layout is a :class:`SlotBlock` (field name -> slot, and the record width);
Python indexes by field name (``args[PLAN.local]``), and the ``.ll`` text names slots by
placeholders that :func:`fill_slots` replaces when the file is loaded (``codegen.llvm.sources``):

* ``{PLAN.local}``: the slot of field ``local`` of block ``PLAN``;
* ``{JOB.plan_tinfo|walk_nodes}``: the one slot two variant fields share (they must share it);
* ``{PLAN.width}`` / ``{PLAN.bytes}``: slots per record / bytes per record.

Loading fails (:class:`SlotLayoutError`) on an unknown block or field, a malformed placeholder, and
a declared field that the text never uses: neither side can drift from the declaration.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["SlotBlock", "SlotLayoutError", "fill_slots"]

#: anything that looks like a placeholder; the names inside are checked strictly
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\.([^{}\s]*)\}")
_FIELD = re.compile(r"[a-z][a-z0-9_]*\Z")
_RESERVED = frozenset({"name", "width", "bytes", "slot_bytes", "fields", "variants", "index"})


class SlotLayoutError(ValueError):
    """A slot block or an ``.ll`` text that refers to one is inconsistent."""


class SlotBlock:
    """A record of ``width`` slots of ``slot_bytes`` bytes (i64 by default); every field is an
    attribute holding its slot index.

    ``variants``: field-name prefixes of alternative layouts of the same slots (a job record that
    is either a plan or an x-walk: ``plan_*`` and ``walk_*``). Fields of different variants may
    share a slot; any other two fields may not."""

    def __init__(self, name: str, width: int, fields: Mapping[str, int], *, variants: Iterable[str] = (),
                 slot_bytes: int = 8):  # fmt: skip
        self.name = name
        self.width = int(width)
        self.slot_bytes = int(slot_bytes)
        self.bytes = self.slot_bytes * self.width
        self.fields: dict[str, int] = dict(fields)
        self.variants = tuple(variants)
        owner: dict[int, list[str]] = {}
        for field, slot in self.fields.items():
            if not _FIELD.match(field) or field in _RESERVED:
                raise SlotLayoutError(f"{name}: {field!r} is not a usable field name")
            if not 0 <= slot < self.width:
                raise SlotLayoutError(f"{name}.{field} = {slot} is outside the {self.width} slots")
            owner.setdefault(slot, []).append(field)
            setattr(self, field, slot)
        for slot, names in owner.items():
            kinds = [self._variant(n) for n in names]
            if len(names) > 1 and (None in kinds or len(set(kinds)) != len(kinds)):
                raise SlotLayoutError(f"{name}: fields {names} share slot {slot}")

    def _variant(self, field: str) -> str | None:
        return next((v for v in self.variants if field.startswith(v + "_")), None)

    def index(self, field: str) -> int:
        """The slot of ``field`` (for a field name held in a variable)."""
        try:
            return self.fields[field]
        except KeyError:
            raise SlotLayoutError(f"block {self.name} has no field {field!r}") from None

    def __getattr__(self, field: str) -> int:  # only reached for undeclared names
        raise AttributeError(f"block {self.__dict__.get('name', '?')} has no field {field!r}")

    def __repr__(self) -> str:
        return f"SlotBlock({self.name!r}, {self.width}, {self.fields!r})"


def fill_slots(text: str, blocks: Iterable[SlotBlock], *, source: str = "IR") -> str:
    """``text`` with every placeholder replaced by its number. Raises :class:`SlotLayoutError` on
    an unknown block or field, variant fields that do not share their slot, and any declared field
    the text never names (``source`` names the text in the message)."""
    by_name = {b.name: b for b in blocks}
    used: set[tuple[str, str]] = set()

    def number(m: re.Match[str]) -> str:
        block = by_name.get(m.group(1))
        if block is None:
            raise SlotLayoutError(f"{source}: {m.group(0)} names no declared block")
        names = m.group(2).split("|")
        if names == ["width"]:
            return str(block.width)
        if names == ["bytes"]:
            return str(block.bytes)
        slots = set()
        for field in names:
            if field not in block.fields:
                raise SlotLayoutError(f"{source}: {m.group(0)}: block {block.name} has no field {field!r}")
            slots.add(block.fields[field])
            used.add((block.name, field))
        if len(slots) != 1:
            raise SlotLayoutError(f"{source}: {m.group(0)}: these fields are in different slots")
        return str(slots.pop())

    out = _PLACEHOLDER.sub(number, text)
    unused = [f"{b.name}.{f}" for b in by_name.values() for f in b.fields if (b.name, f) not in used]
    if unused:
        raise SlotLayoutError(f"{source} never uses the declared field(s) {', '.join(unused)}")
    return out
