"""``python -m lorasched.cli ...``: the ``lorasched`` command (:func:`lorasched.cli.main`)."""

import sys

from . import main

sys.exit(main())
