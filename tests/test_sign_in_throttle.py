"""Issue 37, item 6: sign-in throttles failures per account and per client before any hash is
computed, an unknown name costs a hash like a known one, passwords are hashed at OWASP's scrypt
cost (old hashes upgraded at the next sign-in), and security events go to a log only an admin
reads. Hashes are counted, never timed (bench/bench_sign_in.py times them)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from tests import test_roles
from tests.test_roles import PW, _cli, sign
from workbench import auth
from workbench.errors import ForbiddenError, SignInError

team, cheap_hashes = test_roles.team, test_roles.cheap_hashes  # the signed-in team of test_roles


@pytest.fixture
def hashes(monkeypatch):
    """How many scrypt hashes have run so far: [count] (the dummy hash made once beforehand)."""
    auth._dummy_hash()
    count = [0]
    real = auth._scrypt

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(auth, "_scrypt", counting)
    return count


def later(monkeypatch, minutes: float) -> None:
    """Move the clock that judges the throttle window forward."""
    now = auth.utcnow()
    monkeypatch.setattr(auth, "utcnow", lambda: now + timedelta(minutes=minutes))


def test_after_five_failures_an_account_is_refused_for_a_while_without_hashing(team, hashes, monkeypatch):
    wb = team.wb
    for _ in range(5):
        with pytest.raises(SignInError, match="unknown name or wrong password"):
            wb.sign_in("Rae Reviewer", "a guess at it", client="10.0.0.9")
    assert hashes[0] == 5
    for client in ("10.0.0.9", "10.0.0.10"):  # per account: another client does not help
        with pytest.raises(SignInError, match="too many failed sign-ins") as refused:
            wb.sign_in("Rae Reviewer", PW["Rae Reviewer"], client=client)
    assert "minute" in str(refused.value)
    assert hashes[0] == 5  # refused before hashing
    assert sign(wb, "Jo Judge").name == "Jo Judge"  # other accounts sign in as usual
    later(monkeypatch, 16)
    assert sign(wb, "Rae Reviewer").name == "Rae Reviewer"


def test_one_client_guessing_across_many_names_is_refused_for_a_while_without_hashing(team, hashes):
    wb = team.wb
    limit = wb.settings.sign_in_client_max_failures
    for n in range(limit):
        with pytest.raises(SignInError, match="unknown name or wrong password"):
            wb.sign_in(f"user{n}", "password123", client="10.6.6.6")
    assert hashes[0] == limit
    with pytest.raises(SignInError, match="too many failed sign-ins"):
        wb.sign_in("Rae Reviewer", PW["Rae Reviewer"], client="10.6.6.6")
    assert hashes[0] == limit
    assert wb.sign_in("Rae Reviewer", PW["Rae Reviewer"], client="10.0.0.1").name == "Rae Reviewer"


def test_an_unknown_name_a_disabled_account_and_a_password_less_account_each_cost_one_hash(team, hashes):
    wb = team.wb
    wb.add_user("kim@example.org", "reviewer", None, oidc=True, identity=team.ada)
    wb.add_user("Gone", "reviewer", "gone but not forgotten", identity=team.ada)
    wb.disable_user("Gone", identity=team.ada)
    before = hashes[0]
    for name in ("Nobody At All", "oidc:kim@example.org", "Gone"):
        with pytest.raises(SignInError):
            wb.sign_in(name, "gone but not forgotten", client="10.0.0.2")
    assert hashes[0] - before == 3
    with pytest.raises(SignInError):
        wb.sign_in("Rae Reviewer", "wrong", client="10.0.0.2")
    assert hashes[0] - before == 4


def test_passwords_are_hashed_at_owasps_scrypt_cost():
    assert (auth.SCRYPT_N, auth.SCRYPT_R, auth.SCRYPT_P) == (2**17, 8, 1)
    stored = auth.hash_password("correct horse battery")
    assert stored.startswith("scrypt$131072$8$1$")
    assert auth.check_password("correct horse battery", stored) and not auth.check_password("wrong one", stored)


def test_an_old_cost_hash_is_upgraded_at_the_next_successful_sign_in(team, monkeypatch):
    wb = team.wb
    assert wb.store.get_user("Rae Reviewer")["password_hash"].startswith("scrypt$1024$")
    monkeypatch.setattr(auth, "SCRYPT_N", 2**11)
    with pytest.raises(SignInError):
        wb.sign_in("Rae Reviewer", "wrong password", client="t")
    assert wb.store.get_user("Rae Reviewer")["password_hash"].startswith("scrypt$1024$")  # only on success
    rae = sign(wb, "Rae Reviewer")
    assert wb.store.get_user("Rae Reviewer")["password_hash"].startswith("scrypt$2048$")
    assert wb.review(team.run.run_id, team.rid, "supported", None, identity=rae).reviewer == "Rae Reviewer"
    assert sign(wb, "Rae Reviewer").name == "Rae Reviewer"


def test_security_events_go_to_a_log_only_an_admin_reads(team):
    from workbench.security_log import security_log

    wb = team.wb
    rae = sign(wb, "Rae Reviewer")
    for _ in range(6):
        with pytest.raises(SignInError):
            wb.sign_in("Jo Judge", "not jo's password", client="10.0.0.7")
    with pytest.raises(ForbiddenError):
        wb.calibrate(identity=rae)
    wb.set_role("Jo Judge", "reviewer", identity=team.ada)
    security_log("job_refused", {"job": "j-1", "why": "bad signature"})  # other parts of the workbench
    logging.getLogger("workbench.security").warning("record problem in run r-1")
    with pytest.raises(ForbiddenError):
        wb.security_events(identity=rae)
    events = wb.security_events(identity=team.ada)
    kinds = [e.kind for e in events]
    for kind in ("sign_in_failed", "sign_in_throttled", "refused", "role_changed", "account_added", "job_refused"):
        assert kind in kinds, kind
    assert any("record problem in run r-1" in e.detail for e in events)
    failed = next(e for e in events if e.kind == "sign_in_failed")
    assert (failed.who, failed.client) == ("Jo Judge", "10.0.0.7")
    assert not any("not jo's password" in e.detail for e in events)
    refused = next(e for e in events if e.kind == "refused")
    assert refused.who == "Rae Reviewer" and "calibrate" in refused.detail


@pytest.mark.slow
def test_cli_security_log_is_for_admins(data_dir):
    assert _cli(data_dir, "user", "add", "Ada", "--role", "admin", "--password-stdin",
                stdin="admin password 1\n").returncode == 0
    bad = _cli(data_dir, "security-log", "--as", "Ada", env={"WORKBENCH_PASSWORD": "wrong password"})
    assert bad.returncode == 2
    log = _cli(data_dir, "security-log", "--as", "Ada", "--json", env={"WORKBENCH_PASSWORD": "admin password 1"})
    assert log.returncode == 0, log.stderr
    assert '"kind": "sign_in_failed"' in log.stdout and '"kind": "account_added"' in log.stdout


def test_concurrent_guesses_get_no_more_tries_than_the_limit(team, hashes):
    from concurrent.futures import ThreadPoolExecutor

    wb = team.wb
    limit = wb.settings.sign_in_max_failures

    def guess(n: int) -> str:
        try:
            wb.sign_in("Rae Reviewer", f"guess number {n}", client=f"10.1.1.{n}")
        except SignInError as exc:
            return str(exc)
        return "signed in"

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(guess, range(4 * limit)))
    assert hashes[0] == limit
    assert sum("too many failed sign-ins" in a for a in answers) == 3 * limit
