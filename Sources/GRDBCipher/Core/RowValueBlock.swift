import CSQLCipher

/// The values of consecutive copied rows of one fetch, which have the same columns: one
/// allocation for many rows, instead of an array for each.
///
/// A row of the block keeps the whole block alive: blocks are small (``valueCapacity``
/// values), so that a row kept alone keeps little memory besides its own values.
///
/// Written by the fetch that fills it, on the connection's queue; read-only afterwards.
final class RowValueBlock {
    /// The number of values of a block (as many rows as fit, one at least).
    static let valueCapacity = 512

    let columns: [String]
    let columnCount: Int
    /// The decoders that the records of the fetch's rows share (see ``SharedRowDecoders``).
    let sharedDecoders: SharedRowDecoders
    /// The rows prefetched for the rows of the block, by association key (see
    /// ``BlockPrefetch``): the rows of a fetch need no extras of their own for them.
    /// (Written by the prefetch, before the rows are returned; read-only afterwards.)
    @exclusivity(unchecked) var prefetches: [BlockPrefetch] = []
    private let values: UnsafeMutablePointer<DatabaseValue>
    /// The number of rows the block can hold, and the number it holds.
    let rowCapacity: Int
    private(set) var rowCount = 0

    init(columns: [String], sharedDecoders: SharedRowDecoders) {
        self.columns = columns
        columnCount = columns.count
        self.sharedDecoders = sharedDecoders
        rowCapacity = Swift.max(1, RowValueBlock.valueCapacity / Swift.max(1, columns.count))
        values = .allocate(capacity: rowCapacity * columns.count)
    }

    deinit {
        // Value by value, with the destruction of a `DatabaseValue` inlined: only text and
        // blobs release something (`deinitialize(count:)` called the generic destruction of
        // the runtime for each value).
        var value = values
        let end = values + rowCount * columnCount
        while value < end {
            switch value.pointee.storage {
            case .null, .int64, .double: break
            case .string, .blob: value.deinitialize(count: 1)
            }
            value += 1
        }
        values.deallocate()
    }

    var isFull: Bool { rowCount == rowCapacity }

    /// Appends the current row of a statement that has the block's columns; returns the
    /// position of its first value.
    func appendRow(of sqliteStatement: SQLiteStatement) -> Int {
        assert(!isFull)
        let start = rowCount * columnCount
        // Each value through its `sqlite3_value`: one call to the statement for each value,
        // then cheap reads of the value (`sqlite3_column_type`, then `sqlite3_column_int64`,
        // each checked the statement and the column again). SQLite documents the reads of
        // such an unprotected value as not thread-safe: the statement is used by one thread
        // at a time, as for the other `sqlite3_column_*` calls.
        for column in 0..<columnCount {
            let value = sqlite3_column_value(sqliteStatement, CInt(column))!
            (values + start + column).initialize(to: DatabaseValue(sqliteValue: value))
        }
        rowCount += 1
        return start
    }

    @inline(__always)
    subscript(position: Int) -> DatabaseValue {
        values[position]
    }

    /// The integer at `position`, if the value is an integer (without copying the value).
    @inline(__always)
    func integer(at position: Int) -> Int64? {
        if case .int64(let integer) = values[position].storage { return integer }
        return nil
    }

    /// The values from `position`, valid as long as the block is.
    func values(from position: Int) -> UnsafePointer<DatabaseValue> {
        UnsafePointer(values + position)
    }
}

/// Copies the rows of one fetch (`fetchAll`) into blocks of values. The records decoded from
/// the copies share their decoders.
struct RowCopier {
    private let sharedDecoders = SharedRowDecoders()
    private var block: RowValueBlock?

    /// A copy of `row` that is safe to keep after its cursor moved on.
    mutating func copy(_ row: Row) -> Row {
        if let sqliteStatement = row.sqliteStatement {
            // A live row (without a copy of its storage).
            let block = blockWithRoom(columnsOf: row)
            let start = block.appendRow(of: sqliteStatement)
            return Row(block: block, start: start)
        }
        // (A `.statement` row always has its `sqliteStatement`: handled above.)
        if case .adapted(let base, let layout) = row.storage, base.isFetched {
            // The adapted rows of the fetch have the same columns too.
            let copy = Row(base: self.copy(base), layout: layout)
            copy.extras.sharedDecoders = sharedDecoders
            return copy
        }
        return row.copy()
    }

    /// A block with room for a row of the columns of `row`, a live row of the fetch.
    private mutating func blockWithRoom(columnsOf row: Row) -> RowValueBlock {
        if let block, !block.isFull { return block }
        let newBlock = RowValueBlock(columns: row.columnNames, sharedDecoders: sharedDecoders)
        block = newBlock
        return newBlock
    }
}
