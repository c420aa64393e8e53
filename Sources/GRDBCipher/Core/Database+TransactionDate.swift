import Foundation

/// A type that gives the date of database transactions (see ``Database/transactionDate``).
///
/// ```swift
/// var config = Configuration()
/// config.transactionClock = .custom { _ in Date(timeIntervalSince1970: 0) } // tests, previews
/// ```
public protocol TransactionClock: Sendable {
    /// The date of the transaction that starts, or of the current statement outside of a
    /// transaction.
    func now(_ db: Database) throws -> Date
}

/// The default clock: the current date, read once per transaction.
public struct DefaultTransactionClock: TransactionClock {
    /// Creates the clock that reads the current date at the start of each transaction.
    public init() {}
    public func now(_ db: Database) throws -> Date { Date() }
}

/// A clock that runs your function.
public struct CustomTransactionClock: TransactionClock {
    private let now: @Sendable (Database) throws -> Date

    /// Creates a clock from a function.
    public init(_ now: @escaping @Sendable (Database) throws -> Date) {
        self.now = now
    }

    public func now(_ db: Database) throws -> Date { try now(db) }
}

extension TransactionClock where Self == DefaultTransactionClock {
    /// The default clock: the current date, read once per transaction.
    public static var `default`: DefaultTransactionClock { DefaultTransactionClock() }
}

extension TransactionClock where Self == CustomTransactionClock {
    /// A clock that runs your function.
    public static func custom(_ now: @escaping @Sendable (Database) throws -> Date) -> CustomTransactionClock {
        CustomTransactionClock(now)
    }
}

extension Database {
    /// The date of the current transaction: the same for every call until the transaction
    /// ends, so that records saved together get the same timestamp. Outside of a transaction,
    /// each call gives a new date. The date comes from ``Configuration/transactionClock``.
    ///
    /// ```swift
    /// mutating func willInsert(_ db: Database) throws {
    ///     if creationDate == nil {
    ///         creationDate = try db.transactionDate
    ///     }
    /// }
    /// ```
    public var transactionDate: Date {
        get throws {
            guard isInsideTransaction else {
                return try configuration.transactionClock.now(self)
            }
            if let currentTransactionDate { return currentTransactionDate }
            let date = try configuration.transactionClock.now(self)
            currentTransactionDate = date
            return date
        }
    }
}
