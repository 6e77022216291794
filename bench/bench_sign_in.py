"""Sign-in timing (issue 37, item 6): a refusal costs the same whether the name exists or not, a
throttled attempt costs no hash, and one hash at OWASP's scrypt cost takes what it takes here.
Timed here, never in tests. Run: python -m bench.bench_sign_in"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from workbench.config import Settings
from workbench.errors import SignInError
from workbench.service import Workbench


def _time(fn, n: int = 5) -> float:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        with contextlib.suppress(SignInError):
            fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        wb = Workbench(Settings(data_dir=Path(d), sign_in=True, sign_in_max_failures=1000,
                                sign_in_client_max_failures=1000))
        wb.add_user("Ada Admin", "admin", "the first admin's password")
        known = _time(lambda: wb.sign_in("Ada Admin", "wrong password", client="bench"))
        unknown = _time(lambda: wb.sign_in("Nobody Here", "wrong password", client="bench"))
        ok = _time(lambda: wb.sign_in("Ada Admin", "the first admin's password", client="bench"))
        strict = Workbench(Settings(data_dir=Path(d), sign_in=True, sign_in_max_failures=1))
        throttled = _time(lambda: strict.sign_in("Ada Admin", "wrong password", client="bench2"), n=10)
    print(f"wrong password, known name : {known * 1000:8.1f} ms")
    print(f"unknown name               : {unknown * 1000:8.1f} ms")
    print(f"right password             : {ok * 1000:8.1f} ms")
    print(f"throttled (no hash)        : {throttled * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
