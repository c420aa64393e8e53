import Foundation
import Testing
@testable import GRDBCipher

/// Fixtures/fixtures.json: the project's SQLCipher files, how to open them, and what they hold.
struct FixtureManifest: Decodable, Sendable {
    /// A JSON scalar, compared with database values.
    enum Value: Decodable, Hashable, Sendable, CustomStringConvertible {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .real(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        init(_ dbValue: DatabaseValue) {
            switch dbValue.storage {
            case .null: self = .null
            case .int64(let value): self = .integer(value)
            case .double(let value): self = .real(value)
            case .string(let value): self = .text(value)
            case .blob(let data): self = .text("blob:" + data.map { String(format: "%02X", $0) }.joined())
            }
        }

        var description: String {
            switch self {
            case .null: "NULL"
            case .integer(let value): "\(value)"
            case .real(let value): "\(value)"
            case .text(let value): "'\(value)'"
            }
        }
    }

    struct Query: Decodable, Sendable {
        var sql: String
        var rows: [[Value]]
    }

    struct Content: Decodable, Sendable {
        var sql: String
        var queries: [Query]
    }

    struct Key: Decodable, Sendable {
        var passphrase: String?
        var passphrase_hex: String?
        var raw_key_hex: String?
        var salt_hex: String?

        func cipherKey() throws -> CipherKey {
            if let passphrase { return .passphrase(passphrase) }
            if let passphrase_hex { return .passphrase(try Self.data(passphrase_hex)) }
            if let raw_key_hex { return try .rawKey(try Self.data(raw_key_hex), salt: try salt_hex.map(Self.data)) }
            throw FixtureError("a key without passphrase, passphrase_hex or raw_key_hex")
        }

        static func data(_ hex: String) throws -> Data {
            guard let data = Data(hexadecimal: hex) else { throw FixtureError("invalid hexadecimal: \(hex)") }
            return data
        }
    }

    struct Settings: Decodable, Sendable {
        var compatibility: Int?
        var page_size: Int?
        var kdf_iter: Int?
        var plaintext_header_size: Int?
        var salt_hex: String?

        func cipherSettings() throws -> CipherSettings {
            CipherSettings(
                compatibility: compatibility,
                pageSize: page_size,
                kdfIterations: kdf_iter,
                plaintextHeaderSize: plaintext_header_size,
                salt: try salt_hex.map(Key.data))
        }
    }

    struct Diagnosis: Decodable, Sendable {
        /// For a file that does not open with its own key and settings: a phrase of the error.
        var open_error: String?
        var wrong_passphrase: String
        var other_settings: Settings?
        var other_settings_message: String?
        var no_key: String?
    }

    /// What the suite proves for each operation, as the compatibility matrix shows it.
    struct Expectations: Decodable, Sendable, Equatable {
        var open: String
        var read: String
        var write: String
        var integrity: String
        var inspect: String
        var upgrade: String
        var export: String
        var rekey: String

        static var columns: [(title: String, value: KeyPath<Expectations, String>)] { [
            ("Open", \.open), ("Read", \.read), ("Write", \.write), ("Integrity checks", \.integrity),
            ("Inspect", \.inspect), ("Upgrade to 4", \.upgrade), ("Export and back", \.export),
            ("Passphrase change", \.rekey),
        ] }
    }

    struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var extra_files: [String]?
        var description: String
        var key: Key?
        var settings: Settings
        var format: String
        var journal_mode: String?
        var diagnosis: Diagnosis
        var expect: Expectations

        var testDescription: String { file }

        /// Copies the fixture, with its extra files (a WAL), into `directory`: tests never touch
        /// the originals. Returns the copy's path.
        func copy(into directory: TemporaryDirectory) throws -> String {
            for name in [file] + (extra_files ?? []) {
                try FileManager.default.copyItem(
                    atPath: FixtureManifest.directory.appendingPathComponent(name).path,
                    toPath: directory.path(name))
            }
            return directory.path(file)
        }
    }

    var content: Content
    var fixtures: [Fixture]

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static let shared: FixtureManifest = {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("fixtures.json"))
            return try JSONDecoder().decode(FixtureManifest.self, from: data)
        } catch {
            fatalError("Fixtures/fixtures.json cannot be read: \(error)")
        }
    }()
}

/// Expects docs/Compatibility.md to contain `table`, a table the suite proves.
func expectCompatibilityDocsContain(_ table: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let docs = FixtureManifest.directory.deletingLastPathComponent().appendingPathComponent("docs/Compatibility.md")
    let text = try String(contentsOf: docs, encoding: .utf8)
    #expect(text.contains(table), "docs/Compatibility.md must contain:\n\(table)", sourceLocation: sourceLocation)
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
