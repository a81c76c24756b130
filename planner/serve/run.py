"""Serving the app: the socket bound first (a port in use is an input error, before any solve is
wasted on it), then the base solved, then uvicorn on the socket until Ctrl-C or SIGTERM."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

from planner.core.errors import InputError, Setting
from planner.model.load import load_inputs


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free one)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InputError.single(Setting("host"), "", f"'{host}': {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise InputError.single(Setting("port"), "", f"{port} on {host}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def serve(app, sock: socket.socket) -> None:
    """uvicorn on the bound socket, its own logging off (the command prints the address)."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


def serve_review(
    workloads: Path, catalog: Path | None, host: str, port: int, scenarios_dir: Path, solver: str = "auto"
) -> None:
    """Load the files, bind, solve the base, say where the page is, and serve it."""
    from planner.serve.app import LOOPBACK, create_app
    from planner.serve.session import Session

    if not scenarios_dir.is_dir():
        raise InputError.single(str(scenarios_dir), Setting("scenarios_dir"), "is not a folder")
    inputs = load_inputs(workloads, catalog)
    sock = bind(host, port)
    try:
        session = Session(inputs, solver)
        address, bound = sock.getsockname()[:2]
        shown = f"[{address}]" if ":" in address else address
        hosts = (*LOOPBACK, shown, host) if is_loopback(host) else None  # (None: any Host header)
        app = create_app(session, scenarios_dir, hosts)
        if not is_loopback(host):
            print(f"planner serve: serving on {host}: anyone who can reach it can use the page", file=sys.stderr)
        print(f"planner serve: the live review of {session.base.name} at http://{shown}:{bound}/ (Ctrl-C stops it)")
        sys.stdout.flush()
        serve(app, sock)
    finally:
        sock.close()
