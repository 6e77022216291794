"""Secrets out of what people read: a service URL is shown with its password masked, and any
text (an exception's message) is scrubbed of the passwords of the URLs it may quote.

Messages reach terminals, logs, job records in Redis and bug reports; the Redis or database
password in a URL (redis://:PASSWORD@host, postgresql://user:PASSWORD@host/db, ?password=…)
must reach none of them. Every message that names a URL names `redact_url(url)`, and every
message that quotes a library's exception passes it through `redact(text, url)` first."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

MASK = "***"
# Query parameters that carry a secret (libpq's password, redis-py's password, sslpassword, ...).
SECRET_PARAMS = ("password", "passwd", "pwd", "secret", "token", "key")


def _secret_param(name: str) -> bool:
    name = name.lower()
    return any(s in name for s in SECRET_PARAMS)


def redact_url(url: str | None) -> str:
    """The URL as it may be shown: user, host, port, path and harmless parameters kept, the
    password and any secret-bearing parameter replaced by ***. A URL too broken to parse is shown
    by its scheme alone ('postgresql://…'), since where its password starts is unknown."""
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, host = netloc.rsplit("@", 1)
            user, has_password, _ = userinfo.partition(":")
            netloc = f"{user}:{MASK}@{host}" if has_password else f"{user}@{host}"
        query = parts.query
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_secret_param(k) for k, _ in pairs):
            query = urlencode([(k, MASK if _secret_param(k) else v) for k, v in pairs], safe="*/:,%=")
        if (netloc, query) == (parts.netloc, parts.query):
            return url  # nothing to hide: shown exactly as configured
        head = f"{parts.scheme}://" if "://" in url else f"{parts.scheme}:" if parts.scheme else ""
        return (f"{head}{netloc}{parts.path}" + (f"?{query}" if query else "")
                + (f"#{parts.fragment}" if parts.fragment else ""))
    except ValueError:
        scheme = url.split("://", 1)[0] if "://" in url else ""
        return f"{scheme}://…" if scheme.isascii() and scheme.replace("+", "").isalnum() else "(an unreadable URL)"


def url_secrets(url: str | None) -> list[str]:
    """The secrets a URL carries, as written and percent-decoded: its password and the values of
    secret-bearing query parameters. Parsed leniently, so a URL that will not parse still yields
    the text between the user's colon and the last @."""
    if not url:
        return []
    found: list[str] = []
    _, sep, rest = url.partition("://")
    rest = rest if sep else url
    authority = rest.split("/", 1)[0].split("?", 1)[0]
    if "@" in authority:
        userinfo = authority.rsplit("@", 1)[0]
        if ":" in userinfo:
            found.append(userinfo.split(":", 1)[1])
    if "?" in rest:
        for pair in rest.split("?", 1)[1].split("#", 1)[0].split("&"):
            name, _, value = pair.partition("=")
            if _secret_param(unquote(name)):
                found.append(value)
    out: list[str] = []
    for s in found:
        for form in (s, unquote(s), quote(unquote(s), safe="")):
            if form and form not in out:
                out.append(form)
    return out


def redact(text: str, *urls: str | None) -> str:
    """`text` with each URL shown redacted and every secret those URLs carry masked wherever it
    appears (a driver's message may quote the URL, or the password alone)."""
    for url in urls:
        if not url:
            continue
        text = text.replace(url, redact_url(url))
        for secret in sorted(url_secrets(url), key=len, reverse=True):
            text = text.replace(secret, MASK)
    return text
