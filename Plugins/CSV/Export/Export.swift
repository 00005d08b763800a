import RestMapCSV
