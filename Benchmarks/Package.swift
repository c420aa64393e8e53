// swift-tools-version:6.0
import PackageDescription

// Benchmarks, beside the library so that its test build stays lean. Run with `make bench`.
//
// Two SQLite builds never share a process: `SQLCipherBenchmarks` links SQLCipher (GRDBCipher and
// the raw C baseline), `GRDBBenchmarks` links the system's SQLite (GRDB 7.10 and the raw C
// baseline on that library). Both compile the same workload sources (symbolic links), so that
// GRDB and GRDBCipher run the very same code with only the import changed. `BenchmarkDriver`
// runs them side by side, interleaved, and writes the table of docs/Performance.md.
//
// `GRDBBenchmarks` is built by its own package, `GRDBSide/`: GRDBCipher ships a `GRDB` target
// (its drop-in product), and one package graph cannot hold two targets of one name.
let package = Package(
    name: "GRDBCipherBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "GRDBCipher", path: ".."),
        // W3m, W5m, W10m: records made by `@DatabaseRecord`.
        .package(name: "GRDBCipherMacros", path: "../Integrations/GRDBCipherMacros"),
    ],
    targets: [
        .systemLibrary(name: "CRawSQLCipher", pkgConfig: "sqlcipher"),
        // The measuring loop both benchmark executables serve; no SQLite in it.
        .target(name: "BenchmarkSupport"),
        .executableTarget(
            name: "SQLCipherBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CRawSQLCipher",
                .product(name: "GRDBCipher", package: "GRDBCipher"),
                .product(name: "GRDBCipherMacros", package: "GRDBCipherMacros"),
            ],
            swiftSettings: [.define("SQLCIPHER")]),
        .executableTarget(
            name: "BenchmarkDriver",
            dependencies: ["BenchmarkSupport"]),
        // The floor of `Decodable` decoding for W9 and W10's records (see its main.swift).
        .executableTarget(name: "DecodableFloor"),
    ],
    swiftLanguageModes: [.v6]
)
