"""pdFTSP's auction as a durable admission and pricing service (``lorasched serve``):
:mod:`.tasks`, :mod:`.store`, :mod:`.auction_service`, :mod:`.http`, ``loadgen``; its
measurements are ``lorasched.bench.service`` and ``lorasched.bench.faults``. See
:doc:`/reference/service`.
"""

from .auction_service import AuctionService
from .tasks import ServiceInputError

__all__ = ["AuctionService", "ServiceInputError"]
