import Foundation

// SQL functions of the query interface.
//
// ```swift
// Player.select(min(Column("score")), max(Column("score")))  // SELECT MIN("score"), MAX("score") ...
// Player.select(count(distinct: Column("team")))             // SELECT COUNT(DISTINCT "team") ...
// Player.select(cast(Column("wins"), as: .real) / Column("games"))
// ```

private func function(_ name: String, _ arguments: [any SQLExpressible], aggregate: Bool = false, distinct: Bool = false, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    SQLExpression(.function(name, arguments.map(\.sqlExpression), aggregate: aggregate, distinct: distinct, filter: filter?.sqlExpression))
}

/// `ABS(value)`
public func abs(_ value: some SQLSpecificExpressible) -> SQLExpression {
    function("ABS", [value])
}

/// `AVG(value)`, the average of an aggregate; `filter` adds `FILTER (WHERE ...)`.
public func average(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    function("AVG", [value], aggregate: true, filter: filter)
}

/// `COUNT(value)`; `count(AllColumns())` is `COUNT(*)`.
public func count(_ counted: some SQLSelectable, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    let selection = counted.sqlSelection
    if selection.isAllColumns {
        return SQLExpression(.countAll(filter: filter?.sqlExpression))
    }
    guard let expression = selection.expression else {
        if case .literal(let literal) = selection.kind {
            return function("COUNT", [literal], aggregate: true, filter: filter)
        }
        return SQLExpression(.countAll(filter: filter?.sqlExpression))
    }
    return function("COUNT", [expression], aggregate: true, filter: filter)
}

/// `COUNT(value)`, the number of non-NULL values.
///
/// ```swift
/// // SELECT COUNT("email") FROM "player"
/// Player.select(count(Column("email")))
/// ```
public func count(_ counted: some SQLSpecificExpressible) -> SQLExpression {
    function("COUNT", [counted], aggregate: true)
}

/// `COUNT(DISTINCT value)`
public func count(distinct value: some SQLSpecificExpressible) -> SQLExpression {
    function("COUNT", [value], aggregate: true, distinct: true)
}

/// `COALESCE(a, b, ...)`
///
/// As GRDB: no value gives `NULL`, one value gives the value itself (SQLite's `COALESCE`
/// needs two arguments or more).
public func coalesce(_ values: some Collection<any SQLSpecificExpressible>) -> SQLExpression {
    switch values.count {
    case 0: return .null
    case 1: return values.first!.sqlExpression
    default: return function("COALESCE", Array(values.map { $0 as any SQLExpressible }))
    }
}

/// `LENGTH(value)`
public func length(_ value: some SQLSpecificExpressible) -> SQLExpression {
    function("LENGTH", [value])
}

/// `MAX(value)`, the maximum of an aggregate.
public func max(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    function("MAX", [value], aggregate: true, filter: filter)
}

/// `MAX(a, b, ...)`, the largest of several values (the scalar function, not the aggregate).
///
/// ```swift
/// // SELECT MAX("score", "bonus", ?) FROM "player"
/// Player.select(max(Column("score"), Column("bonus"), 0))
/// ```
public func max(_ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...) -> SQLExpression {
    function("MAX", [value1, value2] + values)
}

/// `MIN(value)`, the minimum of an aggregate.
public func min(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    function("MIN", [value], aggregate: true, filter: filter)
}

/// `MIN(a, b, ...)`, the smallest of several values (the scalar function, not the aggregate).
///
/// ```swift
/// // SELECT MIN("score", ?) FROM "player"
/// Player.select(min(Column("score"), 100))
/// ```
public func min(_ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...) -> SQLExpression {
    function("MIN", [value1, value2] + values)
}

/// An aggregate, with an optional `ORDER BY` inside its parentheses (SQLite 3.44+) and an
/// optional `FILTER (WHERE ...)`.
private func orderedAggregate(_ name: String, _ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)?, filter: (any SQLSpecificExpressible)?) -> SQLExpression {
    guard let ordering else {
        return function(name, [value], aggregate: true, filter: filter)
    }
    return SQLExpression(.orderedAggregate(name, value.sqlExpression, ordering.sqlOrdering, filter: filter?.sqlExpression))
}

/// `SUM(value)`; `orderBy` adds `ORDER BY` inside the parentheses, and `filter` adds
/// `FILTER (WHERE ...)`.
///
/// ```swift
/// // SELECT SUM("score") FILTER (WHERE "active") FROM "player"
/// Player.select(sum(Column("score"), filter: Column("active")))
/// // SELECT SUM("score" ORDER BY "name") FROM "player"
/// Player.select(sum(Column("score"), orderBy: Column("name")))
/// ```
public func sum(_ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    orderedAggregate("SUM", value, orderBy: ordering, filter: filter)
}

/// `TOTAL(value)`: like SUM, but 0.0 for no rows, and always a Double. `orderBy` adds
/// `ORDER BY` inside the parentheses, and `filter` adds `FILTER (WHERE ...)`.
///
/// ```swift
/// // SELECT TOTAL("score" ORDER BY "name" DESC) FROM "player"
/// Player.select(total(Column("score"), orderBy: Column("name").desc))
/// ```
public func total(_ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    orderedAggregate("TOTAL", value, orderBy: ordering, filter: filter)
}

/// `CAST(expression AS storageClass)`.
///
/// ```swift
/// // SELECT CAST("wins" AS REAL) / "games" FROM "player"
/// Player.select(cast(Column("wins"), as: .real) / Column("games"))
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_expr.html#castexpr>
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    SQLExpression(.cast(expression.sqlExpression, storageClass.rawValue))
}

