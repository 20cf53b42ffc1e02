"""`RedisStore`: games in Redis or Redis Cluster, one compare-and-set per save.

Key layout (``P`` is the prefix, ``rummy`` by default). Every key of a game
carries the ``{game_id}`` hash tag, so a game lives in one cluster slot and one
script can touch all of it:

- ``P:{id}:g``  hash: ``state`` (blob), ``version``, ``last_event``, ``nonce``
  (the id of the save that wrote this version, so a retried save that already
  succeeded answers "saved", not "stale");
- ``P:{id}:el`` list of the latest ``max_events`` events, oldest first, each
  in the compact stored form of `service.store.codec` (``<seq> <version> <at>
  <body>``), trimmed with ``LTRIM`` on every save (a list, not a stream: a
  stream's nodes and preallocation cost several KB per game; games saved
  before kept a stream under ``P:{id}:ev``, left to expire: their clients see
  a gap in the events and reload the view);
- ``P:{id}:idem:<seat>:<sha256(key)>`` hash: an idempotency record;
- ``P:{id}:il`` list of the game's records (``<bytes> <key>``, oldest first),
  their total in the game hash's ``idem_bytes``: past the byte budget the save
  script drops the oldest, so a long game's records stay a few KB.

Each owner (a client of the API) has an index in a slot of its own,
``P:{owner:<sha256(owner)>}:open``, ``…:waiting`` and ``…:bots`` (sorted sets:
game id, scored by the epoch ms it counts until), counted with ``ZCARD``
after dropping the entries past their time, never by reading its games.
`OWNER_NOTE_SCRIPT` adds a game within the owner's quotas (a create, a join's
`RedisStore.reserve`) for ``quota_pending``; the save that stores or joins it
names the owner (the game hash's ``owners`` field lists every owner's key base)
and gives its entries the game's expiry. A save that changes the game's status
updates every owner's entries (in play: no longer waiting; finished: gone), as
does a deletion: on a single server in the same script (by the key bases the
hash names), in a cluster with `OWNER_TOUCH_SCRIPT` after it. An ordinary move
changes no status and does no owner work.

The queue of due games (`service.worker`): ``P:{due}:q`` (sorted set, game id
scored by the epoch ms it is due at) and ``P:{due}:why`` (hash, game id ->
reason, and after a space the tag of the owner who left it); the game hash's
``due`` field repeats its entry (``<ms> <reason>[ <owner>]``).
On a single server the save script updates them in the same compare-and-set;
in a cluster (another slot) a save whose entry changed sends `DUE_SCRIPT` as a
second round trip. `CLAIM_SCRIPT` claims due games by pushing each to the end
of a lease (clocks first, then owners in turns, by ``P:{due}:served``: owner ->
when a claim last took one of its entries); `DROP_DUE_SCRIPT` unqueues a claimed
game unless a save queued it again meanwhile, `RELEASE_DUE_SCRIPT` makes it due
again at once.

Round trips: a load is one ``HMGET``; a save is one ``EVALSHA`` of
`SAVE_SCRIPT` (after Redis has the script; redis-py loads it on ``NOSCRIPT``).
A load given counters (the rate limiter's: ``load(game_id, counters)``) is
one ``EVALSHA`` of `LOAD_COUNTING_SCRIPT`, which runs their ``INCR`` (and
``PEXPIRE`` on a window's first count) and the ``HMGET``, so counting a
request costs no round trip of its own.

The lobby is one index for all games: ``P:{lobby}:idx`` (sorted set, game id
scored by the wall-clock ms of its first listing, read newest first), ``P:{lobby}:sum`` (hash, game
id -> ``<version>|<summary JSON>``) and ``P:{lobby}:gone`` (recent removals).
In a cluster these live in another slot than the game, so a save that changes
the listing (``lobby`` not `KEEP`: create, join, a waiting game starting or
ending) sends `LOBBY_SCRIPT` as a second round trip after a successful CAS
(retried a few times if it fails: it is idempotent by version); ordinary
moves pass `KEEP` and stay at one round trip. The listing carries the
game version and older updates are ignored, so two racing saves cannot leave a
stale listing behind. The same two-step path is used on a single server. If
that second step still fails after its retries (about 0.75 s), the save
still counts (it is logged, not raised): the listing lags until the game's
next listing update or its TTL.

A save that appends events publishes them, in their stored form one a line,
on the channel named like the list (``PUBLISH P:{id}:el <event>\\n<event>``,
broadcast to every node of a cluster); a deletion publishes the last sequence
number. A long-poll subscribes to it on a second client whose socket timeout
exceeds the longest wait, reads once more (nothing is lost between the read
and the subscription), waits for a message, and reads. Streams
(`RedisStore.watch`) share one connection per process instead: a
`service.store.watch.RedisHub` pattern-subscribed to every game's channel
(``PSUBSCRIBE P:{*}:el``) hands the events of each message to the watches of
its game. Every Redis error becomes `StoreUnavailable`.
"""

from __future__ import annotations

import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeAlias, cast

import orjson
import redis
import redis.cluster
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import Script
from redis.retry import Retry
from redis.typing import EncodableT

from service.serving import leancall
from service.serving.subscription import PatternSubscription, readable_leanly
from service.store.base import (
    CLAIM_WINDOW,
    DEFAULT_FINISHED_TTL,
    DEFAULT_IDEMPOTENCY_BYTES,
    DEFAULT_IDEMPOTENCY_TTL,
    DEFAULT_IDLE_TTL,
    DEFAULT_LOBBY_LIMIT,
    DEFAULT_MAX_EVENTS,
    DEFAULT_MAX_SUBSCRIBERS,
    DEFAULT_MAX_WAIT,
    DEFAULT_QUOTA_PENDING,
    DEFAULT_RECORD_TTL,
    DEFAULT_WAIT_TIMEOUT_MS,
    DEFAULT_WAITING_TTL,
    KEEP,
    OWNER_COUNTS,
    Created,
    Due,
    DueClaim,
    DueUpdate,
    IdempotencyRecord,
    Lifetimes,
    LoadCounters,
    Loaded,
    LobbyUpdate,
    SaveResult,
    lifecycle,
    owner_counts,
)
from service.store.codec import (
    LobbyRow,
    decode_cursor,
    decode_event,
    due_text,
    event_tail,
    is_game_id,
    key_digest,
    lobby_page,
    new_game_id,
    now_ms,
)
from service.store.errors import (
    GameExists,
    GameNotFound,
    NotReplicated,
    QuotaExceeded,
    StoreUnavailable,
)
from service.store.watch import Deliver, RedisHub, Watch

__all__ = [
    "CLAIM_SCRIPT",
    "CONFIRM_SCRIPT",
    "DELETE_SCRIPT",
    "DROP_DUE_SCRIPT",
    "DUE_SCRIPT",
    "EVENTS_SCRIPT",
    "LOAD_COUNTING_SCRIPT",
    "LOBBY_READ_SCRIPT",
    "LOBBY_SCRIPT",
    "OWNER_NOTE_SCRIPT",
    "OWNER_TOUCH_SCRIPT",
    "RELEASE_DUE_SCRIPT",
    "SAVE_SCRIPT",
    "RedisStore",
]

Client: TypeAlias = "redis.Redis | redis.cluster.RedisCluster"

#: Lua shared by the scripts that change a game's standing in its owners'
#: indexes (`SAVE_SCRIPT` and `DELETE_SCRIPT` on a single server, `OWNER_TOUCH_SCRIPT`
#: in a cluster): the game's entries count until ``untl`` (ms), or are removed
#: once it is finished or gone; it no longer waits once in play. ``ZADD XX``: only
#: entries a note made (`OWNER_NOTE_SCRIPT`) are kept up to date.
_OWNER_TOUCH_LUA = """
local function touch_owner(open_key, waiting_key, bots_key, id, status, untl)
  if status == 'finished' or status == 'gone' then
    redis.call('ZREM', open_key, id)
    redis.call('ZREM', waiting_key, id)
    redis.call('ZREM', bots_key, id)
    return
  end
  redis.call('ZADD', open_key, 'XX', untl, id)
  redis.call('ZADD', bots_key, 'XX', untl, id)
  if status == 'waiting' then
    redis.call('ZADD', waiting_key, 'XX', untl, id)
  else
    redis.call('ZREM', waiting_key, id)
  end
end
local function touch_owners(owners, id, status, untl)
  for base in string.gmatch(owners, '%S+') do
    touch_owner(base .. ':open', base .. ':waiting', base .. ':bots', id, status, untl)
  end
end
"""

