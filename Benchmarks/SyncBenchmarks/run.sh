#!/usr/bin/env bash
# Sync benchmark: `restmap sync` against dlt's rest_api source and an Airbyte low-code manifest
# (airbyte-cdk, in process), on the same release sample server and the same /sync data, in the
# same run. Per round: a fresh sync of accounts and every account's events (ACCOUNTS x EVENTS
# records, pages of PER_PAGE), then `POST /sync/_mutate` (UPDATES updated, INSERTS inserted
# events) and an incremental sync into the same stores. Reports the median wall time of ROUNDS
# rounds per tool and phase, the GET requests each made (from `/sync/_stats`), the ratios
# (peer time / restmap time) and checks that every store ends with the same distinct event ids.
#
# usage: Benchmarks/SyncBenchmarks/run.sh
# env:   ROUNDS (3) ACCOUNTS (100) EVENTS (1000) PER_PAGE (1000) UPDATES (2000) INSERTS (1000)
#        TOOLS ("restmap restmap-c4 dlt dlt-duckdb airbyte": restmap-c4 with --concurrency 4, dlt into SQLite, dlt into DuckDB) BIN (a folder with restmap, librestmap-dates.so and
#        restmap-sample-server built elsewhere; default: build them here in release)
# The peers live in virtual environments under Benchmarks/.data (gitignored), installed from PyPI
# with pinned versions when missing; stores, states and logs go to Benchmarks/.data/sync.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=Benchmarks/SyncBenchmarks
DATA=Benchmarks/.data/sync
ROUNDS=${ROUNDS:-3}
ACCOUNTS=${ACCOUNTS:-100}
EVENTS=${EVENTS:-1000}
PER_PAGE=${PER_PAGE:-1000}
UPDATES=${UPDATES:-2000}
INSERTS=${INSERTS:-1000}
TOOLS=${TOOLS:-restmap restmap-c4 dlt dlt-duckdb airbyte}
DLT_SPEC="dlt[sqlalchemy,duckdb]==1.31.0"
AIRBYTE_SPEC="airbyte-cdk==7.39.1"
mkdir -p "$DATA"

# Nothing leaves the machine: dlt's telemetry off (the peers set it too), no proxies.
export RUNTIME__DLTHUB_TELEMETRY=false RUNTIME__DLTHUB_TELEMETRY_ENDPOINT= DO_NOT_TRACK=1
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

# A virtual environment with one pinned requirement, made when missing or pinned differently.
venv() { # folder requirement
    if [ "$(cat "$1/.requirement" 2>/dev/null)" != "$2" ]; then
        rm -rf "$1"
        python3 -m venv "$1"
        "$1/bin/pip" install --quiet --disable-pip-version-check "$2"
        echo "$2" >"$1/.requirement"
    fi
}
case " $TOOLS " in *" dlt"*) venv Benchmarks/.data/venv-dlt "$DLT_SPEC" ;; esac
case " $TOOLS " in *" airbyte "*) venv Benchmarks/.data/venv-airbyte "$AIRBYTE_SPEC" ;; esac

if [ -z "${BIN:-}" ]; then
    for product in restmap restmap-services restmap-dates restmap-sample-server; do
        swift build -c release --product "$product" 2>&1 | tail -1
    done
    BIN=$(swift build -c release --show-bin-path)
fi
command -v sqlite3 >/dev/null || apt-get install -y sqlite3 >/dev/null

# The release sample server on a free loopback port.
"$BIN/restmap-sample-server" --port 0 --sync-accounts "$ACCOUNTS" --sync-events "$EVENTS" --sync-notes 0 \
    >"$DATA/server.out" 2>"$DATA/server.err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    grep -q '^listening on ' "$DATA/server.out" 2>/dev/null && break
    sleep 0.1
done
URL=$(sed -n 's/^listening on //p' "$DATA/server.out")
[ -n "$URL" ] || { cat "$DATA/server.err"; exit 1; }
echo "server $URL: $ACCOUNTS accounts x $EVENTS events, pages of $PER_PAGE; $ROUNDS rounds" >&2

# The project's sync schema with the peers' page size.
SCHEMA=$DATA/sync.yaml
sed "s/per_page: \"50\"/per_page: \"$PER_PAGE\"/" Schemas/sync.yaml >"$SCHEMA"

# GETs so far: accounts + events + notes.
requests() { curl -sf "$URL/sync/_stats" | python3 -c 'import json, sys; print(sum(json.load(sys.stdin)["requests"].values()))'; }

