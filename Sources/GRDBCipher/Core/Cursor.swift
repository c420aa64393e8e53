/// A type that supplies the values of some external resource, one at a time.
///
/// ```swift
/// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
/// while let name = try names.next() {
///     print(name)
/// }
/// ```
///
/// Cursors iterate a live statement: they are only valid inside the database access closure
/// that made them. Turn one into an array with `try Array(cursor)`.
public protocol Cursor<Element>: AnyObject {
    /// The type of the elements.
    associatedtype Element

    /// Advances to the next element and returns it, or nil when there is none.
    func next() throws -> Element?

    /// Calls `body` on each remaining element. The default implementation calls ``next()``;
    /// a cursor may implement it on its own, and collection initializers (`Array(cursor)`…)
    /// and the `forEach` of wrapping cursors (`map`, `filter`, `enumerated`) go through it.
    func forEach(_ body: (Element) throws -> Void) throws
}

extension Cursor {
    /// Whether the cursor has no element left. Consumes one element if there is one.
    public var isEmpty: Bool {
        get throws { try next() == nil }
    }

    /// Returns whether an element satisfies `predicate`.
    public func contains(where predicate: (Element) throws -> Bool) throws -> Bool {
        while let element = try next() {
            if try predicate(element) { return true }
        }
        return false
    }

    /// Returns the first element that satisfies `predicate`.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() {
            if try predicate(element) { return element }
        }
        return nil
    }

    /// Calls `body` on each remaining element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }

    /// Combines the elements with `nextPartialResult`.
    public func reduce<Result>(_ initialResult: Result, _ nextPartialResult: (Result, Element) throws -> Result) throws -> Result {
        var result = initialResult
        while let element = try next() {
            result = try nextPartialResult(result, element)
        }
        return result
    }

    /// Combines the elements with `updateAccumulatingResult`.
    public func reduce<Result>(into initialResult: Result, _ updateAccumulatingResult: (inout Result, Element) throws -> Void) throws -> Result {
        var result = initialResult
        while let element = try next() {
            try updateAccumulatingResult(&result, element)
        }
        return result
    }

    /// Returns the smallest element according to `areInIncreasingOrder`.
    public func min(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(element, result) { result = element }
        }
        return result
    }

    /// Returns the largest element according to `areInIncreasingOrder`.
    public func max(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        try min { try areInIncreasingOrder($1, $0) }
    }

    /// A cursor of (offset, element) pairs.
    public func enumerated() -> EnumeratedCursor<Self> {
        EnumeratedCursor(self)
    }

    /// A cursor of the transformed elements.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(self, transform)
    }

    /// A cursor of the non-nil transformed elements.
    public func compactMap<T>(_ transform: @escaping (Element) throws -> T?) -> MapCursor<FilterCursor<MapCursor<Self, T?>>, T> {
        map(transform).filter { $0 != nil }.map { $0! }
    }

    /// A cursor of the elements that satisfy `isIncluded`.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(self, isIncluded)
    }

    /// A cursor of the concatenated sequences produced by `transform`.
    public func flatMap<S: Sequence>(_ transform: @escaping (Element) throws -> S) -> FlattenCursor<MapCursor<Self, AnyCursor<S.Element>>> {
        FlattenCursor(map { try AnyCursor(iterator: transform($0).makeIterator()) })
    }

    /// A cursor of the concatenated cursors produced by `transform`.
    public func flatMap<C: Cursor>(_ transform: @escaping (Element) throws -> C) -> FlattenCursor<MapCursor<Self, C>> {
        FlattenCursor(map(transform))
    }

    /// A cursor of at most `maxLength` elements.
    public func prefix(_ maxLength: Int) -> PrefixCursor<Self> {
        PrefixCursor(self, maxLength: maxLength)
    }

    /// A cursor of the leading elements that satisfy `predicate`.
    public func prefix(while predicate: @escaping (Element) throws -> Bool) -> PrefixWhileCursor<Self> {
        PrefixWhileCursor(self, predicate)
    }

    /// A cursor without its first element.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY score DESC")
    /// let runnersUp = try Array(names.dropFirst())
    /// ```
    public func dropFirst() -> DropFirstCursor<Self> {
        dropFirst(1)
    }

    /// A cursor without its first `k` elements.
    public func dropFirst(_ k: Int) -> DropFirstCursor<Self> {
        DropFirstCursor(self, count: k)
    }

    /// A cursor without its leading elements that satisfy `predicate`.
    public func drop(while predicate: @escaping (Element) throws -> Bool) -> DropWhileCursor<Self> {
        DropWhileCursor(self, predicate)
    }
}

extension Cursor where Element: Equatable {
    /// Returns whether the cursor contains `element`.
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

extension Cursor where Element: Comparable {
    /// The smallest element.
    public func min() throws -> Element? { try min(by: <) }

