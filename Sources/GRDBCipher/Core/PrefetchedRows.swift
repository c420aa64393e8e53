// The rows that `including(all:)` prefetches: the rows of one prefetch query, grouped by the
// parent row they belong to, kept together in one store that the parent rows share.
//
// Unadapted rows without prefetched rows of their own (the common case) are kept as values in
// blocks, without a `Row` for each: a `Row` is made when the rows of a parent are asked for
// (`row.prefetchedRows["books"]`), and the records of a parent decode from rows that are reused
// from one record to the next when the records did not keep them.

/// The rows prefetched for a row, for one association key.
struct PrefetchedEntry {
    let key: String
    let group: PrefetchedGroup
}

/// The rows of one parent row in the store of a prefetch query, in the order of the query.
struct PrefetchedGroup {
    let store: PrefetchedRowStore
    /// The position of the group in the store, or -1 for no rows.
    let index: Int

    /// The number of rows.
    var count: Int {
        store.range(ofGroup: index).count
    }

    /// The rows (made for each call when the store keeps values).
    var rows: [Row] {
        store.rows(ofGroup: index)
    }

    /// An iterator over the rows, for decoding records: see ``PrefetchedRowIterator``.
    func makeRowIterator() -> PrefetchedRowIterator {
        PrefetchedRowIterator(store: store, range: store.range(ofGroup: index))
    }
}

/// The rows of a prefetch query, before they are grouped: the rows themselves, or their
/// values in blocks.
struct PrefetchQueryRows {
    /// The rows, when they are made: adapted rows (joined associations), or rows with
    /// prefetched rows of their own.
    fileprivate(set) var rows: [Row]?
    /// Otherwise, the values of the rows, in blocks of `rowsPerBlock` rows.
    fileprivate(set) var blocks: [RowValueBlock] = []
    fileprivate(set) var rowsPerBlock = 1
    fileprivate(set) var columnCount = 0
    fileprivate(set) var columnNames: [String] = []
    /// The number of rows.
    fileprivate(set) var count = 0

    /// Fetches the rows of a prefetch request.
    static func fetch(_ db: Database, _ request: QueryInterfaceRequest<Row>) throws -> PrefetchQueryRows {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.adapter != nil || prepared.supplementaryFetch != nil {
            let rows = try prepared.supplementedRows(db) ?? Row.fetchAll(prepared.statement, adapter: prepared.adapter)
            var result = PrefetchQueryRows()
            result.rows = rows
            result.count = rows.count
            return result
        }
        // The values go straight from the statement into blocks (without a cursor and its
        // live row).
        var result = PrefetchQueryRows()
        result.columnNames = prepared.statement.columnNames
        result.columnCount = result.columnNames.count
        let stepper = try StatementStepper(statement: prepared.statement, arguments: nil)
        let sqliteStatement = stepper.sqliteStatement
        let sharedDecoders = SharedRowDecoders()
        var more = try stepper.step()
        while more {
            let block = RowValueBlock(columns: result.columnNames, sharedDecoders: sharedDecoders)
            result.blocks.append(block)
            result.rowsPerBlock = block.rowCapacity
            repeat {
                _ = block.appendRow(of: sqliteStatement)
                result.count += 1
                more = try stepper.step()
            } while more && !block.isFull
        }
        return result
    }

    /// The position in the unadapted rows of the column named `name`, if any.
    func index(ofColumn name: String) -> Int? {
        if let rows {
            return rows.first?.unadapted.index(forColumn: name)
        }
        return columnNames.firstIndex { $0.equalsIgnoringASCIICase(name) }
    }

    /// The value of the unadapted column `column` of the row at `index`.
    @inline(__always)
    func value(row index: Int, column: Int) -> DatabaseValue {
        if let rows {
            return rows[index].unadapted.databaseValue(at: column)
        }
        let (block, row) = index.quotientAndRemainder(dividingBy: rowsPerBlock)
        return blocks[block][row * columnCount + column]
    }

    /// The integer value of the unadapted column `column` of the row at `index`, if it is an
    /// integer (without copying the value).
    @inline(__always)
    func integer(row index: Int, column: Int) -> Int64? {
        if rows != nil {
            if case .int64(let integer) = value(row: index, column: column).storage { return integer }
            return nil
        }
        let (block, row) = index.quotientAndRemainder(dividingBy: rowsPerBlock)
        return blocks[block].integer(at: row * columnCount + column)
    }
}

/// The rows of a prefetch query, grouped by parent (see ``PrefetchedGroup``).
///
/// Made by the prefetch, on the connection's queue; read-only afterwards, except for the rows
/// ``PrefetchedRowIterator`` reuses, which nothing else refers to.
final class PrefetchedRowStore {
    private let queryRows: PrefetchQueryRows
    /// The positions of the rows, group after group; in a group, in the order of the query.
    private let order: [Int32]
    /// The start of each group in `order`, then the end of the last.
    private let groupStarts: [Int32]

