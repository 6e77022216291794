"""Sign-in (Settings.sign_in): local accounts with scrypt-hashed passwords, roles, and review
events that carry the signed-in identity; with sign-in off the typed name is recorded as before."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.ui.conftest import seed_run
from workbench.config import Settings
from workbench.errors import ForbiddenError, ReviewerRequiredError, SignInError
from workbench.service import Workbench


@pytest.fixture
def signed(data_dir, policy_pdf_path, monkeypatch):
    from workbench import auth

    monkeypatch.setattr(auth, "SCRYPT_N", 2**10)  # logic, not cost: test_sign_in_throttle checks the cost
    wb = Workbench(Settings(data_dir=data_dir, sign_in=True))
    doc = wb.ingest(policy_pdf_path, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id)
    wb.add_user("Root Admin", "admin", "the first admin's password")  # the data folder's owner bootstraps
    root = wb.sign_in("Root Admin", "the first admin's password")
    wb.add_user("Rae Reviewer", "reviewer", "correct horse battery", identity=root)
    wb.add_user("Ada Adjudicator", "adjudicator", "staple battery horse", identity=root)
    wb.root = root
    return wb, run


@pytest.fixture
def policy_pdf_path(make_pdf):
    from tests.ui.conftest import PAGE1, PAGE2

    return make_pdf([PAGE1, PAGE2], name="policy.pdf")


def test_the_password_is_stored_only_as_a_salted_scrypt_hash(signed):
    wb, _ = signed
    row = wb.store.get_user("Rae Reviewer")
    assert row["password_hash"].startswith("scrypt$") and "correct horse" not in row["password_hash"]
    wb.add_user("Sam", "reviewer", "correct horse battery", identity=wb.root)
    assert wb.store.get_user("Sam")["password_hash"] != row["password_hash"]  # salted


def test_sign_in_needs_the_right_password_and_says_nothing_about_which_part_was_wrong(signed):
    wb, _ = signed
    me = wb.sign_in("Rae Reviewer", "correct horse battery")
    assert (me.name, me.role, me.via) == ("Rae Reviewer", "reviewer", "local")
    with pytest.raises(SignInError) as wrong_pw:
        wb.sign_in("Rae Reviewer", "correct horse")
    with pytest.raises(SignInError) as no_user:
        wb.sign_in("Nobody", "correct horse battery")
    assert str(wrong_pw.value) == str(no_user.value)


def test_a_decision_records_the_signed_in_identity_not_a_typed_name(signed):
    wb, run = signed
    me = wb.sign_in("Rae Reviewer", "correct horse battery")
    rid = run.evidence[0].requirement_id
    ev = wb.review(run.run_id, rid, "unsupported", "Someone Else", identity=me)
    assert ev.reviewer == "Rae Reviewer"
    assert wb.history(run.run_id, rid)[-1].reviewer == "Rae Reviewer"
    with pytest.raises(SignInError):
        wb.review(run.run_id, rid, "supported", "Someone Else")  # no identity: refused


def test_a_reviewer_cannot_adjudicate_and_an_adjudicator_can(signed):
    wb, run = signed
    rid = run.evidence[0].requirement_id
    rae = wb.sign_in("Rae Reviewer", "correct horse battery")
    with pytest.raises(ForbiddenError) as refused:
        wb.review(run.run_id, rid, "supported", None, adjudication=True, identity=rae)
    assert refused.value.needs == "adjudicator" and "reviewer" in str(refused.value)
    assert wb.history(run.run_id, rid) == []
    ada = wb.sign_in("Ada Adjudicator", "staple battery horse")
    ev = wb.review(run.run_id, rid, "supported", None, adjudication=True, identity=ada)
    assert (ev.reviewer, ev.kind) == ("Ada Adjudicator", "adjudication")


def test_an_identity_provider_user_gets_the_role_of_their_account_else_reviewer(signed):
    wb, _ = signed
    wb.add_user("lee@example.org", "admin", None, oidc=True, identity=wb.root)
    assert wb.oidc_identity({"email": "lee@example.org", "email_verified": True, "sub": "x1"}).role == "admin"
    other = wb.oidc_identity({"email": "kim@example.org", "email_verified": True})
    assert (other.name, other.role, other.via) == ("oidc:kim@example.org", "reviewer", "oidc")
    with pytest.raises(SignInError):
        wb.sign_in("oidc:lee@example.org", "")  # no password: no local sign-in


def test_with_sign_in_off_the_typed_name_is_recorded_as_before(data_dir, policy_pdf_path):
    wb = Workbench(Settings(data_dir=data_dir))
    doc = wb.ingest(policy_pdf_path, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id)
    rid = run.evidence[0].requirement_id
    assert wb.review(run.run_id, rid, "supported", "Dana").reviewer == "Dana"
    with pytest.raises(ReviewerRequiredError):
        wb.review(run.run_id, rid, "supported", "  ")


def test_cli_user_add_reads_the_password_from_stdin_and_review_signs_in(signed, data_dir):
    wb, run = signed
    env = {"WORKBENCH_DATA_DIR": str(data_dir), "WORKBENCH_SIGN_IN": "true", "PYTHONPATH": str(ROOT),
           "PATH": "/usr/bin:/bin"}

    def cli(*args, stdin=""):
        return subprocess.run([sys.executable, "-m", "workbench", *args], input=stdin, env=env,
                              capture_output=True, text=True, timeout=120, cwd=ROOT)

    added = cli("user", "add", "Cy", "--role", "reviewer", "--password-stdin", "--as", "Root Admin",
                stdin="the first admin's password\nlong enough pw\n")
    assert added.returncode == 0, added.stderr
    assert "long enough pw" not in added.stdout + added.stderr
    rid = run.evidence[1].requirement_id
    ok = cli("review", run.run_id, rid, "--label", "supported", "--reviewer", "Cy", "--password-stdin",
             "--json", stdin="long enough pw\n")
    assert ok.returncode == 0, ok.stderr
    assert '"reviewer": "Cy"' in ok.stdout
    bad = cli("review", run.run_id, rid, "--label", "supported", "--reviewer", "Cy", "--adjudicate",
              "--password-stdin", stdin="long enough pw\n")
    assert bad.returncode == 2 and "adjudicator role" in bad.stderr
    no_pw = cli("review", run.run_id, rid, "--label", "supported", "--reviewer", "Cy")
    assert no_pw.returncode == 2 and "--password-stdin" in no_pw.stderr
