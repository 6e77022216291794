"""Signed records and envelopes read text of any script: a record holding "§ 6 … Société" opens,
and a forged signature with non-ASCII characters is refused as forged, never a crash."""

from __future__ import annotations

import pytest

from workbench.jobs.envelope import JobRefused, open_sealed, open_signed_record, seal, sign_record
from workbench.store.signing import Signer

KEY = b"k" * 32
TEXT = '{"question": "§ 6 Termination — who may end it? Société Générale’s “cure period”"}'


@pytest.mark.parametrize("raw,opens", [
    (sign_record(KEY, "job1", TEXT).encode(), True),
    (("é" * 64 + " " + TEXT).encode(), False),  # a forged mac with non-ASCII characters
    (sign_record(KEY, "job2", TEXT).encode(), False),  # another job's record
    (b"no mac at all", False),
])
def test_signed_records_of_any_script(raw, opens):
    assert (open_signed_record(KEY, "job1", raw) == TEXT) is opens


def test_a_sealed_envelope_with_a_non_ascii_signature_is_refused_not_a_crash():
    sealed = seal(KEY, job_id="job1", queue="q", kind="ask", payload={"questions": ["§ 6 — Société?"]},
                  requested_by=None, rq={})
    assert open_sealed(KEY, sealed, "job1").payload == {"questions": ["§ 6 — Société?"]}
    with pytest.raises(JobRefused, match="signature"):
        open_sealed(KEY, {**sealed, "signature": "é" * 64}, "job1")


def test_a_stored_signature_with_non_ascii_characters_fails_its_check(data_dir):
    from workbench.config import get_settings

    signer = Signer(get_settings())
    assert signer.check(signer.sign("a", "§"), "a", "§")
    assert not signer.check("é" * 64, "a", "§")
