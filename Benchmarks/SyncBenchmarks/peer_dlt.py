"""dlt peer for the sync benchmark (Benchmarks/SyncBenchmarks/run.sh).

dlt's `rest_api` source configured as its docs describe: an `accounts` resource, `events` as a
child resource whose `accountID` path parameter is resolved from each account's `id`, incremental
on `updated_at` with `since` as the cursor parameter, merge write disposition on primary key `id`,
`Link` header pagination. DESTINATION `sqlite` loads into a SQLite file through dlt's
`sqlalchemy` destination (the kind of store the other tools write); `duckdb` into a DuckDB file,
the local destination dlt's getting-started docs use. The pipeline's state (the incremental
cursor) lives in its working folder and in the destination, so a second run with the same folder
and database is incremental.

usage: peer_dlt.py BASE_URL DATABASE PIPELINES_DIR PER_PAGE [DESTINATION]
"""
import os
import sys

# Nothing leaves the machine: no anonymous telemetry, no tracker endpoint.
os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY_ENDPOINT", "")
os.environ.setdefault("RUNTIME__LOG_LEVEL", "WARNING")

import dlt  # noqa: E402
from dlt.sources.rest_api import rest_api_source  # noqa: E402


def main() -> None:
    base_url, database, pipelines_dir, per_page = sys.argv[1:5]
    kind = sys.argv[5] if len(sys.argv) > 5 else "sqlite"
    if kind == "duckdb":
        destination = dlt.destinations.duckdb(database)
    else:
        destination = dlt.destinations.sqlalchemy(f"sqlite:///{database}")
    source = rest_api_source(
        {
            "client": {
                "base_url": base_url.rstrip("/") + "/",
                "paginator": {"type": "header_link"},
            },
            "resource_defaults": {
                "primary_key": "id",
                "write_disposition": "merge",
            },
            "resources": [
                {
                    "name": "accounts",
                    "endpoint": {"path": "sync/accounts"},
                },
                {
                    "name": "events",
                    "endpoint": {
                        "path": "sync/accounts/{accountID}/events",
                        "params": {
                            "accountID": {"type": "resolve", "resource": "accounts", "field": "id"},
                            "per_page": int(per_page),
                            "since": {
                                "type": "incremental",
                                "cursor_path": "updated_at",
                                "initial_value": "2025-01-01T00:00:00Z",
                            },
                        },
                    },
                    # The child's own `account_id` is already in every event: no `_accounts_id` column.
                    "include_from_parent": [],
                },
            ],
        }
    )
    pipeline = dlt.pipeline(
        pipeline_name="sync_bench",
        pipelines_dir=pipelines_dir,
        destination=destination,
        dataset_name="main",
        progress="log" if os.environ.get("PEER_PROGRESS") else None,
    )
    info = pipeline.run(source)
    if info.has_failed_jobs:
        raise SystemExit(f"dlt: failed jobs: {info}")
    counts = pipeline.last_trace.last_normalize_info.row_counts if pipeline.last_trace.last_normalize_info else {}
    print(f"dlt: rows {dict(counts)}", file=sys.stderr)


if __name__ == "__main__":
    main()