    /// The largest element.
    public func max() throws -> Element? { try max(by: <) }
}

extension Cursor where Element: Sequence {
    /// A cursor of the elements of the sequences.
    public func joined() -> FlattenCursor<MapCursor<Self, AnyCursor<Element.Element>>> {
        flatMap { $0 }
    }
}

extension Cursor where Element: Cursor {
    /// A cursor of the elements of the cursors.
    public func joined() -> FlattenCursor<Self> {
        FlattenCursor(self)
    }
}

extension Cursor where Element: StringProtocol {
    /// The elements joined with `separator`.
    public func joined(separator: String = "") throws -> String {
        var result = ""
        var first = true
        while let element = try next() {
            if !first { result += separator }
            result += element
            first = false
        }
        return result
    }
}

// MARK: - Cursor types

/// A type-erased cursor.
public final class AnyCursor<Element>: Cursor {
    private let element: () throws -> Element?

    /// Wraps `base`.
    public init<C: Cursor>(_ base: C) where C.Element == Element {
        element = base.next
    }

    /// A cursor over the elements of an iterator.
    public init<I: IteratorProtocol>(iterator: I) where I.Element == Element {
        var iterator = iterator
        element = { iterator.next() }
    }

    /// A cursor over the elements of a sequence.
    public convenience init<S: Sequence>(_ sequence: S) where S.Element == Element {
        self.init(iterator: sequence.makeIterator())
    }

    /// A cursor whose elements come from `body`.
    public init(_ body: @escaping () throws -> Element?) {
        element = body
    }

    public func next() throws -> Element? { try element() }
}

/// A cursor of (offset, element) pairs.
public final class EnumeratedCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var offset = 0

    init(_ base: Base) { self.base = base }

    public func next() throws -> (offset: Int, element: Base.Element)? {
        guard let element = try base.next() else { return nil }
        defer { offset += 1 }
        return (offset, element)
    }

    public func forEach(_ body: ((offset: Int, element: Base.Element)) throws -> Void) throws {
        try base.forEach { element in
            defer { offset += 1 }
            try body((offset, element))
        }
    }
}

/// A cursor of transformed elements.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element

    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    public func next() throws -> Element? {
        guard let element = try base.next() else { return nil }
        return try transform(element)
    }

    public func forEach(_ body: (Element) throws -> Void) throws {
        try base.forEach { try body(transform($0)) }
    }
}

/// A cursor of the elements that satisfy a predicate.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool

    init(_ base: Base, _ isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    public func next() throws -> Base.Element? {
        while let element = try base.next() {
            if try isIncluded(element) { return element }
        }
        return nil
    }

    public func forEach(_ body: (Base.Element) throws -> Void) throws {
        try base.forEach { element in
            if try isIncluded(element) { try body(element) }
        }
    }
}

/// A cursor of the elements of inner cursors.
public final class FlattenCursor<Base: Cursor>: Cursor where Base.Element: Cursor {
    private let base: Base
    private var inner: Base.Element?

    init(_ base: Base) { self.base = base }

    public func next() throws -> Base.Element.Element? {
        while true {
            if let element = try inner?.next() { return element }
            guard let nextInner = try base.next() else { return nil }
            inner = nextInner
        }
    }
}

/// A cursor of at most some number of elements.
public final class PrefixCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let maxLength: Int
    private var count = 0

    init(_ base: Base, maxLength: Int) {
        precondition(maxLength >= 0, "Can't take a prefix of negative length from a cursor")
        self.base = base
        self.maxLength = maxLength
    }

    public func next() throws -> Base.Element? {
        guard count < maxLength else { return nil }
        count += 1
        return try base.next()
    }
}

/// A cursor of the leading elements that satisfy a predicate.
public final class PrefixWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var done = false

    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    public func next() throws -> Base.Element? {
        guard !done, let element = try base.next() else { return nil }
        if try predicate(element) { return element }
        done = true
        return nil
    }
}

/// A cursor without its first elements.
public final class DropFirstCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var toDrop: Int

    init(_ base: Base, count: Int) {
        precondition(count >= 0, "Can't drop a negative number of elements from a cursor")
        self.base = base
        self.toDrop = count
    }

    public func next() throws -> Base.Element? {
        while toDrop > 0 {
            toDrop -= 1
            if try base.next() == nil { return nil }
        }
        return try base.next()
    }
}

/// A cursor without its leading elements that satisfy a predicate.
public final class DropWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var dropping = true

    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    public func next() throws -> Base.Element? {
        if dropping {
            while let element = try base.next() {
                if try !predicate(element) {
                    dropping = false
                    return element
                }
            }
            dropping = false
            return nil
        }
        return try base.next()
    }
}