SAVE_SCRIPT = (
    _OWNER_TOUCH_LUA
    + """
-- Compare-and-set of one game: all or nothing.
-- KEYS[1] game hash, KEYS[2] event list, KEYS[3] idempotency record (or an unused key
-- of the game), KEYS[4] the game's records (list of '<bytes> <key>', oldest first),
-- KEYS[5] queue of due games (zset), KEYS[6] their reasons (hash);
-- KEYS[5..6] only on a single server (in a cluster they live in another slot).
-- ARGV[1..6] repeat from save to save (packed once with the keys): ARGV[1] TTL ms of
-- the game after this save, ARGV[2] events kept, ARGV[3] idempotency TTL ms,
-- ARGV[4] game id, ARGV[5] the game's lifecycle status ('' = unchanged),
-- ARGV[6] the game's idempotency byte budget;
-- ARGV[7..11] record seat ('' = no record), key, fingerprint, status, body (without
-- a record, five '' packed with the head too); ARGV[12] expected version (0: create),
-- ARGV[13] state, ARGV[14] event time (epoch ms), ARGV[15] nonce of this save,
-- ARGV[16] due: '' keep, '-' unqueue, '<ms> <reason>' queue,
-- ARGV[17] key base of an owner the game counts for from now on ('' = none),
-- ARGV[18..] event tails (the caller's fields, compact JSON, to follow seq/version/at)
-- Returns {code, version, last_event, due changed, owners, status, until, nonce}:
-- code 1 saved, 0 stale, -1 not found; owners (with the status and until to give
-- their entries) is '' unless the caller must update the owners' indexes itself;
-- nonce is that of the version returned (its epoch; '' when not found).
local cur = redis.call('HMGET', KEYS[1], 'version', 'last_event', 'nonce', 'due', 'owners',
                       'status')
local expected = tonumber(ARGV[12])
local version, seq = 0, 0
if cur[1] then
  version, seq = tonumber(cur[1]), tonumber(cur[2])
  if version ~= expected then
    if version == expected + 1 and cur[3] == ARGV[15] then
      -- A retry of a save that already succeeded. The nonce written again is a
      -- write of this connection's, so a WAIT sent after it waits for the save.
      redis.call('HSET', KEYS[1], 'nonce', ARGV[15])
      return {1, version, seq, 1, '', '', 0, ARGV[15]}
    end
    return {0, version, seq, 0, '', '', 0, cur[3] or ''}
  end
elseif expected ~= 0 then
  return {-1, 0, 0, 0, '', '', 0, ''}
end
version = version + 1
local stamp = ' ' .. version .. ' ' .. ARGV[14] .. ' '
local appended = {}
for i = 18, #ARGV do
  seq = seq + 1
  appended[#appended + 1] = seq .. stamp .. ARGV[i]
  redis.call('RPUSH', KEYS[2], appended[#appended])
end
if #appended > 0 then
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
  -- The wake-up carries what was appended, one event a line (compact JSON has
  -- no raw newline): a process's streams need no read to follow the game.
  redis.call('PUBLISH', KEYS[2], table.concat(appended, '\\n'))
end
redis.call('HSET', KEYS[1], 'state', ARGV[13], 'version', version,
           'last_event', seq, 'nonce', ARGV[15])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'status', ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[7] ~= '' then
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[3], 'seat', ARGV[7], 'key', ARGV[8], 'fingerprint', ARGV[9],
             'status', ARGV[10], 'body', ARGV[11])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  -- The game's records within its byte budget: the oldest go first (the newest
  -- stays). A list that expired took its records' count with it: start again.
  local size = #ARGV[8] + #ARGV[9] + #ARGV[11] + 64
  local total = size
  if redis.call('RPUSH', KEYS[4], size .. ' ' .. KEYS[3]) == 1 then
    redis.call('HSET', KEYS[1], 'idem_bytes', size)
  else
    total = redis.call('HINCRBY', KEYS[1], 'idem_bytes', size)
  end
  while total > tonumber(ARGV[6]) and redis.call('LLEN', KEYS[4]) > 1 do
    local bytes, key = string.match(redis.call('LPOP', KEYS[4]), '^(%d+) (.*)$')
    if key ~= KEYS[3] then
      redis.call('DEL', key)
    end
    total = redis.call('HINCRBY', KEYS[1], 'idem_bytes', -tonumber(bytes))
  end
  redis.call('PEXPIRE', KEYS[4], math.max(tonumber(ARGV[1]), tonumber(ARGV[3])))
end
local due_changed = 0
if ARGV[16] ~= '' then
  -- The game hash remembers its entry, so that in a cluster the caller updates
  -- the queue (another slot) only when the entry changes.
  if ARGV[16] ~= (cur[4] or '-') then
    due_changed = 1
    if ARGV[16] == '-' then
      redis.call('HDEL', KEYS[1], 'due')
    else
      redis.call('HSET', KEYS[1], 'due', ARGV[16])
    end
  end
  if KEYS[5] then
    if ARGV[16] == '-' then
      redis.call('ZREM', KEYS[5], ARGV[4])
      redis.call('HDEL', KEYS[6], ARGV[4])
    else
      local at, reason = string.match(ARGV[16], '^(%d+) (.*)$')
      redis.call('ZADD', KEYS[5], at, ARGV[4])
      redis.call('HSET', KEYS[6], ARGV[4], reason)
    end
  end
end
-- The owners' indexes learn of a new owner, or of a save that says what the
-- game is (a create, a join, its start, its end: an ordinary move says nothing,
-- and does no work here). On a single server they are updated here, by the key
-- bases the hash names (not declared: a cluster would refuse them, so there the
-- caller updates them after, from this reply).
local owners = cur[5] or ''
local status = ARGV[5]
local changed = status ~= ''
if not changed then
  status = cur[6] or 'active'
end
if ARGV[17] ~= '' and not string.find(' ' .. owners .. ' ', ' ' .. ARGV[17] .. ' ', 1, true) then
  owners = (owners == '' and ARGV[17]) or (owners .. ' ' .. ARGV[17])
  redis.call('HSET', KEYS[1], 'owners', owners)
  changed = true
end
local untl = tonumber(ARGV[14]) + tonumber(ARGV[1])
if not changed or owners == '' then
  owners = ''
elseif KEYS[5] then
  touch_owners(owners, ARGV[4], status, untl)
  owners = ''
end
return {1, version, seq, due_changed, owners, status, untl, ARGV[15]}
"""
)

DUE_SCRIPT = """
-- Queue or unqueue one game (the second step of a save in a cluster, and the
-- queue's repair). KEYS[1] queue of due games (zset), KEYS[2] their reasons (hash)
-- ARGV[1] game id, ARGV[2] '-' unqueue or '<ms> <reason>' queue,
-- ARGV[3] 'nx': queue only a game not queued at all (the repair)
-- Returns 1 if the queue changed, else 0.
if ARGV[2] == '-' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
local at, reason = string.match(ARGV[2], '^(%d+) (.*)$')
if ARGV[3] == 'nx' then
  if redis.call('ZADD', KEYS[1], 'NX', at, ARGV[1]) == 0 then
    return 0
  end
else
  redis.call('ZADD', KEYS[1], at, ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], reason)
return 1
"""

