"""`make run`: make sure the workspace has the sample document, then hand over to
`streamlit run serve.py` (serve.py = app.py plus the viewer's page-image route).

    python -m workbench.ui.launch [--port 8501] [--address 127.0.0.1] [--no-sample]

It listens on 127.0.0.1 unless WORKBENCH_LISTEN_ADDRESS (or --address) says otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.config import Settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "assets" / "sample" / "NIST.SP.800-171r2.pdf"


def ensure_sample(settings: Settings, sample: Path = SAMPLE) -> str | None:
    """Ingest the sample into the workspace unless it is there. Returns a line to print."""
    from workbench.errors import WorkbenchError
    from workbench.service import Workbench

    wb = Workbench(settings)
    doc_id = hashlib.sha256(sample.read_bytes()).hexdigest()
    try:
        if any(d.id == doc_id for d in wb.documents()):
            return None
        doc = wb.ingest(sample, sample.name, source_type="policy")
    except (WorkbenchError, NotImplementedError) as e:
        return f"Sample document not ingested ({e}); the app starts anyway."
    return f"Ingested the sample document {doc.filename} ({doc.pages} pages) into {wb.settings.data_dir}."


def port_problem(port: int, address: str | None) -> str | None:
    """Why the app could not listen on the port, in words a user can act on; None when free."""
    with socket.socket() as s:
        try:
            s.bind((address or "", port))
        except OSError:
            return (f"Port {port} is already in use (another app, or the workbench already running?): "
                    f"start on another port with `make run PORT={port + 1}`.")
    return None


def streamlit_command(port: int, address: str | None) -> list[str]:
    # hideWelcomeMessage: Streamlit's banner looks up the machine's external IP on the internet
    # (checkip.amazonaws.com) when headless without an address; we print the URL ourselves.
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.port", str(port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--logger.hideWelcomeMessage", "true"]
    if address:
        cmd += ["--server.address", address]
    return cmd


def main(argv: list[str] | None = None) -> None:
    from workbench.config import env_value, get_settings

    ap = argparse.ArgumentParser(prog="python -m workbench.ui.launch", description="Start the Evidence Workbench app.")
    ap.add_argument("--port", type=int, default=int(env_value("PORT") or 8501))
    ap.add_argument("--address", default=None,
                    help="interface to listen on (default: WORKBENCH_LISTEN_ADDRESS, which is 127.0.0.1)")
    ap.add_argument("--no-sample", action="store_true", help="do not ingest the sample document")
    args = ap.parse_args(argv)
    settings = get_settings()
    if not args.address:
        args.address = settings.listen_address
    problem = port_problem(args.port, args.address)
    if problem:
        raise SystemExit(problem)
    if not args.no_sample:
        msg = ensure_sample(settings)
        if msg:
            print(msg, flush=True)
    print(f"Evidence Workbench on http://{args.address}:{args.port}/", flush=True)
    if args.address not in ("127.0.0.1", "localhost", "::1"):
        print(f"Listening on {args.address}: anyone who can reach this address can read the documents. "
              "Turn sign-in on (WORKBENCH_SIGN_IN) and/or put an authenticating reverse proxy in front "
              "(README, 'Serving others').", flush=True)
    os.chdir(ROOT)
    cmd = streamlit_command(args.port, args.address)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
