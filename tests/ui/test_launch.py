"""`make run`'s launcher: the sample document lands in an empty workspace once; Streamlit is
started on serve.py (the app plus the page-image route)."""

from __future__ import annotations

import hashlib

from workbench.config import get_settings
from workbench.ui import launch


def test_ensure_sample_ingests_once_into_an_empty_workspace(data_dir):
    from workbench.service import Workbench

    first = launch.ensure_sample(get_settings())
    assert first and "NIST.SP.800-171r2.pdf" in first and "113 pages" in first
    assert launch.ensure_sample(get_settings()) is None  # already there: nothing to do
    [doc] = Workbench(get_settings()).documents()
    assert doc.id == hashlib.sha256(launch.SAMPLE.read_bytes()).hexdigest()
    assert doc.source_type == "policy"


def test_sample_is_the_bundled_us_government_publication():
    readme = (launch.SAMPLE.parent / "README.md").read_text()
    assert hashlib.sha256(launch.SAMPLE.read_bytes()).hexdigest() in readme
    assert "not subject to copyright" in readme


def test_streamlit_command_runs_serve_py_headless_on_the_port():
    cmd = launch.streamlit_command(8765, "127.0.0.1")
    assert cmd[1:4] == ["-m", "streamlit", "run"]
    assert cmd[4].endswith("serve.py")
    joined = " ".join(cmd)
    assert "--server.port 8765" in joined and "--server.headless true" in joined
    assert "--server.address 127.0.0.1" in joined
    assert "--logger.hideWelcomeMessage true" in joined  # the banner would look up the external IP online


def test_a_busy_port_is_refused_with_what_to_do_before_anything_starts(data_dir):
    import socket

    import pytest

    from workbench.ui import launch

    with socket.socket() as s:
        s.bind(("", 0))
        s.listen()
        port = s.getsockname()[1]
        assert "already in use" in launch.port_problem(port, None)
        with pytest.raises(SystemExit, match=rf"make run PORT={port + 1}"):
            launch.main(["--port", str(port)])
    assert launch.port_problem(port, None) is None


def _launched(monkeypatch, argv):
    """The command `make run` would exec, without starting anything."""
    import os

    from workbench.ui import launch

    seen = {}
    monkeypatch.setattr(os, "execv", lambda path, cmd: seen.setdefault("cmd", cmd))
    monkeypatch.setattr(os, "chdir", lambda path: None)
    launch.main(argv)
    return " ".join(seen["cmd"])


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_run_listens_on_127_0_0_1_unless_told_otherwise(data_dir, monkeypatch, capsys):
    from workbench.config import get_settings

    assert "--server.address 127.0.0.1" in _launched(monkeypatch, ["--port", str(_free_port()), "--no-sample"])
    assert "anyone who can reach" not in capsys.readouterr().out
    monkeypatch.setenv("WORKBENCH_LISTEN_ADDRESS", "0.0.0.0")
    get_settings.cache_clear()
    assert "--server.address 0.0.0.0" in _launched(monkeypatch, ["--port", str(_free_port()), "--no-sample"])
    assert "reverse proxy" in capsys.readouterr().out  # listening wider says what that means


def test_streamlit_run_serve_py_alone_also_listens_on_loopback_only():
    import tomllib

    config = tomllib.loads((launch.ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
