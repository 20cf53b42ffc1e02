"""`RedisTickets`: the quick-play queue (`service.store.tickets`) in the game store's Redis.

Key layout (``Q`` is ``<prefix>:{queue}``: one hash tag, so every key is in one
cluster slot and each script touches one slot):

- ``Q:t:<ticket>`` hash: the ticket (`ticket_fields`), expiring with it;
- ``Q:b:<preset>:<players>`` sorted set: the bucket's waiting tickets, scored
  by when each was queued (ms), oldest first;
- ``Q:buckets`` set: the buckets that may hold tickets (dropped once empty);
- ``Q:o:<sha1(owner)>`` sorted set: an owner's waiting tickets, scored by
  when each expires (its quota's count);
- ``Q:m:<match>`` hash (``bucket``, ``tickets``) and ``Q:pending`` (sorted
  set, match id scored by the end of its lease): claimed matches whose game is
  not made yet.

Every change is one script (`ENQUEUE_SCRIPT`, `CLAIM_SCRIPT`, `STALE_SCRIPT`,
`FINISH_SCRIPT`, `CANCEL_SCRIPT`): a claim moves its tickets from waiting to
claimed and records the match in the same step, so two matchers never claim
one ticket, and a matcher that dies leaves a pending match that another takes
over once its lease ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, cast

from redis.commands.core import Script
from redis.typing import EncodableT

from service.store.codec import now_ms
from service.store.errors import StoreUnavailable
from service.store.redis import REDIS_ERRORS, RedisStore
from service.store.tickets import (
    TICKET_FIELDS,
    CancelOutcome,
    Match,
    QueueFull,
    Ticket,
    TicketQuotaExceeded,
    ticket_fields,
    ticket_of,
)

__all__ = [
    "BUCKETS_SCRIPT",
    "CANCEL_SCRIPT",
    "CLAIM_SCRIPT",
    "ENQUEUE_SCRIPT",
    "FINISH_SCRIPT",
    "RELEASE_SCRIPT",
    "STALE_SCRIPT",
    "RedisTickets",
]

#: Most waiting entries of a bucket one claim looks at (bounded work per claim).
CLAIM_WINDOW = 200

ENQUEUE_SCRIPT = """
-- KEYS[1] ticket hash, KEYS[2] owner's tickets (or an unused key), KEYS[3] the
-- buckets set, KEYS[4..] the ticket's buckets.
-- ARGV[1] now ms, ARGV[2] per-owner quota (0: none), ARGV[3] bucket length (0: none),
-- ARGV[4] ticket TTL ms, ARGV[5] ticket id, ARGV[6] queued at ms, ARGV[7] expires ms,
-- ARGV[8] number of buckets, ARGV[9] '1' with an owner, ARGV[10..] bucket names,
-- then the ticket's fields and values.
local now, quota, longest = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ttl, nb = tonumber(ARGV[4]), tonumber(ARGV[8])
if ARGV[9] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if quota > 0 and redis.call('ZCARD', KEYS[2]) >= quota then return {'quota', ''} end
end
if longest > 0 then
  for i = 1, nb do
    redis.call('ZREMRANGEBYSCORE', KEYS[3 + i], '-inf', now - ttl)
    if redis.call('ZCARD', KEYS[3 + i]) >= longest then return {'full', ARGV[9 + i]} end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 10 + nb))
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[7]))
for i = 1, nb do
  redis.call('ZADD', KEYS[3 + i], tonumber(ARGV[6]), ARGV[5])
  redis.call('PEXPIRE', KEYS[3 + i], 2 * ttl)
  redis.call('SADD', KEYS[3], ARGV[9 + i])
end
if ARGV[9] == '1' then
  redis.call('ZADD', KEYS[2], tonumber(ARGV[7]), ARGV[5])
  redis.call('PEXPIRE', KEYS[2], 2 * ttl)