CLAIM_SCRIPT = """
-- Claim due games: each is pushed to the lease's end, so no other runner takes it.
-- Chosen among the first ARGV[4] due entries: those of reason ARGV[5] first (turn
-- clocks), earliest first; then at most ARGV[6] others, owners taking turns (the
-- owner a claim served least recently first, each owner's earliest entry first).
-- KEYS[1] queue of due games (zset), KEYS[2] their reasons (hash: '<reason> <owner>'),
-- KEYS[3] when a claim last served each owner (zset, ms)
-- ARGV[1] now ms, ARGV[2] most games, ARGV[3] lease end ms, ARGV[4] entries looked at,
-- ARGV[5] the reason claimed first ('' = none), ARGV[6] most others (-1: up to ARGV[2])
-- Returns a flat list: game id, reason, due ms, ...
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                       ARGV[4])
if #due == 0 then return {} end
local ids = {}
for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
local why = redis.call('HMGET', KEYS[2], unpack(ids))
local limit, picked = tonumber(ARGV[2]), {}
local queues, owners = {}, {}
for i, id in ipairs(ids) do
  local text = why[i] or ''
  local reason, owner = string.match(text, '^(%S*) ?(%S*)$')
  if ARGV[5] ~= '' and reason == ARGV[5] then
    if #picked < limit then picked[#picked + 1] = i end
  else
    owner = owner or ''
    if not queues[owner] then
      queues[owner] = {}
      owners[#owners + 1] = owner
    end
    table.insert(queues[owner], i)
  end
end
local room = limit - #picked
if tonumber(ARGV[6]) >= 0 then room = math.min(room, tonumber(ARGV[6])) end
if room > 0 and #owners > 0 then
  local served = redis.call('ZMSCORE', KEYS[3], unpack(owners))
  local rank = {}
  for k, owner in ipairs(owners) do rank[owner] = {tonumber(served[k]) or 0, k} end
  table.sort(owners, function(a, b)
    if rank[a][1] ~= rank[b][1] then return rank[a][1] < rank[b][1] end
    return rank[a][2] < rank[b][2]
  end)
  local turn, now = 1, tonumber(ARGV[1])
  while room > 0 and #owners > 0 do
    local left = {}
    for _, owner in ipairs(owners) do
      local queue = queues[owner]
      if room > 0 and queue[turn] then
        picked[#picked + 1] = queue[turn]
        room = room - 1
        redis.call('ZADD', KEYS[3], now + #picked, owner)  -- in the order served
      end
      if queue[turn + 1] then left[#left + 1] = owner end
    end
    owners, turn = left, turn + 1
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 3600000)  -- an hour unserved
end
local out = {}
for _, i in ipairs(picked) do
  redis.call('ZADD', KEYS[1], ARGV[3], ids[i])
  out[#out + 1] = ids[i]
  out[#out + 1] = why[i] or ''
  out[#out + 1] = due[2 * i]
end
return out
"""

RELEASE_DUE_SCRIPT = """
-- Give claims up: each game still at its claim's lease is due again at its time.
-- KEYS[1] queue of due games (zset)
-- ARGV: game id, the claim's lease end ms, its due ms; ... (three per claim)
-- Returns how many were released.
local released = 0
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
    released = released + 1
  end
end
return released
"""

DROP_DUE_SCRIPT = """
-- Unqueue a claimed game unless a save queued it again since the claim.
-- KEYS[1] queue of due games (zset), KEYS[2] their reasons (hash)
-- ARGV[1] game id, ARGV[2] the claim's lease end ms
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
"""

DELETE_SCRIPT = (
    _OWNER_TOUCH_LUA
    + """
-- Delete one game if it is at the expected version.
-- KEYS[1] game hash, KEYS[2] event list, KEYS[3] its idempotency records' list;
-- ARGV[1] expected version, ARGV[2] '1' on a single server (the owners' indexes
-- are updated here, else by the caller from the reply), ARGV[3] game id
-- Returns {code, version, last_event, owners}: code 1 deleted, 0 stale, -1 not found.
local cur = redis.call('HMGET', KEYS[1], 'version', 'last_event', 'owners')
if not cur[1] then return {-1, 0, 0, ''} end
local version, seq = tonumber(cur[1]), tonumber(cur[2])
if version ~= tonumber(ARGV[1]) then return {0, version, seq, ''} end
redis.call('DEL', KEYS[1], KEYS[2])
for _, entry in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  redis.call('DEL', string.match(entry, '^%d+ (.*)$'))
end
redis.call('DEL', KEYS[3])
redis.call('PUBLISH', KEYS[2], seq)  -- its streams read again and find it gone
local owners = cur[3] or ''
if ARGV[2] == '1' then
  touch_owners(owners, ARGV[3], 'gone', 0)
  owners = ''
end
return {1, version + 1, seq, owners}
"""
)

OWNER_NOTE_SCRIPT = """
-- Count a game for its owner, within the owner's quotas: one atomic step.
-- KEYS[1..3] the owner's open, waiting and bot games (sorted sets: game id, scored
-- by the ms it counts until; one slot: the owner's hash tag)
-- ARGV[1] now ms, ARGV[2] game id, ARGV[3] ms the note counts until unless a save
-- confirms it, ARGV[4..6] the limits of the three (0: none), ARGV[7..9] '1' where
-- the game joins that count, ARGV[10] the keys' expiry ms
-- Returns '' (counted, or counted already) or the name of the count at its limit.
local names = {'open', 'waiting', 'bots'}
for i = 1, 3 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1])
end
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  return ''
end
for i = 1, 3 do
  local limit = tonumber(ARGV[3 + i])
  if ARGV[6 + i] == '1' and limit > 0 and redis.call('ZCARD', KEYS[i]) >= limit then
    return names[i]
  end
end
for i = 1, 3 do
  if ARGV[6 + i] == '1' then
    redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2])
    redis.call('PEXPIRE', KEYS[i], ARGV[10])
  end
end
return ''
"""

OWNER_TOUCH_SCRIPT = (
    _OWNER_TOUCH_LUA
    + """
-- A game's standing in one owner's index (in a cluster, after the save script).
-- KEYS[1..3] the owner's open, waiting and bot games; ARGV[1] game id, ARGV[2] its
-- status ('gone': deleted), ARGV[3] ms its entries count until, ARGV[4] the keys' expiry ms
touch_owner(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
return 1
"""
)

CONFIRM_SCRIPT = """
-- Write an idempotency record's expiry again, so that a WAIT after this
-- covers the record (`STORE_WAIT_REPLICAS`: a replay is confirmed on the
-- replicas before it is answered). KEYS[1] the record, ARGV[1] its TTL ms.
return redis.call('PEXPIRE', KEYS[1], ARGV[1])
"""

LOAD_COUNTING_SCRIPT = """
-- A load with counters riding along (the rate limiter's, on a single server).
-- KEYS[1] game hash, KEYS[2..] counters; ARGV[i] expiry ms of KEYS[i + 1]
-- Returns the counters' new values, then the HMGET of the load.
local out = {}
for i = 2, #KEYS do
  -- The first count of a window gives its key an expiry (a script is atomic:
  -- nothing runs between the two). One command per count after that.
  local count = redis.call('INCR', KEYS[i])
  if count == 1 then
    redis.call('PEXPIRE', KEYS[i], ARGV[i - 1])
  end
  out[i - 1] = count
end
out[#KEYS] = redis.call('HMGET', KEYS[1], 'state', 'version', 'last_event', 'nonce')
return out
"""

EVENTS_SCRIPT = """
-- The kept events after a sequence number.
-- KEYS[1] game hash, KEYS[2] event list; ARGV[1] after, ARGV[2] limit (0: all)
-- Returns false for no such game, else the stored events (oldest first).
local last = redis.call('HGET', KEYS[1], 'last_event')
if not last then return false end
local kept = redis.call('LLEN', KEYS[2])
local first = tonumber(last) - kept + 1
local start = math.max(tonumber(ARGV[1]) + 1, first) - first
if start >= kept then return {} end
local stop = -1
if tonumber(ARGV[2]) > 0 then stop = start + tonumber(ARGV[2]) - 1 end
return redis.call('LRANGE', KEYS[2], start, stop)
"""

