"""The live review's web app (Starlette): the page, its script and style, and a small JSON API.

    GET  /              the page (HTML; its text is drawn by /page.js from the API's JSON)
    GET  /api/state     the controls' choices and the current state
    POST /api/solve     {"changes": [...]} -> the state of those changes (they replace those in force)
    POST /api/scenario  {"path", "name"?, "overwrite"?} -> writes the changes in force as a scenario file
    GET  /api/report    the HTML report of the current state, as a download

Every refusal is a JSON {"error": "..."} with a 4xx status and leaves the server as it was; anything
unforeseen is a 500 with one line, and the server keeps serving. The page loads nothing from elsewhere
(its Content-Security-Policy allows only this server), and a POST is taken only as JSON from this
server's own pages: no other site can make the browser save a file.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from planner.core.errors import InputError
from planner.core.files import file_stem
from planner.serve import saving
from planner.serve.changes import parse_changes
from planner.serve.session import Session
from planner.serve.view import options, state_view

MAX_BODY = 1_000_000  # bytes of a request body
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class _Refusal(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _asset(name: str) -> str:
    return (resources.files("planner.serve") / "page" / name).read_text(encoding="utf-8")


def _style() -> str:
    """The report's own style sheet, then the page's."""
    report = (resources.files("planner.outputs.report") / "templates" / "style.css.j2").read_text(encoding="utf-8")
    report = report.replace("<style>", "").replace("</style>", "")
    return report + _asset("page.css")


@dataclass(frozen=True)
class _Served:
    """What the handlers serve: the session, the scenarios folder, the Host names allowed, the assets."""

    session: Session
    folder: Path
    hosts: tuple[str, ...] | None
    assets: dict[str, tuple[str, str]]  # path -> (text, media type)


def create_app(
    session: Session, scenarios_dir: Path = Path("."), hosts: tuple[str, ...] | None = LOOPBACK
) -> Starlette:
    """The app over one session. `hosts`: the Host names a request may carry (None: any), so that a web
    page elsewhere cannot reach a server on this machine through a name it points here (DNS rebinding)."""
    assets = {
        "/": (_asset("page.html"), "text/html; charset=utf-8"),
        "/page.js": (_asset("page.js"), "text/javascript; charset=utf-8"),
        "/page.css": (_style(), "text/css; charset=utf-8"),
    }
    routes = [Route(path, _guarded(_get_asset), methods=["GET"]) for path in assets]
    routes += [
        Route("/api/state", _guarded(_get_state), methods=["GET"]),
        Route("/api/solve", _guarded(_post_solve), methods=["POST"]),
        Route("/api/scenario", _guarded(_post_scenario), methods=["POST"]),
        Route("/api/report", _guarded(_get_report), methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found})
    app.state.served = _Served(session, Path(scenarios_dir), hosts, assets)
    return app


def _guarded(handler):
    """The handler, its refusals and any error made JSON answers, every answer with the page's headers."""

    async def endpoint(request: Request) -> Response:
        served: _Served = request.app.state.served
        try:
            _check_host(request, served.hosts)
            response = await handler(request, served)
        except _Refusal as exc:
            response = JSONResponse({"error": exc.message}, exc.status)
        except saving.Refused as exc:
            response = JSONResponse({"error": exc.lines()[0]}, exc.status)
        except InputError as exc:
            response = JSONResponse({"error": exc.lines()[0]}, 422)
        except Exception as exc:  # the server keeps serving; the page shows the line
            print(f"planner serve: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
            response = JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, 500)
        response.headers.update(HEADERS)
        return response

    return endpoint


async def _get_asset(request: Request, served: _Served) -> Response:
    text, media = served.assets[request.url.path]
    return Response(text, media_type=media)


async def _get_state(request: Request, served: _Served) -> Response:
    session = served.session
    view = lambda: {"options": options(session), "state": state_view(session, session.current)}
    return JSONResponse(await run_in_threadpool(view))


async def _post_solve(request: Request, served: _Served) -> Response:
    changes = parse_changes(await _json(request))
    state = await run_in_threadpool(served.session.solve, changes)
    return JSONResponse(state_view(served.session, state))


async def _post_scenario(request: Request, served: _Served) -> Response:
    data = await _json(request)
    if not isinstance(data, dict) or set(data) - {"path", "name", "overwrite"}:
        raise _Refusal(422, 'scenario: expected {"path": FILE, "name": NAME, "overwrite": true|false}')
    overwrite = data.get("overwrite", False)
    if not isinstance(overwrite, bool):
        raise _Refusal(422, "scenario: overwrite: expected true or false")
    session, state = served.session, served.session.current
    if state.scenario is None:
        raise _Refusal(409, "scenario: no changes to save: make a change first")
    path = saving.target(served.folder, data.get("path"), overwrite=overwrite)
    name = saving.scenario_name(path, data.get("name"))
    text = saving.scenario_yaml(state.scenario.model_copy(update={"name": name}), session.inputs.workloads_file)
    await run_in_threadpool(lambda: saving.write(path, text, overwrite=overwrite))
    shown = str(path.relative_to(served.folder.resolve()))
    return JSONResponse({"path": shown, "name": name, "yaml": text}, 201)


async def _get_report(request: Request, served: _Served) -> Response:
    session = served.session
    state, html = await run_in_threadpool(session.report)
    stem = file_stem(session.base.name) + ("" if state.scenario is None else ".live")
    disposition = f'attachment; filename="{stem}.html"'
    return Response(html, media_type="text/html; charset=utf-8", headers={"Content-Disposition": disposition})


async def _not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    response = JSONResponse({"error": f"{request.method} {request.url.path}: no such page ({status})"}, status)
    response.headers.update(HEADERS)
    return response


def _check_host(request: Request, hosts: tuple[str, ...] | None) -> None:
    if hosts is None:
        return
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name not in hosts:
        raise _Refusal(403, f"host '{host[:60]}' is not this server's; open it as http://127.0.0.1")


async def _json(request: Request) -> object:
    """A POST's body: JSON, from this server's own page, at most MAX_BODY bytes, finite numbers only."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise _Refusal(415, "expected a JSON body (Content-Type: application/json)")
    origin = request.headers.get("origin")
    if origin is not None:
        own = origin.split("://", 1)[-1]
        if origin.split("://", 1)[0] != "http" or own != request.headers.get("host", ""):
            raise _Refusal(403, f"origin '{origin[:60]}' is not this server")
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise _Refusal(413, f"a request body is at most {MAX_BODY:,} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise _Refusal(413, f"a request body is at most {MAX_BODY:,} bytes")
    try:
        return json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise _Refusal(400, f"the body is not JSON: {str(exc)[:120]}") from None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is too large a number")
    return value
