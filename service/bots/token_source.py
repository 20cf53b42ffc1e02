"""Where the command lines of the bot kit take a seat token from: never argv.

A token on the command line is visible to every user of the machine (``ps``,
``/proc/PID/cmdline``) and lands in shell histories; the bot client
(`service.bots.client`) and ``python -m service.bots.dealcheck verify`` read it from
the environment variable `TOKEN_ENV` or from a file (``--token-file PATH``,
``-`` for standard input). ``--token`` is refused with a message naming
both. Standard library only (the fairness check needs nothing else).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

#: The environment variable that holds a seat token.
TOKEN_ENV: Final = "RUMMY_TOKEN"

REFUSED: Final = (
    "--token is not accepted: a token on the command line is visible to other users "
    f"(ps). Set {TOKEN_ENV}=TOKEN in the environment or pass --token-file PATH."
)


class _RefuseToken(argparse.Action):
    """``--token`` in any form: an error that names the alternatives (the value is not shown)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        parser.error(REFUSED)


def add_token_options(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--token-file`` (and the refused ``--token``) to `parser`; `what`
    says what the token is for in the help."""
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"file holding {what} ('-': standard input); else ${TOKEN_ENV}",
    )
    parser.add_argument("--token", nargs="?", action=_RefuseToken, help=argparse.SUPPRESS)


def token_from(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    *,
    required: bool,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The token from ``--token-file`` if given, else from `TOKEN_ENV` (None:
    neither, when not `required`; otherwise a usage error)."""
    if args.token_file is not None:
        try:
            if args.token_file == "-":
                text = sys.stdin.read()
            else:
                text = Path(args.token_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or type(error).__name__
            parser.error(f"cannot read --token-file {args.token_file}: {reason}")
        token = text.strip()
        if not token:
            parser.error(f"--token-file {args.token_file} is empty")
        return token
    env = os.environ if environ is None else environ
    token = env.get(TOKEN_ENV, "").strip()
    if token:
        return token
    if required:
        parser.error(f"a seat token is needed: set {TOKEN_ENV} or pass --token-file PATH")
    return None
