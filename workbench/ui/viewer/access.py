"""Signed viewer links: how the page-image and page-word routes know a request comes from a
signed-in session, which they cannot see (Streamlit's routes run outside any script).

When a signed-in page mounts the viewer, the app mints a link for (account, document, expiry),
HMAC-signed with a key that lives only in this server process's memory: nothing on disk or in
the database can sign one, and a restart voids every link (the sessions go with it anyway). The
viewer puts the link on every URL it asks for (`?t=…`); the route checks the signature, the
document and the expiry, then re-reads the account from the store."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time

from pydantic import BaseModel, ValidationError

from workbench.config import default
from workbench.models import Identity

LINK_PARAM = "t"


class LinkRefused(Exception):
    """A request without a valid link: `status` is the HTTP status to answer with."""

    def __init__(self, reason: str, status: int = 401):
        super().__init__(reason)
        self.status = status


class ViewerLink(BaseModel):
    """What a valid link proves: this account's session was shown this document until `expires`."""

    name: str
    via: str
    document_id: str
    expires: int


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class ViewerLinks:
    """Mints and reads viewer links. `key`: tests only; the server's is random per process."""

    def __init__(self, key: bytes | None = None, ttl_s: int = default("viewer_link_ttl_s")):
        self._key = key or secrets.token_bytes(32)
        self.ttl_s = ttl_s

    def _sig(self, body: str) -> str:
        return hmac.new(self._key, b"viewer-link\x1f" + body.encode(), hashlib.sha256).hexdigest()

    def mint(self, identity: Identity, document_id: str, now: float | None = None) -> str:
        expires = int((time.time() if now is None else now) + self.ttl_s)
        body = _b64(json.dumps({"name": identity.name, "via": identity.via, "document_id": document_id,
                                "expires": expires}, separators=(",", ":")).encode())
        return f"{body}.{self._sig(body)}"

    def read(self, token: str | None, document_id: str, now: float | None = None) -> ViewerLink:
        """The link's claims when it is signed by this process, names `document_id` and has not
        expired; LinkRefused otherwise (401: no or bad link, 403: a link for another document)."""
        if not token:
            raise LinkRefused("sign in to see this document")
        body, _, sig = token.partition(".")
        if not hmac.compare_digest(sig.encode(), self._sig(body).encode()):
            raise LinkRefused("this link is not valid: reload the page")
        try:
            link = ViewerLink.model_validate_json(_unb64(body))
        except (ValidationError, ValueError):
            raise LinkRefused("this link is not valid: reload the page") from None
        if link.document_id != document_id:
            raise LinkRefused("this link is for another document", status=403)
        if link.expires < (time.time() if now is None else now):
            raise LinkRefused("this link has expired: reload the page")
        return link


_links: ViewerLinks | None = None
_lock = threading.Lock()


def viewer_links() -> ViewerLinks:
    """The server process's links: the app mints them, the routes read them."""
    global _links
    with _lock:
        if _links is None:
            from workbench.config import get_settings

            _links = ViewerLinks(ttl_s=get_settings().viewer_link_ttl_s)
        return _links
