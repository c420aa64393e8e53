// swift-tools-version:6.0
import PackageDescription

// The probe, built with GRDB 7.10 (see ../README.md).
let package = Package(
    name: "grdb-probe",
    dependencies: [.package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")],
    targets: [.executableTarget(name: "Probe", dependencies: [.product(name: "GRDB", package: "GRDB.swift")])],
    swiftLanguageModes: [.v5]
)
