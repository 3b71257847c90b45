"""``python -m lorasched ...``: the ``lorasched`` command (:func:`lorasched.cli.main`)."""

import sys

from .cli import main

sys.exit(main())
