"""pdFTSP's auction as a durable admission and pricing service (``lorasched serve``):
:mod:`.tasks`, :mod:`.store`, :mod:`.auction`, :mod:`.http`, :mod:`.loadgen`, and the
measurements :mod:`.bench` and :mod:`.drill`. See :doc:`/reference/service`.
"""

from .auction import AuctionService
from .tasks import ServiceInputError

__all__ = ["AuctionService", "ServiceInputError"]
