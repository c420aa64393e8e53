// The query interface operators. Each comes in three forms, as in GRDB: specific ⊕ any,
// any ⊕ specific, specific ⊕ specific, so that `Column("a") > 1`, `1 < Column("a")` and
// `Column("a") < Column("b")` all build SQL expressions while `1 < 2` stays a Swift Bool.

// MARK: - Comparison

extension SQLSpecificExpressible {
    /// `=`, or `IS NULL` when compared to nil: `Column("name") == "Arthur"`, `Column("name") == nil`.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.equal, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `=`, or `IS NULL` when compared to nil.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .compare(.equal, lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `=`
    public static func == (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.equal, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `= ?` with the boolean as an argument (1 or 0), as GRDB.
    ///
    /// ```swift
    /// Player.filter(Column("isActive") == true)  // "isActive" = ? (1)
    /// ```
    public static func == (lhs: Self, rhs: Bool) -> SQLExpression {
        .compare(.equal, lhs.sqlExpression, .booleanConstant(rhs))
    }

    /// `= ?` with the boolean as an argument: `true == Column("isActive")` is `"isActive" = ?`.
    public static func == (lhs: Bool, rhs: Self) -> SQLExpression {
        .compare(.equal, rhs.sqlExpression, .booleanConstant(lhs))
    }

    /// `<> ?` with the boolean as an argument: `Column("isActive") != true`.
    public static func != (lhs: Self, rhs: Bool) -> SQLExpression {
        .compare(.notEqual, lhs.sqlExpression, .booleanConstant(rhs))
    }

    /// `<> ?` with the boolean as an argument: `false != Column("isActive")`.
    public static func != (lhs: Bool, rhs: Self) -> SQLExpression {
        .compare(.notEqual, rhs.sqlExpression, .booleanConstant(lhs))
    }

    /// `<>`, or `IS NOT NULL` when compared to nil.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.notEqual, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `<>`, or `IS NOT NULL` when compared to nil.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .compare(.notEqual, lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `<>`
    public static func != (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.notEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `IS`: `Column("score") === 1000`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        SQLExpression(.binary(.is, lhs.sqlExpression, rhs?.sqlExpression ?? .null))
    }

    /// `IS`
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        // As GRDB, a NULL test names the tested expression first: `"x" IS NULL`.
        guard let lhs else { return SQLExpression(.binary(.is, rhs.sqlExpression, .null)) }
        return SQLExpression(.binary(.is, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `IS`
    public static func === (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.is, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `IS NOT`
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        SQLExpression(.binary(.isNot, lhs.sqlExpression, rhs?.sqlExpression ?? .null))
    }

    /// `IS NOT`
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        guard let lhs else { return SQLExpression(.binary(.isNot, rhs.sqlExpression, .null)) }
        return SQLExpression(.binary(.isNot, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `IS NOT`
    public static func !== (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.isNot, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `<`
    public static func < (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .compare(.lessThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<`
    public static func < (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .compare(.lessThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<`
    public static func < (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.lessThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=`
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .compare(.lessThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=`
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .compare(.lessThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=`
    public static func <= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.lessThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>`
    public static func > (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .compare(.greaterThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>`
    public static func > (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .compare(.greaterThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>`
    public static func > (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.greaterThan, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=`
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .compare(.greaterThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=`
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .compare(.greaterThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=`
    public static func >= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.greaterThanOrEqual, lhs.sqlExpression, rhs.sqlExpression)
    }
}

// MARK: - Logical

extension SQLSpecificExpressible {
    /// `NOT`: `!Column("isVerified")`; negated comparisons and inclusions use their negated SQL
    /// form (`<>`, `NOT IN`, `NOT BETWEEN`, `NOT EXISTS`).
    public static prefix func ! (value: Self) -> SQLExpression {
        value.sqlExpression.negated
    }

    /// `AND`
    public static func && (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `AND`
    public static func && (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `AND`
    public static func && (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR`
    public static func || (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR`
    public static func || (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR`
    public static func || (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }
}

// MARK: - Arithmetic and bitwise

extension SQLSpecificExpressible {
    /// `+`
    public static func + (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `+`
    public static func + (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `+`
    public static func + (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `*`
    public static func * (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `*`
    public static func * (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `*`
    public static func * (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `-`
    public static func - (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.subtract, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `-`
    public static func - (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        SQLExpression(.binary(.subtract, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `-`
    public static func - (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.subtract, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `/`
    public static func / (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.divide, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `/`
    public static func / (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        SQLExpression(.binary(.divide, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `/`
    public static func / (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.divide, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// Unary `-`
    public static prefix func - (value: Self) -> SQLExpression {
        SQLExpression(.unary(.negative, value.sqlExpression))
    }

    /// `&`
    public static func & (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `&`
    public static func & (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `&`
    public static func & (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `|`
    public static func | (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `|`
    public static func | (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `|`
    public static func | (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `<<`
    public static func << (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.leftShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `<<`
    public static func << (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        SQLExpression(.binary(.leftShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `<<`
    public static func << (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.leftShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `>>`
    public static func >> (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.rightShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `>>`
    public static func >> (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        SQLExpression(.binary(.rightShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `>>`
    public static func >> (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.binary(.rightShift, lhs.sqlExpression, rhs.sqlExpression))
    }

    /// `~`
    public static prefix func ~ (value: Self) -> SQLExpression {
        SQLExpression(.unary(.bitwiseNot, value.sqlExpression))
    }

    /// `IFNULL(lhs, rhs)`: `Column("name") ?? "Anonymous"`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression], aggregate: false, distinct: false, filter: nil))
    }
}

// MARK: - Inclusion

extension Sequence where Element: SQLExpressible {
    /// `expression IN (a, b, c)`: `[1, 2, 3].contains(Column("id"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression.inList(element.sqlExpression, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLExpressible {
    /// `expression IN (a, b, c)`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression.inList(element.sqlExpression, map(\.sqlExpression))
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `expression BETWEEN lower AND upper`: `(0...1000).contains(Column("score"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression, negated: false))
    }
}

extension Range where Bound: SQLExpressible {
    /// `(expression >= lower) AND (expression < upper)`: `("A"..<"N").contains(Column("initial"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

// Ranges of integers are also sequences: these make `contains` build the range test rather
// than an `IN (...)` list of every integer.

/// A `ClosedRange` tests an SQL expression with `contains(_:)`.
extension ClosedRange where Bound: SQLExpressible & Strideable, Bound.Stride: SignedInteger {
    /// `expression BETWEEN lower AND upper`: `(0...1000).contains(Column("score"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(.between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression, negated: false))
    }
}

/// A `Range` tests an SQL expression with `contains(_:)`.
extension Range where Bound: SQLExpressible & Strideable, Bound.Stride: SignedInteger {
    /// `(expression >= lower) AND (expression < upper)`: `(0..<1000).contains(Column("score"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

/// A `PartialRangeFrom` tests an SQL expression with `contains(_:)`.
extension PartialRangeFrom where Bound: SQLExpressible {
    /// `expression >= lower`: `(1000...).contains(Column("score"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        element >= lowerBound
    }
}

/// A `PartialRangeThrough` tests an SQL expression with `contains(_:)`.
extension PartialRangeThrough where Bound: SQLExpressible {
    /// `expression <= upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        element <= upperBound
    }
}

/// A `PartialRangeUpTo` tests an SQL expression with `contains(_:)`.
extension PartialRangeUpTo where Bound: SQLExpressible {
    /// `expression < upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        element < upperBound
    }
}

// MARK: - Patterns and collations

extension SQLSpecificExpressible {
    /// `LIKE`: `Column("email").like("%@example.com")`.
    public func like(_ pattern: some SQLExpressible, escape: (any SQLExpressible)? = nil) -> SQLExpression {
        SQLExpression(.pattern(.like, sqlExpression, pattern.sqlExpression, escape: escape?.sqlExpression, negated: false))
    }

    /// `GLOB`: `Column("name").glob("A*")`.
    public func glob(_ pattern: some SQLExpressible) -> SQLExpression {
        SQLExpression(.pattern(.glob, sqlExpression, pattern.sqlExpression, escape: nil, negated: false))
    }

    /// The expression with a collation: comparisons with it end with `COLLATE name`.
    ///
    /// ```swift
    /// Player.filter(Column("name").collating(.nocase) == "arthur") // "name" = ? COLLATE NOCASE
    /// Player.order(Column("name").collating(.localizedCaseInsensitiveCompare))
    /// ```
    ///
    /// On a comparison, the collation goes where SQLite uses it, on an operand:
    /// `names.contains(Column("name")).collating(.nocase)` is
    /// `("name" COLLATE NOCASE) IN (?, ?)`, not a collation of the comparison's result, which
    /// SQLite would ignore.
    public func collating(_ collation: Database.CollationName) -> SQLExpression {
        sqlExpression.applyingCollation(collation.rawValue)
    }

    /// The expression with a custom collation (registered on the connection).
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        sqlExpression.applyingCollation(collation.name)
    }
}

extension SQLExpression {
    /// The expression with a collation, pushed into comparisons as GRDB does: the left operand
    /// of `IN`, the right end of `=`, `<>`, `<`… and `BETWEEN`, each side of an `AND` of
    /// comparisons. Other expressions are wrapped (`x COLLATE name`).
    func applyingCollation(_ collation: String) -> SQLExpression {
        switch kind {
        case let .binary(op, lhs, rhs) where op.isComparison:
            return SQLExpression(.binary(op, lhs, SQLExpression(.collated(rhs, collation))))
        case let .between(expression, lower, upper, negated):
            return SQLExpression(.between(expression, lower, SQLExpression(.collated(upper, collation)), negated: negated))
        case let .inList(expression, list, negated):
            return SQLExpression(.inList(SQLExpression(.collated(expression, collation)), list, negated: negated))
        case let .inSubquery(expression, subquery, negated):
            return SQLExpression(.inSubquery(SQLExpression(.collated(expression, collation)), subquery, negated: negated))
        case let .inTable(expression, table, negated):
            return SQLExpression(.inTable(SQLExpression(.collated(expression, collation)), table, negated: negated))
        case let .associative(op, terms) where op == .and && !terms.isEmpty && terms.allSatisfy(\.isComparison):
            return SQLExpression(.associative(op, terms.map { $0.applyingCollation(collation) }))
        default:
            return SQLExpression(.collated(self, collation))
        }
    }

    /// Whether the expression is a comparison that takes a collation on an operand.
    var isComparison: Bool {
        switch kind {
        case let .binary(op, _, _): return op.isComparison
        case .between, .inList, .inSubquery, .inTable: return true
        default: return false
        }
    }
}
