"""Accounts, roles and sign-in, with no web framework in sight.

- PERMISSIONS is the one table of what each role may do; the service checks it on every action
  (Workbench.authorize) against the account as the store holds it now, never against the role an
  Identity claims. docs/security/roles.md prints it.
- Passwords are kept only as scrypt hashes at OWASP's cost (N=2**17, r=8, p=1: 128 MiB and a few
  tenths of a second each), the cost written into the stored string; a hash made at another cost is
  re-made at the next successful sign-in. A name without a password hash is checked against a dummy
  hash, so a refusal costs the same whether the name exists or not.
- Failed sign-ins are throttled per name and per client from the security log, before any hash is
  computed (throttle_wait): a flood of guesses cannot make the server hash 128 MiB each.
- A session's proof (session_proof) is an HMAC, with the store's integrity key, over the account
  name and its session version, which every change of password, role or disabled bumps."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel

from workbench.errors import ForbiddenError, SignInError
from workbench.models import ROLES, Identity, utcnow

if TYPE_CHECKING:
    from workbench.config import Settings
    from workbench.store import Store
    from workbench.store.signing import Signer

# --- what each role may do: the minimum role per action (each role may do what those before it may)
PERMISSIONS: dict[str, str] = {
    "label": "reviewer",             # label an item or sentence supported / unsupported / reset
    "add_evidence": "reviewer",      # add a quote the run missed
    "adjudicate": "adjudicator",     # settle reviewers' disagreement
    "force_export": "adjudicator",   # export past the safety gate, with a reason
    "calibrate": "admin",            # refit or revert the verifier's / claim checker's threshold
    "retype_document": "admin",      # change a document's source type
    "remove_document": "admin",      # remove a document from the library
    "manage_accounts": "admin",      # add accounts, change roles and passwords, disable / enable
    "read_security_log": "admin",    # read the security log
}
ACTION_WORDS: dict[str, str] = {
    "label": "a review", "add_evidence": "adding evidence", "adjudicate": "an adjudication",
    "force_export": "forcing an export", "calibrate": "calibrating or reverting the verifier",
    "retype_document": "changing a document's source type", "remove_document": "removing a document",
    "manage_accounts": "managing accounts", "read_security_log": "reading the security log",
}

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1  # OWASP Password Storage Cheat Sheet (scrypt)
MIN_PASSWORD = 8
OIDC_PREFIX = "oidc:"  # identity-provider accounts: 'oidc:<verified e-mail>', never a local name
SIGN_IN_REQUIRED = "sign_in_required"  # the workspace flag a client's own setting cannot undo
FAILED, THROTTLED, SIGNED_IN = "sign_in_failed", "sign_in_throttled", "sign_in"
# At most this many hashes at once (128 MiB each): a burst of sign-ins queues instead of swapping.
_HASH_SLOTS = threading.BoundedSemaphore(2)
_dummy: dict[tuple[int, int, int], str] = {}
# Sign-in attempts for one name or from one client run one at a time in a process, so concurrent
# guesses cannot all pass the throttle before the first failure is recorded (striped: bounded memory).
_ATTEMPT_LOCKS = [threading.Lock() for _ in range(64)]


class Account(BaseModel):
    """An account as an admin lists it (no hash)."""

    name: str
    role: str
    disabled: bool = False
    via: str = "local"


def allowed(role: str) -> set[str]:
    """The actions `role` may take."""
    return {a for a, need in PERMISSIONS.items() if ROLES.index(role) >= ROLES.index(need)}


# --- passwords -----------------------------------------------------------------------------------
def _scrypt(password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    """The one place a password hash is computed (tests count the calls)."""
    with _HASH_SLOTS:
        return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=256 * 1024 * 1024)


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise SignInError(f"a password needs at least {MIN_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    digest = _scrypt(password.encode(), salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, 32)
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def _dummy_hash() -> str:
    key = (SCRYPT_N, SCRYPT_R, SCRYPT_P)
    if key not in _dummy:
        _dummy[key] = hash_password(secrets.token_hex(16))
    return _dummy[key]


def check_password(password: str, stored: str | None) -> bool:
    """Whether `password` matches `stored`, in constant time. No usable hash (an unknown name, an
    identity-provider account): one hash against a dummy all the same, then False."""
    try:
        scheme, n, r, p, salt, digest = (stored or "").split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        want, salt_b, params = base64.b64decode(digest), base64.b64decode(salt), (int(n), int(r), int(p))
    except (ValueError, TypeError):
        check_password(password, _dummy_hash())
        return False
    try:
        got = _scrypt(password.encode(), salt_b, *params, len(want))
    except (ValueError, MemoryError):  # a cost beyond maxmem: not a hash this workbench made
        return False
    return hmac.compare_digest(got, want)


def needs_rehash(stored: str | None) -> bool:
    """Whether `stored` was made at another cost than today's."""
    return not (stored or "").startswith(f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}$")


