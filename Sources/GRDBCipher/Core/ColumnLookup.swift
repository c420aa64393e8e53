/// Column lookups by name for the rows of one statement, fast when records read the same
/// columns in the same order on every row, as they do.
///
/// The Nth lookup of a row is first checked against the column the Nth lookup of the previous
/// row found: names that come from the same string literal compare equal in one step, so a
/// record's `init(row:)` finds its columns without searching. A miss searches, and remembers
/// the answer for the next row.
///
/// Its state lives in manually allocated memory owned by the ``Statement``: rows read it from
/// inlined code with neither reference counting nor exclusivity checks. A row keeps its
/// statement alive, so the memory outlives every row that uses it. Like the statement, it is
/// only used on the connection's queue.
@usableFromInline
struct ColumnLookup {
    /// The number of remembered lookups; also the capacity of `trace`.
    @usableFromInline static let traceCapacity = 64

    /// `state[0]`: lookups made since the current row was stepped to. `state[1]`: the number
    /// of remembered lookups. `state[2 + n]`: the column index found by the nth lookup.
    @usableFromInline let state: UnsafeMutablePointer<Int>
    /// Column names as SQLite spells them.
    @usableFromInline let names: UnsafeMutablePointer<String>
    /// For each column, the index of the leftmost column with the same name ignoring case.
    @usableFromInline let leftmost: UnsafeMutablePointer<Int>
    /// The number of columns.
    let count: Int

    init(names columnNames: [String], leftmostIndexes: [Int]) {
        count = columnNames.count
        state = .allocate(capacity: 2 + Self.traceCapacity)
        state.initialize(repeating: 0, count: 2 + Self.traceCapacity)
        names = .allocate(capacity: max(count, 1))
        names.initialize(from: columnNames, count: count)
        leftmost = .allocate(capacity: max(count, 1))
        leftmost.initialize(from: leftmostIndexes, count: count)
    }

    /// Frees the memory; called once, by the statement's deinit.
    func deallocate() {
        state.deallocate()
        names.deinitialize(count: count)
        names.deallocate()
        leftmost.deallocate()
    }

    /// A new row: lookups start over.
    @inline(__always)
    func rowDidChange() {
        state[0] = 0
    }

    /// Counts a lookup and returns its ordinal in the current row.
    @inlinable @inline(__always)
    func nextOrdinal() -> Int {
        let ordinal = state[0]
        state[0] = ordinal &+ 1
        return ordinal
    }

    /// The column found by the same lookup on the previous row, if its name is exactly `name`.
    @inlinable @inline(__always)
    func remembered(_ ordinal: Int, _ name: String) -> Int? {
        guard ordinal < state[1] else { return nil }
        let guess = state[2 &+ ordinal]
        guard names[guess] == name else { return nil }
        return leftmost[guess]
    }

    /// Remembers the column found by the lookup number `ordinal`.
    func remember(_ index: Int, for ordinal: Int) {
        let remembered = state[1]
        if ordinal < remembered {
            state[2 + ordinal] = index
        } else if ordinal == remembered, ordinal < Self.traceCapacity {
            state[2 + ordinal] = index
            state[1] = remembered + 1
        }
    }
}
