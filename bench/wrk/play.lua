-- wrk script of bench/http.py: replays scripted games, or cycles over GET requests.
--
--   wrk -t1 -c32 -d15s -s bench/wrk/play.lua http://127.0.0.1:PORT -- moves DATA.lua ACTIVE THREADS
--   wrk -t1 -c32 -d15s -s bench/wrk/play.lua http://127.0.0.1:PORT -- gets DATA.lua 0 THREADS
--
-- moves: DATA.lua returns a list of games {id, tokens = {header per seat},
-- seats = "0123..." (the seat of each move), bodies = "JSON\nJSON..." (one per move)}. Each
-- thread keeps ACTIVE of its games in play and sends a game's next move only
-- after the answer to its previous one (wrk does not say which connection a
-- request goes out on, so the answer names its game: a view starts with
-- {"id":"..."}). A finished script is replaced by an unplayed game.
-- gets: DATA.lua returns a list of {path, authorization or false}, sent in turn.
-- posts: the same with a third field, a JSON body, sent as POST (bench/floor.py).
--
-- done() prints one line: RESULT key=value ... for bench/http.py to read.

local threads = {}
local thread_count = 0

function setup(thread)
   thread:set("tid", thread_count)
   thread_count = thread_count + 1
   table.insert(threads, thread)
end

local mode
local pool, pool_next = {}, 1      -- unplayed games of this thread
local ready, head, tail = {}, 1, 0 -- FIFO of games whose next move may go out
local by_id = {}
local gets, get_next = {}, 0
local move_headers = {["Content-Type"] = "application/json"}
local get_headers = {}
errors, exhausted, finished, applied, shown = 0, 0, 0, 0, 0

local function push(game)
   tail = tail + 1
   ready[tail] = game
end

local function pop()
   if head > tail then
      return nil
   end
   local game = ready[head]
   ready[head] = nil
   head = head + 1
   return game
end

local function activate()
   local game = pool[pool_next]
   if game ~= nil then
      pool_next = pool_next + 1
      local bodies = {}
      for body in string.gmatch(game.bodies, "[^\n]+") do
         bodies[#bodies + 1] = body
      end
      game.bodies = bodies
      game.path = "/games/" .. game.id .. "/moves"
      game.next = 1
      by_id[game.id] = game
      push(game)
   end
end

function init(args)
   mode = args[1]
   local data = dofile(args[2])
   local active = tonumber(args[3])
   local nthreads = tonumber(args[4])
   for i, item in ipairs(data) do
      if mode ~= "moves" then
         table.insert(gets, item) -- GETs change nothing: every thread sends them all
      elseif (i - 1) % nthreads == tid then
         table.insert(pool, item) -- a game is played by one thread only
      end
   end
   if #gets > 0 then
      get_next = tid % #gets
   end
   if mode == "moves" then
      for _ = 1, active do
         activate()
      end
   end
end

function request()
   if mode ~= "moves" then
      get_next = get_next % #gets + 1
      local item = gets[get_next]
      if mode == "posts" then
         return wrk.format("POST", item[1], move_headers, item[3])
      end
      get_headers["Authorization"] = item[2] or nil
      return wrk.format("GET", item[1], get_headers)
   end
   local game = pop()
   if game == nil then
      -- Out of scripted games: the run is too long for its data (reported).
      exhausted = exhausted + 1
      return wrk.format("GET", "/healthz")
   end
   local i = game.next
   move_headers["Authorization"] = game.tokens[string.byte(game.seats, i) - 47]
   return wrk.format("POST", game.path, move_headers, game.bodies[i])
end

local function complain(status, body)
   errors = errors + 1
   if shown < 3 then
      shown = shown + 1
      io.stderr:write("unexpected answer " .. status .. ": " .. string.sub(body, 1, 300) .. "\n")
   end
end

function response(status, headers, body)
   if mode ~= "moves" then
      if status ~= 200 then
         complain(status, body)
      end
      return
   end
   local id = string.match(body, '^{"id":"([^"]+)"')
   local game = id and by_id[id]
   if status ~= 200 or not game then
      if status == 200 and string.sub(body, 1, 10) == '{"status":' then
         return -- a /healthz sent when out of games
      end
      complain(status, body)
      activate() -- that game is lost; keep the number in play
      return
   end
   applied = applied + 1
   game.next = game.next + 1
   if game.next > #game.bodies then
      finished = finished + 1
      by_id[id] = nil
      activate()
   else
      push(game)
   end
end

function done(summary, latency, requests)
   local totals = {errors = 0, exhausted = 0, finished = 0, applied = 0}
   for _, thread in ipairs(threads) do
      for name, _ in pairs(totals) do
         totals[name] = totals[name] + (thread:get(name) or 0)
      end
   end
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d "
         .. "bad_answers=%d exhausted=%d finished_games=%d applied=%d "
         .. "socket_errors=%d non2xx=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
      latency:percentile(99), latency.max, totals.errors, totals.exhausted, totals.finished,
      totals.applied, e.connect + e.read + e.write + e.timeout, e.status))
end
