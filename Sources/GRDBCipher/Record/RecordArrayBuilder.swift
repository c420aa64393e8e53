/// Collects the records of a fetch into an array.
///
/// The fetch methods are generic, and run unspecialized: there, each call to a method of a
/// generic type (`Array.append`) looks up the type's generic metadata (about 330
/// instructions a record). The builder's methods are inlined (they need the element's
/// metadata only), grow a buffer of their own, and make the array once, at the end.
///
/// Used on one thread, for one fetch.
struct RecordArrayBuilder<Element>: ~Copyable {
    private var buffer: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    @inline(__always)
    init(capacity: Int = 16) {
        self.capacity = Swift.max(capacity, 1)
        buffer = .allocate(capacity: self.capacity)
    }

    deinit {
        buffer.deinitialize(count: count)
        buffer.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (buffer + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBuffer = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBuffer.moveInitialize(from: buffer, count: count)
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
    }

    /// The array of the collected elements (the builder is left empty).
    consuming func makeArray() -> [Element] {
        let count = self.count
        let buffer = self.buffer
        self.count = 0
        return Array(unsafeUninitializedCapacity: count) { target, initializedCount in
            target.baseAddress?.moveInitialize(from: buffer, count: count)
            initializedCount = count
        }
    }
}

extension FetchableRecord {
    /// The records decoded from `rows`, in order.
    static func decodeAll(_ rows: [Row]) throws -> [Self] {
        var builder = RecordArrayBuilder<Self>(capacity: rows.count)
        for row in rows {
            builder.append(try Self(row: row))
        }
        return builder.makeArray()
    }
}

extension FetchableRecord {
    /// The records decoded from prefetched rows, in order. The rows that the records do not
    /// keep are reused (see ``PrefetchedRowIterator``).
    static func decodeAll(_ group: PrefetchedGroup) throws -> [Self] {
        // The number of records is known: they are decoded into the array's storage.
        try Array(unsafeUninitializedCapacity: group.count) { buffer, initializedCount in
            var iterator = group.makeRowIterator()
            while iterator.advance() {
                (buffer.baseAddress.unsafelyUnwrapped + initializedCount).initialize(to: try Self(row: iterator.row))
                initializedCount += 1
            }
        }
    }
}
