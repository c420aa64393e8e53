// swift-tools-version:6.0
import PackageDescription

// Benchmarks, beside the library so that its test build stays lean. Run with `make bench`.
let package = Package(
    name: "GRDBCipherBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "GRDBCipher", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CRawSQLCipher", pkgConfig: "sqlcipher"),
        .executableTarget(
            name: "PoolBenchmark",
            dependencies: [
                "CRawSQLCipher",
                .product(name: "GRDBCipher", package: "GRDBCipher"),
            ]),
        .executableTarget(
            name: "RecordBenchmark",
            dependencies: [
                "CRawSQLCipher",
                .product(name: "GRDBCipher", package: "GRDBCipher"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
