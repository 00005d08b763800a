import Hummingbird

/// Every API of the sample server, registered on one router.
enum APIs {
    static func register(
        on router: Router<SampleRequestContext>, data: SampleData, credentials: Credentials, faultCounter: FaultCounter,
        requestLog: RequestLog, repositories: Int, articles: Int, sync: SyncAPI.Size
    ) throws(SampleData.LoadError) {
        requestLog.register(on: router)
        try MongoHQAPI(data: data, credentials: credentials).register(on: router)
        try StashboardAPI(data: data).register(on: router)
        try GitHubAPI(data: data, credentials: credentials, repositories: repositories).register(on: router)
        try TaskListAPI(data: data).register(on: router)
        try RSAPIAPI(data: data, credentials: credentials, faultCounter: faultCounter).register(on: router)
        try StaticAPI.register(on: router, data: data)
        ArticlesAPI(count: articles, credentials: credentials).register(on: router)
        SyncAPI(size: sync).register(on: router)
    }
}
