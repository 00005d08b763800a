import Hummingbird

/// Samples served as they are: the bank account (Schemas/bank.yaml) and the IMDB CSV (Schemas/imdb.yaml).
enum StaticAPI {
    static func register(on router: some RouterMethods<SampleRequestContext>, data: SampleData) throws(SampleData.LoadError) {
        let account = try data.bytes("bank/account.json")
        let movies = try data.bytes("imdb/top250.csv")
        router.on(.get, "/accounts.json") { _ in .json(bytes: account) }
        router.on(.get, "/top250.csv") { _ in Reply(status: .ok, headers: [.contentType: "text/csv; charset=utf-8"], body: movies) }
    }
}
