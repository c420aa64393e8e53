// swift-tools-version:6.2
import PackageDescription

// EncryptedNotes (docs/Service.md): a Hummingbird 2 service that keeps each user's notes in an
// encrypted GRDBCipher database, served through the GRDBCipherService integration. Its own
// package, built and driven over HTTP by `make example-test` (scripts/example-test.py).
let package = Package(
    name: "EncryptedNotes",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "encrypted-notes", targets: ["encrypted-notes"]),
    ],
    dependencies: [
        .package(name: "GRDBCipher", path: "../.."),
        .package(name: "GRDBCipherService", path: "../../Integrations/GRDBCipherService"),
        // No traits: the example needs neither swift-configuration nor Foundation's extras.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "EncryptedNotesApp",
            dependencies: [
                .product(name: "GRDBCipher", package: "GRDBCipher"),
                .product(name: "GRDBCipherService", package: "GRDBCipherService"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .executableTarget(
            name: "encrypted-notes",
            dependencies: [
                "EncryptedNotesApp",
                .product(name: "Logging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