end
return {'ok', ''}
"""

CLAIM_SCRIPT = """
-- KEYS[1] the bucket, KEYS[2] pending matches, KEYS[3] the match's hash.
-- ARGV[1] key base, ARGV[2] players, ARGV[3] match id, ARGV[4] now ms, ARGV[5] lease ms,
-- ARGV[6] '1' to fill with bots, ARGV[7] queued before (ms) for bots, ARGV[8] window,
-- ARGV[9] ticket TTL ms, ARGV[10] the bucket's name, ARGV[11] the waiting game to join ('').
local base, players, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local bots, before, ttl = ARGV[6] == '1', tonumber(ARGV[7]), tonumber(ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[8]) - 1)
local chosen = {}
for _, id in ipairs(ids) do
  local t = redis.call('HMGET', base .. ':t:' .. id, 'status', 'bots', 'at')
  if t[1] ~= 'waiting' then
    redis.call('ZREM', KEYS[1], id)  -- gone, or taken by another bucket's table
  elseif not bots then
    chosen[#chosen + 1] = id
  elseif t[2] == '1' then
    if #chosen == 0 and tonumber(t[3]) > before then return {} end
    chosen[#chosen + 1] = id
  end
  if #chosen == players then break end
end
if #chosen == 0 or (not bots and #chosen < players) then return {} end
for _, id in ipairs(chosen) do
  local key = base .. ':t:' .. id
  local f = redis.call('HMGET', key, 'buckets', 'owner')
  for b in string.gmatch(f[1], '%S+') do redis.call('ZREM', base .. ':b:' .. b, id) end
  if f[2] ~= '' then redis.call('ZREM', base .. ':o:' .. redis.sha1hex(f[2]), id) end
  redis.call('HSET', key, 'status', 'claimed', 'match', ARGV[3])
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
redis.call('HSET', KEYS[3], 'bucket', ARGV[10], 'tickets', table.concat(chosen, ' '),
           'game', ARGV[11])
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[3])
return chosen
"""

STALE_SCRIPT = """
-- KEYS[1] pending matches. ARGV[1] now ms, ARGV[2] lease ms, ARGV[3] limit.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
end
return ids
"""

FINISH_SCRIPT = """
-- KEYS[1] the match's hash, KEYS[2] pending matches.
-- ARGV[1] key base, ARGV[2] match id, ARGV[3] game id, ARGV[4..] its tickets and their
-- seats ('<ticket> <seat>' pairs).
for i = 4, #ARGV, 2 do
  local key = ARGV[1] .. ':t:' .. ARGV[i]
  if redis.call('HGET', key, 'match') == ARGV[2] then
    redis.call('HSET', key, 'status', 'matched', 'game', ARGV[3], 'seat', ARGV[i + 1])
  end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""

RELEASE_SCRIPT = """
-- KEYS[1] the match's hash, KEYS[2] pending matches.
-- ARGV[1] key base, ARGV[2] match id, ARGV[3..] its tickets.
for i = 3, #ARGV do
  local key = ARGV[1] .. ':t:' .. ARGV[i]
  local f = redis.call('HMGET', key, 'match', 'buckets', 'owner', 'at', 'expires')
  if f[1] == ARGV[2] then
    redis.call('HSET', key, 'status', 'waiting', 'match', '')
    for b in string.gmatch(f[2], '%S+') do
      redis.call('ZADD', ARGV[1] .. ':b:' .. b, tonumber(f[4]), ARGV[i])
      redis.call('SADD', ARGV[1] .. ':buckets', b)
    end
    if f[3] ~= '' then
      redis.call('ZADD', ARGV[1] .. ':o:' .. redis.sha1hex(f[3]), tonumber(f[5]), ARGV[i])
    end
  end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""

CANCEL_SCRIPT = """
-- KEYS[1] the ticket's hash. ARGV[1] key base.
local f = redis.call('HMGET', KEYS[1], 'status', 'buckets', 'owner', 'id')
if not f[1] then return 'missing' end
if f[1] ~= 'waiting' then return 'matched' end
for b in string.gmatch(f[2], '%S+') do redis.call('ZREM', ARGV[1] .. ':b:' .. b, f[4]) end
if f[3] ~= '' then redis.call('ZREM', ARGV[1] .. ':o:' .. redis.sha1hex(f[3]), f[4]) end
redis.call('DEL', KEYS[1])
return 'cancelled'
"""

BUCKETS_SCRIPT = """
-- KEYS[1] the buckets set. ARGV[1] key base, ARGV[2] now ms, ARGV[3] ticket TTL ms.
-- Each bucket holding tickets: its name, its oldest entry's score, its count.
local out = {}
for _, b in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[1] .. ':b:' .. b
  redis.call('ZREMRANGEBYSCORE', key, '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
  local n = redis.call('ZCARD', key)
  if n == 0 then
    redis.call('SREM', KEYS[1], b)
  else
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    out[#out + 1] = b
    out[#out + 1] = first[2]
    out[#out + 1] = n
  end
end
return out
"""


def _owner_digest(owner: str) -> str:
    """The owner's key part (the scripts' ``redis.sha1hex`` of the same text)."""
    return hashlib.sha1(owner.encode()).hexdigest()  # a key name, not a secret


class RedisTickets:
    """The `TicketQueue` in a `RedisStore`'s Redis (see the module docstring)."""

    def __init__(self, store: RedisStore, ttl: float) -> None:
        self.store = store
        self.ttl = float(ttl)
        self._ttl_ms = int(self.ttl * 1000)
        self.base = f"{store.prefix}:{{queue}}"
        self._scripts: dict[str, Script] = {}

    def __repr__(self) -> str:
        return f"RedisTickets({self.store!r})"

    def _script(self, name: str, text: str) -> Script:
        script = self._scripts.get(name)
        if script is None:
            script = self._scripts[name] = self.store.client.register_script(text)
        return script

    def _call(self, name: str, text: str, keys: list[str], args: list[EncodableT]) -> Any:
        try:
            return self._script(name, text)(keys=keys, args=args)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"ticket queue {name} failed: {exc}") from exc

    def _ticket_key(self, ticket_id: str) -> str:
        return f"{self.base}:t:{ticket_id}"

    def enqueue(self, ticket: Ticket, per_owner: int, max_length: int) -> None:
        """See `TicketQueue.enqueue` (one script)."""
        owner_key = f"{self.base}:o:{_owner_digest(ticket.owner)}"
        keys = [
            self._ticket_key(ticket.id),
            owner_key if ticket.owner else f"{self.base}:o:",
            f"{self.base}:buckets",
            *(f"{self.base}:b:{bucket}" for bucket in ticket.buckets),
        ]
        args: list[EncodableT] = [
            ticket.at,
            max(per_owner, 0),
            max(max_length, 0),
            self._ttl_ms,
            ticket.id,
            ticket.at,
            ticket.expires,
            len(ticket.buckets),
            "1" if ticket.owner else "",
            *ticket.buckets,
        ]
        for name, value in ticket_fields(ticket).items():
            args += [name, value]
        outcome, bucket = self._call("enqueue", ENQUEUE_SCRIPT, keys, args)
        if outcome == b"quota":
            raise TicketQuotaExceeded(per_owner)
        if outcome == b"full":
            raise QueueFull(bucket.decode(), max_length)

    def get(self, ticket_id: str) -> Ticket | None:
        """See `TicketQueue.get` (one ``HMGET``)."""
        tickets = self._read([ticket_id])
        return tickets[0] if tickets else None

    def _read(self, ticket_ids: list[str]) -> list[Ticket]:
        """The tickets still stored of ``ticket_ids``, in order (one pipeline)."""
        try:
            pipe = self.store.client.pipeline(transaction=False)
            for ticket_id in ticket_ids:
                pipe.hmget(self._ticket_key(ticket_id), TICKET_FIELDS)
            replies = pipe.execute()
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"ticket read failed: {exc}") from exc
        found = []
        for reply in replies:
            if reply[0] is None:
                continue
            values = {
                name: value.decode()
                for name, value in zip(TICKET_FIELDS, reply, strict=True)
                if value is not None
            }
            found.append(ticket_of(values))
        return found

    def cancel(self, ticket_id: str) -> CancelOutcome:
        """See `TicketQueue.cancel` (one script)."""
        outcome = self._call("cancel", CANCEL_SCRIPT, [self._ticket_key(ticket_id)], [self.base])
        text = outcome.decode()
        assert text in ("cancelled", "matched", "missing")
        return "cancelled" if text == "cancelled" else "matched" if text == "matched" else "missing"

    def _buckets(self) -> list[tuple[str, float, int]]:
        flat = self._call(
            "buckets",
            BUCKETS_SCRIPT,
            [f"{self.base}:buckets"],
            [self.base, now_ms(), self._ttl_ms],
        )
        return [
            (flat[i].decode(), float(flat[i + 1]), int(flat[i + 2])) for i in range(0, len(flat), 3)
        ]

    def buckets(self) -> list[str]:
        """See `TicketQueue.buckets` (one script)."""
        return [name for name, _, _ in sorted(self._buckets(), key=lambda row: row[1])]

    def demand(self) -> dict[str, int]:
        """See `TicketQueue.demand` (one script)."""
        return {name: count for name, _, count in self._buckets()}

    def claim(
        self,
        bucket: str,
        players: int,
        match_id: str,
        now_ms: int,
        lease_ms: int,
        bots_before: int | None = None,
        game: str = "",
    ) -> Match | None:
        """See `TicketQueue.claim` (one script, then a read of the claimed tickets)."""
        keys = [
            f"{self.base}:b:{bucket}",
            f"{self.base}:pending",
            f"{self.base}:m:{match_id}",
        ]
        args: list[EncodableT] = [
            self.base,
            players,
            match_id,
            now_ms,
            lease_ms,
            "1" if bots_before is not None else "",
            bots_before or 0,
            CLAIM_WINDOW,
            self._ttl_ms,
            bucket,
            game,
        ]
        chosen = self._call("claim", CLAIM_SCRIPT, keys, args)
        if not chosen:
            return None
        return Match(match_id, bucket, tuple(self._read([i.decode() for i in chosen])), game)

    def stale_matches(self, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        """See `TicketQueue.stale_matches` (one script, then a read of each)."""
        ids = self._call("stale", STALE_SCRIPT, [f"{self.base}:pending"], [now_ms, lease_ms, limit])
        matches = []
        for raw in ids:
            match_id = raw.decode()
            try:
                found: list[Any] = cast(
                    list[Any],
                    self.store.client.hmget(
                        f"{self.base}:m:{match_id}", ["bucket", "tickets", "game"]
                    ),
                )
            except REDIS_ERRORS as exc:
                raise StoreUnavailable(f"match read failed: {exc}") from exc
            if found[0] is None:  # forgotten (its tickets have expired): nothing to seat
                self.finish(Match(match_id, "", ()), match_id)
                continue
            ticket_ids = found[1].decode().split()
            game = found[2].decode() if found[2] is not None else ""
            tickets = tuple(self._read(ticket_ids))
            matches.append(Match(match_id, found[0].decode(), tickets, game))
        return matches

    def finish(self, match: Match, game_id: str, seats: Sequence[int] | None = None) -> None:
        """See `TicketQueue.finish` (one script)."""
        order = range(len(match.tickets)) if seats is None else seats
        keys = [f"{self.base}:m:{match.id}", f"{self.base}:pending"]
        args: list[EncodableT] = [self.base, match.id, game_id]
        for ticket, seat in zip(match.tickets, order, strict=True):
            args += [ticket.id, seat]
        self._call("finish", FINISH_SCRIPT, keys, args)

    def release(self, match: Match) -> None:
        """See `TicketQueue.release` (one script)."""
        keys = [f"{self.base}:m:{match.id}", f"{self.base}:pending"]
        args: list[EncodableT] = [self.base, match.id, *(t.id for t in match.tickets)]
        self._call("release", RELEASE_SCRIPT, keys, args)

    def pending(self) -> list[str]:
        """The ids of the pending matches (for tests)."""
        try:
            ids = cast(list[bytes], self.store.client.zrange(f"{self.base}:pending", 0, -1))
            return [i.decode() for i in ids]
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"pending read failed: {exc}") from exc

    def close(self) -> None:
        """Nothing of its own: the store's client is the store's to close."""
