import CSQLCipher

/// The values bound to the `?` and `:name` parameters of a statement.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)",
///                arguments: ["Arthur", 1000])
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)",
///                arguments: ["name": "Arthur", "score": 1000])
/// ```
///
/// Names are given without their `:`, `$` or `@` prefix. Arguments that do not match the
/// statement's parameters (a wrong count, a missing name) are a thrown `DatabaseError`, checked
/// before the statement runs. Argument values never appear in error descriptions unless
/// ``Configuration/publicStatementArguments`` is set.
public struct StatementArguments: Hashable, Sendable {
    /// Positional values, consumed in order by `?` parameters (and by named parameters that
    /// have no named value).
    var values: ArgumentValues

    /// Named values, by name without prefix.
    var namedValues: [String: DatabaseValue]

    /// Whether there is no value at all.
    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// Empty arguments.
    public init() {
        values = ArgumentValues()
        namedValues = Dictionary()
    }

    /// Positional arguments.
    public init<S: Sequence>(_ sequence: S) where S.Element == (any DatabaseValueConvertible)? {
        values = ArgumentValues(sequence.lazy.map { $0?.databaseValue ?? .null })
        namedValues = Dictionary()
    }

    /// Positional arguments.
    public init<S: Sequence>(_ sequence: S) where S.Element: DatabaseValueConvertible {
        values = ArgumentValues(sequence.lazy.map(\.databaseValue))
        namedValues = Dictionary()
    }

    /// Named arguments.
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        values = ArgumentValues()
        namedValues = dictionary.mapValues { $0?.databaseValue ?? .null }
    }

    /// Named arguments.
    public init<S: Sequence>(_ sequence: S) where S.Element == (String, (any DatabaseValueConvertible)?) {
        values = ArgumentValues()
        namedValues = Dictionary(sequence.map { ($0.0, $0.1?.databaseValue ?? .null) }, uniquingKeysWith: { $1 })
    }

    /// Positional arguments from an array of `Any`, or nil if one value is not a database value.
    public init?(_ array: [Any]) {
        var values = ArgumentValues()
        for value in array {
            guard let dbValue = DatabaseValue(value: value) else { return nil }
            values.append(dbValue)
        }
        self.values = values
        namedValues = Dictionary()
    }

    /// Named arguments from a dictionary of `Any`, or nil if a key is not a string or a value is
    /// not a database value.
    public init?(_ dictionary: [AnyHashable: Any]) {
        var namedValues: [String: DatabaseValue] = [:]
        for (key, value) in dictionary {
            guard let key = key.base as? String, let dbValue = DatabaseValue(value: value) else { return nil }
            namedValues[key] = dbValue
        }
        values = ArgumentValues()
        self.namedValues = namedValues
    }

    /// Appends the values of `arguments`, and returns the named values that were overwritten.
    @discardableResult
    public mutating func append(contentsOf arguments: StatementArguments) -> [String: DatabaseValue] {
        var replaced: [String: DatabaseValue] = [:]
        values.append(contentsOf: arguments.values)
        for (name, value) in arguments.namedValues {
            if let old = namedValues.updateValue(value, forKey: name) {
                replaced[name] = old
            }
        }
        return replaced
    }

    /// Concatenation. It is a programmer error (a fatal error, as in GRDB) if both sides
    /// hold the same name: use `&+` to let `rhs` override `lhs`.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result += rhs
        return result
    }

    /// Concatenation; a named value of `rhs` replaces the one of `lhs`.
    ///
    /// ```swift
    /// let arguments: StatementArguments = ["limit": 10] &+ ["limit": 50] // ["limit": 50]
    /// ```
    public static func &+ (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        _ = result.append(contentsOf: rhs)
        return result
    }

    /// Appends `rhs`. It is a programmer error (a fatal error, as in GRDB) if both sides hold
    /// the same name.
    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        let replaced = lhs.append(contentsOf: rhs)
        precondition(replaced.isEmpty, "already defined statement argument: \(replaced.keys.sorted().joined(separator: ", "))")
    }

    /// The positional value at `index`, if any.
    public subscript(index: Int) -> DatabaseValue? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// The named value for `key`, if any.
    public subscript(key: String) -> DatabaseValue? {
        namedValues[key]
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(positionalValues: StatementArguments.takeDatabaseValues(elements))
    }

    /// The database values of a literal's elements, which are moved out of the array, last
    /// first: a moved existential is not copied, and the emptied array is freed without a
    /// call to the runtime's generic value witnesses for each element (a copy of an optional
    /// existential, or its destruction by the array, costs more than binding its value:
    /// docs/Performance.md, W4). The values go straight to their place in memory of their
    /// own (``ArgumentValues``).
    static func takeDatabaseValues(_ elements: __owned [(any DatabaseValueConvertible)?]) -> ArgumentValues {
        var elements = elements
        let count = elements.count
        return ArgumentValues(count: count) { values in
            var index = count
            while let element = elements.popLast() {
                index &-= 1
                switch consume element {
                case .none: (values + index).initialize(to: DatabaseValue(storage: .null))
                case .some(let value): (values + index).initialize(to: value.databaseValue)
                }
            }
        }
    }

    init(positionalValues: ArgumentValues) {
        values = positionalValues
        namedValues = Dictionary()
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(elements)
    }
}

extension StatementArguments: CustomStringConvertible {
    /// `[1, "foo"]`, `["name": "foo"]`, or both. Do not log it: arguments may hold secrets.
    public var description: String {
        let positional = values.map(\.description)
        // As GRDB: names are quoted like strings.
        let named = namedValues.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }
        return "[" + (positional + named).joined(separator: ", ") + "]"
    }
}

// MARK: - Binding

/// Consumes arguments across the statements of one SQL string.
struct ArgumentConsumer {
    let arguments: StatementArguments
    var position = 0

    init(_ arguments: StatementArguments) {
        self.arguments = arguments
    }

    var remainingPositionalCount: Int { arguments.values.count - position }

    /// Returns the values for a statement's parameters, or throws if some are missing.
    mutating func values(for statement: Statement) throws -> ArgumentValues {
        let names = statement.parameterNames
        if position == 0 && arguments.namedValues.isEmpty && arguments.values.count == names.count {
            // One positional value per parameter (named parameters take positional values too):
            // the statement takes the values as they are, without a copy.
            position = names.count
            return arguments.values
        }
        var result = ArgumentValues()
        for name in names {
            if let name, let value = arguments.namedValues[name] {
                result.append(value)
            } else if position < arguments.values.count {
                result.append(arguments.values[position])
                position += 1
            } else {
                throw statement.argumentError(
                    name.map { "missing statement argument: \($0)" }
                        ?? "wrong number of statement arguments: \(arguments.values.count)")
            }
        }
        return result
    }

    /// Throws if positional values remain once every statement took its own.
    func checkFullyConsumed(sql: String, publicStatementArguments: Bool) throws {
        if position < arguments.values.count {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(arguments.values.count)",
                sql: sql,
                arguments: arguments,
                publicStatementArguments: publicStatementArguments)
        }
    }
}
