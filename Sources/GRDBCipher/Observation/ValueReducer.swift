import Foundation

// MARK: - Reducer protocols

/// The part of a value reducer that runs in a database access: it fetches what the reducer
/// turns into observed values.
///
/// It is public so that reducers written for GRDB compile; applications rarely need it.
public protocol _ValueReducerFetcher: Sendable {
    /// What the fetcher fetches.
    associatedtype Value: Sendable

    /// Fetches from the database.
    func fetch(_ db: Database) throws -> Value
}

/// The requirements of ``ValueReducer``. Public so that reducers written for GRDB compile.
public protocol _ValueReducer: SendableMetatype {
    /// The fetcher of the reducer.
    associatedtype Fetcher: _ValueReducerFetcher

    /// The observed values.
    associatedtype Value: Sendable

    /// A fetcher, used for every fetch of one observation.
    func _makeFetcher() -> Fetcher

    /// Turns a fetched value into an observed value, or nil when nothing is to be notified.
    mutating func _value(_ fetched: Fetcher.Value) throws -> Value?
}

/// Turns the values that a ``ValueObservation`` fetches into the values it notifies.
///
/// Every `ValueObservation` has a reducer: ``ValueReducers/Fetch`` for the values of a
/// closure, wrapped by operators such as ``ValueObservation/map(_:)`` and
/// ``ValueObservation/removeDuplicates()``. Each start of an observation uses its own copy.
public protocol ValueReducer: _ValueReducer {}

/// Namespace of the reducers that ``ValueObservation`` uses.
public enum ValueReducers {
    /// The reducer of ``ValueObservation/tracking(_:)``: notifies each fetched value.
    public struct Fetch<Value: Sendable>: ValueReducer, _ValueReducerFetcher {
        private let fetchValue: @Sendable (Database) throws -> Value

        init(_ fetch: @escaping @Sendable (Database) throws -> Value) {
            fetchValue = fetch
        }

        public func _makeFetcher() -> Self { self }

        public func _value(_ fetched: Value) throws -> Value? { fetched }

        public func fetch(_ db: Database) throws -> Value {
            try fetchValue(db)
        }
    }

    /// The reducer of ``ValueObservation/map(_:)``: transforms the values of its base.
    public struct Map<Base: _ValueReducer, Value: Sendable>: ValueReducer {
        private var base: Base
        private let transform: @Sendable (Base.Value) throws -> Value

        init(_ base: Base, _ transform: @escaping @Sendable (Base.Value) throws -> Value) {
            self.base = base
            self.transform = transform
        }

        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Value? {
            guard let value = try base._value(fetched) else { return nil }
            return try transform(value)
        }
    }

    /// The reducer of ``ValueObservation/removeDuplicates()``: skips a value equal to the
    /// previous notified one.
    public struct RemoveDuplicates<Base: ValueReducer>: ValueReducer {
        private var base: Base
        private var previous: Base.Value?
        private let predicate: (Base.Value, Base.Value) -> Bool

        init(_ base: Base, predicate: @escaping (Base.Value, Base.Value) -> Bool) {
            self.base = base
            self.predicate = predicate
        }

        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            if let previous, predicate(previous, value) { return nil }
            previous = value
            return value
        }
    }

    /// The reducer of ``ValueObservation/handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``
    /// and ``ValueObservation/print(_:to:)``: the values of its base, unchanged, told to
    /// `didReceiveValue` on their way; the observation tells the other events.
    public struct Trace<Base: ValueReducer>: ValueReducer {
        private var base: Base
        private let didReceiveValue: (@Sendable (Base.Value) -> Void)?

        init(_ base: Base, didReceiveValue: (@Sendable (Base.Value) -> Void)?) {
            self.base = base
            self.didReceiveValue = didReceiveValue
        }

        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            didReceiveValue?(value)
            return value
        }
    }
}

extension ValueReducers.Fetch: Sendable {}
extension ValueReducers.Map: Sendable where Base: Sendable {}
extension ValueReducers.Trace: Sendable where Base: Sendable {}
