/// The positional values of ``StatementArguments``: database values in memory of their own,
/// copied on write.
///
/// Not an `Array`: an array of `DatabaseValue`s destroys its values through the runtime's
/// generic witnesses when it is freed (about 33 instructions a value), and some of its
/// initializers look its type up at run time (about 500 instructions a call). A statement run
/// with new arguments frees the previous ones: with an array, that cost more than binding the
/// values (docs/Performance.md, W4).
///
/// `@unchecked Sendable` (`ManagedBuffer`, its storage's base class, is not `Sendable`): values
/// of this type change their storage only while they hold the only reference to it (copy on
/// write), and a storage that two values share, on one thread or several, is only read.
struct ArgumentValues: RandomAccessCollection, Hashable, @unchecked Sendable, ExpressibleByArrayLiteral {
    /// Nil when empty: empty arguments allocate nothing.
    private var storage: ArgumentValueStorage?

    init() {
        storage = nil
    }

    init(arrayLiteral values: DatabaseValue...) {
        self.init(values)
    }

    init<S: Sequence>(_ values: S) where S.Element == DatabaseValue {
        self.init()
        for value in values {
            append(value)
        }
    }

    /// `count` values, which `initialize` must initialize, in memory of `count` values.
    init(count: Int, initializingWith initialize: (UnsafeMutablePointer<DatabaseValue>) -> Void) {
        guard count > 0 else {
            storage = nil
            return
        }
        let storage = ArgumentValueStorage.make(capacity: count)
        storage.withUnsafeMutablePointers { header, values in
            initialize(values)
            header.pointee.count = count
        }
        self.storage = storage
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        guard let storage else { return 0 }
        return storage.withUnsafeMutablePointerToHeader { $0.pointee.count }
    }

    subscript(position: Int) -> DatabaseValue {
        precondition(position >= 0 && position < endIndex, "index out of range")
        return storage.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0[position] }
    }

    /// Calls `body` with the values, without copying them.
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<DatabaseValue>) throws -> Result) rethrows -> Result {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try storage.withUnsafeMutablePointers { header, values in
            try body(UnsafeBufferPointer(start: values, count: header.pointee.count))
        }
    }

    mutating func append(_ value: DatabaseValue) {
        reserveRoom(for: 1)
        storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, values in
            (values + header.pointee.count).initialize(to: value)
            header.pointee.count += 1
        }
    }

    mutating func append(contentsOf other: ArgumentValues) {
        let otherCount = other.count
        guard otherCount > 0 else { return }
        reserveRoom(for: otherCount)
        other.withUnsafeBufferPointer { others in
            storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, values in
                (values + header.pointee.count).initialize(from: others.baseAddress!, count: otherCount)
                header.pointee.count += otherCount
            }
        }
    }

    /// Makes the storage unique, with room for `extra` more values.
    private mutating func reserveRoom(for extra: Int) {
        if storage == nil {
            storage = ArgumentValueStorage.make(capacity: Swift.max(extra, 4))
            return
        }
        // (Asked before `current` below holds a second reference.)
        let isUnique = isKnownUniquelyReferenced(&storage)
        let current = storage.unsafelyUnwrapped
        let (count, capacity) = current.withUnsafeMutablePointerToHeader { ($0.pointee.count, $0.pointee.capacity) }
        if isUnique && count + extra <= capacity { return }
        let copy = ArgumentValueStorage.make(capacity: Swift.max(count + extra, capacity * 2))
        current.withUnsafeMutablePointers { header, values in
            copy.withUnsafeMutablePointers { copyHeader, copyValues in
                if isUnique {
                    copyValues.moveInitialize(from: values, count: count)
                    header.pointee.count = 0
                } else {
                    copyValues.initialize(from: values, count: count)
                }
                copyHeader.pointee.count = count
            }
        }
        storage = copy
    }

    static func == (lhs: ArgumentValues, rhs: ArgumentValues) -> Bool {
        lhs.elementsEqual(rhs)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for value in self {
            hasher.combine(value)
        }
    }
}

/// What ``ArgumentValueStorage`` keeps before its values.
struct ArgumentValueHeader {
    var count: Int
    var capacity: Int
}

/// The storage of ``ArgumentValues`` (see its `Sendable` conformance).
final class ArgumentValueStorage: ManagedBuffer<ArgumentValueHeader, DatabaseValue> {
    static func make(capacity: Int) -> ArgumentValueStorage {
        let buffer = create(minimumCapacity: capacity) { _ in ArgumentValueHeader(count: 0, capacity: capacity) }
        // `create`, called on this class, makes an instance of this class.
        return unsafeDowncast(buffer, to: ArgumentValueStorage.self)
    }

    deinit {
        withUnsafeMutablePointers { header, values in
            destroyDatabaseValues(values, count: header.pointee.count)
        }
    }
}

/// Destroys `count` values, one at a time: `deinitialize(count:)` calls the runtime's generic
/// `swift_arrayDestroy`, which destroys each value through its witnesses (about 33 instructions
/// a value, against a few for a moved value). NULL, integers and doubles hold no reference:
/// they are skipped without the call that destroys an enum value (16 instructions a value).
@inline(__always)
func destroyDatabaseValues(_ values: UnsafeMutablePointer<DatabaseValue>, count: Int) {
    for index in 0..<count {
        switch values[index].storage {
        case .null, .int64, .double:
            continue
        case .string, .blob:
            _ = (values + index).move()
        }
    }
}
