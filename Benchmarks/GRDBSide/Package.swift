// swift-tools-version:6.0
import PackageDescription

// GRDB 7.10's side of the benchmarks (see ../Package.swift): the same workload sources as
// `SQLCipherBenchmarks` (symbolic links), built with GRDB and the system's SQLite. Its own
// package, because GRDBCipher's drop-in `GRDB` target and GRDB's share a name.
let package = Package(
    name: "GRDBSideBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CRawSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "BenchmarkSupport"),
        .executableTarget(
            name: "GRDBBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CRawSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
