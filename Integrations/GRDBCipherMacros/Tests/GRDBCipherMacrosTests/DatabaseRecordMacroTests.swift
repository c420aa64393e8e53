@testable import GRDBCipherMacrosPlugin
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

// What the macro generates, and what it explains when it cannot.

private let macros = ["DatabaseRecord": MacroSpec(type: DatabaseRecordMacro.self)]

private func expect(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [], sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(
        source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
        indentationWidth: .spaces(4),
        failureHandler: { Issue.record("\($0.message)", sourceLocation: sourceLocation) })
}

@Suite struct DatabaseRecordMacroTests {
    @Test func fetchableAndPersistableRecord() {
        expect("""
            @DatabaseRecord
            public struct Player: FetchableRecord, PersistableRecord {
                var id: Int64
                var name, team: String
                var score: Int?
                let kind = "player"
                var display: String { name }
                static let all = 3
            }
            """, expands: """
            public struct Player: FetchableRecord, PersistableRecord {
                var id: Int64
                var name, team: String
                var score: Int?
                let kind = "player"
                var display: String { name }
                static let all = 3
            }

            extension Player {
                public init(row: GRDBCipher.Row) throws {
                    var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)
                    self.id = try decoding.decode("id")
                    self.name = try decoding.decode("name")
                    self.team = try decoding.decode("team")
                    self.score = try decoding.decodeIfPresent("score")
                }

                public func encode(to container: inout GRDBCipher.PersistenceContainer) throws {
                    let encoding = GRDBCipher._DatabaseRecordEncoding<Self>()
                    try encoding.encode(self.id, "id", into: &container)
                    try encoding.encode(self.name, "name", into: &container)
                    try encoding.encode(self.team, "team", into: &container)
                    try encoding.encodeIfPresent(self.score, "score", into: &container)
                    try encoding.encode(self.kind, "kind", into: &container)
                }

                public static var databaseTableName: String {
                    "player"
                }

                public enum Columns {
                    public static let id = GRDBCipher.Column("id")
                    public static let name = GRDBCipher.Column("name")
                    public static let team = GRDBCipher.Column("team")
                    public static let score = GRDBCipher.Column("score")
                    public static let kind = GRDBCipher.Column("kind")
                }
            }
            """)
    }

    @Test func fetchableOnlyRecordHasNoEncodeNorTableName() {
        expect("""
            @DatabaseRecord
            struct BookInfo: FetchableRecord {
                var book: Book
                var author: Author?
            }
            """, expands: """
            struct BookInfo: FetchableRecord {
                var book: Book
                var author: Author?
            }

            extension BookInfo {
                init(row: GRDBCipher.Row) throws {
                    var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)
                    self.book = try decoding.decode("book")
                    self.author = try decoding.decodeIfPresent("author")
                }

                enum Columns {
                    static let book = GRDBCipher.Column("book")
                    static let author = GRDBCipher.Column("author")
                }
            }
            """)
    }

    @Test func codingKeysRenameAndLeaveOut() {
        expect("""
            @DatabaseRecord
            struct HTTPRequest: Codable, MutablePersistableRecord {
                var id: Int64?
                var url: String
                var note: String = ""
                enum CodingKeys: String, CodingKey {
                    case id, url = "address"
                }
            }
            """, expands: """
            struct HTTPRequest: Codable, MutablePersistableRecord {
                var id: Int64?
                var url: String
                var note: String = ""
                enum CodingKeys: String, CodingKey {
                    case id, url = "address"
                }
            }

            extension HTTPRequest {
                func encode(to container: inout GRDBCipher.PersistenceContainer) throws {
                    let encoding = GRDBCipher._DatabaseRecordEncoding<Self>()
                    try encoding.encodeIfPresent(self.id, "id", into: &container)
                    try encoding.encode(self.url, "address", into: &container)
                }

                static var databaseTableName: String {
                    "httpRequest"
                }

                enum Columns {
                    static let id = GRDBCipher.Column("id")
                    static let url = GRDBCipher.Column("address")
                }
            }
            """)
    }

    @Test func declaredMembersAreKept() {
        expect("""
            @DatabaseRecord
            struct Item: FetchableRecord, PersistableRecord {
                static let databaseTableName = "items"
                enum Columns {
                    static let c0 = Column("c0")
                }
                var c0: Int64
                init(row: Row) {
                    c0 = row[0]
                }
                func encode(to container: inout PersistenceContainer) {
                    container["c0"] = c0
                }
            }
            """, expands: """
            struct Item: FetchableRecord, PersistableRecord {
                static let databaseTableName = "items"
                enum Columns {
                    static let c0 = Column("c0")
                }
                var c0: Int64
                init(row: Row) {
                    c0 = row[0]
                }
                func encode(to container: inout PersistenceContainer) {
                    container["c0"] = c0
                }
            }
            """)
    }