/// A modifier of the SQLite date functions.
///
/// ```swift
/// Game.select(julianDay(Column("date"), .startOfYear)) // JULIANDAY("date", 'start of year')
/// ```
public enum SQLDateModifier: SQLSpecificExpressible, Sendable {
    /// Adds days (`+N days`).
    case day(Int)
    /// Adds hours (`+N hours`).
    case hour(Int)
    /// Adds minutes (`+N minutes`).
    case minute(Int)
    /// Adds seconds (`+N seconds`).
    case second(Double)
    /// Adds months (`+N months`).
    case month(Int)
    /// Adds years (`+N years`).
    case year(Int)
    /// Moves to the first day of the month (`start of month`).
    case startOfMonth
    /// Moves to the first day of the year (`start of year`).
    case startOfYear
    /// Moves to midnight (`start of day`).
    case startOfDay
    /// Moves forward to the given weekday, 0 for Sunday (`weekday N`).
    case weekday(Int)
    /// Reads the value as seconds since 1970 (`unixepoch`).
    case unixEpoch
    /// Converts from UTC to local time (`localtime`).
    case localTime
    /// Converts from local time to UTC (`utc`).
    case utc

    /// The modifier text, as SQLite expects it.
    var text: String {
        switch self {
        case .day(let value): return "\(value) days"
        case .hour(let value): return "\(value) hours"
        case .minute(let value): return "\(value) minutes"
        case .second(let value): return "\(value) seconds"
        case .month(let value): return "\(value) months"
        case .year(let value): return "\(value) years"
        case .startOfMonth: return "start of month"
        case .startOfYear: return "start of year"
        case .startOfDay: return "start of day"
        case .weekday(let value): return "weekday \(value)"
        case .unixEpoch: return "unixepoch"
        case .localTime: return "localtime"
        case .utc: return "utc"
        }
    }

    public var sqlExpression: SQLExpression { text.sqlExpression }
}

/// `DATETIME(value, modifiers...)`
public func dateTime(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    function("DATETIME", [value] + modifiers)
}

/// `JULIANDAY(value, modifiers...)`
public func julianDay(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    function("JULIANDAY", [value] + modifiers)
}

// MARK: - Unicode-aware string functions

extension DatabaseFunction {
    private static func stringFunction(_ name: String, _ transform: @escaping @Sendable (String) -> String) -> DatabaseFunction {
        DatabaseFunction(name, argumentCount: 1, pure: true) { values in
            guard let string = String.fromDatabaseValue(values[0]) else { return nil }
            return transform(string)
        }
    }

    /// `swiftCapitalizedString(x)`: Swift's `String.capitalized`. Registered on every connection.
    public static let capitalize = stringFunction("swiftCapitalizedString") { $0.capitalized }
    /// `swiftLowercaseString(x)`: Swift's `String.lowercased()`. Registered on every connection.
    public static let lowercase = stringFunction("swiftLowercaseString") { $0.lowercased() }
    /// `swiftUppercaseString(x)`: Swift's `String.uppercased()`. Registered on every connection.
    public static let uppercase = stringFunction("swiftUppercaseString") { $0.uppercased() }
    /// `swiftLocalizedCapitalizedString(x)`: `String.localizedCapitalized`.
    public static let localizedCapitalize = stringFunction("swiftLocalizedCapitalizedString") { $0.localizedCapitalized }
    /// `swiftLocalizedLowercaseString(x)`: `String.localizedLowercase`.
    public static let localizedLowercase = stringFunction("swiftLocalizedLowercaseString") { $0.localizedLowercase }
    /// `swiftLocalizedUppercaseString(x)`: `String.localizedUppercase`.
    public static let localizedUppercase = stringFunction("swiftLocalizedUppercaseString") { $0.localizedUppercase }

    static let defaultFunctions = [capitalize, lowercase, uppercase, localizedCapitalize, localizedLowercase, localizedUppercase]

    /// An SQL expression that calls the function.
    ///
    /// ```swift
    /// let succ = DatabaseFunction("succ", argumentCount: 1) { ... }
    /// // SELECT succ("score") FROM "player"
    /// Player.select(succ(Column("score")))
    /// ```
    public func callAsFunction(_ arguments: any SQLExpressible...) -> SQLExpression {
        let aggregate: Bool
        if case .aggregate = kind { aggregate = true } else { aggregate = false }
        return SQLExpression(.function(name, arguments.map(\.sqlExpression), aggregate: aggregate, distinct: false, filter: nil))
    }
}

extension SQLSpecificExpressible {
    /// Swift's `String.capitalized`, applied by SQL.
    public var capitalized: SQLExpression { DatabaseFunction.capitalize(self) }
    /// Swift's `String.lowercased()`, applied by SQL.
    public var lowercased: SQLExpression { DatabaseFunction.lowercase(self) }
    /// Swift's `String.uppercased()`, applied by SQL.
    public var uppercased: SQLExpression { DatabaseFunction.uppercase(self) }
    /// Swift's `String.localizedCapitalized`, applied by SQL.
    public var localizedCapitalized: SQLExpression { DatabaseFunction.localizedCapitalize(self) }
    /// Swift's `String.localizedLowercase`, applied by SQL.
    public var localizedLowercased: SQLExpression { DatabaseFunction.localizedLowercase(self) }
    /// Swift's `String.localizedUppercase`, applied by SQL.
    public var localizedUppercased: SQLExpression { DatabaseFunction.localizedUppercase(self) }
}
