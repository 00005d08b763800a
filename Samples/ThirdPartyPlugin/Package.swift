// swift-tools-version:6.0
import PackageDescription

// A RestMap plugin that lives outside the RestMap repository: it depends only on RestMapPluginKit
// and builds librestmap-text.so, which `restmap` finds on its plugin search path.
let package = Package(
    name: "ThirdPartyPlugin",
    products: [
        .library(name: "restmap-text", type: .dynamic, targets: ["RestMapText"]),
    ],
    dependencies: [
        .package(name: "RestMap", path: "../.."),
    ],
    targets: [
        .target(
            name: "RestMapText",
            dependencies: [.product(name: "RestMapPluginKit", package: "RestMap")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