LOBBY_SCRIPT = """
-- List or unlist one game in the lobby, ignoring updates older than the last one.
-- KEYS[1] index (zset), KEYS[2] summaries (hash), KEYS[3] removals (zset)
-- ARGV[1] game id, ARGV[2] game version, ARGV[3] summary JSON ('' = unlist),
-- ARGV[4] now ms, ARGV[5] idle TTL ms, ARGV[6] how long removals are remembered, ms
local now = tonumber(ARGV[4])
-- forget listings of games idle past their TTL, and old removals (bounded work)
for _, pair in ipairs({{KEYS[1], now - tonumber(ARGV[5])}, {KEYS[3], now - tonumber(ARGV[6])}}) do
  local old = redis.call('ZRANGEBYSCORE', pair[1], '-inf', '(' .. pair[2], 'LIMIT', 0, 100)
  for _, id in ipairs(old) do
    redis.call('ZREM', pair[1], id)
    redis.call('HDEL', KEYS[2], id)
  end
end
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if cur and tonumber(string.match(cur, '^(%d+)|')) > tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. '|' .. ARGV[3])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[3], now, ARGV[1])
else
  -- scored by its first listing (its creation): the lobby shows the newest first
  redis.call('ZADD', KEYS[1], 'NX', now, ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
end
return 1
"""

LOBBY_READ_SCRIPT = """
-- One lobby page, newest first: entries before (score, id) in (score, id) order.
-- KEYS[1] index (zset), KEYS[2] summaries (hash)
-- ARGV[1] how many, ARGV[2] cursor score ('' = from the top), ARGV[3] cursor id,
-- ARGV[4] oldest live score
-- Returns a flat list id, score, summary, ... with at most ARGV[1] entries.
local count = tonumber(ARGV[1])
local cscore = tonumber(ARGV[2])
local max = '+inf'
if cscore then max = cscore end
local out, offset = {}, 0
while #out < 3 * count do
  local batch = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, ARGV[4], 'WITHSCORES',
                           'LIMIT', offset, 100)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local id, score = batch[i], tonumber(batch[i + 1])
    if not cscore or score < cscore or id < ARGV[3] then
      local summary = redis.call('HGET', KEYS[2], id)
      if summary and #out < 3 * count then
        table.insert(out, id)
        table.insert(out, tostring(batch[i + 1]))
        table.insert(out, summary)
      end
    end
  end
  offset = offset + 100
end
return out
"""

#: Seconds between reads of a long-poll that found no subscriber slot.
POLL_INTERVAL = 0.5

#: Everything redis-py raises when Redis is unreachable or fails (cluster
#: set-up errors do not derive from RedisError).
REDIS_ERRORS = (redis.exceptions.RedisError, redis.exceptions.RedisClusterException)

_log = logging.getLogger(__name__)

#: A load's fields: the nonce of the save that wrote the version is its epoch.
_LOAD_FIELDS = ("state", "version", "last_event", "nonce")

#: Games whose hot keys (`RedisStore._hot_keys`) a store keeps made: any well-formed
#: game id a request names enters the table, so it is bounded (then emptied).
GAME_KEYS_KEPT = 4096

#: The save script's arguments that repeat from save to save of a game (its
#: expiries, id and status), packed once with its keys (`leancall.Commands.run_script`).
_SAVE_LEADING = 6

#: A save without an idempotency record: its five empty record arguments follow
#: the leading six and are packed with them, not per save (hiredis formats each
#: argument anew; measured with valgrind in docs/performance.md, "What a move costs").
_SAVE_LEADING_NO_RECORD = 11
_NO_RECORD: tuple[EncodableT, ...] = ("", "", "", "", "")

#: Pauses (s) before each retry of a lobby update that failed.
_LOBBY_RETRY_PAUSES = (0.05, 0.2, 0.5)

#: Room a Redis with a ``maxmemory`` must have left to count as ready (bytes).
MIN_FREE_MEMORY = 1024 * 1024

# The readiness probe's key lives this long (ms): one small key per prefix.
_PROBE_TTL_MS = 60_000

# How long an unlisting is remembered, to refuse a late, older listing (ms).
_REMOVAL_MEMORY_MS = 3600 * 1000


def _due_arg(due: DueUpdate) -> str:
    """The save script's ``due`` argument: '' keep, '-' unqueue, '<ms> <reason>' queue
    (the reason's text names its owner too: `due_text`)."""
    if due is KEEP:
        return ""
    if due is None:
        return "-"
    assert isinstance(due, Due)
    return f"{int(due.at * 1000)} {due_text(due)}"


