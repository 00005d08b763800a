// The SQLite store module: placeholder until the store lands (issue 8).
