#!/usr/bin/env python3
"""Writes the GitHub-like repositories of Benchmarks/RestMapBenchmarks (27 fields, a nested owner,
ISO 8601 dates) as one JSON array or as NDJSON, until the file holds about SIZE megabytes.

usage: generate.py array|ndjson SIZE_MB OUTPUT
"""
import sys

LANGUAGES = ["Swift", "C", "Ruby", "Go", "Rust", "null"]


def repository(index):
    owner = index % 977
    language = LANGUAGES[index % len(LANGUAGES)]
    language = "null" if language == "null" else f'"{language}"'
    return (
        f'{{"id":{100000 + index},"node_id":"MDEwOlJlcG9zaXRvcnkx{index}","name":"repo-{index}","full_name":"user{owner}/repo-{index}",'
        f'"private":{str(index % 7 == 0).lower()},"owner":{{"login":"user{owner}","id":{owner},"node_id":"MDQ6VXNlcj{owner}",'
        f'"avatar_url":"https://avatars.example.com/u/{owner}?v=4","gravatar_id":"","url":"https://api.example.com/users/user{owner}",'
        f'"html_url":"https://example.com/user{owner}","type":"User","site_admin":false}},'
        f'"html_url":"https://example.com/user{owner}/repo-{index}","description":"Repository number {index} with a \\"quoted\\" word",'
        f'"fork":{str(index % 3 == 0).lower()},"url":"https://api.example.com/repos/user{owner}/repo-{index}",'
        f'"created_at":"2013-0{1 + index % 9}-1{index % 10}T1{index % 10}:2{index % 6}:3{index % 10}Z",'
        f'"updated_at":"2020-02-02T02:02:02Z","pushed_at":"2021-1{index % 3}-2{index % 8}T0{index % 10}:15:5{index % 10}Z",'
        f'"homepage":null,"size":{index * 13 % 100000},"stargazers_count":{index * 7 % 50000},"watchers_count":{index * 7 % 50000},'
        f'"language":{language},"has_issues":true,"has_projects":false,"has_downloads":true,'
        f'"has_wiki":true,"forks_count":{index % 1000},"open_issues_count":{index % 50},"forks":{index % 1000},"open_issues":{index % 50},'
        f'"watchers":{index * 7 % 50000},"default_branch":"main","score":{repr(float(index % 100) / 4)}}}'
    )


def main():
    layout, megabytes, output = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    target = int(megabytes * (1 << 20))
    written = 0
    index = 0
    with open(output, "w", buffering=1 << 20) as file:
        if layout == "array":
            file.write("[")
            written = 1
        while written < target:
            text = repository(index)
            if layout == "array":
                text = ("," if index else "") + text
            else:
                text += "\n"
            file.write(text)
            written += len(text)
            index += 1
        if layout == "array":
            file.write("]")
    print(index)


main()
