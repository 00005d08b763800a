#!/usr/bin/env bash
# Builds the libFuzzer targets (swiftc -sanitize=fuzzer,address) and runs each for SECONDS
# (default 600) with a corpus seeded from the test fixtures, schemas and samples.
#
# usage: Tests/Fuzz/run.sh [SECONDS] [TARGET…]     TARGET: json keypath pathpattern schema misspelling store (default: all)
# Builds go to .build-fuzz/ (gitignored); a crash leaves its input there as crash-* and fails the run.
# The schema and store targets link objects of the debug build: run `swift build` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-600}
shift || true
TARGETS=${*:-json keypath pathpattern schema misspelling store}
OUT=.build-fuzz
mkdir -p "$OUT"
# The sources are compiled into one module; `package` declarations need a package name.
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name restmap)

build() { # name module-sources… -- extra flags…
    local name=$1
    shift
    # Up to date when no source or object given is newer than the binary (flags are not files).
    local inputs=() argument
    for argument in "$@"; do [ -f "$argument" ] && inputs+=("$argument"); done
    [ -x "$OUT/$name" ] && [ -z "$(find "${inputs[@]}" -newer "$OUT/$name" | head -1)" ] && return 0
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
YAML_FLAGS=(-I Sources/CLibYAML/include -Xcc -fmodule-map-file=.build/debug/CLibYAML.build/module.modulemap .build/debug/CLibYAML.build/src/*.o)
for target in $TARGETS; do
    case $target in
    json)
        build json Sources/RestMapJSON/*.swift Tests/Fuzz/Targets/JSONParserFuzz.swift
        run json "$(seed json $(find Tests/RestMapJSONTests/Fixtures Samples -name '*.json' | head -400))" ;;
    keypath)
        build keypath $SCHEMA_SOURCES Tests/Fuzz/Targets/KeyPathFuzz.swift "${YAML_FLAGS[@]}" -I .build/debug/Modules
        run keypath "$(seed_lines keypath Tests/Fuzz/Seeds/keypaths.txt)" ;;
    pathpattern)
        build pathpattern $SCHEMA_SOURCES Tests/Fuzz/Targets/PathPatternFuzz.swift "${YAML_FLAGS[@]}" -I .build/debug/Modules
        run pathpattern "$(seed_lines pathpattern Tests/Fuzz/Seeds/paths.txt)" ;;
    schema)
        build schema $SCHEMA_SOURCES Tests/Fuzz/Targets/SchemaLoaderFuzz.swift "${YAML_FLAGS[@]}" -I .build/debug/Modules
        # The grammar is built once into globals that LeakSanitizer reports as leaked at exit, so
        # leak detection is off for this target only (ASan's memory errors are still checked).
        ASAN_OPTIONS_TARGET=detect_leaks=0 run schema "$(seed schema Schemas/*.yaml $(find Tests/RestMapSchemaTests/Fixtures -name '*.yaml'))" ;;
    store)
        # RestMapStore's sources (instrumented), linked with the debug build's objects of the
        # modules they import (GRDB, RestMap and what it imports) and the system SQLite.
        DEBUG=.build/debug
        STORE_OBJECTS=$(ls $DEBUG/GRDB.build/*.o $DEBUG/RestMap.build/*.o $DEBUG/RestMapSchema.build/*.o $DEBUG/RestMapJSON.build/*.o \
            $DEBUG/RestMapPluginKit.build/*.o $DEBUG/RestMapPlugins.build/*.o \
            $DEBUG/CRestMapSQLite.build/*.o)
        build store $(find Sources/RestMapStore -name '*.swift') Tests/Fuzz/Targets/StoreFileFuzz.swift "${YAML_FLAGS[@]}" \
            -I $DEBUG/Modules -I .build/checkouts/GRDB.swift/Sources/GRDBSQLite -I Sources/CRestMapSQLite/include \
            -Xcc -fmodule-map-file=$DEBUG/CRestMapSQLite.build/module.modulemap \
            -Xcc -fmodule-map-file=$DEBUG/CRestMapPluginABI.build/module.modulemap -I Sources/CRestMapPluginABI/include \
            $STORE_OBJECTS -lsqlite3
        # The corpus: stores the debug build's `restmap seed` writes from the target's schema, with
        # small pages (512 bytes) so that a whole store fits in the inputs' length.
        STORE_CORPUS="$OUT/corpus-store"
        mkdir -p "$STORE_CORPUS"
        for pages in 512 1024; do
            rm -f "$STORE_CORPUS/seed-$pages.sqlite"
            $DEBUG/restmap seed --schema Tests/Fuzz/Seeds/store/store.yaml --db "$STORE_CORPUS/seed-$pages.sqlite" \
                Tests/Fuzz/Seeds/store/store.json:/notes Tests/Fuzz/Seeds/store/owners.json:/owners > /dev/null
            sqlite3 "$STORE_CORPUS/seed-$pages.sqlite" "PRAGMA page_size = $pages; VACUUM;"
        done
        # Leak detection is off as for the schema target (the schema and GRDB's globals live until exit).
        RESTMAP_FUZZ_STORE_SCHEMA="$PWD/Tests/Fuzz/Seeds/store/store.yaml" ASAN_OPTIONS_TARGET=detect_leaks=0 \
            run store "$STORE_CORPUS" -max_len=32768 ;;
    misspelling)
        build misspelling $SCHEMA_SOURCES Tests/Fuzz/Targets/MisspellingFuzz.swift "${YAML_FLAGS[@]}" -I .build/debug/Modules
        # Any bytes make a schema of names and misspellings; a few seeds start it off. Leak
        # detection is off as for the schema target (the grammar's globals).
        ASAN_OPTIONS_TARGET=detect_leaks=0 run misspelling "$(seed_lines misspelling Tests/Fuzz/Seeds/misspellings.txt)" ;;
    *) echo "unknown fuzz target '$target'" >&2; exit 2 ;;
    esac
done
