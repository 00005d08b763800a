"""The peer of PostgresStoreBenchmarks: Python's json and psycopg doing the same upserts by identity
into the same tables (created by RestMapStore), one transaction per document.

Modes: "copy" (COPY into temporary tables, then INSERT ... SELECT ... ON CONFLICT DO UPDATE) and
"executemany" (psycopg's pipelined executemany of INSERT ... ON CONFLICT DO UPDATE).
Prints wall-clock and CPU seconds and the record count per document.
Usage: peer.py URL MODE FILE...
"""
import json
import sys
import time

import psycopg

url, mode, files = sys.argv[1], sys.argv[2], sys.argv[3:]
conn = psycopg.connect(url)
columns = ["id", "name", "fullName", "isPrivate", "description", "isFork", "createdAt", "pushedAt", "stars", "language", "forks"]
quoted = ", ".join(f'"{c}"' for c in columns)
updates = ", ".join(f'"{c}" = excluded."{c}"' for c in columns[1:] + ["owner"])
differs = " OR ".join(f'r."{c}" IS DISTINCT FROM excluded."{c}"' for c in columns[1:] + ["owner"])


def text(value):
    """An `any` column is jsonb: its JSON text (None stays NULL)."""
    return None if value is None else json.dumps(value)


for path in files:
    with open(path, "rb") as f:
        body = f.read()
    start, start_cpu = time.perf_counter(), time.process_time()
    repositories = json.loads(body)
    owners = {}
    for r in repositories:
        owners[r["owner"]["id"]] = r["owner"]["login"]
    with conn.cursor() as cur:
        if mode == "copy":
            cur.execute("CREATE TEMP TABLE o (id bigint, login jsonb) ON COMMIT DROP")
            with cur.copy("COPY o (id, login) FROM STDIN") as copy:
                for id, login in owners.items():
                    copy.write_row((id, text(login)))
            cur.execute('INSERT INTO restmap."Owner" AS t (id, login) SELECT id, login FROM o ORDER BY id '
                        'ON CONFLICT (id) DO UPDATE SET login = excluded.login WHERE t.login IS DISTINCT FROM excluded.login')
            cur.execute("CREATE TEMP TABLE x (id bigint, name jsonb, \"fullName\" jsonb, \"isPrivate\" boolean, description jsonb, "
                        "\"isFork\" boolean, \"createdAt\" timestamptz, \"pushedAt\" timestamptz, stars bigint, language jsonb, "
                        "forks bigint, owner bigint) ON COMMIT DROP")
            with cur.copy(f"COPY x ({quoted}, owner) FROM STDIN") as copy:
                for r in repositories:
                    copy.write_row((r["id"], text(r["name"]), text(r["full_name"]), r["private"], text(r["description"]), r["fork"],
                                    r["created_at"], r["pushed_at"], r["stargazers_count"], text(r["language"]), r["forks_count"],
                                    r["owner"]["id"]))
            cur.execute(f'INSERT INTO restmap."Repository" AS r ({quoted}, owner) '
                        f'SELECT x.id, x.name, x."fullName", x."isPrivate", x.description, x."isFork", x."createdAt", x."pushedAt", '
                        f'x.stars, x.language, x.forks, o.rm_id FROM x JOIN restmap."Owner" o ON o.id = x.owner ORDER BY x.id '
                        f'ON CONFLICT (id) DO UPDATE SET {updates} WHERE {differs}')
        else:
            cur.executemany('INSERT INTO restmap."Owner" AS t (id, login) VALUES (%s, %s) '
                            'ON CONFLICT (id) DO UPDATE SET login = excluded.login WHERE t.login IS DISTINCT FROM excluded.login',
                            [(id, text(login)) for id, login in sorted(owners.items())])
            rows = {}
            cur.execute('SELECT id, rm_id FROM restmap."Owner"')
            for id, rm_id in cur.fetchall():
                rows[id] = rm_id
            cur.executemany(f'INSERT INTO restmap."Repository" AS r ({quoted}, owner) VALUES (%s, %s::jsonb, %s::jsonb, %s, %s::jsonb, %s, '
                            f'%s::timestamptz, %s::timestamptz, %s, %s::jsonb, %s, %s) ON CONFLICT (id) DO UPDATE SET {updates} WHERE {differs}',
                            [(r["id"], text(r["name"]), text(r["full_name"]), r["private"], text(r["description"]), r["fork"],
                              r["created_at"], r["pushed_at"], r["stargazers_count"], text(r["language"]), r["forks_count"],
                              rows[r["owner"]["id"]]) for r in repositories])
    conn.commit()
    print(time.perf_counter() - start, time.process_time() - start_cpu, len(repositories), flush=True)
