"""unique_rows / group_rows give np.unique(keys, axis=0)'s rows, order and inverse."""

import numpy as np
import pytest

from newton_gym.sim.grouping import group_rows, unique_rows


@pytest.mark.parametrize("shape", [(0, 3), (1, 2), (50, 1), (400, 4)])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_unique_rows_equal_numpy(shape, dtype):
    keys = np.random.default_rng(1).integers(-2, 3, size=shape).astype(dtype)
    unique, inverse = unique_rows(keys)
    want, want_inverse = np.unique(keys, axis=0, return_inverse=True)
    np.testing.assert_array_equal(unique, want)
    np.testing.assert_array_equal(inverse, np.asarray(want_inverse).reshape(-1))
    order, starts = group_rows(keys)
    assert len(starts) == len(want) + 1
    for g in range(len(want)):  # each group's rows in their original order (stable)
        members = order[starts[g] : starts[g + 1]]
        assert (np.diff(members) > 0).all() and (keys[members] == want[g]).all()
