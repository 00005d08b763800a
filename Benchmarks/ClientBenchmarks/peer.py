#!/usr/bin/env python3
"""The benchmark's peer: what a Python user writes by hand with urllib and json.

Fetches every page of a collection from the sample server and maps each element to the same
fields as repositories.yaml, printing one JSON object per line.
    peer.py repositories BASE_URL     (Link pages, per_page=100)
    peer.py articles BASE_URL         (page numbers, per_page=100, until total_pages)
"""
import json
import re
import sys
import urllib.request


def fetch(url):
    with urllib.request.urlopen(url) as response:
        return json.loads(response.read()), response.headers.get("Link")


def next_link(header):
    if not header:
        return None
    for part in header.split(","):
        match = re.match(r'\s*<([^>]*)>\s*;.*rel="?next"?', part)
        if match:
            return match.group(1)
    return None


def repository(item):
    owner = item.get("owner") or {}
    return {
        "$entity": "Repository", "repositoryId": item.get("id"), "name": item.get("name"),
        "fullName": item.get("full_name"), "repositoryDescription": item.get("description"),
        "apiUrl": item.get("url"), "stargazersCount": item.get("stargazers_count"),
        "watchersCount": item.get("watchers_count"), "isPrivateRepository": item.get("private"),
        "isForkedRepository": item.get("fork"), "pushedAt": item.get("pushed_at"),
        "owner": {"$entity": "User", "login": owner.get("login"), "userId": owner.get("id"),
                  "avatarUrl": owner.get("avatar_url")},
    }


def article(item):
    return {"$entity": "Article", "id": item.get("id"), "title": item.get("title"),
            "authorName": (item.get("author") or {}).get("name"), "tags": item.get("tags")}


def main():
    kind, base = sys.argv[1], sys.argv[2]
    out = sys.stdout
    if kind == "repositories":
        url = base + "/users/octocat/repos?per_page=100"
        while url:
            body, link = fetch(url)
            for item in body:
                out.write(json.dumps(repository(item), separators=(",", ":")) + "\n")
            url = next_link(link)
    else:
        page = 1
        while True:
            body, _ = fetch(f"{base}/page/articles?page={page}&per_page=100")
            for item in body["articles"]:
                out.write(json.dumps(article(item), separators=(",", ":")) + "\n")
            if not body["articles"] or page >= body["pagination"]["total_pages"]:
                break
            page += 1


if __name__ == "__main__":
    main()
