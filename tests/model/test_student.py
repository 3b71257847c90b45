"""lorasched.model.student: the 95 % Student's t table, rounded down to a tabulated degree
of freedom (a wider interval, never a narrower one)."""

from __future__ import annotations

import pytest

from lorasched.model.errors import InputError
from lorasched.model.student import t975


def test_the_table_and_its_rounding():
    assert t975(1) == 12.706 and t975(2) == 4.303 and t975(30) == 2.042
    assert t975(22) == t975(20) == 2.086      # between tabulated rows: the wider one
    assert t975(31) == t975(1000) == 1.96
    assert all(t975(d) >= t975(d + 1) for d in range(1, 40))


def test_no_degree_of_freedom_is_refused():
    with pytest.raises(InputError, match="degrees of freedom"):
        t975(0)
