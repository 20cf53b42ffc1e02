#!/usr/bin/env bash
# A short game end to end with curl: Ann and Bob play one round of the
# `express` preset from a fixed deck. Needs a running service (BASE, default
# http://127.0.0.1:8000), curl and python3 (to pick fields out of answers).
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8000}

# field PATH: print one field of the JSON on stdin, e.g. `field seats.0.token`.
field() { python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if k.isdigit() else d[k]
print(d)' "$1"; }

# move TOKEN BODY: make one move as the seat of TOKEN; prints the mover's view.
move() { curl -fsS -X POST "$BASE/games/$GAME/moves" \
    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' -d "$2"; }

# 1. The rule presets, and the one we play.
curl -fsS "$BASE/presets/express"; echo

# 2. Create a game for two with a fixed deck: Ann (seat 0) is dealt
#    H2 H3 H4 C7 D7 S7 D9 D10 DJ SQ, Bob (seat 1) S3 S4 S5 CK DK HK H5 C2 D3 H9,
#    CA is turned up, and the stock starts S9, C4, DQ. Bob deals, so Ann starts.
DECK='["H2","S3","H3","S4","H4","S5","C7","CK","D7","DK","S7","HK","D9","H5","D10",
"C2","DJ","D3","SQ","H9","CA","S9","C4","DQ","C3","C5","C6","C8","C9","C10","CJ",
"CQ","DA","D2","D4","D5","D6","D8","HA","H6","H7","H8","H10","HJ","HQ","SA","S2",
"S6","S8","S10","SJ","SK"]'
CREATED=$(curl -fsS -X POST "$BASE/games" -H 'Content-Type: application/json' \
  -d "{\"preset\": \"express\", \"seats\": [{\"name\": \"Ann\"}, {\"name\": \"Bob\"}],
       \"deck\": $DECK, \"first_dealer\": 1}")
echo "$CREATED"
GAME=$(echo "$CREATED" | field id)
ANN=$(echo "$CREATED" | field seats.0.token)   # tokens are shown only once
BOB=$(echo "$CREATED" | field seats.1.token)

# 3. Views: the public (spectator) view, then Ann's, with her hand.
curl -fsS "$BASE/games/$GAME"; echo
curl -fsS "$BASE/games/$GAME" -H "Authorization: Bearer $ANN"; echo

# 4. What may Ann do now? (Bob's list is empty: not his turn.)
curl -fsS "$BASE/games/$GAME/legal-moves" -H "Authorization: Bearer $ANN"; echo

# 5. Ann draws S9 from the stock, melds a run and a set, and discards S9.
move "$ANN" '{"type": "draw", "source": "stock"}'; echo
move "$ANN" '{"type": "meld", "cards": ["H2", "H3", "H4"]}'; echo
move "$ANN" '{"type": "meld", "cards": ["7C", "7D", "7S"]}'; echo   # any accepted card form
move "$ANN" '{"type": "discard", "card": "S9"}'; echo

# 6. Bob draws C4, then melds two sets and lays H5 off on Ann's heart run, all
#    or nothing in one request, and discards H9.
move "$BOB" '{"type": "draw", "source": "stock"}'; echo
RUN=$(curl -fsS "$BASE/games/$GAME" | python3 -c 'import json, sys
melds = json.load(sys.stdin)["round"]["melds"]
print(next(m["id"] for m in melds if "H2" in m["cards"]))')
move "$BOB" "{\"actions\": [{\"type\": \"meld\", \"cards\": [\"S3\", \"S4\", \"S5\"]},
                            {\"type\": \"meld\", \"cards\": [\"CK\", \"DK\", \"HK\"]},
                            {\"type\": \"layoff\", \"meld\": $RUN, \"cards\": [\"H5\"]}]}"; echo
move "$BOB" '{"type": "discard", "card": "H9"}'; echo

# 7. Ann draws DQ, melds D9 D10 DJ DQ and goes out by discarding her last card.
move "$ANN" '{"type": "draw", "source": "stock"}'; echo
move "$ANN" '{"type": "meld", "cards": ["D9", "D10", "DJ", "DQ"]}'; echo
FINAL=$(move "$ANN" '{"type": "discard", "card": "SQ"}')
echo "$FINAL"

# 8. The events as Bob may see them: Ann's stock draws hide their card.
curl -fsS "$BASE/games/$GAME/events?after=0" -H "Authorization: Bearer $BOB"; echo

# 9. The same events pushed as Server-Sent Events (`-N`: each printed as it
#    arrives; `id:` is the event's seq, to resume from with `Last-Event-ID`).
#    A live game's stream shows each move as it happens; here we stop after 2 s.
curl -fsS -N --max-time 2 "$BASE/games/$GAME/stream" -H "Authorization: Bearer $BOB" \
  -H 'Last-Event-ID: 10' || test $? = 28  # 28: our --max-time ended it

# The game is over and Ann won it.
test "$(echo "$FINAL" | field status)" = finished
test "$(echo "$FINAL" | field winners.0)" = 0
echo "walkthrough: game $GAME finished, Ann won"
