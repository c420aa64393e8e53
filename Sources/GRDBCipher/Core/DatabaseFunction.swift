import CSQLCipher
import Foundation

/// A custom SQL function, scalar or aggregate.
///
/// ```swift
/// let succ = DatabaseFunction("succ", argumentCount: 1, pure: true) { dbValues in
///     guard let int = Int.fromDatabaseValue(dbValues[0]) else { return nil }
///     return int + 1
/// }
/// try dbQueue.write { db in
///     db.add(function: succ)
///     try Int.fetchOne(db, sql: "SELECT succ(1)") // 2
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/create_function.html>
public final class DatabaseFunction: Hashable, Identifiable, Sendable {
    /// The name of the function.
    public let name: String
    /// The identity of the function: its name (ignoring case) and its argument count.
    public let id: ID
    let argumentCount: Int32?
    let pure: Bool
    let kind: Kind

    enum Kind: Sendable {
        case scalar(@Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
        case aggregate(AggregateType)
    }

    /// `@unchecked Sendable`: a metatype is immutable; the aggregate values it makes stay on the
    /// connection's queue.
    struct AggregateType: @unchecked Sendable {
        let type: any DatabaseAggregate.Type
    }

    /// The identity of a function, as SQLite knows it: its name, ignoring case, and its
    /// argument count (nil for any number of arguments). Two functions with the same
    /// identity replace each other in a connection.
    ///
    /// ```swift
    /// let a = DatabaseFunction("succ", argumentCount: 1) { _ in nil }
    /// let b = DatabaseFunction("SUCC", argumentCount: 1) { _ in nil }
    /// a.id == b.id // true
    /// ```
    public struct ID: Hashable, Sendable {
        let name: String
        let argumentCount: Int32?

        init(name: String, argumentCount: Int32?) {
            self.name = name.lowercased()
            self.argumentCount = argumentCount
        }
    }

    /// A scalar function. `argumentCount` nil means any number of arguments. A pure function
    /// always gives the same result for the same arguments, which lets SQLite optimize it.
    public init(
        _ name: String,
        argumentCount: Int? = nil,
        pure: Bool = false,
        function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
    {
        self.name = name
        let argumentCount = argumentCount.map { Int32($0) }
        self.argumentCount = argumentCount
        self.id = ID(name: name, argumentCount: argumentCount)
        self.pure = pure
        self.kind = .scalar(function)
    }

    /// An aggregate function, computed by a new `Aggregate` value for each group.
    ///
    /// ```swift
    /// struct MySum: DatabaseAggregate {
    ///     var sum = 0
    ///     mutating func step(_ dbValues: [DatabaseValue]) { sum += Int.fromDatabaseValue(dbValues[0]) ?? 0 }
    ///     func finalize() -> (any DatabaseValueConvertible)? { sum }
    /// }
    /// let mySum = DatabaseFunction("mysum", argumentCount: 1, aggregate: MySum.self)
    /// ```
    public init<Aggregate: DatabaseAggregate>(
        _ name: String,
        argumentCount: Int? = nil,
        pure: Bool = false,
        aggregate: Aggregate.Type)
    {
        self.name = name
        let argumentCount = argumentCount.map { Int32($0) }
        self.argumentCount = argumentCount
        self.id = ID(name: name, argumentCount: argumentCount)
        self.pure = pure
        self.kind = .aggregate(AggregateType(type: aggregate))
    }

    public static func == (lhs: DatabaseFunction, rhs: DatabaseFunction) -> Bool {
        lhs.id == rhs.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }

    var eTextRep: CInt {
        SQLITE_UTF8 | (pure ? SQLITE_DETERMINISTIC : 0)
    }
}

/// The state of an aggregate function over one group of rows.
public protocol DatabaseAggregate {
    /// Creates an empty aggregate.
    init()

    /// Adds the arguments of one row.
    mutating func step(_ dbValues: [DatabaseValue]) throws

