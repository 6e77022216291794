"""Issue 37, item 4: roles are enforced in the service, from one table, on an identity re-read
from the store at every action. Each attack acts with exactly what that party holds: a reviewer's
or a former adjudicator's signed-in session, a client process started with sign-in off, an
identity provider's claims."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.conftest import ROOT
from tests.ui.conftest import PAGE1, PAGE2, seed_run
from workbench import auth
from workbench.config import Settings
from workbench.errors import ForbiddenError, SignInError, WorkbenchError
from workbench.models import Identity
from workbench.service import Workbench

PW = {"Ada Admin": "admin horse battery", "Jo Judge": "staple judge horse", "Rae Reviewer": "correct horse battery"}


@pytest.fixture
def cheap_hashes(monkeypatch):
    """Logic tests hash at a low cost; test_sign_in_throttle checks the OWASP cost itself."""
    monkeypatch.setattr(auth, "SCRYPT_N", 2**10)


def sign(wb: Workbench, name: str) -> Identity:
    return wb.sign_in(name, PW[name], client="test")


@pytest.fixture
def team(data_dir, make_pdf, cheap_hashes):
    """A signed-in team: the first admin (made by the data folder's owner while no account
    exists), an adjudicator and a reviewer she added, a document and a run."""
    wb = Workbench(Settings(data_dir=data_dir, sign_in=True))
    doc = wb.ingest(make_pdf([PAGE1, PAGE2], name="policy.pdf"), "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id)
    wb.add_user("Ada Admin", "admin", PW["Ada Admin"])
    ada = sign(wb, "Ada Admin")
    wb.add_user("Jo Judge", "adjudicator", PW["Jo Judge"], identity=ada)
    wb.add_user("Rae Reviewer", "reviewer", PW["Rae Reviewer"], identity=ada)
    return SimpleNamespace(wb=wb, run=run, doc=doc, ada=ada, rid=run.evidence[0].requirement_id)


def test_one_table_says_which_role_each_action_needs():
    assert set(auth.PERMISSIONS) == {"label", "add_evidence", "adjudicate", "force_export", "calibrate",
                                     "retype_document", "remove_document", "manage_accounts", "read_security_log"}
    assert auth.PERMISSIONS["label"] == "reviewer" and auth.PERMISSIONS["manage_accounts"] == "admin"
    assert auth.allowed("adjudicator") == {"label", "add_evidence", "adjudicate", "force_export"}


def test_a_reviewer_labels_but_cannot_calibrate_revert_remove_retype_force_an_export_or_add_accounts(team):
    wb, run, doc = team.wb, team.run, team.doc
    rae = sign(wb, "Rae Reviewer")
    assert wb.review(run.run_id, team.rid, "unsupported", None, identity=rae).reviewer == "Rae Reviewer"
    attempts = {
        "calibrate": lambda: wb.calibrate(identity=rae),
        "revert": lambda: wb.revert_calibration(identity=rae),
        "remove": lambda: wb.remove_document(doc.id, identity=rae),
        "retype": lambda: wb.set_source_type(doc.id, "statute", identity=rae),
        "force export": lambda: wb.export([run.run_id], "md", force=True, reason="deadline", identity=rae),
        "user add": lambda: wb.add_user("Mal", "admin", "mallory's password", identity=rae),
        "promote self": lambda: wb.set_role("Rae Reviewer", "admin", identity=rae),
        "adjudicate": lambda: wb.review(run.run_id, team.rid, "supported", None, adjudication=True, identity=rae),
    }
    for what, attempt in attempts.items():
        with pytest.raises(ForbiddenError):
            attempt()
            pytest.fail(f"a reviewer could {what}")
    assert wb.document(doc.id).source_type == "policy" and wb.document(doc.id).removed_at is None
    assert wb.calibration_history() == [] and wb.store.get_user("Mal") is None
    assert wb.store.get_user("Rae Reviewer")["role"] == "reviewer"


def test_an_adjudicator_settles_and_forces_exports_and_only_an_admin_runs_the_workspace(team):
    wb, run, doc = team.wb, team.run, team.doc
    jo = sign(wb, "Jo Judge")
    assert wb.review(run.run_id, team.rid, "supported", None, adjudication=True, identity=jo).kind == "adjudication"
    assert wb.export([run.run_id], "md", force=True, reason="deadline", identity=jo).data
    with pytest.raises(ForbiddenError, match="admin role"):
        wb.remove_document(doc.id, identity=jo)
    assert wb.set_source_type(doc.id, "statute", identity=team.ada).source_type == "statute"
    assert wb.remove_document(doc.id, identity=team.ada).removed_by == "Ada Admin"


def test_an_identity_made_up_or_edited_by_the_caller_is_refused(team):
    wb, doc = team.wb, team.doc
    with pytest.raises(SignInError):
        wb.remove_document(doc.id, identity=Identity(name="Ada Admin", role="admin"))
    rae = sign(wb, "Rae Reviewer")
    with pytest.raises(ForbiddenError):  # the role is read from the store, not from the Identity
        wb.remove_document(doc.id, identity=rae.model_copy(update={"role": "admin"}))
    with pytest.raises(SignInError):  # another name with a real session's proof
        wb.remove_document(doc.id, identity=rae.model_copy(update={"name": "Ada Admin"}))
    assert wb.document(doc.id).removed_at is None


def test_a_demoted_adjudicators_open_session_loses_its_rights_at_once(team):
    wb, run = team.wb, team.run
    jo = sign(wb, "Jo Judge")
    wb.review(run.run_id, team.rid, "supported", None, adjudication=True, identity=jo)
    wb.set_role("Jo Judge", "reviewer", identity=team.ada)
    with pytest.raises(SignInError, match="sign in again"):
        wb.review(run.run_id, team.rid, "unsupported", None, adjudication=True, identity=jo)
    again = sign(wb, "Jo Judge")
    assert again.role == "reviewer"
    with pytest.raises(ForbiddenError):
        wb.review(run.run_id, team.rid, "unsupported", None, adjudication=True, identity=again)
    assert len(wb.history(run.run_id, team.rid)) == 1


def test_a_re_passworded_users_old_session_and_old_password_are_refused(team):
    wb, run = team.wb, team.run
    rae = sign(wb, "Rae Reviewer")
    wb.change_password("Rae Reviewer", "a brand new password", identity=team.ada)
    with pytest.raises(SignInError):
        wb.review(run.run_id, team.rid, "unsupported", None, identity=rae)
    with pytest.raises(SignInError):
        sign(wb, "Rae Reviewer")
    fresh = wb.sign_in("Rae Reviewer", "a brand new password", client="test")
    assert wb.review(run.run_id, team.rid, "unsupported", None, identity=fresh).reviewer == "Rae Reviewer"
    # a user changes their own password with the old one; a wrong old one changes nothing
    with pytest.raises(SignInError):
        wb.change_password("Rae Reviewer", "mallory's choice!", old_password="not the password")
    wb.change_password("Rae Reviewer", "my own new password", old_password="a brand new password")
    assert wb.sign_in("Rae Reviewer", "my own new password", client="test").name == "Rae Reviewer"


def test_a_disabled_account_cannot_sign_in_or_act_with_an_open_session(team):
    wb, run = team.wb, team.run
    rae = sign(wb, "Rae Reviewer")
    wb.disable_user("Rae Reviewer", identity=team.ada)
    with pytest.raises(SignInError):
        sign(wb, "Rae Reviewer")
    with pytest.raises(SignInError):
        wb.review(run.run_id, team.rid, "unsupported", None, identity=rae)
    assert wb.history(run.run_id, team.rid) == []
    with pytest.raises(WorkbenchError, match="last admin"):
        wb.disable_user("Ada Admin", identity=team.ada)
    wb.enable_user("Rae Reviewer", identity=team.ada)
    assert sign(wb, "Rae Reviewer").role == "reviewer"


def test_adding_an_account_over_an_existing_name_or_without_an_admin_is_refused(team):
    wb = team.wb
    with pytest.raises(WorkbenchError, match="exists"):
        wb.add_user("Rae Reviewer", "reviewer", "mallory's password", identity=team.ada)
    with pytest.raises(SignInError):  # accounts exist: no more bootstrapping
        wb.add_user("Mal", "admin", "mallory's password")
    assert sign(wb, "Rae Reviewer").role == "reviewer" and wb.store.get_user("Mal") is None


def test_a_client_started_with_sign_in_off_cannot_write_into_a_store_that_requires_it(team, data_dir):
    client = Workbench(Settings(data_dir=data_dir, sign_in=False))
    with pytest.raises(SignInError):
        client.review(team.run.run_id, team.rid, "unsupported", "Ada Admin")
    with pytest.raises(SignInError):
        client.remove_document(team.doc.id)
    with pytest.raises(SignInError):
        client.add_user("Mal", "admin", "mallory's password")
    assert client.history(team.run.run_id) == [] and client.store.get_user("Mal") is None


def test_oidc_takes_only_verified_emails_and_never_a_local_accounts_role(team):
    wb = team.wb
    with pytest.raises(SignInError, match="verified"):
        wb.oidc_identity({"email": "kim@example.org", "email_verified": False, "sub": "k1"})
    with pytest.raises(SignInError):
        wb.oidc_identity({"sub": "Ada Admin"})  # no e-mail: the subject names no one here
    with pytest.raises(SignInError):
        wb.oidc_identity({"email": "Ada Admin", "email_verified": True, "sub": "Ada Admin"})
    kim = wb.oidc_identity({"email": "kim@example.org", "email_verified": True, "sub": "k1"})
    assert (kim.name, kim.role, kim.via) == ("oidc:kim@example.org", "reviewer", "oidc")
    with pytest.raises(ForbiddenError):
        wb.remove_document(team.doc.id, identity=kim)
    wb.add_user("lee@example.org", "admin", None, oidc=True, identity=team.ada)
    lee = wb.oidc_identity({"email": "lee@example.org", "email_verified": True})
    assert (lee.name, lee.role) == ("oidc:lee@example.org", "admin")
    with pytest.raises(SignInError):  # an identity-provider account has no local password
        wb.sign_in("oidc:lee@example.org", "", client="test")


def _cli(data_dir, *args, stdin="", env=None):
    base = {"WORKBENCH_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "workbench", *args], input=stdin, env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=180, cwd=ROOT)


@pytest.mark.slow
def test_cli_account_commands_need_an_admins_credentials_once_the_first_admin_exists(data_dir):
    first = _cli(data_dir, "user", "add", "Rae", "--role", "reviewer", "--password-stdin", stdin="long enough pw\n")
    assert first.returncode == 2 and "first account" in first.stderr  # the first account is an admin
    boot = _cli(data_dir, "user", "add", "Ada", "--role", "admin", "--password-stdin", stdin="admin password 1\n")
    assert boot.returncode == 0, boot.stderr
    mal = _cli(data_dir, "user", "add", "Mal", "--role", "admin", "--password-stdin", stdin="mallory password\n")
    assert mal.returncode == 2 and "--as" in mal.stderr
    over = _cli(data_dir, "user", "add", "Ada", "--role", "admin", "--password-stdin", "--as", "Ada",
                stdin="admin password 1\nmallory password\n")
    assert over.returncode == 2 and "exists" in over.stderr
    ok = _cli(data_dir, "user", "add", "Rae", "--role", "reviewer", "--password-stdin", "--as", "Ada",
              stdin="long enough pw\n", env={"WORKBENCH_PASSWORD": "admin password 1"})
    assert ok.returncode == 0, ok.stderr
    assert "admin password 1" not in ok.stdout + ok.stderr and "long enough pw" not in ok.stdout + ok.stderr
    as_rae = _cli(data_dir, "calibrate", "--as", "Rae", env={"WORKBENCH_PASSWORD": "long enough pw"})
    assert as_rae.returncode == 2 and "admin role" in as_rae.stderr
    off = _cli(data_dir, "calibrate", env={"WORKBENCH_SIGN_IN": "false"})
    assert off.returncode == 2 and "--as" in off.stderr
    gone = _cli(data_dir, "user", "disable", "Rae", "--as", "Ada", env={"WORKBENCH_PASSWORD": "admin password 1"})
    assert gone.returncode == 0, gone.stderr
    listed = _cli(data_dir, "user", "list", "--as", "Ada", env={"WORKBENCH_PASSWORD": "admin password 1"})
    assert "Rae  reviewer  disabled" in listed.stdout
