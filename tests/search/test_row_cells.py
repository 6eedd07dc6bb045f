"""The archive's rows kept as their changed groups' cells (geco.search.row_cells): read back
whole, overwritten in place, and only the changed columns stored (the archive's offers of them,
compiled and not: tests/search/test_kernels.py)."""

import numpy as np
import pytest

from geco.search.row_cells import RowCells


def _rows_from_x(rng, x, group_of_feature, changed):
    """Rows holding x outside their changed groups' columns and random values inside them."""
    rows = np.broadcast_to(x, (len(changed), len(x))).copy()
    cols = changed[:, group_of_feature]
    rows[cols] = rng.normal(size=int(cols.sum()))
    return rows


def test_cells_read_back_the_rows_written_and_a_better_row_overwrites_its_slot_in_place():
    rng = np.random.default_rng(0)
    d, g = 11, 5
    x = rng.normal(size=d)
    gof = rng.integers(0, g, d)
    cells = RowCells(d, g, x, gof)
    changed = rng.random((40, g)) < 0.4
    rows = _rows_from_x(rng, x, gof, changed)
    slots = np.arange(40)
    cells.room(40, 0)
    cells.write(slots[::-1], rows[::-1], changed[::-1], np.ones(40, dtype=bool))  # new slots, offered out of order
    np.testing.assert_array_equal(cells.read(slots, changed), rows)
    assert cells.top == changed[:, gof].sum()  # the changed columns only, not 40 x 11
    assert np.all(np.diff(cells.offsets[:40]) >= 0)  # placed in slot order
    again = _rows_from_x(rng, x, gof, changed[5:9])  # the same Δ, other values
    top = cells.top
    cells.write(slots[5:9], again, changed[5:9], np.zeros(4, dtype=bool))
    assert cells.top == top
    rows[5:9] = again
    np.testing.assert_array_equal(cells.read(slots, changed), rows)
    np.testing.assert_array_equal(cells.read(slots[[7, 2]], changed[[7, 2]]), rows[[7, 2]])


def test_without_x_every_column_is_a_cell():
    rng = np.random.default_rng(1)
    cells = RowCells(4, 3)
    rows, changed = rng.normal(size=(6, 4)), rng.random((6, 3)) < 0.5
    cells.room(6, 0)
    cells.write(np.arange(6), rows, changed, np.ones(6, dtype=bool))
    np.testing.assert_array_equal(cells.read(np.arange(6), changed), rows)
    assert cells.top == 24


def test_x_and_groups_go_together():
    with pytest.raises(ValueError, match="go together"):
        RowCells(3, 2, np.zeros(3))
