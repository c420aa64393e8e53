// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GRDBCipher",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GRDBCipher", targets: ["GRDBCipher"]),
        // GRDBCipher under GRDB's product and module name: with a SwiftPM mirror of
        // https://github.com/groue/GRDB.swift, packages built on GRDB build on GRDBCipher.
        .library(name: "GRDB", targets: ["GRDB"]),
        .executable(name: "grdbcipher", targets: ["grdbcipher"]),
    ],
    dependencies: [
        // The command-line tool's only dependency.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `make docs`: the DocC site (swift package generate-documentation). A command plugin,
        // used at documentation time only; nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The only place that names the SQLCipher library. Newer SQLCipher releases may install
        // as sqlite3.pc / libsqlite3: change pkgConfig and the modulemap's link line together.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [
                .apt(["libsqlcipher-dev"]),
                .brew(["sqlcipher"]),
            ]),
        .target(
            name: "GRDBCipher",
            dependencies: ["CSQLCipher"]),
        .target(
            name: "GRDB",
            dependencies: ["GRDBCipher"]),
        .executableTarget(
            name: "GRDBCipherDemo",
            dependencies: ["GRDBCipher"]),
        // The library under faults: kill trials and the multi-process soak (docs/Reliability.md).
        .executableTarget(
            name: "GRDBCipherTorture",
            dependencies: ["GRDBCipher"]),
        .executableTarget(
            name: "grdbcipher",
            dependencies: [
                "GRDBCipher",
                // query's read-only guard compiles the statement under sqlite3_set_authorizer.
                "CSQLCipher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // A test-only SQLite VFS that fails the N-th I/O operation (FaultInjectionTests).
        .target(
            name: "CFaultInjection",
            dependencies: ["CSQLCipher"],
            path: "Tests/CFaultInjection"),
        .testTarget(
            name: "GRDBCipherTests",
            // grdbcipher: the CLI tests run the built executable.
            dependencies: ["GRDBCipher", "CSQLCipher", "CFaultInjection", "grdbcipher"]),
    ],
    swiftLanguageModes: [.v6]
)
