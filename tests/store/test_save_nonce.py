"""`service.store.redis.save_nonce`: nonces differ between attempts and processes."""

from __future__ import annotations

import os
import re

from service.store.redis import save_nonce


def test_nonces_are_16_hex_digits_and_differ() -> None:
    nonces = {save_nonce() for _ in range(1000)}
    assert len(nonces) == 1000
    assert all(re.fullmatch("[0-9a-f]{16}", nonce) for nonce in nonces)


def test_a_forked_child_draws_other_nonces_than_its_parent() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first nonce, then out
        os.write(write, save_nonce().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    assert re.fullmatch("[0-9a-f]{16}", child)
    assert child != save_nonce()
