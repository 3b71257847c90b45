"""pdFTSP's auction as a durable admission and pricing service (``lorasched serve``):
:mod:`.tasks`, :mod:`.store`, :mod:`.auction_service`, :mod:`.http`, :mod:`.loadgen`; its
measurements are :mod:`lorasched.bench.service` and :mod:`lorasched.bench.faults`. See
:doc:`/reference/service`.
"""

from .auction_service import AuctionService
from .tasks import ServiceInputError

__all__ = ["AuctionService", "ServiceInputError"]