def _glob_escape(text: str) -> str:
    """`text` matched literally in a Redis glob pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def _retry(retries: int) -> Retry:
    # Short, jittered backoff: a refused or dropped connection is retried and a
    # dead server reported within about a second. A timeout is not retried: it
    # already took socket_timeout, and a hung server would take that again.
    return Retry(
        ExponentialWithJitterBackoff(cap=0.5, base=0.05),
        retries,
        supported_errors=(redis.exceptions.ConnectionError,),
    )


def save_nonce() -> str:
    """A save attempt's nonce: 16 hex digits, by which the script knows a save it
    already applied when the same attempt is sent again (a retry after a lost reply).

    It need only differ between attempts, not be secret (it stays in Redis): drawn
    from `random`'s generator (seeded from the OS, and again in a forked child)
    rather than the OS's, a system call and three Python calls fewer per save.
    """
    return f"{random.getrandbits(64):016x}"


class RedisStore:
    """A `GameStore` on Redis (``redis://``, ``rediss://``) or Redis Cluster."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        cluster: bool = False,
        prefix: str = "rummy",
        idle_ttl: float = DEFAULT_IDLE_TTL,
        waiting_ttl: float = DEFAULT_WAITING_TTL,
        finished_ttl: float = DEFAULT_FINISHED_TTL,
        record_ttl: float = DEFAULT_RECORD_TTL,
        idempotency_ttl: float = DEFAULT_IDEMPOTENCY_TTL,
        idempotency_bytes: int = DEFAULT_IDEMPOTENCY_BYTES,
        max_events: int = DEFAULT_MAX_EVENTS,
        max_wait: float = DEFAULT_MAX_WAIT,
        socket_timeout: float = 1.0,
        connect_timeout: float = 1.0,
        retries: int = 2,
        max_connections: int | None = None,
        pool_timeout: float = 0.5,
        password: str | None = None,
        max_subscribers: int = DEFAULT_MAX_SUBSCRIBERS,
        pipelining: bool = True,
        quota_pending: float = DEFAULT_QUOTA_PENDING,
        wakeup_read_interval: float = 0.0,
        wait_replicas: int = 0,
        wait_timeout_ms: int = DEFAULT_WAIT_TIMEOUT_MS,
    ) -> None:
        if wait_replicas and cluster:
            raise ValueError(
                "STORE_WAIT_REPLICAS needs one Redis server (its WAIT follows the save on "
                "the save's connection); on Redis Cluster set min-replicas-to-write on its "
                "nodes instead (docs/reliability.md)"
            )
        #: Replicas that must acknowledge each save (have it in their memory)
        #: before it is answered, within `wait_timeout_ms` (0: none waited for).
        #: ``WAIT``, not ``WAITAOF``: after a script, Valkey 8.1's replicas often
        #: acknowledged it in their append-only file only with the next write
        #: (docs/reliability.md, "Failover").
        self.wait_replicas = max(int(wait_replicas), 0)
        self.wait_timeout_ms = max(int(wait_timeout_ms), 1)  # WAIT's 0 waits for ever
        self._wait_command: tuple[EncodableT, ...] = (
            "WAIT",
            self.wait_replicas,
            self.wait_timeout_ms,
        )
        self.url = url
        self.cluster = cluster
        self.prefix = prefix
        self.idle_ttl_ms = int(idle_ttl * 1000)
        #: TTLs by what a save says of its game (`service.store.base.lifecycle`).
        self.lifetimes = Lifetimes.capped(idle_ttl, waiting_ttl, finished_ttl, record_ttl)
        # A listing lives as long as a waiting game: each listing update is a
        # save of a waiting game, which gives it the waiting TTL.
        self._listing_ttl_ms = int(min(waiting_ttl, idle_ttl) * 1000)
        self.idempotency_ttl_ms = int(idempotency_ttl * 1000)
        #: Bytes of idempotency records one game keeps (the oldest dropped past it).
        self.idempotency_bytes = int(idempotency_bytes)
        #: How long a game noted under its owner before it is stored (`create`
        #: with a quota) counts against the owner without being there (ms).
        self.quota_pending_ms = int(quota_pending * 1000)
        # An owner's index outlives its newest entry: each counts until its
        # game's expiry, at most the idle TTL after the last change of its status.
        self._owner_keys_ttl_ms = 2 * self.idle_ttl_ms + self.quota_pending_ms
        self.max_events = max_events
        self.max_wait = max_wait
        #: Whether, in a gevent worker, the hot path's commands share one
        #: pipelined connection (service/serving/pipelining.py).
        self.pipelining = pipelining
        #: Shortest time in seconds between two reads of the wake-up
        #: subscription (`PatternSubscription`; a cluster's is read at once).
        self.wakeup_read_interval = wakeup_read_interval
        common: dict[str, Any] = {
            "socket_connect_timeout": connect_timeout,
            "retry": _retry(retries),
        }
        if password:
            common["password"] = password  # a password in the URL wins
        #: Seconds a command waits for a free connection of a full pool
        #: (then `StoreUnavailable`: a 503, not an immediate failure).
        self.pool_timeout = pool_timeout
        self._options = {**common, "socket_timeout": socket_timeout}
        if max_connections is not None:
            self._options["max_connections"] = max_connections
        # Blocking reads get a socket timeout longer than the longest block;
        # each waiting long-poll holds one connection, at most max_subscribers.
        self._poll_options = {
            **common,
            "socket_timeout": max_wait + max(socket_timeout, 2.0),
            "max_connections": max(max_subscribers, 1) + 8,
        }
        self._lock = threading.Lock()
        # Each waiting long-poll holds one Pub/Sub connection; past this many in
        # this process, further waiters poll the event list instead.
        self._subscribers = threading.BoundedSemaphore(max(max_subscribers, 1))
        self._client: Client | None = None
        self._save: Script
        self._lobby_update: Script
        self._lobby_read: Script
        self._read_events: Script
        self._load_counting_script: Script
        self._due_update: Script
        self._claim_due: Script
        self._drop_due: Script
        self._release_due: Script
        self._delete: Script
        self._owner_note: Script
        self._owner_touch: Script
        self._confirm: Script
        self._poll_client: Client | None = None
        #: How the hot path's commands are sent, picked when the client is built:
        #: lean connections, or a cluster client's own routing (see leancall).
        self._commands: leancall.Commands | None = None
        self._lobby_keys = [f"{prefix}:{{lobby}}:{name}" for name in ("idx", "sum", "gone")]
        # Every game's wake-up channel, for the streams' shared subscription.
        self._wakeup_pattern = f"{_glob_escape(prefix)}:{{*}}:el"
        self._wakeup_channel = re.compile(rb"^" + re.escape(prefix.encode()) + rb":\{(.+)\}:el$")
        self._hub = RedisHub(self._subscribe_wakeups, self._game_of_channel, REDIS_ERRORS)
        self._probe_key = f"{prefix}:{{probe}}:ready"
        self._game_keys: dict[str, tuple[str, str, str, str]] = {}
        #: The queue of due games (zset: game id by due time, ms) and their reasons (hash).
        self._due_keys = [f"{prefix}:{{due}}:q", f"{prefix}:{{due}}:why"]
        #: When a claim last served each owner (zset, ms; in the queue's slot).
        self._served_key = f"{prefix}:{{due}}:served"

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, cluster={self.cluster}, prefix={self.prefix!r})"

    # -- connections -----------------------------------------------------------

    def _connect(self, options: Mapping[str, Any]) -> Client:
        if self.cluster:
            return redis.cluster.RedisCluster.from_url(self.url, **options)
        if "max_connections" not in options:
            return redis.Redis.from_url(self.url, **options)
        # A full pool makes a command wait up to pool_timeout for a connection
        # (redis-py's default pool fails at once: long-polls past its size
        # answered 503 while Redis was healthy).
        pool = redis.BlockingConnectionPool.from_url(self.url, timeout=self.pool_timeout, **options)
        return redis.Redis(connection_pool=pool)

    @property
    def client(self) -> Client:
        """The request client (created on first use: a cluster client connects
        when built, and the app must start even while Redis is down)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    client = self._connect(self._options)
                    self._save = client.register_script(SAVE_SCRIPT)
                    self._lobby_update = client.register_script(LOBBY_SCRIPT)
                    self._lobby_read = client.register_script(LOBBY_READ_SCRIPT)
                    self._read_events = client.register_script(EVENTS_SCRIPT)
                    self._load_counting_script = client.register_script(LOAD_COUNTING_SCRIPT)
                    self._due_update = client.register_script(DUE_SCRIPT)
                    self._claim_due = client.register_script(CLAIM_SCRIPT)
                    self._drop_due = client.register_script(DROP_DUE_SCRIPT)
                    self._release_due = client.register_script(RELEASE_DUE_SCRIPT)
                    self._delete = client.register_script(DELETE_SCRIPT)
                    self._owner_note = client.register_script(OWNER_NOTE_SCRIPT)
                    self._owner_touch = client.register_script(OWNER_TOUCH_SCRIPT)
                    self._confirm = client.register_script(CONFIRM_SCRIPT)
                    self._commands = (
                        leancall.LeanConnections(client, pipelining=self.pipelining)
                        if isinstance(client, redis.Redis)
                        else leancall.ClientCommands(client)
                    )
                    self._client = client
        return self._client

    @property
    def poll_client(self) -> Client:
        """The client for long-polls (Pub/Sub waits)."""
        if self._poll_client is None:
            with self._lock:
                if self._poll_client is None:
                    self._poll_client = self._connect(self._poll_options)
        return self._poll_client

    # -- keys ------------------------------------------------------------------

    def _game_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:g"

    def _events_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:el"

    def _hot_keys(self, game_id: str) -> tuple[str, str, str, str]:
        """The game's hash, its event list, a key of the game never written
        (the save's idempotency key without a record) and the list of its
        idempotency records, kept per game id.

        Speed: a move's load and save formatted them anew (three f-strings and
        two calls; measured with valgrind in docs/performance.md, "What a move
        costs"). At most `GAME_KEYS_KEPT`, then all forgotten.
        """
        keys = self._game_keys.get(game_id)
        if keys is None:
            keys = (
                self._game_key(game_id),
                self._events_key(game_id),
                f"{self.prefix}:{{{game_id}}}:idem:-",
                f"{self.prefix}:{{{game_id}}}:il",
            )
            if len(self._game_keys) >= GAME_KEYS_KEPT:
                self._game_keys.clear()
            self._game_keys[game_id] = keys
        return keys

    def _idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:idem:{seat}:{key_digest(key)}"

    # -- writes ----------------------------------------------------------------

    def _cas(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[Mapping[str, Any]],
        idempotency: IdempotencyRecord | None,
        lobby: LobbyUpdate,
        due: DueUpdate = KEEP,
        owner: str | None = None,
    ) -> SaveResult:
        tails = [event_tail(e) for e in events]
        status, ttl = lifecycle(events, lobby, self.lifetimes)
        nonce = save_nonce()  # the new version's epoch too
        game_key, events_key, unused_key, records_key = self._hot_keys(game_id)
        keys = [game_key, events_key]
        record: Sequence[EncodableT] = _NO_RECORD
        leading = _SAVE_LEADING_NO_RECORD
        if idempotency is None:
            keys.append(unused_key)  # never written
        else:
            keys.append(self._idempotency_key(game_id, idempotency.seat, idempotency.key))
            record = (
                idempotency.seat,
                idempotency.key,
                idempotency.fingerprint,
                idempotency.status,
                bytes(idempotency.body),
            )
            leading = _SAVE_LEADING
        keys.append(records_key)
        # The first six repeat from save to save (`_SAVE_LEADING`), and so does
        # an absent record's five '' after them (`_SAVE_LEADING_NO_RECORD`).
        args: list[EncodableT] = [
            int(ttl * 1000),
            self.max_events,
            self.idempotency_ttl_ms,
            game_id,
            status,
            self.idempotency_bytes,
            *record,
            expected_version,
            bytes(state),
            now_ms(),
            nonce,
            _due_arg(due),
            "" if owner is None else self._owner_base(owner),
            *tails,
        ]
        if not self.cluster:
            keys += self._due_keys
        try:
            if self._client is None:  # the property is a Python call
                self.client  # noqa: B018 - builds the client and its scripts
            if self.wait_replicas:
                reply = self._save_and_wait(keys, args, leading)
            else:
                reply = self._run(self._save, keys, args, leading)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"save failed: {exc}") from exc
        code, version, last_event, due_changed, owners = reply[:5]
        if code == 1:
            if self.cluster and due_changed and due is not KEEP:
                self._queue_in_cluster(game_id, due)
            if owners:  # a cluster: the owners' indexes live in other slots
                self._touch_owners(game_id, owners, reply[5], int(reply[6]))
            return SaveResult("saved", int(version), int(last_event), nonce)
        if code == 0:
            return SaveResult("stale", int(version), int(last_event), reply[7].decode())
        return SaveResult("not_found", 0, 0)

    def _save_and_wait(self, keys: list[Any], args: list[EncodableT], leading: int) -> Any:
        """The save script and, in the same write on the same connection, ``WAIT``
        for `wait_replicas`: still one round trip. A save made but not acknowledged
        in time raises `NotReplicated` (the primary holds it; a failover now may
        lose it)."""
        commands = self._hot()
        if not isinstance(commands, leancall.LeanConnections):  # pragma: no cover - refused
            raise StoreUnavailable("WAIT after a save needs one Redis server")
        reply, acked = commands.run_script_then(
            self._save, keys, args, self._wait_command, self.wait_timeout_ms / 1000
        )
        if reply[0] == 1 and int(acked) < self.wait_replicas:
            raise NotReplicated(
                f"save acknowledged by {int(acked)} of {self.wait_replicas} replicas "
                f"within {self.wait_timeout_ms} ms"
            )
        return reply

    def _queue_in_cluster(self, game_id: str, due: DueUpdate) -> None:
        # The queue is in another slot than the game: a second round trip, only
        # when the game's entry changed. Should it fail (or the process end
        # before it), the save still counts (it happened) and the game's hash
        # still holds its entry: `repair_due_queue` queues it again.
        try:
            self._due_update(keys=self._due_keys, args=[game_id, _due_arg(due)])
        except REDIS_ERRORS as exc:
            _log.warning(
                "queue entry of game %s not updated (the runner's repair restores it): %s",
                game_id,
                exc,
            )

    def repair_due_queue(self, page: int = 500) -> int:
        """Queue again every game whose hash holds a queue entry the queue lacks;
        how many were queued again.

        Only a cluster can lack one: there the queue lives in another slot than
        the game, and a save updates it in a second step (`_queue_in_cluster`)
        that a failure, or the process ending between the two, can miss. On one
        server the save script does both at once: nothing to look at (0). The
        games are found by a ``SCAN`` of every primary, ``page`` keys a step,
        their entries read in one pipeline per page and looked up in the queue
        in one ``ZMSCORE``; a game missing from it is queued with ``ZADD NX``, so
        an entry a save or a claim wrote meanwhile is never overwritten (one
        this repair adds for a game whose entry a save just removed is claimed
        and dropped by a runner as nothing due)."""
        if not self.cluster:
            return 0
        pattern = f"{_glob_escape(self.prefix)}:{{*}}:g"
        restored = 0
        try:
            client = self.client
            keys: list[bytes] = []
            for key in client.scan_iter(match=pattern, count=page, _type="hash"):
                keys.append(key)
                if len(keys) >= page:
                    restored += self._queue_missing(client, keys)
                    keys = []
            if keys:
                restored += self._queue_missing(client, keys)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"queue repair failed: {exc}") from exc
        return restored

    def _queue_missing(self, client: Client, keys: list[bytes]) -> int:
        """`repair_due_queue` for one page of game hashes."""
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.hget(key, "due")
        entries = pipe.execute()
        start, end = len(self.prefix) + 2, -len("}:g")
        owed = [
            (key.decode()[start:end], entry.decode())
            for key, entry in zip(keys, entries, strict=True)
            if entry and entry != b"-"
        ]
        if not owed:
            return 0
        scores = client.zmscore(self._due_keys[0], [game_id for game_id, _ in owed])
        restored = 0
        for (game_id, entry), score in zip(owed, scores, strict=True):
            if score is None:
                restored += int(self._due_update(keys=self._due_keys, args=[game_id, entry, "nx"]))
        if restored:
            _log.warning("queued again %d game(s) missing from the queue of due games", restored)
        return restored

    def claim_due(
        self, now: float, limit: int, lease: float, first: str = "", others: int | None = None
    ) -> list[DueClaim]:
        """Games due at ``now``, each leased for ``lease`` s: ``first``'s earliest
        first, then the others by owner in turns (one script; `GameStore.claim_due`)."""
        until = int((now + lease) * 1000)
        args: list[EncodableT] = [
            int(now * 1000),
            max(int(limit), 0),
            until,
            CLAIM_WINDOW,
            first,
            -1 if others is None else max(int(others), 0),
        ]
        try:
            self.client  # noqa: B018 - builds the client and its scripts
            flat = self._claim_due(keys=[*self._due_keys, self._served_key], args=args)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"claim failed: {exc}") from exc
        claims = []
        for i in range(0, len(flat), 3):
            reason, _, owner = flat[i + 1].decode().partition(" ")
            claims.append(DueClaim(flat[i].decode(), reason, until, owner, int(float(flat[i + 2]))))
        return claims

    def release_due(self, claims: Sequence[DueClaim]) -> int:
        """Make each claimed game not queued again since due again at its entry's
        time (one script)."""
        if not claims:
            return 0
        args: list[EncodableT] = []
        for claim in claims:
            args += [claim.game_id, claim.lease, claim.due]
        try:
            self.client  # noqa: B018 - builds the client and its scripts
            return int(self._release_due(keys=self._due_keys[:1], args=args))
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"release failed: {exc}") from exc

    def drop_due(self, claim: DueClaim) -> bool:
        """Take the claimed game off the queue unless it was queued again since."""
        try:
            self.client  # noqa: B018 - builds the client and its scripts
            return bool(self._drop_due(keys=self._due_keys, args=[claim.game_id, claim.lease]))
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"unqueue failed: {exc}") from exc

    def next_due(self) -> float | None:
        """When the earliest queued game is due (epoch s), or ``None``."""
        try:
            first = self.client.zrange(self._due_keys[0], 0, 0, withscores=True)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"queue read failed: {exc}") from exc
        return float(first[0][1]) / 1000 if first else None

    def _set_listing(self, game_id: str, version: int, lobby: LobbyUpdate) -> None:
        if lobby is KEEP:
            return
        summary = b"" if lobby is None else orjson.dumps(dict(lobby))
        args: list[EncodableT] = [
            game_id,
            version,
            summary,
            int(time.time() * 1000),
            self._listing_ttl_ms,
            _REMOVAL_MEMORY_MS,
        ]
        # The listing carries the game's version and the script ignores older
        # ones, so sending it again is safe: a failure (no free connection, a
        # dropped one) is retried after a short pause rather than lost.
        for pause in (*_LOBBY_RETRY_PAUSES, None):
            try:
                self._lobby_update(keys=self._lobby_keys, args=args)
                return
            except REDIS_ERRORS as exc:
                if pause is None:
                    # The game is saved: answering "unavailable" now would make
                    # the client repeat a move that happened. Only the listing
                    # lags; the game's next listing update or its TTL repairs it.
                    _log.warning("lobby listing of game %s not updated: %s", game_id, exc)
                    return
                time.sleep(pause)

    def create(
        self,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        lobby: LobbyUpdate = None,
        owner: str | None = None,
        due: Due | None = None,
        quota: Mapping[str, int] | None = None,
        bots: bool = False,
        game_id: str | None = None,
    ) -> Created:
        """Store a new game under a fresh random id, version 1. With an ``owner``,
        the id is first noted in the owner's index within its ``quota``
        (`OWNER_NOTE_SCRIPT`: one atomic step in the owner's slot, counting the
        index's entries, never reading its games) for ``quota_pending`` seconds;
        the save that stores the game under it makes the note count until the
        game's expiry (on a single server in the same script; in a cluster with
        `OWNER_TOUCH_SCRIPT` after it)."""
        status = lifecycle(events, lobby, self.lifetimes)[0]
        counts = owner_counts(status, bots) if owner is not None else ()
        chosen = game_id is not None
        if game_id is None:
            game_id = new_game_id()
        if owner is not None and counts:
            self._note(owner, game_id, counts, quota or {})
        else:
            owner = None  # finished within its create: counts for nobody
        result = self._cas(
            game_id, 0, state, events, None, lobby, KEEP if due is None else due, owner
        )
        if not result.saved:
            if chosen:  # a retry of a create that was made
                raise GameExists(game_id)
            raise StoreUnavailable(f"game id {game_id} already taken")  # pragma: no cover
        if lobby is not None:
            self._set_listing(game_id, result.version, lobby)
        return Created(game_id, result.version, result.last_event, result.epoch)

    def reserve(self, owner: str, game_id: str, limit: int) -> None:
        """Note ``game_id`` among ``owner``'s open games within ``limit`` (one
        script in the owner's slot; see `GameStore.reserve`)."""
        self._note(owner, game_id, ("open",), {"open": limit})

    def _owner_base(self, owner: str) -> str:
        """The key base of ``owner``'s index (its hash tag: one slot)."""
        return f"{self.prefix}:{{owner:{key_digest(owner)}}}"

    def _owner_keys(self, base: str) -> list[str]:
        """The three sorted sets of an owner's index (`OWNER_COUNTS`)."""
        return [f"{base}:{name}" for name in OWNER_COUNTS]

    def _note(
        self, owner: str, game_id: str, counts: Sequence[str], quota: Mapping[str, int]
    ) -> None:
        """Note ``game_id`` in the ``counts`` of ``owner``'s index, each within its
        ``quota``; else raise `QuotaExceeded`."""
        now = now_ms()
        args: list[EncodableT] = [now, game_id, now + self.quota_pending_ms]
        args += [int(quota.get(name, 0) or 0) for name in OWNER_COUNTS]
        args += ["1" if name in counts else "" for name in OWNER_COUNTS]
        args.append(self._owner_keys_ttl_ms)
        try:
            self.client  # noqa: B018 - builds the client and its scripts
            refused = self._owner_note(keys=self._owner_keys(self._owner_base(owner)), args=args)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"owner's game not noted: {exc}") from exc
        if refused:
            name = refused.decode()
            raise QuotaExceeded(name, int(quota[name]))

    def _touch_owners(self, game_id: str, owners: bytes, status: bytes, until: int) -> None:
        """In a cluster, after a save or delete that changed the game's standing:
        each owner's index learns it (one script per owner, in its slot). Should
        one fail, that owner's entry counts until it passes (a note's
        ``quota_pending`` at most, once the game finished or was deleted: until
        its expiry)."""
        for base in owners.decode().split():
            args: list[EncodableT] = [game_id, status, until, self._owner_keys_ttl_ms]
            try:
                self._owner_touch(keys=self._owner_keys(base), args=args)
            except REDIS_ERRORS as exc:
                _log.warning("owner index %s not updated for game %s: %s", base, game_id, exc)

    def open_games(self, owner: str) -> dict[str, int]:
        """``owner``'s counts (one pipeline: a ``ZCOUNT`` of the entries still
        counting per count; the index is never scanned)."""
        keys = self._owner_keys(self._owner_base(owner))
        try:
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.zcount(key, f"({now_ms()}", "+inf")
            counted = pipe.execute()
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"open games read failed: {exc}") from exc
        return {name: int(n) for name, n in zip(OWNER_COUNTS, counted, strict=True)}

    def save(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        idempotency: IdempotencyRecord | None = None,
        lobby: LobbyUpdate = KEEP,
        due: DueUpdate = KEEP,
        owner: str | None = None,
    ) -> SaveResult:
        """Compare-and-set on the version (see `GameStore.save`)."""
        if not is_game_id(game_id):
            return SaveResult("not_found", 0, 0)
        if expected_version < 1:
            # No game is ever at version 0 (and 0 would mean "create" to the script).
            return self._stale(game_id)
        result = self._cas(game_id, expected_version, state, events, idempotency, lobby, due, owner)
        if result.saved:
            self._set_listing(game_id, result.version, lobby)
        return result

    def delete(self, game_id: str, expected_version: int) -> SaveResult:
        """Delete the game if it is at ``expected_version`` (see `GameStore.delete`)."""
        if not is_game_id(game_id):
            return SaveResult("not_found", 0, 0)
        keys = list(self._hot_keys(game_id))
        del keys[2]  # the unused record key
        args: list[EncodableT] = [expected_version, "" if self.cluster else "1", game_id]
        try:
            self.client  # noqa: B018 - builds the client and its scripts
            code, version, last_event, owners = self._delete(keys=keys, args=args)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"delete failed: {exc}") from exc
        if code == -1:
            return SaveResult("not_found", 0, 0)
        if code == 0:
            return SaveResult("stale", int(version), int(last_event))
        if owners:
            self._touch_owners(game_id, owners, b"gone", 0)
        self._set_listing(game_id, int(version), None)
        return SaveResult("saved", int(version), int(last_event))

    def _stale(self, game_id: str) -> SaveResult:
        try:
            loaded = self.load(game_id)
        except GameNotFound:
            return SaveResult("not_found", 0, 0)
        return SaveResult("stale", loaded.version, loaded.last_event, loaded.epoch)

    # -- reads -----------------------------------------------------------------

    def load(self, game_id: str, counters: LoadCounters = ()) -> Loaded:
        """The stored state and version (one ``HMGET``; with ``counters``, one
        script that counts them too); raises `GameNotFound`."""
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        counts: tuple[int, ...] = ()
        try:
            if counters:
                counts, reply = self._load_counting(game_id, counters)
            else:
                reply = self._plain_load(game_id)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"load failed: {exc}") from exc
        fields: list[bytes | None] = reply  # no `typing.cast`: a call of its own, every load
        state, version, last_event, nonce = fields
        if version is None or state is None:
            raise GameNotFound(game_id, counts if counters else None)
        epoch = nonce.decode() if nonce is not None else ""
        return Loaded(state, int(version), int(last_event or 0), counts, epoch)

    def _run(
        self, script: Script, keys: Sequence[Any], args: Sequence[Any], leading: int = 0
    ) -> Any:
        commands = self._commands  # set with the client; `_hot` builds them both
        if commands is None:
            commands = self._hot()
        return commands.run_script(script, keys, args, leading)

    def _hot(self) -> leancall.Commands:
        """The hot path's commands (built with the client on first use)."""
        self.client  # noqa: B018 - builds the client, its scripts and the commands
        assert self._commands is not None
        return self._commands

    def _plain_load(self, game_id: str) -> Any:
        return self._hot().call("HMGET", self._hot_keys(game_id)[0], *_LOAD_FIELDS)

    def _load_counting(self, game_id: str, counters: LoadCounters) -> tuple[tuple[int, ...], Any]:
        # One script, one round trip: the counters, then the load (a script
        # costs the client less than a pipeline of five commands).
        if self._client is None:  # the property is a Python call
            self.client  # noqa: B018 - builds the client and its scripts
        # One loop, not two list comprehensions (each a function call of its
        # own), and the script run without `_run`'s call: the client is built.
        keys = [self._hot_keys(game_id)[0]]
        args = []
        for key, ttl_ms in counters:
            keys.append(key)
            args.append(ttl_ms)
        commands = self._commands
        assert commands is not None
        # The expiries repeat with the keys (one per limit): packed with the head.
        replies = commands.run_script(self._load_counting_script, keys, args, len(args))
        return tuple(replies[:-1]), replies[-1]  # `INCR`'s replies: integers already

    def events(
        self, game_id: str, after: int = 0, wait: float = 0.0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Kept events after ``after`` (one script); with none yet, wait up to
        ``wait`` s for a save's wake-up and read again. Past `max_subscribers`
        waiters in this process, a waiter reads again every `POLL_INTERVAL` s
        instead (no connection of its own; the events come up to that late)."""
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        after = max(int(after), 0)
        wait = min(wait, self.max_wait)
        try:
            found = self._events_after(game_id, after, limit)
            if not found and wait > 0:
                if self._subscribers.acquire(blocking=False):
                    try:
                        found = self._wait_for_events(game_id, after, limit, wait)
                    finally:
                        self._subscribers.release()
                else:
                    found = self._poll_for_events(game_id, after, limit, wait)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"events read failed: {exc}") from exc
        return [decode_event(data) for data in found]

    def _events_after(self, game_id: str, after: int, limit: int | None) -> list[bytes]:
        keys = [self._game_key(game_id), self._events_key(game_id)]
        found = self._run(self._read_events, keys, [after, limit or 0])
        if found is None:
            raise GameNotFound(game_id)
        return cast(list[bytes], found)

    def _poll_for_events(
        self, game_id: str, after: int, limit: int | None, wait: float
    ) -> list[bytes]:
        # Every subscriber slot taken: read the list again every POLL_INTERVAL s.
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            time.sleep(min(POLL_INTERVAL, remaining))
            found = self._events_after(game_id, after, limit)
            if found:
                return found

    def _wait_for_events(
        self, game_id: str, after: int, limit: int | None, wait: float
    ) -> list[bytes]:
        deadline = time.monotonic() + wait
        pubsub = cast(Any, self.poll_client).pubsub()
        try:
            pubsub.subscribe(self._events_key(game_id))
            # Subscribed before reading again, so a save between this read and
            # the wait still wakes it.
            confirmed = pubsub.get_message(timeout=min(wait, 1.0))
            while True:
                found = self._events_after(game_id, after, limit)
                remaining = deadline - time.monotonic()
                if found or remaining <= 0 or confirmed is None:
                    return found
                confirmed = pubsub.get_message(timeout=remaining) or {}
        finally:
            pubsub.close()

    def watch(self, game_id: str, deliver: Deliver | None = None) -> AbstractContextManager[Watch]:
        """Wake-ups of this game's saves that append events, carrying them, from
        this process's one shared subscription (see `GameStore.watch`)."""
        return self._hub.watch(game_id, deliver)

    def _subscribe_wakeups(self) -> Any:
        """A Pub/Sub connection subscribed to every game's wake-up channel (read
        leanly where it can be: service/serving/subscription.py)."""
        client = self.poll_client
        if readable_leanly(client):
            return PatternSubscription(
                cast(redis.Redis, client),
                self._wakeup_pattern,
                self.READY_TIMEOUT,
                read_interval=self.wakeup_read_interval,
            )
        pubsub = cast(Any, client).pubsub()
        try:
            pubsub.psubscribe(self._wakeup_pattern)
            if pubsub.get_message(timeout=self.READY_TIMEOUT) is None:
                raise redis.exceptions.ConnectionError("no answer to PSUBSCRIBE")
        except BaseException:
            pubsub.close()
            raise
        return pubsub

    #: Seconds to wait for Redis to confirm the streams' subscription.
    READY_TIMEOUT = 1.0

    def _game_of_channel(self, channel: bytes) -> str | None:
        found = self._wakeup_channel.match(channel)
        return found.group(1).decode() if found else None

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """The record stored by `save` for this seat and key (one ``HGETALL``)."""
        if not is_game_id(game_id):
            return None
        record_key = self._idempotency_key(game_id, seat, key)
        try:
            # A map under RESP3 (and from a cluster client's callbacks), a flat
            # list of fields and values under RESP2.
            reply = self._hot().call("HGETALL", record_key)
            found = (
                reply
                if isinstance(reply, dict)
                else dict(zip(reply[::2], reply[1::2], strict=True))
            )
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"idempotency read failed: {exc}") from exc
        if not found:
            return None
        if self.wait_replicas:
            self._confirm_on_replicas(record_key)
        return IdempotencyRecord(
            seat=int(found[b"seat"]),
            key=found[b"key"].decode(),
            fingerprint=found[b"fingerprint"].decode(),
            status=int(found[b"status"]),
            body=found[b"body"],
        )

    def _confirm_on_replicas(self, record_key: str) -> None:
        """Raise `NotReplicated` unless `wait_replicas` have the record: it may come
        from a save that was refused as not acknowledged, and a replay of it must
        not be acknowledged before the save is (one more round trip, replays only)."""
        commands = self._hot()
        assert isinstance(commands, leancall.LeanConnections)  # no cluster (refused)
        try:
            _, acked = commands.run_script_then(
                self._confirm,
                [record_key],
                [self.idempotency_ttl_ms],
                self._wait_command,
                self.wait_timeout_ms / 1000,
            )
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"idempotency record not confirmed: {exc}") from exc
        if int(acked) < self.wait_replicas:
            raise NotReplicated(
                f"idempotency record acknowledged by {int(acked)} of {self.wait_replicas} "
                f"replicas within {self.wait_timeout_ms} ms"
            )

    def lobby(
        self,
        limit: int = DEFAULT_LOBBY_LIMIT,
        cursor: str | None = None,
        where: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of listed games, newest first (see `GameStore.lobby`)."""
        limit = max(int(limit), 0)
        # Without a filter one read answers the page (and says whether more follow).
        batch = limit + 1 if where is None else max(limit + 1, 100)
        return lobby_page(self._lobby_rows(decode_cursor(cursor), batch), limit, where)

    def _lobby_rows(self, after: tuple[int, str] | None, batch: int) -> Iterator[LobbyRow]:
        """Listed games after the cursor ``after``, newest first, read ``batch`` at a time."""
        oldest = int(time.time() * 1000) - self._listing_ttl_ms
        while True:
            args: list[EncodableT] = [batch, "", "", oldest]
            if after is not None:
                args[1:3] = after
            try:
                self.client  # noqa: B018 - builds the client and its scripts
                flat = self._lobby_read(keys=self._lobby_keys[:2], args=args)
            except REDIS_ERRORS as exc:
                raise StoreUnavailable(f"lobby read failed: {exc}") from exc
            for i in range(0, len(flat), 3):
                after = (int(flat[i + 1]), flat[i].decode())
                summary = orjson.loads(flat[i + 2].partition(b"|")[2])
                yield after[0], after[1], summary
            if len(flat) < 3 * batch:
                return

    # -- health ----------------------------------------------------------------

    def ping(self) -> None:
        """Return if Redis accepts a write (a short-lived ``SET`` of a probe
        key) and has `MIN_FREE_MEMORY` left below its ``maxmemory`` (``INFO
        memory``); else raise `StoreUnavailable`. A Redis past its ``maxmemory``
        (``noeviction``), a read-only replica or one whose snapshots fail
        refuses writes while it still answers ``PING``: every move would then
        fail, so the instance must not count as ready."""
        try:
            client = self.client
            client.set(self._probe_key, b"1", px=_PROBE_TTL_MS)
            # A refused write frees its own buffer: a Redis that has just
            # refused one is a few hundred bytes under its maxmemory and takes
            # a tiny probe. Less room than a few games' saves is full too.
            memory: dict[str, Any] = {} if self.cluster else client.info("memory")
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"write probe failed: {exc}") from exc
        limit = int(memory.get("maxmemory") or 0)
        used = int(memory.get("used_memory") or 0)
        if limit and used + MIN_FREE_MEMORY >= limit:
            raise StoreUnavailable(f"Redis is full: used_memory {used} of maxmemory {limit}")

    def close(self) -> None:
        """Close both clients' connections (and stop the streams' subscription)."""
        self._hub.close()
        with self._lock:
            for client in (self._client, self._poll_client):
                if client is not None:
                    client.close()
            if self._commands is not None:
                self._commands.close()
            self._client = self._poll_client = None
            self._commands = None
