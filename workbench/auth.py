"""Local accounts and roles for sign-in (Settings.sign_in), with no web framework in sight.

Passwords are kept only as scrypt hashes (hashlib.scrypt, n=2**14, r=8, p=1, a 16-byte random
salt, all written into the stored string so the cost can be raised later); checks run in
constant time. Roles are ordered: reviewer < adjudicator < admin."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

from workbench.errors import ForbiddenError, SignInError
from workbench.models import ROLES, Identity

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MIN_PASSWORD = 8


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise SignInError(f"a password needs at least {MIN_PASSWORD} characters")
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def check_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        want = base64.b64decode(digest)
        got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(want), maxmem=256 * 1024 * 1024)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


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
