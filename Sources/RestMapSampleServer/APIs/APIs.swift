/// Every API of the sample server, registered in one route table.
enum APIs {
    static func routes(
        data: SampleData, credentials: Credentials, faultCounter: FaultCounter, repositories: Int, articles: Int
    ) throws(SampleData.LoadError) -> RouteTable {
        var table = RouteTable()
        try MongoHQAPI(data: data, credentials: credentials).register(in: &table)
        try StashboardAPI(data: data).register(in: &table)
        try GitHubAPI(data: data, credentials: credentials, repositories: repositories).register(in: &table)
        try TaskListAPI(data: data).register(in: &table)
        try RSAPIAPI(data: data, credentials: credentials, faultCounter: faultCounter).register(in: &table)
        try StaticAPI.register(in: &table, data: data)
        ArticlesAPI(count: articles, credentials: credentials).register(in: &table)
        return table
    }
}
