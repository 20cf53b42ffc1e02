"""A small reader of `text/event-stream` bodies, as a browser's EventSource parses them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Message:
    """One dispatched message (`id`, `data` decoded as JSON) or a comment (`comment`)."""

    id: str | None = None
    data: Any = None
    comment: str | None = None
    retry: int | None = None
    fields: dict[str, str] = field(default_factory=dict)


def messages(chunks: Iterable[bytes]) -> Iterator[Message]:
    """The messages and comments of a stream body given in chunks of any size."""
    buffer = b""
    current = Message()
    data_lines: list[str] = []
    for chunk in chunks:
        buffer += chunk
        while b"\n" in buffer:
            raw, buffer = buffer.split(b"\n", 1)
            line = raw.decode().rstrip("\r")
            if line == "":
                if data_lines or current.id is not None or current.retry is not None:
                    if data_lines:
                        current.data = json.loads("\n".join(data_lines))
                    yield current
                current, data_lines = Message(), []
                continue
            if line.startswith(":"):
                yield Message(comment=line[1:].strip())
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            current.fields[name] = value
            if name == "data":
                data_lines.append(value)
            elif name == "id":
                current.id = value
            elif name == "retry":
                current.retry = int(value)


def http_chunks(response: Any, size: int = 65536) -> Iterator[bytes]:
    """The body of an `http.client` response as it arrives, until the server ends it."""
    while True:
        chunk = response.read1(size)
        if not chunk:
            return
        yield chunk
