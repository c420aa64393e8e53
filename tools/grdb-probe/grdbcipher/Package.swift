// swift-tools-version:6.0
import PackageDescription

// The probe, built with GRDBCipher (see ../README.md).
let package = Package(
    name: "grdbcipher-probe",
    dependencies: [.package(name: "GRDBCipher", path: "../../..")],
    targets: [.executableTarget(
        name: "Probe",
        dependencies: [.product(name: "GRDBCipher", package: "GRDBCipher")],
        swiftSettings: [.define("SQLCIPHER")])],
    swiftLanguageModes: [.v5]
)
