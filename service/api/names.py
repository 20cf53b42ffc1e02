"""Players' names: the one rule every name taken by the API follows.

A name is shown to every player of the game, in lobby listings and in logs,
so it must read as what it is: 1 to `MAX_NAME_LENGTH` characters (as sent
and as stored), not blank, stored Unicode NFC-normalised (the same name
always has the same code points) and trimmed of surrounding white space, and
once trimmed free of characters that change how other text is shown or hide
themselves: controls (``Cc``), format characters (``Cf``: bidi overrides and
isolates, zero-width spaces and joiners, tags), line and paragraph separators
(``Zl``, ``Zp``) and lone surrogates (``Cs``). Markup such as ``<b>`` is
plain text here: answers are JSON served with ``X-Content-Type-Options:
nosniff``, and front ends insert names as text.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

from marshmallow import ValidationError, fields

#: Longest name, in characters (code points), as sent and as stored.
MAX_NAME_LENGTH: Final = 32
#: Unicode general categories a name may not contain.
REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: The rule, as every refusal and the OpenAPI document state it.
NAME_RULE: Final = (
    f"1 to {MAX_NAME_LENGTH} characters, not blank, without control, format (bidi, "
    "zero-width) or line/paragraph separator characters once surrounding white "
    "space is trimmed; stored trimmed and NFC-normalised"
)


def _refused_bmp_class() -> str:
    """The refused characters of the Basic Multilingual Plane as the body of a
    regular-expression class (``\\u0000-\\u001f...``), read from `unicodedata`."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if unicodedata.category(chr(code)) in REFUSED_CATEGORIES:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(
        f"\\u{first:04x}" if first == last else f"\\u{first:04x}-\\u{last:04x}"
        for first, last in ranges
    )


#: The rule as an OpenAPI (ECMA-262) pattern, for clients and generated tests:
#: white space around a name holding none of the refused characters of the BMP
#: (the service refuses those beyond it too, such as tag characters).
_REFUSED_BMP: Final = _refused_bmp_class()
_NAME_CHAR: Final = f"[^\\s{_REFUSED_BMP}]"
NAME_PATTERN: Final = f"^\\s*{_NAME_CHAR}(?:[^{_REFUSED_BMP}]*{_NAME_CHAR})?\\s*$"


def normalise_name(text: str) -> str:
    """The name as stored: NFC, trimmed; raises `ValueError` (with `NAME_RULE`)
    for a name the rule refuses."""
    # The length as sent (what the OpenAPI document states) and as stored.
    if len(text) > MAX_NAME_LENGTH:
        raise ValueError(NAME_RULE)
    # Surrounding white space (line breaks included) goes first; what is left
    # may hold no refused character at all.
    name = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise ValueError(NAME_RULE)
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in name):
        raise ValueError(NAME_RULE)
    return name


class PlayerName(fields.String):
    """A request field holding a player's name, loaded as `normalise_name` gives it."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"description": f"A player's name: {NAME_RULE}.", **kwargs.pop("metadata", {})}
        metadata = {
            "minLength": 1,
            "maxLength": MAX_NAME_LENGTH,
            "pattern": NAME_PATTERN,
            **metadata,
        }
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return normalise_name(text)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
