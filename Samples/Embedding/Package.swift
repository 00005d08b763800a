// swift-tools-version:6.0
import PackageDescription

// A program that embeds RestMap the way a third party does: it depends on RestMap's products only
// (never on its internal targets), and uses the public API of each. `.ci/run` builds and runs it.
let package = Package(
    name: "Embedding",
    dependencies: [
        .package(name: "RestMap", path: "../.."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "Embedding",
            dependencies: [
                .product(name: "RestMap", package: "RestMap"),
                .product(name: "RestMapSchema", package: "RestMap"),
                .product(name: "RestMapJSON", package: "RestMap"),
                .product(name: "RestMapPluginKit", package: "RestMap"),
                .product(name: "RestMapPluginLoader", package: "RestMap"),
                .product(name: "RestMapDates", package: "RestMap"),
                .product(name: "RestMapIDs", package: "RestMap"),
                .product(name: "RestMapCSV", package: "RestMap"),
                .product(name: "RestMapClient", package: "RestMap"),
                .product(name: "RestMapStore", package: "RestMap"),
                .product(name: "RestMapSync", package: "RestMap"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
