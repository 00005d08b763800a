# The same mapping in jq: 12 fields, dates parsed and printed back as ISO 8601 UTC.
[.[] | {"$entity": "Repository", id, name, fullName: .full_name, isPrivate: .private, description, isFork: .fork,
  createdAt: (.created_at | fromdate | todate), pushedAt: (.pushed_at | fromdate | todate),
  stars: .stargazers_count, language, forks: .forks_count,
  owner: {"$entity": "Owner", login: .owner.login, id: .owner.id}}]
