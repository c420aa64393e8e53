import Foundation
import Testing
@testable import GRDBCipher

/// Core is handed how connections are keyed (DESIGN decision 14): it calls the strategy at
/// fixed points, and uses what it answers.
private final class RecordingKeying: ConnectionKeying, @unchecked Sendable {
    var calls: [String] = []
    var isEncrypted = false
    var usedSharedKey = false

    func connectionWillPrepare(_ db: Database) { calls.append("willPrepare") }
    func explainOpeningFailure(_ error: DatabaseError, in db: Database) -> DatabaseError {
        calls.append("explain \(error.resultCode.rawValue)")
        return DatabaseError(resultCode: error.extendedResultCode, message: "explained by the strategy")
    }
    func connectionDidOpen(_ db: Database) throws { calls.append("didOpen") }
    func connectionDidFinishOpening(_ db: Database) { calls.append("didFinishOpening") }
    func connectionWillClose(_ db: Database) { calls.append("willClose") }
}

@Suite("Connection keying strategy")
struct ConnectionKeyingTests {
    @Test func coreCallsTheStrategyAtFixedPoints() throws {
        let directory = try TemporaryDirectory()
        let keying = RecordingKeying()
        var configuration = Configuration()
        configuration.prepareDatabase { _ in keying.calls.append("prepareDatabase") }
        let connection = try SerializedDatabase(
            path: directory.path("db.sqlite"), configuration: configuration, label: "test",
            targetQueue: nil, keying: keying)
        #expect(keying.calls == ["willPrepare", "prepareDatabase", "didOpen", "didFinishOpening"])
        #expect(try connection.sync { $0.isEncrypted } == false)
        keying.isEncrypted = true
        #expect(try connection.sync { $0.isEncrypted } == true)
        try connection.close()
        #expect(keying.calls.last == "willClose")
    }

    @Test func openingFailuresAreExplainedByTheStrategy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let keying = RecordingKeying()
        do {
            _ = try SerializedDatabase(path: path, configuration: Configuration(), label: "test", targetQueue: nil, keying: keying)
            Issue.record("a file of garbage opened")
        } catch let error as DatabaseError {
            // The code stays SQLite's; the message is the strategy's.
            #expect(error.resultCode == .SQLITE_NOTADB)
            #expect(error.message == "explained by the strategy")
        }
        #expect(keying.calls.contains("explain 26"))
        #expect(keying.calls.contains("didFinishOpening"))
        #expect(!keying.calls.contains("didOpen"))
    }
}
