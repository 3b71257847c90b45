"""What the environments' tests share: Gymnasium's own check, with the warnings it may
give named."""

from __future__ import annotations

import re
import warnings

import pytest

#: the warnings of Gymnasium's check_env accepted for the quantities as they are
#: (``scale=False``): a Box bounded by ``inf`` where nothing bounds the quantity, which is
#: the truth; ``scale=True`` gives none
INFINITE_BOUNDS = (r"A Box observation space maximum value is infinity",
                   r"A Box observation space minimum value is -infinity")


def _check(env, scaled: bool) -> list[str]:
    """Gymnasium's check_env on ``env``; the warnings beyond the accepted ones."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)  # the environments render nothing
    accepted = () if scaled else INFINITE_BOUNDS
    return [str(w.message) for w in caught
            if not any(re.search(a, str(w.message)) for a in accepted)]


@pytest.fixture
def gymnasium_check():
    """``check(env)``: runs Gymnasium's check_env and fails on any warning but the
    accepted :data:`INFINITE_BOUNDS` of an environment with ``scale=False``."""
    def check(env):
        env = getattr(env, "unwrapped", env)
        others = _check(env, getattr(env, "scale", False))
        assert others == [], others
    return check
