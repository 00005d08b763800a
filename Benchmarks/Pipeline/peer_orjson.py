#!/usr/bin/env python3
"""The same mapping in Python with orjson: read the array, map 12 fields (dates parsed), write JSON."""
import sys
from datetime import datetime

import orjson


def date(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    with open(sys.argv[1], "rb") as file:
        repositories = orjson.loads(file.read())
    out = [
        {"$entity": "Repository", "id": r["id"], "name": r["name"], "fullName": r["full_name"], "isPrivate": r["private"],
         "description": r["description"], "isFork": r["fork"], "createdAt": date(r["created_at"]),
         "pushedAt": date(r["pushed_at"]), "stars": r["stargazers_count"], "language": r["language"],
         "forks": r["forks_count"], "owner": {"$entity": "Owner", "login": r["owner"]["login"], "id": r["owner"]["id"]}}
        for r in repositories
    ]
    sys.stdout.buffer.write(orjson.dumps(out))
    sys.stdout.buffer.write(b"\n")


main()
