// The REST client module: placeholder until the client lands (issue 7).