    @Test func otherInitializersWithARowLabelDoNotCount() {
        expect("""
            @DatabaseRecord
            struct Item: FetchableRecord {
                var c0: Int64
                init(row i: Int) {
                    c0 = Int64(i)
                }
            }
            """, expands: """
            struct Item: FetchableRecord {
                var c0: Int64
                init(row i: Int) {
                    c0 = Int64(i)
                }
            }

            extension Item {
                init(row: GRDBCipher.Row) throws {
                    var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)
                    self.c0 = try decoding.decode("c0")
                }

                enum Columns {
                    static let c0 = GRDBCipher.Column("c0")
                }
            }
            """)
    }

    @Test func columnStrategyLeavesColumnsToTheStruct() {
        expect("""
            @DatabaseRecord
            struct Player: FetchableRecord, TableRecord {
                static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
                var playerId: Int64
            }
            """, expands: """
            struct Player: FetchableRecord, TableRecord {
                static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
                var playerId: Int64
            }

            extension Player {
                init(row: GRDBCipher.Row) throws {
                    var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)
                    self.playerId = try decoding.decode("playerId")
                }

                static var databaseTableName: String {
                    "player"
                }
            }
            """)
    }

    @Test func tableNamesFollowGRDBsRule() {
        let names = ["Place": "place", "PostalAddress": "postalAddress", "HTTPRequest": "httpRequest",
                     "TOEFL": "toefl", "iPhone": "iphone", "A": "a", "URL2": "urL2"]
        for (type, table) in names {
            #expect(DatabaseRecordMacro.defaultTableName(type) == table, "\(type)")
        }
    }

    // MARK: Diagnostics

    @Test func classIsRefused() {
        expect("""
            @DatabaseRecord
            final class Player: FetchableRecord {
                var id: Int64 = 0
            }
            """, expands: """
            final class Player: FetchableRecord {
                var id: Int64 = 0
            }
            """, diagnostics: [DiagnosticSpec(
                message: "@DatabaseRecord applies to structs only; write init(row:) and encode(to:) by hand for classes and enums",
                line: 1, column: 1)])
    }

    @Test func structWithoutRecordProtocolIsRefused() {
        expect("""
            @DatabaseRecord
            struct Player: Codable {
                var id: Int64
            }
            """, expands: """
            struct Player: Codable {
                var id: Int64
            }
            """, diagnostics: [DiagnosticSpec(
                message: "@DatabaseRecord needs a record protocol on the struct itself: declare FetchableRecord, PersistableRecord, MutablePersistableRecord, EncodableRecord or TableRecord in its inheritance clause",
                line: 2, column: 8)])
    }

    @Test func tuplePropertyIsRefused() {
        expect("""
            @DatabaseRecord
            struct Player: FetchableRecord {
                var id: Int64
                var (x, y): (Int, Int)
            }
            """, expands: """
            struct Player: FetchableRecord {
                var id: Int64
                var (x, y): (Int, Int)
            }
            """, diagnostics: [DiagnosticSpec(
                message: "@DatabaseRecord can not map '(x, y)' to columns: declare one stored property per column",
                line: 4, column: 9)])
    }

    @Test func propertyWithoutTypeAnnotationIsInferred() {
        expect("""
            @DatabaseRecord
            struct Counter: FetchableRecord {
                var count = 0
            }
            """, expands: """
            struct Counter: FetchableRecord {
                var count = 0
            }

            extension Counter {
                init(row: GRDBCipher.Row) throws {
                    var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)
                    self.count = try decoding.decode("count")
                }

                enum Columns {
                    static let count = GRDBCipher.Column("count")
                }
            }
            """)
    }

    @Test func propertyMissingFromCodingKeysWithoutDefaultIsRefused() {
        expect("""
            @DatabaseRecord
            struct Player: FetchableRecord {
                var id: Int64
                var name: String
                enum CodingKeys: CodingKey {
                    case id
                }
            }
            """, expands: """
            struct Player: FetchableRecord {
                var id: Int64
                var name: String
                enum CodingKeys: CodingKey {
                    case id
                }
            }
            """, diagnostics: [DiagnosticSpec(
                message: "'name' is not in CodingKeys and has no default value: init(row:) could not initialize it; add it to CodingKeys or give it a default value",
                line: 4, column: 9)])
    }
}
