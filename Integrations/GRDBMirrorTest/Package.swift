// swift-tools-version:6.0
import PackageDescription

// A small library written for GRDB, as any package of GRDB's ecosystem: it depends on GRDB by
// URL and imports GRDB. scripts/mirror-test.sh builds and runs it with SwiftPM's mirror of
// GRDB.swift set to a clone of GRDBCipher, tagged with GRDBCipher's version: it must build and
// run on GRDBCipher, SQLCipher included, with no change to its source.
let package = Package(
    name: "NoteStore",
    products: [
        .library(name: "NoteStore", targets: ["NoteStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .target(
            name: "NoteStore",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        .executableTarget(
            name: "NoteStoreCheck",
            dependencies: ["NoteStore", .product(name: "GRDB", package: "GRDB.swift")]),
    ],
    swiftLanguageModes: [.v6]
)