    /// Returns the result.
    func finalize() throws -> (any DatabaseValueConvertible)?
}

extension Database {
    /// Adds or replaces a custom SQL function.
    public func add(function: DatabaseFunction) {
        preconditionValidAccess()
        functions[function.id] = function
        // Unsafe: retained for SQLite, which releases it with xDestroy when the function is
        // replaced or removed, when the connection closes, or when registering it fails.
        let context = Unmanaged.passRetained(FunctionContext(function)).toOpaque()
        let argumentCount = function.argumentCount ?? -1
        let code: CInt
        switch function.kind {
        case .scalar:
            code = sqlite3_create_function_v2(
                handle, function.name, argumentCount, function.eTextRep, context,
                { context, argc, argv in
                    // Unsafe: the user data is the context retained above, until xDestroy.
                    let box = Unmanaged<FunctionContext>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                    guard case .scalar(let body) = box.function.kind else { return }
                    do {
                        let result = try body(databaseValues(argc, argv))
                        setResult(context, result?.databaseValue ?? .null)
                    } catch {
                        reportError(context, error)
                    }
                },
                nil, nil,
                // Unsafe: xDestroy, called once by SQLite: balances the retain above.
                { context in Unmanaged<FunctionContext>.fromOpaque(context!).release() })
        case .aggregate:
            code = sqlite3_create_function_v2(
                handle, function.name, argumentCount, function.eTextRep, context,
                nil,
                { context, argc, argv in
                    guard let state = aggregateState(context, create: true) else {
                        sqlite3_result_error_nomem(context)
                        return
                    }
                    do {
                        try state.aggregate!.step(databaseValues(argc, argv))
                    } catch {
                        state.error = error
                    }
                },
                { context in
                    let state = aggregateState(context, create: true)
                    defer { releaseAggregateState(context) }
                    guard let state, let aggregate = state.aggregate else {
                        sqlite3_result_error_nomem(context)
                        return
                    }
                    if let error = state.error {
                        reportError(context, error)
                        return
                    }
                    do {
                        setResult(context, try aggregate.finalize()?.databaseValue ?? .null)
                    } catch {
                        reportError(context, error)
                    }
                },
                // Unsafe: xDestroy, called once by SQLite: balances the retain above.
                { context in Unmanaged<FunctionContext>.fromOpaque(context!).release() })
        }
        precondition(code == SQLITE_OK, "could not add function \(function.name): \(String(cString: sqlite3_errstr(code)))")
    }

    /// Removes a custom SQL function.
    public func remove(function: DatabaseFunction) {
        preconditionValidAccess()
        functions[function.id] = nil
        sqlite3_create_function_v2(
            handle, function.name, function.argumentCount ?? -1, function.eTextRep,
            nil, nil, nil, nil, nil)
    }
}

/// Retained by SQLite for as long as the function is registered.
private final class FunctionContext {
    let function: DatabaseFunction
    init(_ function: DatabaseFunction) { self.function = function }
}

/// The aggregate of one group, held by SQLite's aggregate context.
private final class AggregateState {
    var aggregate: (any DatabaseAggregate)?
    var error: (any Error)?
}

private func aggregateState(_ context: OpaquePointer?, create: Bool) -> AggregateState? {
    let size = create ? CInt(MemoryLayout<UnsafeMutableRawPointer?>.size) : 0
    // Unsafe: the aggregate context is one pointer-sized slot, zeroed (nil) by SQLite when it
    // allocates it, and used only as that slot; it lives until the group's xFinal returns.
    guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else {
        return nil
    }
    if let existing = slot.pointee {
        // Unsafe: the state the slot retains (below) until releaseAggregateState.
        return Unmanaged<AggregateState>.fromOpaque(existing).takeUnretainedValue()
    }
    // Unsafe: the user data is the function's context, retained by SQLite until xDestroy.
    let box = Unmanaged<FunctionContext>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    guard case .aggregate(let aggregateType) = box.function.kind else { return nil }
    let state = AggregateState()
    state.aggregate = aggregateType.type.init()
    // Unsafe: the slot retains the state until xFinal releases it (releaseAggregateState);
    // SQLite calls xFinal for every group that has a context, even when the query stops.
    slot.pointee = Unmanaged.passRetained(state).toOpaque()
    return state
}

private func releaseAggregateState(_ context: OpaquePointer?) {
    // Unsafe: the slot of aggregateState (size 0: never allocated here), read in xFinal.
    guard let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
          let existing = slot.pointee
    else { return }
    // Unsafe: balances the retain of aggregateState, once: the slot is cleared.
    Unmanaged<AggregateState>.fromOpaque(existing).release()
    slot.pointee = nil
}

private func databaseValues(_ argc: CInt, _ argv: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
    (0..<Int(argc)).map { DatabaseValue(sqliteValue: argv![$0]!) }
}

private func setResult(_ context: OpaquePointer?, _ value: DatabaseValue) {
    switch value.storage {
    case .null:
        sqlite3_result_null(context)
    case .int64(let int64):
        sqlite3_result_int64(context, int64)
    case .double(let double):
        sqlite3_result_double(context, double)
    case .string(let string):
        string.withSQLiteText { text, count in
            sqlite3_result_text(context, text, count, SQLITE_TRANSIENT)
        }
    case .blob(let data):
        data.withUnsafeBytes { buffer in
            sqlite3_result_blob(context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), CInt(buffer.count), SQLITE_TRANSIENT)
        }
    }
}

/// A `DatabaseError` thrown by a function keeps its code; other errors become SQLITE_ERROR with
/// their description.
private func reportError(_ context: OpaquePointer?, _ error: any Error) {
    if let error = error as? DatabaseError {
        sqlite3_result_error(context, error.message ?? "", -1)
        sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
    } else {
        sqlite3_result_error(context, "\(error)", -1)
    }
}
