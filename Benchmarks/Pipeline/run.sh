#!/usr/bin/env bash
# End-to-end pipeline benchmark: the whole `restmap map` process against hand-written
# JSONDecoder+Codable+JSONEncoder, jq and Python+orjson on the same generated data, the --jobs
# scaling, and peak memory on 1 GB inputs. Ratios are measured in the same run.
#
# usage: Benchmarks/Pipeline/run.sh [speed] [jobs] [profile] [serial] [memory]     (default: all five)
# Data is generated into Benchmarks/.data (gitignored); SIZE_MB (20), JOBS_MB (200) and
# MEMORY_MB (1024) set the sizes, ROUNDS (5) the runs per measurement (the median counts),
# METRIC=cpu compares CPU time instead of wall time (the jobs part always measures wall time);
# SERIAL_JOBS (16) the threads the serial part measures the calling thread's work for.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=Benchmarks/.data
mkdir -p "$DATA"
SIZE_MB=${SIZE_MB:-20}
JOBS_MB=${JOBS_MB:-200}
MEMORY_MB=${MEMORY_MB:-1024}
ROUNDS=${ROUNDS:-5}
PARTS=${*:-speed jobs profile serial memory}
SERIAL_JOBS=${SERIAL_JOBS:-16}

command -v jq >/dev/null || apt-get install -y jq
python3 -c 'import orjson' 2>/dev/null || python3 -m pip install --quiet orjson

# BIN=folder uses binaries built elsewhere (restmap, librestmap-dates.so, CodablePeer).
if [ -z "${BIN:-}" ]; then
    swift build -c release --product restmap 2>&1 | tail -1
    swift build -c release --product restmap-dates 2>&1 | tail -1
    swift build -c release --product CodablePeer 2>&1 | tail -1
    BIN=$(swift build -c release --show-bin-path)
fi
RESTMAP="$BIN/restmap"
SCHEMA=Benchmarks/Pipeline/schema.yaml

generate() { # layout megabytes file
    [ -s "$3" ] || python3 Benchmarks/Pipeline/generate.py "$1" "$2" "$3" >/dev/null
}

# Median wall seconds of ROUNDS runs of a command (output to /dev/null), to the millisecond
# (bash's own `time`); with METRIC=cpu, the median of user + system CPU seconds instead
# (steadier on a machine shared with other work).
seconds() {
    local times=() TIMEFORMAT='%3R %3U %3S'
    for _ in $(seq "$ROUNDS"); do
        { time "$@" >/dev/null; } 2>"$DATA/time.out"
        if [ "${METRIC:-wall}" = cpu ]; then
            times+=("$(tail -1 "$DATA/time.out" | awk '{ print $2 + $3 }')")
        else
            times+=("$(tail -1 "$DATA/time.out" | awk '{ print $1 }')")
        fi
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

ratio() { echo "scale=2; $1 / $2" | bc -l; }

# Peak resident memory (MB) of one run.
peak() {
    /usr/bin/time -f '%M' -o "$DATA/time.out" "$@" >/dev/null
    echo $(( $(tail -1 "$DATA/time.out") / 1024 ))
}

if [[ " $PARTS " == *" speed "* ]]; then
    ARRAY="$DATA/repos-$SIZE_MB.json"
    generate array "$SIZE_MB" "$ARRAY"
    # The peers must agree on the records before they are timed.
    "$RESTMAP" map --schema "$SCHEMA" "$ARRAY" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)), "records")'
    restmap_whole=$(seconds "$RESTMAP" map --schema "$SCHEMA" "$ARRAY")
    restmap_one=$(seconds "$RESTMAP" map --schema "$SCHEMA" --jobs 1 "$ARRAY")
    restmap_stream=$(seconds "$RESTMAP" map --schema "$SCHEMA" --stream --jobs 1 "$ARRAY")
    codable=$(seconds "$BIN/CodablePeer" "$ARRAY")
    jq_time=$(seconds jq -c -f Benchmarks/Pipeline/peer.jq "$ARRAY")
    orjson=$(seconds python3 Benchmarks/Pipeline/peer_orjson.py "$ARRAY")
    echo "== end to end, $SIZE_MB MB array, median of $ROUNDS runs (${METRIC:-wall} seconds; ratio = peer time / restmap time)"
    echo "restmap map (whole body, --jobs $(nproc), the default)  $restmap_whole"
    echo "restmap map --jobs 1                        $restmap_one"
    echo "restmap map --stream --jobs 1               $restmap_stream"
    for peer in "JSONDecoder+Codable+JSONEncoder $codable" "jq-$(jq --version | tr -d 'jq-') $jq_time" "Python+orjson $orjson"; do
        set -- $peer
        echo "$1 $2   whole: $(ratio "$2" "$restmap_whole")x  whole --jobs 1: $(ratio "$2" "$restmap_one")x  stream --jobs 1: $(ratio "$2" "$restmap_stream")x"
    done
fi

