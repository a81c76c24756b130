"""`planner serve` before it serves (planner.serve.run and the command): a port in use, a scenarios folder
that is not one, a host that does not resolve are one line and exit 2, before any solve."""

import socket

from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.serve.run import bind, is_loopback

SUPPORT = ROOT / "workloads" / "support.yaml"


def test_a_port_in_use_is_refused_before_any_solve(tmp_path):
    taken = bind("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", str(SUPPORT), "--port", str(port), "--scenarios-dir", str(tmp_path)])
    finally:
        taken.close()
    assert result.exit_code == 2 and result.output.startswith(f"--port: {port} on 127.0.0.1: "), result.output


def test_the_scenarios_folder_and_the_host_are_checked(tmp_path):
    (tmp_path / "file").write_text("x")
    run = CliRunner().invoke
    result = run(app, ["serve", str(SUPPORT), "--scenarios-dir", str(tmp_path / "file")])
    assert result.exit_code == 2 and "--scenarios-dir: is not a folder" in result.output
    result = run(app, ["serve", str(SUPPORT), "--host", "no-such-host.invalid", "--scenarios-dir", str(tmp_path)])
    assert result.exit_code == 2 and result.output.startswith("--host: 'no-such-host.invalid'"), result.output
    assert run(app, ["serve", str(tmp_path / "missing.yaml")]).exit_code == 2


def test_loopback_names():
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.2", "example.com"))
    sock = bind("localhost", 0)
    try:
        assert sock.type == socket.SOCK_STREAM and sock.getsockname()[1] > 0
    finally:
        sock.close()
