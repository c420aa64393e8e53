import Foundation
import Testing
@testable import GRDBCipher

@Suite("SQLInterpolation")
struct SQLInterpolationTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE fruit (id INTEGER PRIMARY KEY, name TEXT, weight REAL);
                INSERT INTO fruit VALUES (1, 'apple', 150), (2, 'fig', 40), (3, 'melon', 900);
                """)
            try body(db)
        }
    }

    @Test func stringsAreBoundArguments() throws {
        try withDatabase { (db: Database) throws in
            let name: Substring = "fig'; DROP TABLE fruit; --".prefix(3)
            let query: SQL = "SELECT id FROM fruit WHERE name = \(name)"
            let (sql, arguments) = try query.build(db)
            #expect(sql == "SELECT id FROM fruit WHERE name = ?")
            #expect(arguments == ["fig"])
            #expect(try SQLRequest<Int>(literal: query).fetchOne(db) == 2)
            let hostile = "x' OR '1'='1"
            #expect(try SQLRequest<Int>(literal: "SELECT id FROM fruit WHERE name = \(hostile)").fetchAll(db) == [])
        }
    }

    @Test func optionalExpressibles() throws {
        try withDatabase { (db: Database) throws in
            let column: (any SQLExpressible)? = Column("weight")
            let value: (any SQLExpressible)? = 2
            let none: (any SQLExpressible)? = nil
            let query: SQL = "SELECT \(column) * \(value), \(none) FROM fruit"
            let (sql, arguments) = try query.build(db)
            #expect(sql == "SELECT \"weight\" * ?, NULL FROM fruit")
            #expect(arguments == [2])
        }
    }

    @Test func selectionsAndOrderings() throws {
        try withDatabase { (db: Database) throws in
            let all: SQL = "SELECT \(AllColumns()) FROM fruit ORDER BY \(Column("weight").desc)"
            #expect(try all.build(db).sql == "SELECT * FROM fruit ORDER BY \"weight\" DESC")
            let selection: (any SQLSelectable)? = Column("name").forKey("label")
            let noSelection: (any SQLSelectable)? = nil
            let ordering: any SQLOrderingTerm = Column("name").asc
            let query: SQL = "SELECT \(selection), \(noSelection) FROM fruit ORDER BY \(ordering)"
            #expect(try query.build(db).sql == "SELECT \"name\" AS \"label\", NULL FROM fruit ORDER BY \"name\" ASC")
            #expect(try SQLRequest<String>(literal: query).fetchAll(db) == ["apple", "fig", "melon"])
        }
    }

    @Test func sequencesOfExpressions() throws {
        try withDatabase { (db: Database) throws in
            let columns = [Column("id"), Column("weight")]
            let some: SQL = "SELECT name FROM fruit WHERE 40 IN \(columns)"
            #expect(try some.build(db).sql == "SELECT name FROM fruit WHERE 40 IN (\"id\",\"weight\")")
            #expect(try SQLRequest<String>(literal: some).fetchAll(db) == ["fig"])

            let mixed: [any SQLExpressible] = [Column("id"), 150]
            let any: SQL = "SELECT name FROM fruit WHERE weight IN \(mixed)"
            let (sql, arguments) = try any.build(db)
            #expect(sql == "SELECT name FROM fruit WHERE weight IN (\"id\",?)")
            #expect(arguments == [150])
            #expect(try SQLRequest<String>(literal: any).fetchAll(db) == ["apple"])

            // Empty sequences: a subquery without rows, as GRDB writes it; IN is false, NOT IN
            // is true.
            let noIds: [Int] = []
            let noColumns: [Column] = []
            let noExpressions: [any SQLExpressible] = []
            let emptySQL: SQL = "id IN \(noIds) OR id IN \(noColumns) OR id IN \(noExpressions)"
            #expect(try emptySQL.build(db).sql
                == "id IN (SELECT NULL WHERE NULL) OR id IN (SELECT NULL WHERE NULL) OR id IN (SELECT NULL WHERE NULL)")
            #expect(try SQLRequest<String>(literal: "SELECT name FROM fruit WHERE id IN \(noIds)").fetchAll(db) == [])
            #expect(try SQLRequest<String>(literal: "SELECT name FROM fruit WHERE id IN \(noColumns)").fetchAll(db) == [])
            #expect(try SQLRequest<String>(literal: "SELECT name FROM fruit WHERE id NOT IN \(noColumns) ORDER BY id").fetchAll(db) == ["apple", "fig", "melon"])
        }
    }

    @Test func commonTableExpressions() throws {
        try withDatabase { (db: Database) throws in
            let heavy = CommonTableExpression(named: "heavy fruit", columns: ["label"], literal: "SELECT name FROM fruit WHERE weight > \(100)")
            let query: SQL = "WITH \(definitionFor: heavy) SELECT label FROM \(heavy) ORDER BY label"
            let (sql, arguments) = try query.build(db)
            #expect(sql == "WITH \"heavy fruit\"(\"label\") AS (SELECT name FROM fruit WHERE weight > ?) SELECT label FROM \"heavy fruit\" ORDER BY label")
            #expect(arguments == [100])
            #expect(try SQLRequest<String>(literal: query).fetchAll(db) == ["apple", "melon"])

            let counter = CommonTableExpression<Int>(recursive: true, named: "counter", sql: "SELECT 1 UNION ALL SELECT counter.\"1\" + 1 FROM counter LIMIT 3")
            let recursive: SQL = "WITH RECURSIVE \(definitionFor: counter) SELECT * FROM \(counter)"
            #expect(try SQLRequest<Int>(literal: recursive).fetchAll(db) == [1, 2, 3])
        }
    }

    /// As GRDB (LIT-1): the columns of an SQL request interpolated as a subquery belong to
    /// that subquery, not to the aliased table of the request around it.
    @Test func subqueryLiteralsInAliasedRequests() throws {
        try withDatabase { (db: Database) throws in
            let alias = TableAlias(name: "f")
            let heaviest: SQLRequest<String> = "SELECT MAX(\(Column("weight"))) FROM fruit"
            let request = Table("fruit").aliased(alias).filter(literal: "\(Column("weight")) = (\(heaviest))").select(Column("name"), as: String.self)
            #expect(try request.makePreparedRequest(db, forSingleResult: false).statement.sql
                == #"SELECT "f"."name" FROM "fruit" "f" WHERE "f"."weight" = (SELECT MAX("weight") FROM fruit)"#)
            #expect(try request.fetchAll(db) == ["melon"])

            // A column of the outer alias, named explicitly, stays qualified.
            let outer: SQLRequest<Int> = "SELECT \(alias[Column("id")]) * 10"
            let qualified = Table("fruit").aliased(alias).select(literal: "(\(outer))").order(Column("id"))
            #expect(try Int.fetchAll(db, qualified) == [10, 20, 30])
        }
    }

    @Test func joinedCollectionsOfSQL() throws {
        try withDatabase { (db: Database) throws in
            let conditions: [SQL] = ["weight > \(30)", "\(Column("name")) <> \("melon")"]
            let query: SQL = "SELECT id FROM fruit WHERE \(conditions.joined(separator: " AND ")) ORDER BY id"
            let (sql, arguments) = try query.build(db)
            #expect(sql == "SELECT id FROM fruit WHERE weight > ? AND \"name\" <> ? ORDER BY id")
            #expect(arguments == [30, "melon"])
            #expect(try SQLRequest<Int>(literal: query).fetchAll(db) == [1, 2])
            let empty: [SQL] = []
            #expect(try empty.joined(separator: ", ").build(db).sql == "")
            #expect(try conditions.joined().build(db).sql == "weight > ?\"name\" <> ?")
        }
    }
}