# One tool's sync into its store in ROUND's folder (fresh or incremental: the store and state decide).
sync() { # tool folder
    case $1 in
    restmap) "$BIN/restmap" sync run --schema "$SCHEMA" --db "$2/restmap.sqlite" --base-url "$URL" accounts events ;;
    restmap-c4) "$BIN/restmap" sync run --schema "$SCHEMA" --db "$2/restmap-c4.sqlite" --base-url "$URL" --concurrency 4 accounts events ;;
    dlt) Benchmarks/.data/venv-dlt/bin/python "$HERE/peer_dlt.py" "$URL" "$PWD/$2/dlt.sqlite" "$PWD/$2/dlt-pipelines" "$PER_PAGE" sqlite ;;
    dlt-duckdb) Benchmarks/.data/venv-dlt/bin/python "$HERE/peer_dlt.py" "$URL" "$PWD/$2/dlt.duckdb" "$PWD/$2/dlt-duckdb-pipelines" "$PER_PAGE" duckdb ;;
    airbyte) Benchmarks/.data/venv-airbyte/bin/python "$HERE/peer_airbyte.py" "$URL" "$2/airbyte.sqlite" "$2/airbyte-state.json" "$PER_PAGE" ;;
    esac
}

# Distinct event ids in a tool's store.
events() { # tool folder
    case $1 in
    restmap) sqlite3 "$2/restmap.sqlite" 'SELECT count(DISTINCT eventID) FROM "Event"' ;;
    restmap-c4) sqlite3 "$2/restmap-c4.sqlite" 'SELECT count(DISTINCT eventID) FROM "Event"' ;;
    dlt) sqlite3 "$2/dlt.sqlite" 'SELECT count(DISTINCT id) FROM events' ;;
    dlt-duckdb) Benchmarks/.data/venv-dlt/bin/python -c 'import duckdb, sys; print(duckdb.connect(sys.argv[1], read_only=True).execute("SELECT count(DISTINCT id) FROM main.events").fetchall()[0][0])' "$2/dlt.duckdb" ;;
    airbyte) sqlite3 "$2/airbyte.sqlite" 'SELECT count(DISTINCT id) FROM events' ;;
    esac
}

# Times one sync: appends "tool phase round seconds requests" to the results.
measure() { # tool phase round folder
    local before after start end
    before=$(requests)
    start=$(date +%s.%N)
    sync "$1" "$4" >"$4/$1-$2.out" 2>"$4/$1-$2.err" || { echo "$1 $2 failed:" >&2; tail -20 "$4/$1-$2.err" >&2; exit 1; }
    end=$(date +%s.%N)
    after=$(requests)
    echo "$1 $2 $3 $(echo "$end - $start" | bc -l) $((after - before))" | tee -a "$RESULTS" >&2
}

RESULTS=$DATA/results.txt
: >"$RESULTS"
expected=$((ACCOUNTS * EVENTS + INSERTS))
for round in $(seq "$ROUNDS"); do
    folder=$DATA/round$round
    rm -rf "$folder"
    mkdir -p "$folder"
    curl -sf -X POST "$URL/sync/_reset" >/dev/null
    # The tools take turns going first.
    order=$(echo $TOOLS | tr ' ' '\n' | awk -v r="$round" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }')
    for tool in $order; do measure "$tool" fresh "$round" "$folder"; done
    curl -sf -X POST "$URL/sync/_mutate?updates=$UPDATES&inserts=$INSERTS&seed=$round" >"$folder/mutate.json"
    for tool in $order; do measure "$tool" incremental "$round" "$folder"; done
    for tool in $TOOLS; do
        count=$(events "$tool" "$folder")
        echo "$tool round $round: $count distinct events (expected $expected)" >&2
        [ "$count" = "$expected" ] || { echo "MISMATCH: $tool has $count distinct events, expected $expected" >&2; exit 1; }
    done
done

# Medians and ratios.
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo
printf '%-10s %-12s %10s %10s %12s\n' tool phase 'median s' requests 'peer/restmap'
for phase in fresh incremental; do
    base=$(awk -v p="$phase" '$1 == "restmap" && $2 == p { print $4 }' "$RESULTS" | median)
    for tool in $TOOLS; do
        time=$(awk -v t="$tool" -v p="$phase" '$1 == t && $2 == p { print $4 }' "$RESULTS" | median)
        reqs=$(awk -v t="$tool" -v p="$phase" '$1 == t && $2 == p { print $5 }' "$RESULTS" | sort -u | paste -sd/)
        ratio=-
        [ -n "$base" ] && ratio=$(printf '%.1fx' "$(echo "$time / $base" | bc -l)")
        printf '%-10s %-12s %10.3f %10s %12s\n' "$tool" "$phase" "$time" "$reqs" "$ratio"
    done
done
