// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

// `@DatabaseRecord` (docs/Macros.md): records that read and write their columns as a careful
// engineer writes them by hand, without `Codable` in the hot path. A package of its own, so that
// the library keeps its single dependency on SQLCipher and its builds never compile swift-syntax.
// Warnings are errors in the package's own targets (not in swift-syntax's, which CI does not
// control).
let warningsAsErrors: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "GRDBCipherMacros",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GRDBCipherMacros", targets: ["GRDBCipherMacros"]),
    ],
    dependencies: [
        .package(name: "GRDBCipher", path: "../.."),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
    ],
    targets: [
        .macro(
            name: "GRDBCipherMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: warningsAsErrors),
        .target(
            name: "GRDBCipherMacros",
            dependencies: [
                "GRDBCipherMacrosPlugin",
                .product(name: "GRDBCipher", package: "GRDBCipher"),
            ],
            swiftSettings: warningsAsErrors),
        .testTarget(
            name: "GRDBCipherMacrosTests",
            dependencies: [
                "GRDBCipherMacros",
                "GRDBCipherMacrosPlugin",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            swiftSettings: warningsAsErrors),
    ],
    swiftLanguageModes: [.v6]
)
