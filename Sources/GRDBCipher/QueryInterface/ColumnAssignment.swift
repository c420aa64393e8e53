/// An assignment of a column in an `UPDATE` statement, for `updateAll`.
///
/// ```swift
/// // UPDATE "player" SET "score" = ?, "bonus" = NULL
/// try Player.updateAll(db, Column("score").set(to: 0), Column("bonus").set(to: nil))
/// // UPDATE "player" SET "score" = "score" + ("bonus" * ?)
/// try Player.updateAll(db, Column("score") += Column("bonus") * 2)
/// ```
public struct ColumnAssignment: Sendable {
    let columnName: String
    let value: SQLExpression?

    func sql(_ context: inout SQLGenerationContext) throws -> String {
        let column = context.columnSQL(columnName, alias: nil)
        return try "\(column) = \((value ?? SQLExpression(.column(columnName))).sql(&context))"
    }
}

extension ColumnExpression {
    /// Assigns the column: `"column" = value`.
    public func set(to value: (any SQLExpressible)?) -> ColumnAssignment {
        ColumnAssignment(columnName: name, value: value?.sqlExpression ?? .null)
    }

    /// An assignment that leaves the column as it is: `"column" = "column"`.
    public var noOverwrite: ColumnAssignment {
        ColumnAssignment(columnName: name, value: nil)
    }

    /// `"column" = "column" + value`
    public static func += (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column + value)
    }

    /// `"column" = "column" - value`
    public static func -= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column - value)
    }

    /// `"column" = "column" * value`
    public static func *= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column * value)
    }

    /// `"column" = "column" / value`
    public static func /= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column / value)
    }

    /// `"column" = "column" & value`
    public static func &= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column & value)
    }

    /// `"column" = "column" | value`
    public static func |= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column | value)
    }

    /// `"column" = "column" << value`
    public static func <<= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column << value)
    }

    /// `"column" = "column" >> value`
    public static func >>= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column >> value)
    }
}
