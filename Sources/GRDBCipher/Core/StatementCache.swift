/// The library's cache of prepared statements: the statements of raw-SQL fetches, of the query
/// interface and of the library's own SQL, by SQL text. Bounded: a service that builds SQL
/// dynamically keeps a few hundred statements at most, the least recently used are finalized.
///
/// The user's cache (``Database/cachedStatement(sql:)``) is another one: the library never
/// binds arguments to a statement the user holds.
struct StatementCache {
    private final class Entry {
        let statement: Statement
        var lastUse: UInt64

        init(_ statement: Statement, lastUse: UInt64) {
            self.statement = statement
            self.lastUse = lastUse
        }
    }

    /// The most statements kept.
    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The cached statement for `sql`, if any, marked as just used.
    mutating func statement(_ sql: String) -> Statement? {
        guard let entry = entries[sql] else { return nil }
        clock &+= 1
        entry.lastUse = clock
        return entry.statement
    }

    /// Caches a statement, forgetting the least recently used one when the cache is full.
    mutating func insert(_ statement: Statement, for sql: String) {
        clock &+= 1
        if entries[sql] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries[oldest] = nil
        }
        entries[sql] = Entry(statement, lastUse: clock)
    }

    mutating func removeAll() {
        entries.removeAll()
    }

    /// Keeps only the statements `isKept` keeps.
    mutating func removeAll(where isRemoved: (Statement) -> Bool) {
        entries = entries.filter { !isRemoved($0.value.statement) }
    }
}
