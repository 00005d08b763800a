/// Samples served as they are: the bank account (Schemas/bank.yaml) and the IMDB CSV (Schemas/imdb.yaml).
enum StaticAPI {
    static func register(in table: inout RouteTable, data: SampleData) throws(SampleData.LoadError) {
        let account = try data.bytes("bank/account.json")
        let movies = try data.bytes("imdb/top250.csv")
        table.add(.get, "/accounts.json") { _ in .json(bytes: account) }
        table.add(.get, "/top250.csv") { _ in Reply(status: .ok, headers: [.contentType: "text/csv; charset=utf-8"], body: movies) }
    }
}
