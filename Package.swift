// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GRDBCipher",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GRDBCipher", targets: ["GRDBCipher"]),
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
        .executableTarget(
            name: "GRDBCipherDemo",
            dependencies: ["GRDBCipher"]),
        .testTarget(
            name: "GRDBCipherTests",
            dependencies: ["GRDBCipher", "CSQLCipher"]),
    ],
    swiftLanguageModes: [.v6]
)
