import RestMapIDs
