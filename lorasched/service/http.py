"""The HTTP/JSON face of :class:`~lorasched.service.auction.AuctionService` (version 1).

=====================  ==================================================================
``POST /v1/tasks``     one task (:mod:`.tasks`) -> its decision: 201 when new, 200 when
                       the id was decided before (the stored decision, nothing admitted
                       twice); 422 for a bad field, 409 for a used id with another body
                       or a closed slot, 413 for a body over the limit; the error body is
                       ``{"error": message, "field": name}`` and changes nothing
``GET /v1/tasks/{id}``  the stored decision, or 404
``GET /v1/prices``     lambda and phi (node x slot) for ``?from=&to=`` (default all slots)
``GET /healthz``       ``{"status": "ok", "decisions": n, "clock": slot}``
``GET /metrics``       Prometheus text: decisions, admitted, repeats, clock, latency
=====================  ==================================================================

Starlette (an ASGI toolkit; the app is small and needs neither validation models nor
OpenAPI, so FastAPI would add a layer and Pydantic for nothing) served by uvicorn. The
auction decides in the event loop itself: a decision and its durable write take about half
a millisecond and decisions are serial anyway, and a hop to a worker thread cost more than
that (K = 100, loopback, 4 clients: 725 decisions/s through a thread pool, 1,457 without;
``lorasched bench service``). uvloop and httptools, when installed, serve HTTP. Who may
call: :func:`serve` binds 127.0.0.1 by default; another address needs a bearer token
(compared in constant time), else it refuses to start.
"""

from __future__ import annotations

import hmac
import ipaddress
import json

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from ..model.errors import InputError
from .auction import AuctionService, ConflictError
from .tasks import ServiceInputError

#: the largest request body, bytes
MAX_BODY = 64 * 1024
LOOPBACK = ("localhost",)


def _error(status: int, field: str, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "field": field}, status_code=status)


def create_app(service: AuctionService, *, token: str | None = None,
               max_body: int = MAX_BODY) -> Starlette:
    """The ASGI app of ``service``; with ``token``, every request must carry
    ``Authorization: Bearer <token>`` (401 otherwise)."""

    def authorised(request: Request) -> bool:
        if token is None:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    async def post_task(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > max_body):
            return _error(413, "body", f"the body exceeds {max_body} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body:
                return _error(413, "body", f"the body exceeds {max_body} bytes")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError) as err:
            return _error(422, "body", f"the body is not JSON: {err}")
        try:
            decision, new = service.offer(payload)  # ~0.5 ms: cheaper than a thread hop
        except ConflictError as err:
            return _error(409, err.field, str(err))
        except ServiceInputError as err:
            return _error(422, err.field, str(err))
        return JSONResponse(decision, status_code=201 if new else 200)

    async def get_task(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        decision = service.get(request.path_params["task_id"])
        if decision is None:
            return _error(404, "id", f"no task {request.path_params['task_id']!r} decided")
        return JSONResponse(decision)

    async def prices(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        T = service.cluster.n_slots
        try:
            start = int(request.query_params.get("from", 0))
            stop = int(request.query_params.get("to", T))
            return JSONResponse(service.prices(start, stop))
        except ValueError as err:
            return _error(422, getattr(err, "field", "from"), str(err))

    async def healthz(request: Request):
        return JSONResponse({"status": "ok", "decisions": len(service.by_id),
                             "clock": service.clock})

    async def metrics(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        return PlainTextResponse(service.metrics(), media_type="text/plain; version=0.0.4")

    return Starlette(routes=[
        Route("/v1/tasks", post_task, methods=["POST"]),
        Route("/v1/tasks/{task_id}", get_task, methods=["GET"]),
        Route("/v1/prices", prices, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ])


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """``ValueError`` naming ``--token`` when ``host`` is not a loopback address and no
    token is given."""
    if not is_loopback(host) and not token:
        raise InputError(f"--host {host}: binding an address other than loopback needs "
                         f"--token (a bearer token every request must carry)")
    if token is not None and len(token) < 16:
        raise InputError("--token: at least 16 characters")


def serve(service: AuctionService, host: str = "127.0.0.1", port: int = 8000, *,
          token: str | None = None, max_body: int = MAX_BODY,
          log_level: str = "warning") -> None:
    """Run the service on ``host:port`` until interrupted (uvicorn)."""
    check_bind(host, token)
    uvicorn.run(create_app(service, token=token, max_body=max_body), host=host, port=port,
                log_level=log_level)
