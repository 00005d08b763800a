#!/usr/bin/env bash
# Checks that mapping an NDJSON dataset through Spark (local mode, RDD.pipe) gives the same
# records, in the same order, as one `restmap map` process. Needs pyspark (pip) and Java 17.
# usage: Samples/spark/test.sh [RESTMAP-BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
RESTMAP=${1:-$(swift build --show-bin-path)/restmap}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -c 'import pyspark' 2>/dev/null || python3 -m pip install --quiet pyspark

python3 Benchmarks/Pipeline/generate.py ndjson 2 "$WORK/repos.ndjson" >/dev/null
"$RESTMAP" map --schema Benchmarks/Pipeline/schema.yaml --input ndjson --entity Repository --format ndjson \
    "$WORK/repos.ndjson" > "$WORK/single.ndjson"
python3 Samples/spark/map_job.py --restmap "$RESTMAP" --schema Benchmarks/Pipeline/schema.yaml --entity Repository \
    --partitions 4 "$WORK/repos.ndjson" "$WORK/spark.ndjson"
single=$(wc -l < "$WORK/single.ndjson")
[ "$single" -gt 1000 ] || { echo "spark test: only $single records mapped" >&2; exit 1; }
if cmp -s "$WORK/single.ndjson" "$WORK/spark.ndjson"; then
    echo "spark test: $single records, Spark output equals the single-process output record for record"
else
    echo "spark test: Spark output differs from the single-process output" >&2
    diff <(head -c 2000 "$WORK/single.ndjson") <(head -c 2000 "$WORK/spark.ndjson") >&2 || true
    exit 1
fi