    /// `groupOfRow`: the group of each row (-1: none); `groupCount`: the number of groups.
    init(rows queryRows: PrefetchQueryRows, groupOfRow: [Int32], groupCount: Int) {
        self.queryRows = queryRows
        // A counting sort: the rows of each group keep the order of the query.
        var starts = [Int32](repeating: 0, count: groupCount + 1)
        for group in groupOfRow where group >= 0 {
            starts[Int(group) + 1] += 1
        }
        for group in 0..<groupCount {
            starts[group + 1] += starts[group]
        }
        var next = starts
        var order = [Int32](repeating: 0, count: Int(starts[groupCount]))
        for (row, group) in groupOfRow.enumerated() where group >= 0 {
            let position = Int(next[Int(group)])
            order[position] = Int32(row)
            next[Int(group)] = Int32(position + 1)
        }
        self.order = order
        groupStarts = starts
    }

    /// The positions in `order` of the rows of a group.
    func range(ofGroup group: Int) -> Range<Int> {
        guard group >= 0 else { return 0..<0 }
        return Int(groupStarts[group])..<Int(groupStarts[group + 1])
    }

    /// The rows of a group (new rows when the store keeps values).
    func rows(ofGroup group: Int) -> [Row] {
        let range = range(ofGroup: group)
        if let rows = queryRows.rows {
            return range.map { rows[Int(order[$0])] }
        }
        return range.map { position in
            let (block, row) = Int(order[position]).quotientAndRemainder(dividingBy: queryRows.rowsPerBlock)
            return Row(block: queryRows.blocks[block], start: row * queryRows.columnCount)
        }
    }

    /// Points `current` at the row at `position` in `order`: `current` itself when nothing
    /// else refers to it and it reads the block of the row (`currentBlock`), or a new row.
    @inline(__always)
    fileprivate func point(_ current: inout Row?, currentBlock: inout Int, at position: Int) {
        let index = Int(order[position])
        if let rows = queryRows.rows {
            current = rows[index]
            return
        }
        let (blockIndex, row) = index.quotientAndRemainder(dividingBy: queryRows.rowsPerBlock)
        let start = row * queryRows.columnCount
        if blockIndex == currentBlock, isKnownUniquelyReferenced(&current), !current.unsafelyUnwrapped.hasExtras {
            // Nothing but the iterator refers to the row: no one sees it change.
            current.unsafelyUnwrapped.blockStart = start
            return
        }
        current = Row(block: queryRows.blocks[blockIndex], start: start)
        currentBlock = blockIndex
    }
}

/// Iterates the rows of a group, for decoding one record from each: a row that the previous
/// record did not keep (no other reference to it) is pointed at the next row instead of making
/// a new one. A record that keeps its row keeps a row that does not change.
///
/// ```swift
/// var iterator = group.makeRowIterator()
/// while iterator.advance() { decode(iterator.row) }
/// ```
struct PrefetchedRowIterator {
    private let store: PrefetchedRowStore
    private var position: Int
    private let end: Int
    private var current: Row?
    /// The block of `current` when the iterator made it (-1: none).
    private var currentBlock = -1

    init(store: PrefetchedRowStore, range: Range<Int>) {
        self.store = store
        position = range.lowerBound
        end = range.upperBound
    }

    var underestimatedCount: Int { end - position }

    /// The current row, after `advance()` returned true. (Read without keeping it: the
    /// iterator reuses a row nothing else refers to.)
    var row: Row {
        @inline(__always) get { current.unsafelyUnwrapped }
    }

    /// Moves to the next row; false at the end.
    @inline(__always)
    mutating func advance() -> Bool {
        guard position < end else { return false }
        store.point(&current, currentBlock: &currentBlock, at: position)
        position += 1
        return true
    }
}

/// The rows prefetched for the rows of a block, for one association key: the group of each
/// row of the block in a store.
struct BlockPrefetch {
    /// No group: the row was not given rows for this key.
    static let noGroup = Int32.min

    let key: String
    let store: PrefetchedRowStore
    /// The group of each row of the block, by position in the block (-1: no rows; `noGroup`).
    var groups: [Int32]
}

extension RowValueBlock {
    /// The group of the row at position `row` for `key`, if the row was given rows for it.
    @inline(__always)
    func prefetchedGroup(forKey key: String, row: Int) -> PrefetchedGroup? {
        for prefetch in prefetches where prefetch.key == key {
            let group = prefetch.groups[row]
            guard group != BlockPrefetch.noGroup else { return nil }
            return PrefetchedGroup(store: prefetch.store, index: Int(group))
        }
        return nil
    }

    /// Gives the row at position `row` its group of `store` for `key`.
    func setPrefetchedGroup(_ group: Int, of store: PrefetchedRowStore, forKey key: String, row: Int) {
        let index: Int
        if let existing = prefetches.firstIndex(where: { $0.key == key && $0.store === store }) {
            index = existing
        } else {
            // (Another store for the same key replaces the previous one: the key's rows are
            // the last ones given.)
            prefetches.removeAll { $0.key == key }
            prefetches.append(BlockPrefetch(key: key, store: store, groups: [Int32](repeating: BlockPrefetch.noGroup, count: rowCapacity)))
            index = prefetches.count - 1
        }
        prefetches[index].groups[row] = Int32(group)
    }
}

extension Row {
    /// The position of the row in its block, for a row whose values are in a block (with
    /// columns: the rows of a block without columns share their position).
    var positionInBlock: (block: RowValueBlock, row: Int)? {
        guard case .block(let block) = storage, block.columnCount > 0 else { return nil }
        return (block, blockStart / block.columnCount)
    }
}
