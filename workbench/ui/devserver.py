"""Start the app on a free 127.0.0.1 port in a child process, for the browser tests and the
screenshot script: an isolated WORKBENCH_DATA_DIR, the same entry file `make run` uses."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from workbench.config import child_env
from workbench.ui.launch import ROOT, streamlit_command

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """`with AppServer(data_dir) as url:` — the app runs until the block ends."""

    def __init__(self, data_dir: Path, *, env: dict[str, str] | None = None, log: Path | None = None):
        self.data_dir = Path(data_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.env = env or {}
        self.log = log
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> str:
        env = child_env(drop=("WORKBENCH_DATABASE_URL",), WORKBENCH_DATA_DIR=str(self.data_dir), PYTHONPATH=str(ROOT),
                        **self.env)
        out = open(self.log, "wb") if self.log else subprocess.DEVNULL  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(streamlit_command(self.port, "127.0.0.1"), cwd=ROOT, env=env,
                                     stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the app exited with code {self.proc.returncode} (log: {self.log})")
            try:
                urllib.request.urlopen(self.url + "_stcore/health", timeout=1)
                return self.url
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError("the app did not answer within 90 s")

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
