"""Random URL-safe text for game ids and seat tokens, safe to paste into a shell.

`secrets.token_urlsafe` may begin with ``-``, which command lines read as an
option (an argument ``-Xy…`` is read as one): such draws are drawn again.
"""

from __future__ import annotations

import secrets


def url_safe_token(nbytes: int) -> str:
    """`secrets.token_urlsafe(nbytes)`, never beginning with ``-``."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if not token.startswith("-"):
            return token
