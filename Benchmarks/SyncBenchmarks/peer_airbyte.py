"""Airbyte peer for the sync benchmark (Benchmarks/SyncBenchmarks/run.sh).

Runs the low-code manifest airbyte_manifest.yaml in process with airbyte-cdk's declarative source
(`YamlDeclarativeSource`, the entry point a manifest-only connector uses), reads both streams
(`accounts` full refresh, `events` incremental) and writes every record to a SQLite table per
stream, upserting by `id` (a small sink standing in for a destination connector: one transaction,
`synchronous=NORMAL`, batches of 1,000 rows). The last state message of each stream is saved to
STATE_FILE, and read from it on the next run, as the platform passes state between syncs.

usage: peer_airbyte.py BASE_URL DATABASE STATE_FILE PER_PAGE
"""
import json
import logging
import os
import sqlite3
import sys

from airbyte_cdk.models import (
    AirbyteStateMessage,
    ConfiguredAirbyteCatalog,
    ConfiguredAirbyteStream,
    DestinationSyncMode,
    SyncMode,
    Type,
)
from airbyte_cdk.models.airbyte_protocol_serializers import (
    AirbyteStateMessageSerializer,
)
from airbyte_cdk.sources.declarative.yaml_declarative_source import YamlDeclarativeSource

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "airbyte_manifest.yaml")
COLUMNS = {"accounts": ["id", "name", "updated_at"], "events": ["id", "account_id", "title", "updated_at"]}


def main() -> None:
    base_url, database, state_file, per_page = sys.argv[1:5]
    config = {"base_url": base_url.rstrip("/"), "start_date": "2025-01-01T00:00:00Z", "per_page": per_page}
    state = []
    if os.path.exists(state_file):
        with open(state_file) as handle:
            state = [AirbyteStateMessageSerializer.load(message) for message in json.load(handle)]
    logger = logging.getLogger("airbyte")
    logger.setLevel(logging.WARNING)

    source = YamlDeclarativeSource(MANIFEST, catalog=None, config=config, state=state)
    discovered = source.discover(logger, config)
    streams = []
    for stream in discovered.streams:
        incremental = stream.name == "events"
        streams.append(
            ConfiguredAirbyteStream(
                stream=stream,
                sync_mode=SyncMode.incremental if incremental else SyncMode.full_refresh,
                destination_sync_mode=DestinationSyncMode.append_dedup,
                cursor_field=["updated_at"] if incremental else None,
                primary_key=[["id"]],
            )
        )
    catalog = ConfiguredAirbyteCatalog(streams=streams)
    source = YamlDeclarativeSource(MANIFEST, catalog=catalog, config=config, state=state)

    connection = sqlite3.connect(database)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    statements = {}
    for name, columns in COLUMNS.items():
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {name} (id INTEGER PRIMARY KEY, "
            + ", ".join(f"{column} TEXT" for column in columns[1:])
            + ")"
        )
        updates = ", ".join(f"{column} = excluded.{column}" for column in columns[1:])
        statements[name] = (
            f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) "
            f"ON CONFLICT(id) DO UPDATE SET {updates}"
        )
    batches = {name: [] for name in COLUMNS}
    counts = {name: 0 for name in COLUMNS}
    states = {}

    def flush(name: str) -> None:
        if batches[name]:
            connection.executemany(statements[name], batches[name])
            batches[name].clear()

    for message in source.read(logger, config, catalog, state):
        if message.type == Type.RECORD:
            record = message.record
            batch = batches[record.stream]
            batch.append([record.data.get(column) for column in COLUMNS[record.stream]])
            counts[record.stream] += 1
            if len(batch) >= 1000:
                flush(record.stream)
        elif message.type == Type.STATE:
            # Records before a state message are committed before the state is kept, as a destination does.
            for name in COLUMNS:
                flush(name)
            descriptor = message.state.stream.stream_descriptor.name
            states[descriptor] = message.state
        elif message.type == Type.TRACE and message.trace.error is not None:
            raise SystemExit(f"airbyte: {message.trace.error.message}: {message.trace.error.internal_message}")
    for name in COLUMNS:
        flush(name)
    connection.commit()
    connection.close()
    kept = {name: state for name, state in ((s.stream.stream_descriptor.name, s) for s in state)}
    kept.update(states)
    with open(state_file, "w") as handle:
        json.dump([AirbyteStateMessageSerializer.dump(message) for message in kept.values()], handle)
    print(f"airbyte: records {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
