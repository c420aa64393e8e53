/// The columns that link two tables, for associations whose foreign key the schema does not
/// tell, or tells ambiguously.
///
/// A foreign key is always defined from the table that contains its columns:
///
/// ```swift
/// struct Book: TableRecord {
///     static let authorForeignKey = ForeignKey(["authorId"])
///     static let translatorForeignKey = ForeignKey(["translatorId"])
///     static let author = belongsTo(Person.self, using: authorForeignKey)
///     static let translator = belongsTo(Person.self, using: translatorForeignKey)
/// }
/// struct Person: TableRecord {
///     static let writtenBooks = hasMany(Book.self, using: Book.authorForeignKey)
/// }
/// ```
///
/// Without destination columns, the foreign key refers to the primary key of the destination
/// table.
public struct ForeignKey: Equatable, Sendable {
    var originColumns: [String]
    var destinationColumns: [String]?

    /// Creates a foreign key from column names.
    ///
    /// ```swift
    /// ForeignKey(["authorId"], to: ["id"])
    /// ```
    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }

    /// Creates a foreign key from columns.
    ///
    /// ```swift
    /// ForeignKey([Book.Columns.authorId], to: [Person.Columns.id])
    /// ```
    public init(_ originColumns: [any ColumnExpression], to destinationColumns: [any ColumnExpression]? = nil) {
        self.init(originColumns.map(\.name), to: destinationColumns.map { columns in columns.map(\.name) })
    }
}

/// A foreign key to find when the request runs: given by the user, or inferred from the schema.
struct SQLForeignKeyRequest: Sendable {
    /// The table that contains the foreign key columns.
    var originTable: String
    /// The table the foreign key refers to.
    var destinationTable: String
    var foreignKey: ForeignKey?

    /// The pairs of (origin, destination) columns.
    ///
    /// Throws a `DatabaseError` (SQLITE_ERROR) when the schema has no foreign key between the
    /// tables, or several, and none was given: GRDB stops the program there.
    func resolve(_ db: Database) throws -> [(origin: String, destination: String)] {
        if let foreignKey, let destinationColumns = foreignKey.destinationColumns {
            return try pair(foreignKey.originColumns, destinationColumns)
        }
        // Foreign keys of the schema, from the origin table to the destination table.
        let candidates = try db.foreignKeys(on: originTable).filter {
            $0.destinationTable.lowercased() == destinationTable.lowercased()
        }
        if let foreignKey {
            // Origin columns given: a schema key on those columns tells the destination
            // columns; otherwise the primary key of the destination table.
            let origin = foreignKey.originColumns.map { $0.lowercased() }
            if let match = candidates.first(where: { $0.originColumns.map { $0.lowercased() } == origin }) {
                // The origin columns as the schema spells them, as GRDB (SQL-7).
                return try pair(match.originColumns, match.destinationColumns)
            }
            return try pair(foreignKey.originColumns, db.primaryKey(destinationTable).columns)
        }
        switch candidates.count {
        case 1:
            return candidates[0].mapping
        case 0:
            throw DatabaseError(
                resultCode: .SQLITE_ERROR,
                message: "Could not infer foreign key from \(originTable) to \(destinationTable): the schema defines none; give one with ForeignKey([...])")
        default:
            throw DatabaseError(
                resultCode: .SQLITE_ERROR,
                message: "Ambiguous foreign key from \(originTable) to \(destinationTable): the schema defines \(candidates.count); give one with ForeignKey([...])")
        }
    }

    private func pair(_ origin: [String], _ destination: [String]) throws -> [(origin: String, destination: String)] {
        guard origin.count == destination.count, !origin.isEmpty else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "Foreign key from \(originTable) to \(destinationTable): \(origin.count) column(s) for \(destination.count) destination column(s)")
        }
        return Array(zip(origin, destination)).map { (origin: $0.0, destination: $0.1) }
    }
}
