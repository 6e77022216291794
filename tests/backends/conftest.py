"""Each test's fake or real server is a new endpoint: what the backend learned about an earlier
one (context size, the structured-output form it accepts) must not carry over when the OS hands
the next server the same port (a test once read another server's cached context size)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _forget_endpoints():
    from workbench.backends import openai

    with openai._ENDPOINT_LOCK:
        openai._ENDPOINT_CTX.clear()
        openai._ENDPOINT_FORM.clear()
    yield
