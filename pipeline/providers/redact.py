"""Keep secrets out of everything printed: API keys, credentials in URLs.

- `looks_like_api_key(value)` (defined with the settings, which refuse one): a value given where the *name*
  of an environment variable belongs that is in fact a key (`sk-...`, or a long mixed token).
- `key_problem(key)`: a key that cannot be sent as a header (inner whitespace or control characters, a
  line break pasted with it): said without echoing the key.
- `redact(text, secret)`: the secret replaced by `***`, also in the escaped forms (`repr`, bytes repr)
  that error messages of HTTP libraries use.
- `redact_url(url)`: `user:password@` and credential-like query values (`key=`, `token=` ...) replaced.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from studio.models.settings import looks_like_api_key

__all__ = ["MASK", "key_problem", "looks_like_api_key", "redact", "redact_url"]

MASK = "***"
_SECRET_PARAMS = re.compile(r"(key|token|secret|password|passwd|auth|signature|sig)", re.IGNORECASE)


def key_problem(key: str) -> str | None:
    """Why a key cannot be used as it is (English, never containing the key), or None."""
    if any(c in "\r\n" for c in key):
        return "it contains a line break (probably pasted with the next line); set it again on one line"
    if any(c.isspace() for c in key):
        return "it contains a space; set it again without spaces"
    if any(ord(c) < 32 or ord(c) == 127 for c in key):
        return "it contains control characters; copy it again from the vendor's console"
    return None


def redact(text: str, secret: str | None) -> str:
    """`text` with `secret` (and its escaped forms) replaced by `***`."""
    if not secret or len(secret) < 4:
        return text
    forms = {secret, repr(secret)[1:-1], repr(secret.encode("utf-8", "replace"))[2:-1]}
    for line in secret.splitlines():
        if len(line) >= 8:
            forms.add(line)  # a key with a line break may be printed one line at a time
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, MASK)
    return text


def redact_url(url: str | None) -> str | None:
    """`url` without credentials: userinfo and credential-like query values masked."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if _SECRET_PARAMS.search(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