# --- sessions and roles ----------------------------------------------------------------------------
def session_proof(signer: Signer, name: str, via: str, version: int) -> str:
    return signer.sign("session", name, via, str(version))


def has_role(identity: Identity, role: str) -> bool:
    return ROLES.index(identity.role) >= ROLES.index(role)


def requires_role(identity: Identity | None, role: str, action: str) -> None:
    """Raise unless `identity` holds `role` (or a higher one). `action` names what was refused."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    if identity is None:
        raise SignInError(f"{action} needs a signed-in {role}: sign in first")
    if not has_role(identity, role):
        raise ForbiddenError(f"{action} needs the {role} role; {identity.name} is signed in as {identity.role}",
                             needs=role, has=identity.role)


def oidc_name(claims: dict) -> str:
    """The account name of an identity-provider user: 'oidc:' + their e-mail, only when the
    provider says it verified it. The subject (`sub`) names no one here."""
    email = str(claims.get("email") or "").strip().lower()
    if "@" not in email:
        raise SignInError("the identity provider sent no e-mail address: sign-in needs a verified e-mail")
    if claims.get("email_verified") not in (True, "true", "True"):
        raise SignInError(f"the identity provider has not verified {email}: only verified e-mail addresses "
                          "may sign in")
    return OIDC_PREFIX + email


def oidc_account_name(email: str) -> str:
    """The account name an admin gives an identity-provider user by their e-mail."""
    email = email.strip().lower()
    email = email[len(OIDC_PREFIX):] if email.startswith(OIDC_PREFIX) else email
    if "@" not in email:
        raise SignInError(f"{email!r} is not an e-mail address: an identity-provider account is named by one")
    return OIDC_PREFIX + email


# --- throttling ------------------------------------------------------------------------------------
def throttle_wait(store: Store, settings: Settings, name: str, client: str) -> timedelta | None:
    """How long `name` (from `client`) must wait before another try, or None. Per name: after
    sign_in_max_failures failures within sign_in_window_s since its last success; per client:
    after sign_in_client_max_failures failures within the window, whatever names they tried.
    Read from the security log, so it holds across processes; no hash is computed here."""
    now = utcnow()
    window = timedelta(seconds=settings.sign_in_window_s)
    since = now - window
    waits: list[timedelta] = []
    fails: list = []
    for e in store.security_events(since=since, kinds=(FAILED, SIGNED_IN), who=name):
        fails = [] if e["kind"] == SIGNED_IN else [*fails, e["at"]]
    limit = settings.sign_in_max_failures
    if len(fails) >= limit:
        waits.append(fails[-limit] + window - now)
    limit = settings.sign_in_client_max_failures
    by_client = store.security_events(since=since, kinds=(FAILED,), client=client)
    if len(by_client) >= limit:
        waits.append(by_client[-limit]["at"] + window - now)
    waits = [w for w in waits if w > timedelta(0)]
    return max(waits) if waits else None


@contextmanager
def one_attempt_at_a_time(name: str, client: str) -> Iterator[None]:
    """Hold the throttle check, the hash and the recording of one sign-in together, per name and
    per client, within this process."""
    stripes = sorted({zlib.crc32(f"n:{name}".encode()) % 64, zlib.crc32(f"c:{client}".encode()) % 64})
    with ExitStack() as stack:
        for i in stripes:
            stack.enter_context(_ATTEMPT_LOCKS[i])
        yield
