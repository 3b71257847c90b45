"""The HTTP/JSON face of :class:`~lorasched.service.auction_service.AuctionService` (version 1,
Starlette on uvicorn, :func:`serve`): ``/v1/tasks``, ``/v1/prices``, ``/healthz`` and
``/metrics``. Routes, answers and errors: :doc:`/reference/service`.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import logging
import re

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from ..model.errors import InputError
from ..model.limits import MAX_JSON_DEPTH
from .auction_service import AuctionService, ConflictError
from .store import StoreError
from .tasks import ServiceInputError

#: the largest request body, bytes
MAX_BODY = 64 * 1024
#: seconds a client is asked to wait before sending a refused write again (503)
RETRY_AFTER_S = 2
LOOPBACK = ("localhost",)
LOG = logging.getLogger("lorasched.service")
#: a JSON string (an unterminated one runs to the end) or a bracket: one linear pass
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
_DIGITS = re.compile(r"[0-9]{1,12}")


def _error(status: int, field: str, message: str, headers=None) -> JSONResponse:
    return JSONResponse({"error": message, "field": field}, status_code=status,
                        headers=headers)


def nests_deeper(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``body``'s arrays and objects nest deeper than ``limit`` (brackets inside
    strings do not count): one linear pass that stops at the first level too deep, and
    none for a body with no more than ``limit`` brackets."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for token in _TOKENS.finditer(body):
        c = token.group()[0]
        if c in b"[{":
            depth += 1
            if depth > limit:
                return True
        elif c in b"]}":
            depth -= 1
    return False


def _guarded(handler):
    """``handler``, with any exception it does not answer itself answered 500 (JSON) and
    logged with its traceback."""
    @functools.wraps(handler)
    async def run(request: Request):
        try:
            return await handler(request)
        except Exception as err:  # a bug: answer it, log it; the state is unchanged
            LOG.exception("%s %s failed", request.method, request.url.path)
            return _error(500, "server", f"internal error ({type(err).__name__}), logged "
                                         f"with its traceback; GET /healthz says whether "
                                         f"the service goes on")
    return run


def create_app(service: AuctionService, *, token: str | None = None,
               max_body: int = MAX_BODY) -> Starlette:
    """The ASGI app of a service: the versioned HTTP/JSON API (the module docstring).

    Parameters
    ----------
    service : AuctionService
        The service whose methods the routes call.
    token : str, optional
        With a token, every request must carry ``Authorization: Bearer <token>``
        (compared in constant time; 401 otherwise).
    max_body : int, optional
        The largest request body, bytes (default ``MAX_BODY``, 64 KiB; 413 above).

    Returns
    -------
    starlette.applications.Starlette
        The app, to be served by uvicorn (:func:`serve`).
    """

    def authorised(request: Request) -> bool:
        if token is None:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    async def post_task(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        size = request.headers.get("content-length")
        if size is not None and (not _DIGITS.fullmatch(size) or int(size) > max_body):
            return _error(413, "body", f"the body exceeds {max_body} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body:
                return _error(413, "body", f"the body exceeds {max_body} bytes")
        if nests_deeper(body):
            return _error(422, "body", f"the body nests arrays and objects deeper than "
                                       f"{MAX_JSON_DEPTH} levels (lorasched.model.limits)")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as err:
            return _error(422, "body", f"the body is not JSON: {err}")
        try:
            decision, new = service.offer(payload)  # ~0.5 ms: cheaper than a thread hop
        except ConflictError as err:
            return _error(409, err.field, str(err))
        except ServiceInputError as err:
            return _error(422, err.field, str(err))
        except StoreError as err:
            then = ("nothing was decided: send the same request again" if err.known else
                    "the next request settles it: send the same request again")
            return _error(503, err.field, f"{err}; {then}",
                          {"Retry-After": str(RETRY_AFTER_S)})
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
        health = service.health()
        return JSONResponse(health, status_code=200 if health["status"] == "ok" else 503)

    async def metrics(request: Request):
        if not authorised(request):
            return _error(401, "authorization", "a bearer token is required")
        return PlainTextResponse(service.metrics(), media_type="text/plain; version=0.0.4")

    return Starlette(routes=[
        Route("/v1/tasks", _guarded(post_task), methods=["POST"]),
        Route("/v1/tasks/{task_id}", _guarded(get_task), methods=["GET"]),
        Route("/v1/prices", _guarded(prices), methods=["GET"]),
        Route("/healthz", _guarded(healthz), methods=["GET"]),
        Route("/metrics", _guarded(metrics), methods=["GET"]),
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
    """Run the service on ``host:port`` until interrupted (uvicorn).

    Parameters
    ----------
    service : AuctionService
        The service.
    host : str, optional
        The address to bind (default 127.0.0.1); another than loopback needs ``token``.
    port : int, optional
        The port (default 8000).
    token : str, optional
        The bearer token every request must carry (at least 16 characters).
    max_body : int, optional
        The largest request body, bytes (default 64 KiB).
    log_level : str, optional
        uvicorn's log level (default ``"warning"``).

    Raises
    ------
    InputError
        If ``host`` is not a loopback address and no token is given, or the token is
        shorter than 16 characters.
    """
    check_bind(host, token)
    uvicorn.run(create_app(service, token=token, max_body=max_body), host=host, port=port,
                log_level=log_level)
