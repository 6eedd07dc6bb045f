"""The archive's rows kept as their changed groups' cells (geco.search.row_cells): read back
whole, overwritten in place, and only the changed columns stored."""

import numpy as np
import pytest

from geco.search.archive import Archive
from geco.search.population import key_words
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


@pytest.mark.parametrize("n_groups", [10, 70])
def test_archive_of_cells_offered_by_the_kernels_equals_the_reference(n_groups):
    """Pools of many Δ offered in turn to an archive of cells (rows x outside their changed
    groups): the compiled offer stores the same cells at the same offsets as the numpy offer,
    both read back the rows offered, and the store holds the changed columns only."""
    from geco.search.compiled import compiled_kernels

    kernels = compiled_kernels(True)
    if kernels is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(n_groups)
    d = 2 * n_groups + 3
    x = rng.normal(size=d)
    gof = np.sort(rng.integers(0, n_groups, d))
    archives = [Archive(d, n_groups, k, x, gof) for k in (None, kernels)]
    best = {}
    from geco.search.population import Pool, block_starts, key_order, words_keys

    for _ in range(6):
        n = 400
        changed = rng.random((n, n_groups)) < 3 / n_groups
        words = key_words(changed)
        order = key_order(words)
        changed, words = changed[order], words[order]
        rows = _rows_from_x(rng, x, gof, changed)
        score = rng.integers(0, 20, n) / 10
        ok = rng.random(n) < 0.6
        pool = Pool(rows, changed, words, rng.integers(0, 2**63, n).astype(np.uint64), rng.random(n), score, score,
                    np.zeros(n, dtype=bool))  # fmt: skip
        for a in archives:
            a.offer_best(pool, block_starts(words), ok)
        for i, key in enumerate(words_keys(words)):
            if ok[i] and (key not in best or score[i] < best[key][1]):
                best[key] = (rows[i], score[i])
    ref, got = archives
    assert got.keys == ref.keys and len(ref) > 64
    stored = [(a.row_cells.values[: a.row_cells.top], a.row_cells.offsets[: len(a)]) for a in archives]
    np.testing.assert_array_equal(stored[1][0], stored[0][0])
    np.testing.assert_array_equal(stored[1][1], stored[0][1])
    for a in archives:
        slots = np.arange(len(a))
        rows = a.rows_of(slots)
        for key, slot in zip(a.keys, slots):
            np.testing.assert_array_equal(rows[slot], best[key][0])
        assert a.row_cells.top == a.changed_of(slots)[:, gof].sum()
        np.testing.assert_array_equal(key_words(a.changed_of(slots)), a.words[: len(a)])
