// swift-tools-version:6.0
import PackageDescription

// GRDBCipher in a Swift service (docs/Service.md): a swift-service-lifecycle Service that owns a
// DatabasePool, logs through swift-log, reports through swift-metrics. A package of its own, so
// that the library keeps its single dependency on SQLCipher.
let package = Package(
    name: "GRDBCipherService",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GRDBCipherService", targets: ["GRDBCipherService"]),
    ],
    dependencies: [
        .package(name: "GRDBCipher", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "GRDBCipherService",
            dependencies: [
                .product(name: "GRDBCipher", package: "GRDBCipher"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        .testTarget(
            name: "GRDBCipherServiceTests",
            dependencies: [
                "GRDBCipherService",
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
