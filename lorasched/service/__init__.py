"""pdFTSP's auction as a durable admission and pricing service (``lorasched serve``).

* :mod:`.tasks` — one task as the service receives it (JSON), validated against the
  cluster, into the plain arrays the auction reads; :class:`~.tasks.ServiceInputError` names the
  field, the item and the rule.
* :mod:`.store` — the durable state: every decision in an SQLite database (WAL, full sync)
  before its reply is sent.
* :mod:`.auction` — :class:`~.auction.AuctionService`: the cluster, one
  :class:`~lorasched.pdftsp.auction.OnlineAuction`, idempotent offers, the clock, replay
  of the stored decisions on start.
* :mod:`.http` — the versioned HTTP/JSON API (Starlette, an ASGI app run by uvicorn).
* ``loadgen`` — replays a scenario's tasks against a server and compares every
  decision with ``lorasched simulate``.
"""

from .auction import AuctionService
from .tasks import ServiceInputError

__all__ = ["AuctionService", "ServiceInputError"]