if [[ " $PARTS " == *" jobs "* ]]; then
    LINES="$DATA/repos-$JOBS_MB.ndjson"
    generate ndjson "$JOBS_MB" "$LINES"
    echo "== --jobs scaling, $JOBS_MB MB NDJSON (--input ndjson --entity Repository --format ndjson), $(nproc) cores"
    one=$(METRIC=wall seconds "$RESTMAP" map --schema "$SCHEMA" --input ndjson --entity Repository --format ndjson --jobs 1 "$LINES")
    echo "--jobs 1  $one"
    # More jobs than cores are lowered to one per core: --jobs 8 must not be slower than --jobs 2 on two.
    for jobs in 2 4 8; do
        many=$(METRIC=wall seconds "$RESTMAP" map --schema "$SCHEMA" --input ndjson --entity Repository --format ndjson --jobs "$jobs" "$LINES")
        echo "--jobs $jobs  $many   speed-up $(ratio "$one" "$many")x"
    done
fi

if [[ " $PARTS " == *" profile "* ]]; then
    # The stage breakdown and the serial fraction (restmap map --profile), one job: NDJSON and the
    # streamed array at the scaling size (a process's start weighs less there, as on the inputs
    # streaming is for), the whole array.
    LINES="$DATA/repos-$JOBS_MB.ndjson"
    BIG_ARRAY="$DATA/repos-$JOBS_MB.json"
    ARRAY="$DATA/repos-$SIZE_MB.json"
    generate ndjson "$JOBS_MB" "$LINES"
    generate array "$JOBS_MB" "$BIG_ARRAY"
    generate array "$SIZE_MB" "$ARRAY"
    echo "== stage profile, --jobs 1, $JOBS_MB MB NDJSON (--input ndjson --entity Repository --format ndjson)"
    "$RESTMAP" map --schema "$SCHEMA" --input ndjson --entity Repository --format ndjson --jobs 1 --profile "$LINES" 2>&1 >/dev/null
    echo "== stage profile, --jobs 1, $JOBS_MB MB array, --stream"
    "$RESTMAP" map --schema "$SCHEMA" --stream --jobs 1 --profile "$BIG_ARRAY" 2>&1 >/dev/null
    echo "== stage profile, --jobs 1, $SIZE_MB MB array, whole"
    "$RESTMAP" map --schema "$SCHEMA" --jobs 1 --profile "$ARRAY" 2>&1 >/dev/null
    echo "== stage profile, --jobs $(nproc), $SIZE_MB MB array, whole"
    "$RESTMAP" map --schema "$SCHEMA" --profile "$ARRAY" 2>&1 >/dev/null
fi

if [[ " $PARTS " == *" serial "* ]]; then
    # The serial fraction as issue 24 defines it: the calling thread's serial work (the `*` rows)
    # with SERIAL_JOBS threads (kept above the cores under --profile), over the whole CPU time of
    # the same input with one job (the `total` row). ROUNDS rounds of both, in turn; each round's
    # fraction, their median and the speed-up Amdahl's law predicts from it with that many cores.
    LINES="$DATA/repos-$JOBS_MB.ndjson"
    BIG_ARRAY="$DATA/repos-$JOBS_MB.json"
    ARRAY="$DATA/repos-$SIZE_MB.json"
    generate ndjson "$JOBS_MB" "$LINES"
    generate array "$JOBS_MB" "$BIG_ARRAY"
    generate array "$SIZE_MB" "$ARRAY"
    serial() { # label, then the map arguments after the schema
        local label=$1; shift
        for ((round = 0; round < ROUNDS; round++)); do
            total=$("$RESTMAP" map --schema "$SCHEMA" "$@" --jobs 1 --profile 2>&1 >/dev/null | awk '$1 == "total" { print $(NF-1) }')
            serial=$("$RESTMAP" map --schema "$SCHEMA" "$@" --jobs "$SERIAL_JOBS" --profile 2>&1 >/dev/null | awk '$2 == "*" { sum += $(NF-1) } END { print sum }')
            echo "$serial $total"
        done | python3 -c '
import statistics, sys
label, jobs = sys.argv[1], int(sys.argv[2])
fractions = [float(serial) / float(total) for serial, total in (line.split() for line in sys.stdin)]
median = statistics.median(fractions)
rounds = " ".join(f"{100 * f:.2f}%" for f in fractions)
print(f"{label:<34} {rounds}   median {100 * median:.2f}%: Amdahl predicts {1 / (median + (1 - median) / jobs):.1f}x with {jobs} cores")
' "$label" "$SERIAL_JOBS"
    }
    echo "== serial fraction: serial work with --jobs $SERIAL_JOBS over the one-job CPU time, $ROUNDS rounds"
    serial "$JOBS_MB MB NDJSON" --input ndjson --entity Repository --format ndjson "$LINES"
    serial "$JOBS_MB MB array, --stream" --stream "$BIG_ARRAY"
    serial "$SIZE_MB MB array, whole" "$ARRAY"
fi

if [[ " $PARTS " == *" memory "* ]]; then
    df -h "$DATA" | tail -1
    BIG_ARRAY="$DATA/repos-$MEMORY_MB.json"
    BIG_LINES="$DATA/repos-$MEMORY_MB.ndjson"
    generate array "$MEMORY_MB" "$BIG_ARRAY"
    echo "== peak RSS (MB), $MEMORY_MB MB inputs"
    echo "array  --stream               $(peak "$RESTMAP" map --schema "$SCHEMA" --stream "$BIG_ARRAY")"
    rm -f "$BIG_ARRAY"
    generate ndjson "$MEMORY_MB" "$BIG_LINES"
    echo "ndjson --entity Repository    $(peak "$RESTMAP" map --schema "$SCHEMA" --input ndjson --entity Repository "$BIG_LINES")"
    rm -f "$BIG_LINES"
fi
