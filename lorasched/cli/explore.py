"""``lorasched explore``: serve the live explorer (pdFTSP's auction, TITAN's and Allpass's
runs) as a Voila web app on localhost (:mod:`lorasched.explorer.app`), until Ctrl-C."""

from __future__ import annotations

from ..explorer import app
from .arguments import positive_float, positive_int, seed_arg


def register(sub) -> None:
    """The ``explore`` command."""
    ex = sub.add_parser(
        "explore", help="serve the live explorer as a web app (Voila) on localhost",
        description="Serve the explorer (pdFTSP's auction, TITAN's and Allpass's runs) as a "
        "web app with live widgets, on http://127.0.0.1:PORT/, until Ctrl-C.")
    ex.add_argument("--port", type=int, default=app.DEFAULT_PORT,
                    help=f"port on 127.0.0.1 ({app.DEFAULT_PORT}; 0: a free one)")
    ex.add_argument("--system", choices=list(app.VIEWS), default="pdftsp",
                    help="the view shown first (pdftsp)")
    ex.add_argument("--nodes", type=positive_int, default=6,
                    help="pdFTSP's first scenario: GPU nodes K (6)")
    ex.add_argument("--load", type=positive_float, default=4.0,
                    help="... mean arrivals per slot, > 0 (4)")
    ex.add_argument("--slots", type=positive_int, default=48, help="... slots (48)")
    ex.add_argument("--seed", type=seed_arg, default=1, help="... workload seed (1)")
    ex.add_argument("--notebook", default=None,
                    help="serve this notebook instead of the app (it should display widgets)")
    ex.set_defaults(run=explore)


def explore(args) -> int:
    """Serve the app (or ``--notebook``) until interrupted."""
    return app.serve(args.notebook, port=args.port, system=args.system, nodes=args.nodes,
                     load=args.load, slots=args.slots, seed=args.seed)
