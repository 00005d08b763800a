#!/usr/bin/env bash
# Builds the libFuzzer targets (swiftc -sanitize=fuzzer,address) and runs each for SECONDS
# (default 600) with a corpus seeded from the test fixtures, schemas and samples.
#
# usage: Tests/Fuzz/run.sh [SECONDS] [TARGET…]     TARGET: json keypath pathpattern schema misspelling (default: all)
# Builds go to .build-fuzz/ (gitignored); a crash leaves its input there as crash-* and fails the run.
# The schema target links the Yams/CYaml objects of the debug build: run `swift build` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-600}
shift || true
TARGETS=${*:-json keypath pathpattern schema misspelling}
OUT=.build-fuzz
mkdir -p "$OUT"
# The sources are compiled into one module; `package` declarations need a package name.
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name restmap)

build() { # name module-sources… -- extra flags…
    local name=$1
    shift
    [ -x "$OUT/$name" ] && [ -z "$(find "$@" -newer "$OUT/$name" 2>/dev/null | head -1)" ] && return 0
    swiftc "${FLAGS[@]}" -module-name "Fuzz$name" "$@" -o "$OUT/$name" 2> "$OUT/$name.build.log" \
        || { cat "$OUT/$name.build.log" >&2; exit 1; }
}

seed() { # name files…
    local corpus="$OUT/corpus-$1"
    shift
    mkdir -p "$corpus"
    for file in "$@"; do [ -f "$file" ] && cp "$file" "$corpus/$(echo "$file" | tr '/' '_')"; done
    echo "$corpus"
}

seed_lines() { # name lines-file
    local corpus="$OUT/corpus-$1" index=0
    mkdir -p "$corpus"
    while IFS= read -r line; do
        printf '%s' "$line" > "$corpus/seed-$index"
        index=$((index + 1))
    done < "$2"
    echo "$corpus"
}

run() { # name corpus [libFuzzer options…]
    local name=$1 corpus=$2
    shift 2
    echo "== fuzzing $name for $SECONDS_EACH s"
    rm -f "$OUT/$name"-crash-* "$OUT/$name"-leak-* "$OUT/$name"-timeout-* "$OUT/$name"-oom-*
    (cd "$OUT" && ASAN_OPTIONS=${ASAN_OPTIONS_TARGET:-} "./$name" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$name-" -print_final_stats=1 "$@" "$(basename "$corpus")" 2>&1 \
        | grep -E "ERROR|SUMMARY|Test unit written|Done [0-9]+ runs|stat::number_of_executed_units" || true)
    local failures
    failures=$(find "$OUT" -maxdepth 1 \( -name "$name-crash-*" -o -name "$name-leak-*" -o -name "$name-timeout-*" -o -name "$name-oom-*" \))
    if [ -n "$failures" ]; then
        echo "fuzz target $name failed; reproduce with: (cd $OUT && ./$name FILE): $failures" >&2
        exit 1
    fi
}

SCHEMA_SOURCES=$(find Sources/RestMapSchema -name '*.swift')
YAML_FLAGS=(-I .build/checkouts/Yams/Sources/CYaml/include)
for target in $TARGETS; do
    case $target in
    json)
        build json Sources/RestMapJSON/*.swift Tests/Fuzz/Targets/JSONParserFuzz.swift
        run json "$(seed json $(find Tests/RestMapJSONTests/Fixtures Samples -name '*.json' | head -400))" ;;
    keypath)
        build keypath $SCHEMA_SOURCES Tests/Fuzz/Targets/KeyPathFuzz.swift "${YAML_FLAGS[@]}" .build/debug/CYaml.build/src/*.o $(ls .build/debug/Yams.build/*.o 2>/dev/null) -I .build/debug/Modules
        run keypath "$(seed_lines keypath Tests/Fuzz/Seeds/keypaths.txt)" ;;
    pathpattern)
        build pathpattern $SCHEMA_SOURCES Tests/Fuzz/Targets/PathPatternFuzz.swift "${YAML_FLAGS[@]}" .build/debug/CYaml.build/src/*.o $(ls .build/debug/Yams.build/*.o 2>/dev/null) -I .build/debug/Modules
        run pathpattern "$(seed_lines pathpattern Tests/Fuzz/Seeds/paths.txt)" ;;
    schema)
        build schema $SCHEMA_SOURCES Tests/Fuzz/Targets/SchemaLoaderFuzz.swift "${YAML_FLAGS[@]}" .build/debug/CYaml.build/src/*.o $(ls .build/debug/Yams.build/*.o 2>/dev/null) -I .build/debug/Modules
        # The grammar is built once into globals that LeakSanitizer reports as leaked at exit, so
        # leak detection is off for this target only (ASan's memory errors are still checked).
        ASAN_OPTIONS_TARGET=detect_leaks=0 run schema "$(seed schema Schemas/*.yaml $(find Tests/RestMapSchemaTests/Fixtures -name '*.yaml'))" ;;
    misspelling)
        build misspelling $SCHEMA_SOURCES Tests/Fuzz/Targets/MisspellingFuzz.swift "${YAML_FLAGS[@]}" .build/debug/CYaml.build/src/*.o $(ls .build/debug/Yams.build/*.o 2>/dev/null) -I .build/debug/Modules
        # Any bytes make a schema of names and misspellings; a few seeds start it off. Leak
        # detection is off as for the schema target (the grammar's globals).
        ASAN_OPTIONS_TARGET=detect_leaks=0 run misspelling "$(seed_lines misspelling Tests/Fuzz/Seeds/misspellings.txt)" ;;
    *) echo "unknown fuzz target '$target'" >&2; exit 2 ;;
    esac
done
