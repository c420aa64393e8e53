import Foundation
import Testing
@testable import GRDBCipher

@Suite("StatementArguments and SQL literals")
struct StatementArgumentsTests {
    @Test func literalsAndInitializers() {
        let positional: StatementArguments = [1, "two", nil, 3.5]
        #expect(positional[0] == 1.databaseValue)
        #expect(positional[2] == .null)
        #expect(positional.description == "[1, \"two\", NULL, 3.5]")
        let named: StatementArguments = ["b": 2, "a": "x"]
        #expect(named["a"] == "x".databaseValue)
        #expect(named.description == "[a: \"x\", b: 2]")
        #expect(StatementArguments().isEmpty)
        #expect(StatementArguments([1, 2, 3]) == [1, 2, 3])
        #expect(StatementArguments([1, "a"] as [Any]) == [1, "a"])
        #expect(StatementArguments([1, NSObject()] as [Any]) == nil)
        #expect(StatementArguments(["a": 1] as [AnyHashable: Any]) == ["a": 1])
    }

    @Test func concatenation() {
        var arguments: StatementArguments = [1]
        arguments += [2]
        #expect(arguments == [1, 2])
        let merged: StatementArguments = ["a": 1] + ["a": 2, "b": 3]
        #expect(merged == ["a": 2, "b": 3])
        #expect((StatementArguments(["a": 1]) &+ ["b": 2]) == ["a": 1, "b": 2])
    }

    @Test func sqlInterpolation() throws {
        let ids = [1, 2, 3]
        let table = "player"
        let name: String? = nil
        let test = try TestDatabase()
        func build(_ literal: SQL) throws -> (sql: String, arguments: StatementArguments) {
            try test.dbQueue.read { try literal.build($0) }
        }
        let literal: SQL = "SELECT * FROM \(sql: table) WHERE id IN \(ids) AND name IS \(name)"
        let (sql, arguments) = try build(literal)
        #expect(sql == "SELECT * FROM player WHERE id IN (?,?,?) AND name IS ?")
        #expect(arguments == [1, 2, 3, nil])
        var composed: SQL = "SELECT \(1)"
        composed.append(literal: " + \(2)")
        composed += SQL(sql: " + ?", arguments: [3])
        let parts: [SQL] = ["a = \(1)", "b = \(2)"]
        #expect(try build(composed).sql == "SELECT ? + ? + ?")
        #expect(try build(composed).arguments == [1, 2, 3])
        #expect(try build(parts.joined(separator: " AND ")).sql == "a = ? AND b = ?")
        #expect(databaseQuestionMarks(count: 3) == "?,?,?")
        #expect(try test.dbQueue.read { try Int.fetchOne($0.makeStatement(literal: composed)) } == 6)
    }
}
