"""Serving the app: the socket bound first (a port in use is an input error, before any solve is
wasted on it), then uvicorn on it until Ctrl-C or SIGTERM."""

from __future__ import annotations

import ipaddress
import socket

from planner.core.errors import InputError, Setting


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
