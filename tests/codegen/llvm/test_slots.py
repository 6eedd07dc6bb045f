"""Slot blocks and their placeholders: what a declaration accepts, and every way a text that
refers to it can disagree with it (each one an error at load, never a wrong slot)."""

from __future__ import annotations

import pytest

from codegen.llvm.slots import SlotBlock, SlotLayoutError, fill_slots

ARGS = SlotBlock("ARGS", 4, {"rows": 0, "n": 1, "out": 3})
MODES = SlotBlock("MODES", 3, {"n": 0, "a_first": 1, "b_first": 1, "a_second": 2}, variants=("a", "b"))
TEXT = "load {ARGS.rows}; load {ARGS.n}; store {ARGS.out}; stride {ARGS.width} ({ARGS.bytes} bytes)"


def test_fields_are_attributes_and_placeholders_become_their_slots():
    assert (ARGS.rows, ARGS.n, ARGS.out, ARGS.width, ARGS.bytes) == (0, 1, 3, 4, 32)
    assert ARGS.index("out") == 3
    assert fill_slots(TEXT, [ARGS]) == "load 0; load 1; store 3; stride 4 (32 bytes)"
    # LLVM's own braces are no placeholders
    assert fill_slots("%T = type { i32, i64 } {ARGS.rows}{ARGS.n}{ARGS.out}", [ARGS]) == "%T = type { i32, i64 } 013"


def test_an_undeclared_field_is_no_attribute():
    with pytest.raises(AttributeError, match="no field 'cols'"):
        _ = ARGS.cols
    with pytest.raises(SlotLayoutError, match="no field 'cols'"):
        ARGS.index("cols")


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"rows": 4}, "outside the 4 slots"), ({"rows": -1}, "outside"), ({"rows": 0, "cols": 0}, "share slot 0"),
     ({"Rows": 0}, "not a usable field name"), ({"width": 0}, "not a usable field name")],
)  # fmt: skip
def test_a_bad_declaration_is_refused(fields, message):
    with pytest.raises(SlotLayoutError, match=message):
        SlotBlock("BAD", 4, fields)


def test_only_fields_of_different_variants_share_a_slot():
    assert MODES.a_first == MODES.b_first == 1
    with pytest.raises(SlotLayoutError, match="share slot 1"):
        SlotBlock("BAD", 3, {"a_first": 1, "a_other": 1}, variants=("a", "b"))
    text = "{MODES.n} {MODES.a_first|b_first} {MODES.a_second}"
    assert fill_slots(text, [MODES]) == "0 1 2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (TEXT.replace("{ARGS.n}", "{ARGS.m}"), "has no field 'm'"),  # a misspelt field
        (TEXT.replace("{ARGS.n}", "{ARG.n}"), "names no declared block"),  # an unknown block
        (TEXT.replace("{ARGS.n}", "{ARGS.N}"), "has no field 'N'"),  # malformed: not left in the text
        (TEXT.replace("load {ARGS.n}; ", ""), "never uses the declared field.* ARGS.n"),  # a field dropped
        (TEXT.replace("{ARGS.out}", "{ARGS.n|out}"), "in different slots"),  # a false alternative
    ],
)
def test_a_text_that_disagrees_with_its_blocks_is_refused(text, message):
    with pytest.raises(SlotLayoutError, match=message):
        fill_slots(text, [ARGS], source="copy.ll")


def test_variant_alternatives_count_as_uses_of_both():
    with pytest.raises(SlotLayoutError, match="MODES.b_first"):
        fill_slots("{MODES.n} {MODES.a_first} {MODES.a_second}", [MODES])
