import Foundation
import Testing
@testable import GRDBCipher

/// The SQL and arguments of an expression, rendered as a request's WHERE clause renders it.
private func render(_ db: Database, _ expression: some SQLExpressible) throws -> (sql: String, arguments: StatementArguments) {
    var context = SQLGenerationContext(db)
    let sql = try expression.sqlExpression.sql(&context)
    return (sql, context.arguments)
}

@Suite("SQLExpression")
struct SQLExpressionTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE t (a INTEGER, b INTEGER, name TEXT, flag BOOLEAN);
                INSERT INTO t VALUES (1, 10, 'Arthur', 1), (2, NULL, 'barbara', 0), (3, 30, NULL, NULL);
                """)
            try body(db)
        }
    }

    private func expectSQL(_ db: Database, _ expression: some SQLExpressible, _ sql: String, _ arguments: StatementArguments = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let rendered = try render(db, expression)
        #expect(rendered.sql == sql, sourceLocation: sourceLocation)
        #expect(rendered.arguments == arguments, sourceLocation: sourceLocation)
    }

    @Test func optionalExpressions() throws {
        // An optional expressible is its value, or NULL (it once recursed through `??`).
        try withDatabase { (db: Database) throws in
            try expectSQL(db, Optional(Column("a")), "\"a\"")
            try expectSQL(db, Column?.none, "NULL")
            try expectSQL(db, Optional(SQLExpression(sql: "b + 1")), "b + 1")
            try expectSQL(db, FTS3Pattern(matchingAllTokensIn: "x y"), "?", ["x y"])
            try expectSQL(db, FTS3Pattern(matchingAllTokensIn: ""), "NULL")
        }
    }

    @Test func comparisons() throws {
        let a = Column("a"), b = Column("b")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, a == 1, "\"a\" = ?", [1])
            try expectSQL(db, 1 == a, "? = \"a\"", [1])
            try expectSQL(db, a == b, "\"a\" = \"b\"")
            try expectSQL(db, a != 1, "\"a\" <> ?", [1])
            try expectSQL(db, a == nil, "\"a\" IS NULL")
            try expectSQL(db, nil == a, "\"a\" IS NULL")
            try expectSQL(db, a != nil, "\"a\" IS NOT NULL")
            try expectSQL(db, a === 1, "\"a\" IS ?", [1])
            try expectSQL(db, a !== b, "\"a\" IS NOT \"b\"")
            try expectSQL(db, a < 1, "\"a\" < ?", [1])
            try expectSQL(db, a <= b, "\"a\" <= \"b\"")
            try expectSQL(db, 2 > a, "? > \"a\"", [2])
            try expectSQL(db, a >= 2.5, "\"a\" >= ?", [2.5])
            try expectSQL(db, Column("name") == "O'Brien", "\"name\" = ?", ["O'Brien"])
            let date = Date(timeIntervalSince1970: 0)
            try expectSQL(db, Column("d") < date, "\"d\" < ?", [date])
        }
    }

    @Test func logicalOperatorsAndParentheses() throws {
        let a = Column("a"), b = Column("b"), flag = Column("flag")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, a > 1 && b < 2, "(\"a\" > ?) AND (\"b\" < ?)", [1, 2])
            try expectSQL(db, a > 1 && b < 2 && a != b, "(\"a\" > ?) AND (\"b\" < ?) AND (\"a\" <> \"b\")", [1, 2])
            try expectSQL(db, a == 1 || b == 2 && flag, "(\"a\" = ?) OR ((\"b\" = ?) AND \"flag\")", [1, 2])
            try expectSQL(db, !flag || a < 1000, "(NOT \"flag\") OR (\"a\" < ?)", [1000])
            try expectSQL(db, [flag, a >= 1, b != nil].joined(operator: .and), "\"flag\" AND (\"a\" >= ?) AND (\"b\" IS NOT NULL)", [1])
            try expectSQL(db, [any SQLSpecificExpressible]().joined(operator: .and), "1")
            try expectSQL(db, [any SQLSpecificExpressible]().joined(operator: .or), "0")
            try expectSQL(db, !(a > 1), "NOT (\"a\" > ?)", [1])
            try expectSQL(db, !(a == 1), "\"a\" <> ?", [1])
            try expectSQL(db, !(a == nil), "\"a\" IS NOT NULL")
            try expectSQL(db, !(!flag), "NOT (NOT \"flag\")")
            #expect(try Int.fetchOne(db, Table("t").filter(!flag || Column("a") == 3).select(count(AllColumns()))) == 2)
        }
    }

    @Test func arithmeticAndBitwise() throws {
        let a = Column("a"), b = Column("b")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, a + b, "\"a\" + \"b\"")
            // As GRDB (SQL-5): the grouping the code wrote; joined(operator:) is flat.
            try expectSQL(db, a + b + 1, "(\"a\" + \"b\") + ?", [1])
            try expectSQL(db, 1 + (a + b), "? + (\"a\" + \"b\")", [1])
            try expectSQL(db, a * (b * 2), "\"a\" * (\"b\" * ?)", [2])
            try expectSQL(db, [a, b, 1.databaseValue].joined(operator: .add), "\"a\" + \"b\" + ?", [1])
            try expectSQL(db, [a + 1, 2 + a].joined(operator: .add), "(\"a\" + ?) + (? + \"a\")", [1, 2])
            try expectSQL(db, (a > 1 && b > 1) && a < 9, "(\"a\" > ?) AND (\"b\" > ?) AND (\"a\" < ?)", [1, 1, 9])
            try expectSQL(db, a * 1.8 + 32, "(\"a\" * ?) + ?", [1.8, 32])
            try expectSQL(db, (a + b) * 2, "(\"a\" + \"b\") * ?", [2])
            try expectSQL(db, a - b - 1, "(\"a\" - \"b\") - ?", [1])
            try expectSQL(db, a / 2, "\"a\" / ?", [2])
            try expectSQL(db, -a, "-\"a\"")
            try expectSQL(db, -(a + 1), "-(\"a\" + ?)", [1])
            try expectSQL(db, -a < 3, "(-\"a\") < ?", [3])
            try expectSQL(db, -a * 2, "(-\"a\") * ?", [2])
            try expectSQL(db, ~a & 1, "(~\"a\") & ?", [1])
            try expectSQL(db, a & 2, "\"a\" & ?", [2])
            try expectSQL(db, a | b, "\"a\" | \"b\"")
            try expectSQL(db, a << 1, "\"a\" << ?", [1])
            try expectSQL(db, a >> 1, "\"a\" >> ?", [1])
            try expectSQL(db, ~a, "~\"a\"")
            try expectSQL(db, b ?? 0, "IFNULL(\"b\", ?)", [0])
            try expectSQL(db, [Column("name"), " ".databaseValue, Column("name")].joined(operator: .concat), "\"name\" || ? || \"name\"", [" "])
            try expectSQL(db, [a, b, 1000.databaseValue].joined(operator: .add), "\"a\" + \"b\" + ?", [1000])
            try expectSQL(db, [any SQLSpecificExpressible]().joined(operator: .multiply), "1")
            let totals = try Table("t").select((a + (b ?? 0)).forKey("total"), as: Int.self).order(a).fetchAll(db)
            #expect(totals == [11, 2, 33])
        }
    }

    @Test func inclusion() throws {
        let a = Column("a"), b = Column("b"), name = Column("name")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, [1, 2, 3].contains(a), "\"a\" IN (?, ?, ?)", [1, 2, 3])
            try expectSQL(db, ![1, 2, 3].contains(a), "\"a\" NOT IN (?, ?, ?)", [1, 2, 3])
            try expectSQL(db, [1].contains(a), "\"a\" = ?", [1])
            try expectSQL(db, [Int]().contains(a), "?", [false])
            try expectSQL(db, ![Int]().contains(a), "?", [true])
            try expectSQL(db, (0...1000).contains(a), "\"a\" BETWEEN ? AND ?", [0, 1000])
            try expectSQL(db, !(0...1000).contains(a), "\"a\" NOT BETWEEN ? AND ?", [0, 1000])
            try expectSQL(db, (0..<1000).contains(a), "(\"a\" >= ?) AND (\"a\" < ?)", [0, 1000])
            try expectSQL(db, ("A"..."N").contains(name), "\"name\" BETWEEN ? AND ?", ["A", "N"])
            try expectSQL(db, (10...).contains(a), "\"a\" >= ?", [10])
            try expectSQL(db, (...10).contains(a), "\"a\" <= ?", [10])
            try expectSQL(db, (..<10).contains(a), "\"a\" < ?", [10])
            #expect(try Table("t").filter((2...3).contains(a)).fetchCount(db) == 2)
            #expect(try Table("t").filter([1, 3].contains(a)).fetchCount(db) == 2)
            // The arguments of the left side come first, as in the SQL text.
            try expectSQL(db, [11, 20].contains(a + 10), "(\"a\" + ?) IN (?, ?)", [10, 11, 20])
            #expect(try Table("t").filter([11, 13].contains(a + 10)).fetchCount(db) == 2)
            // Lists that are not all values: NULL is written as is, expressions as theirs.
            try expectSQL(db, [1.databaseValue, DatabaseValue.null, 3.databaseValue].contains(a), "\"a\" IN (?, NULL, ?)", [1, 3])
            let mixed: [any SQLExpressible] = [a, 2, b + 1]
            try expectSQL(db, mixed.contains(name), "\"name\" IN (\"a\", ?, \"b\" + ?)", [2, 1])
            // A long list of values, in order.
            try expectSQL(db, Array(1...300).contains(a), "\"a\" IN (" + Array(repeating: "?", count: 300).joined(separator: ", ") + ")", StatementArguments(Array(1...300)))
        }
    }

    @Test func patternsAndCollations() throws {
        let name = Column("name")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, name.like("%ar%"), "\"name\" LIKE ?", ["%ar%"])
            try expectSQL(db, name.like("%10\\%%", escape: "\\"), "\"name\" LIKE ? ESCAPE ?", ["%10\\%%", "\\"])
            try expectSQL(db, !name.like("a%"), "\"name\" NOT LIKE ?", ["a%"])
            try expectSQL(db, name.glob("A*"), "\"name\" GLOB ?", ["A*"])
            try expectSQL(db, name.collating(.nocase) == "arthur", "\"name\" = ? COLLATE NOCASE", ["arthur"])
            try expectSQL(db, name.collating(.nocase), "\"name\" COLLATE NOCASE")
            try expectSQL(db, name.collating(.rtrim) < "b" && Column("a") > 0, "(\"name\" < ? COLLATE RTRIM) AND (\"a\" > ?)", ["b", 0])
            #expect(try Table("t").filter(name.like("%AR%")).fetchCount(db) == 2)
            #expect(try Table("t").filter(name.glob("A*")).fetchCount(db) == 1)
            #expect(try Table("t").filter(name.collating(.nocase) == "ARTHUR").fetchCount(db) == 1)
            #expect(try Table("t").filter(name == "ARTHUR").fetchCount(db) == 0)
        }
    }

    @Test func functionsAndAggregates() throws {
        let a = Column("a"), b = Column("b"), name = Column("name")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, abs(a), "ABS(\"a\")")
            try expectSQL(db, length(name), "LENGTH(\"name\")")
            try expectSQL(db, average(a), "AVG(\"a\")")
            try expectSQL(db, sum(a), "SUM(\"a\")")
            try expectSQL(db, total(a), "TOTAL(\"a\")")
            try expectSQL(db, min(a), "MIN(\"a\")")
            try expectSQL(db, max(a), "MAX(\"a\")")
            try expectSQL(db, max(a, b, 5), "MAX(\"a\", \"b\", ?)", [5])
            try expectSQL(db, count(a), "COUNT(\"a\")")
            try expectSQL(db, count(AllColumns()), "COUNT(*)")
            try expectSQL(db, count(distinct: name), "COUNT(DISTINCT \"name\")")
            try expectSQL(db, sum(a, filter: b > 0), "SUM(\"a\") FILTER (WHERE \"b\" > ?)", [0])
            try expectSQL(db, coalesce([b, a]), "COALESCE(\"b\", \"a\")")
            try expectSQL(db, cast(a, as: .real) / b, "CAST(\"a\" AS REAL) / \"b\"")
            try expectSQL(db, julianDay(Column("d"), .startOfYear), "JULIANDAY(\"d\", ?)", ["start of year"])
            try expectSQL(db, dateTime(Column("d"), .day(1), .localTime), "DATETIME(\"d\", ?, ?)", ["1 days", "localtime"])
            try expectSQL(db, name.uppercased, "swiftUppercaseString(\"name\")")
            let row = try Row.fetchOne(db, Table("t").select(
                sum(a), total(b), average(a), min(a), max(b), count(b), count(AllColumns()), count(distinct: Column("flag"))))!
            #expect(row[0] as Int == 6)
            #expect(row[1] as Double == 40)
            #expect(row[2] as Double == 2)
            #expect(row[3] as Int == 1 && row[4] as Int == 30)
            #expect(row[5] as Int == 2 && row[6] as Int == 3 && row[7] as Int == 2)
            #expect(try Table("t").select(name.uppercased, as: String.self).filter(a == 2).fetchOne(db) == "BARBARA")
            #expect(try Table("t").select(name.capitalized, as: String.self).filter(a == 2).fetchOne(db) == "Barbara")
            #expect(try Table("t").select(name.lowercased, as: String.self).filter(a == 1).fetchOne(db) == "arthur")
            #expect(try Table("t").select(length(name), as: Int.self).filter(a == 1).fetchOne(db) == 6)
            #expect(try Table("t").select(cast(a, as: .real) / 2, as: Double.self).filter(a == 1).fetchOne(db) == 0.5)
            let custom = DatabaseFunction("double", argumentCount: 1, pure: true) { values in
                (Int.fromDatabaseValue(values[0]) ?? 0) * 2
            }
            db.add(function: custom)
            try expectSQL(db, custom(a), "double(\"a\")")
            #expect(try Table("t").select(custom(a), as: Int.self).order(a).fetchAll(db) == [2, 4, 6])
        }
    }

    @Test func nullSemantics() throws {
        let b = Column("b")
        try withDatabase { (db: Database) throws in
            let t = Table("t")
            // IS NULL finds the NULL row; `= value` and `<> value` both skip it, as SQL does.
            #expect(try t.filter(b == nil).fetchCount(db) == 1)
            #expect(try t.filter(b == 10).fetchCount(db) == 1)
            #expect(try t.filter(b != 10).fetchCount(db) == 1)
            #expect(try t.filter(b === 10).fetchCount(db) == 1)
            #expect(try t.filter(b !== 10).fetchCount(db) == 2)
            #expect(try t.filter(b > 0 || b == nil).fetchCount(db) == 3)
            #expect(try t.filter(!(b > 0)).fetchCount(db) == 0) // NOT NULL is NULL
            #expect(try t.select(b ?? -1, as: Int.self).order(Column("a")).fetchAll(db) == [10, -1, 30])
        }
    }

    @Test func sqlLiteralsAsExpressions() throws {
        try withDatabase { (db: Database) throws in
            let minimum = 2
            let literal: SQL = "\(Column("a")) >= \(minimum)"
            try expectSQL(db, literal.sqlExpression && Column("flag") == nil, "(\"a\" >= ?) AND (\"flag\" IS NULL)", [2])
            let sum = SQL("a + b").sqlExpression
            try expectSQL(db, sum * 2, "(a + b) * ?", [2])
            try expectSQL(db, SQLExpression(sql: "IFNULL(b, ?)", arguments: [0]) + 1, "(IFNULL(b, ?)) + ?", [0, 1])
            let request = Table("t").filter(literal.sqlExpression && Column("flag") == nil)
            #expect(try request.fetchCount(db) == 1)
            // Column aliases: detached columns are never qualified.
            let ordered = Table("t").aliased(TableAlias(name: "x")).select((Column("a") + 1).forKey("next")).order(Column("next").detached.desc)
            #expect(try ordered.makePreparedRequest(db).statement.sql
                == "SELECT \"x\".\"a\" + ? AS \"next\" FROM \"t\" \"x\" ORDER BY \"next\" DESC")
            #expect(try Int.fetchAll(db, ordered) == [4, 3, 2])
            // An aliased SQL literal is not parenthesized (LIT-4).
            let aliasedLiteral = Table("t").select(SQL("a").forKey("theA")).order(Column("a"))
            #expect(try aliasedLiteral.makePreparedRequest(db).statement.sql == "SELECT a AS \"theA\" FROM \"t\" ORDER BY \"a\"")
            #expect(try Int.fetchAll(db, aliasedLiteral) == [1, 2, 3])
        }
    }
}

/// A wrapper of a column: its raw value is its expression, selection and ordering.
private struct Metric: RawRepresentable, SQLExpressible, SQLSelectable, SQLOrderingTerm {
    var rawValue: Column
    static let a = Metric(rawValue: Column("a"))
    static let b = Metric(rawValue: Column("b"))
}

extension SQLExpressionTests {
    @Test func booleanComparisonsAreBound() throws {
        // As GRDB 7.10 (PRG-2): booleans are arguments, not SQL text.
        let flag = Column("flag")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, flag == true, "\"flag\" = ?", [true])
            try expectSQL(db, flag == false, "\"flag\" = ?", [false])
            try expectSQL(db, true == flag, "\"flag\" = ?", [true])
            try expectSQL(db, flag != true, "\"flag\" <> ?", [true])
            try expectSQL(db, false != flag, "\"flag\" <> ?", [false])
            try expectSQL(db, !(flag == true), "\"flag\" <> ?", [true])
            try expectSQL(db, (Column("a") > 1) == false, "(\"a\" > ?) = ?", [1, false])
            #expect(try Table("t").select(Column("a"), as: Int.self).filter(flag == true).fetchAll(db) == [1])
            #expect(try Table("t").select(Column("a"), as: Int.self).filter(flag == false).fetchAll(db) == [2])
            // NULL is neither.
            #expect(try Table("t").select(Column("a"), as: Int.self).filter(flag != true).fetchAll(db) == [2])
        }
    }

    @Test func storageClassesAndScalarFunctions() throws {
        let a = Column("a"), b = Column("b"), name = Column("name")
        try withDatabase { (db: Database) throws in
            #expect(Database.StorageClass.integer.rawValue == "INTEGER")
            #expect(Database.StorageClass(rawValue: "TEXT") == .text)
            try expectSQL(db, cast(a, as: .text), "CAST(\"a\" AS TEXT)")
            try expectSQL(db, cast(name, as: .blob), "CAST(\"name\" AS BLOB)")
            try expectSQL(db, cast(name, as: .integer), "CAST(\"name\" AS INTEGER)")
            #expect(try Table("t").select(cast(a, as: .text), as: String.self).filter(a == 3).fetchOne(db) == "3")
            try expectSQL(db, count(name), "COUNT(\"name\")")
            try expectSQL(db, abs(a - b), "ABS(\"a\" - \"b\")")
            try expectSQL(db, length(name), "LENGTH(\"name\")")
            try expectSQL(db, min(a, b), "MIN(\"a\", \"b\")")
            try expectSQL(db, max(a, 2, b), "MAX(\"a\", ?, \"b\")", [2])
            #expect(try Table("t").select(max(a, b), as: Int?.self).order(a).fetchAll(db) == [10, nil, 30])
            #expect(try Table("t").select(min(a, 2), as: Int.self).order(a).fetchAll(db) == [1, 2, 2])
            #expect(try Table("t").select(count(name), as: Int.self).fetchOne(db) == 2)
        }
    }

    @Test func orderedAggregates() throws {
        let a = Column("a"), b = Column("b")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, sum(a, orderBy: b), "SUM(\"a\" ORDER BY \"b\")")
            try expectSQL(db, total(a, orderBy: b.desc, filter: a > 1), "TOTAL(\"a\" ORDER BY \"b\" DESC) FILTER (WHERE \"a\" > ?)", [1])
            try expectSQL(db, sum(a, filter: b > 0), "SUM(\"a\") FILTER (WHERE \"b\" > ?)", [0])
            try expectSQL(db, total(a), "TOTAL(\"a\")")
            #expect(try Table("t").select(sum(a, orderBy: b), as: Int.self).fetchOne(db) == 6)
            #expect(try Table("t").select(total(b, orderBy: a, filter: a < 3), as: Double.self).fetchOne(db) == 10)
            // An ordered aggregate makes the selection an aggregate: one row.
            #expect(try Table("t").select(sum(a, orderBy: b) + 1, as: Int.self).fetchAll(db) == [7])
        }
    }

    @Test func rangesOfIntegersAndOtherBounds() throws {
        let a = Column("a"), name = Column("name")
        try withDatabase { (db: Database) throws in
            try expectSQL(db, (1...2).contains(a), "\"a\" BETWEEN ? AND ?", [1, 2])
            try expectSQL(db, (1..<3).contains(a), "(\"a\" >= ?) AND (\"a\" < ?)", [1, 3])
            try expectSQL(db, (1.5...2.5).contains(a), "\"a\" BETWEEN ? AND ?", [1.5, 2.5])
            try expectSQL(db, ("A"..<"C").contains(name), "(\"name\" >= ?) AND (\"name\" < ?)", ["A", "C"])
            try expectSQL(db, !(1...2).contains(a), "\"a\" NOT BETWEEN ? AND ?", [1, 2])
            #expect(try Table("t").select(a, as: Int.self).filter((2...3).contains(a)).fetchAll(db) == [2, 3])
            #expect(try Table("t").select(a, as: Int.self).filter((2..<3).contains(a)).fetchAll(db) == [2])
            #expect(try Table("t").select(a, as: Int.self).filter((5..<5).contains(a)).fetchAll(db) == [])
        }
    }

    @Test func associativeOperatorsAndRowID() throws {
        let a = Column("a"), b = Column("b")
        try withDatabase { (db: Database) throws in
            let plus: SQLExpression.AssociativeBinaryOperator = .add
            try expectSQL(db, [a, b, 1.databaseValue].joined(operator: plus), "\"a\" + \"b\" + ?", [1])
            try expectSQL(db, [a, b].joined(operator: .multiply), "\"a\" * \"b\"")
            try expectSQL(db, [a, b].joined(operator: .bitwiseAnd), "\"a\" & \"b\"")
            try expectSQL(db, [a, b].joined(operator: .bitwiseOr), "\"a\" | \"b\"")
            try expectSQL(db, [Column("name"), "!".databaseValue].joined(operator: .concat), "\"name\" || ?", ["!"])
            try expectSQL(db, [a > 1, b > 1].joined(operator: .or), "(\"a\" > ?) OR (\"b\" > ?)", [1, 1])
            let none: [Column] = []
            try expectSQL(db, none.joined(operator: .and), "1")
            try expectSQL(db, none.joined(operator: .concat), "''")
            #expect(SQLExpression.AssociativeBinaryOperator.and != .or)

            func render(_ expression: some SQLExpressible) throws -> String { try expectRender(db, expression) }
            func column(_ column: some ColumnExpression) -> String { column.name }
            #expect(try render(.rowID) == "\"rowid\"")
            #expect(column(.rowID) == "rowid")
            #expect(try Table("t").select(Column.rowID, as: Int.self).filter(Column.rowID == 2).fetchOne(db) == 2)
        }
    }

    @Test func rawRepresentableExpressions() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, Metric.b, "\"b\"")
            try expectSQL(db, Metric.a.sqlExpression + 1, "\"a\" + ?", [1])
            let request = Table("t").select(Metric.b, as: Int?.self).order(Metric.a.sqlOrdering).filter(Metric.a.sqlExpression > 1)
            #expect(try request.fetchAll(db) == [nil, 30])
            #expect(try request.makePreparedRequest(db).statement.sql == "SELECT \"b\" FROM \"t\" WHERE \"a\" > ? ORDER BY \"a\"")
        }
    }

    private func expectRender(_ db: Database, _ expression: some SQLExpressible) throws -> String {
        var context = SQLGenerationContext(db)
        return try expression.sqlExpression.sql(&context)
    }
}
