import CSQLCipher
import Foundation

/// A database row.
///
/// ```swift
/// let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM player")
/// while let row = try rows.next() {
///     let id: Int64 = row["id"]
///     let name: String = row["name"]
/// }
/// ```
///
/// A row that comes from a cursor reads the statement's current row directly and is only valid
/// until the cursor moves: call ``copy()`` to keep it. Rows from `fetchAll`, `fetchSet` and
/// `fetchOne` are copies already.
///
/// Columns are looked up by name case-insensitively; with several columns of the same name, the
/// leftmost wins. Reading a non-optional value from a NULL column, or a value that cannot be
/// converted, is a programmer error, as in GRDB; the fetch methods throw instead.
public final class Row {
    enum Storage {
        /// The current row of a live statement: nothing copied.
        case statement(Statement)
        /// Copied values.
        case values(columns: [String], values: [DatabaseValue])
        /// Copied values, in the block of a fetch's rows, from ``blockStart``.
        case block(RowValueBlock)
        /// The columns and scopes a ``RowAdapter`` gives an unadapted row (live or copied).
        case adapted(base: Row, layout: _RowLayout)
    }

    let storage: Storage

    /// The statement handle of a live row, for the inlinable fast path; nil for copied rows.
    /// Valid as long as `storage` holds the statement.
    @usableFromInline let sqliteStatement: SQLiteStatement?

    /// The statement's lookups by name, for the inlinable fast path; nil for copied rows.
    /// Valid as long as `storage` holds the statement.
    @usableFromInline let columnLookup: ColumnLookup?

    /// For a row that reads a live statement through an adapter (a joined request), the
    /// statement handle and the statement's column of each of the row's columns, for the
    /// inlinable fast path; nil for other rows. Valid as long as `storage` holds the base row.
    @usableFromInline let adaptedSQLiteStatement: SQLiteStatement?
    @usableFromInline let adaptedBaseIndexes: [Int]?

    /// For an adapted row: the column its next lookup by name tries first, the one after the
    /// column the previous lookup found (a record reads its columns in order, and a live row
    /// serves the records of every fetched row).
    /// (Used on the connection's queue, by accesses that span no call.)
    @exclusivity(unchecked) var lookupGuess = 0

    /// For an adapted row: its layout's lists, unretained (`storage` holds them), for the
    /// lookups by name.
    // Unsafe: unretained; the row's immutable `storage` (`.adapted(base:layout:)`) holds the
    // layout, whose `let storage` is this object, as long as the row lives.
    private let adaptedLayoutStorage: Unmanaged<_RowLayout.Storage>?

    /// The number of columns in the row.
    public let count: Int

    /// For a row whose values are in a block: the position of its first value (0 for other
    /// rows). Set once, when the row is made, except for the rows that prefetched rows decode
    /// their records from: such a row, when nothing kept it, is pointed at the next row of its
    /// block (see ``PrefetchedRowStore``).
    /// (Used on the connection's queue, by accesses that span no call.)
    @exclusivity(unchecked) var blockStart: Int = 0

    /// What few rows need (decoding caches, prefetched rows), or nil: the copied rows of a
    /// fetch have nothing more to initialize or release.
    /// (Used on the connection's queue, by accesses that span no call: no dynamic
    /// exclusivity checks.)
    @exclusivity(unchecked) private var optionalExtras: Extras?

    /// The row's decoding caches and prefetched rows, made when first needed.
    var extras: Extras {
        if let optionalExtras { return optionalExtras }
        let extras = Extras()
        optionalExtras = extras
        return extras
    }

    /// Whether the row has made its extras.
    var hasExtras: Bool { optionalExtras != nil }

    /// The decoding caches and prefetched rows of a row.
    /// (Used on the connection's queue, by accesses that span no call: no dynamic
    /// exclusivity checks.)
    final class Extras {
        /// For a row that reads a live statement (directly or through an adapter): the
        /// decoders that decoded its `Decodable` records, with their keyed containers, one per
        /// record type (a record, and the records it decodes from the same row). They refer to
        /// the row: the cursor stepper that owns the row forgets them when it goes, so that
        /// the row, and its statement, can go too.
        @exclusivity(unchecked) var decoderCaches: [DecoderCache] = []
        /// The cache of `decoderCaches` found last: a cursor decodes the same record type
        /// from its row again and again.
        @exclusivity(unchecked) var lastDecoderCache: DecoderCache?
        /// For a row that reads a live statement through an adapter: its scopes, made once, so
        /// that they keep their decoders from one fetched row to the next.
        @exclusivity(unchecked) var liveScopeRows: [String: Row] = [:]
        /// The scope of `liveScopeRows` asked last: records read their scopes in the same
        /// order on every fetched row, and the name compares in one step to the same literal.
        @exclusivity(unchecked) var lastLiveScope: (name: String, row: Row)?
        /// For an adapted copied row of a `fetchAll`: the decoders that the rows of the fetch
        /// share (the rows of a block have their block's). Set once, before the row is
        /// returned: records use them unretained (``Row/unretainedSharedDecoders``).
        @exclusivity(unchecked) var sharedDecoders: SharedRowDecoders?
        /// Rows fetched by a second query for `including(all:)`, by association key.
        @exclusivity(unchecked) var prefetched: [PrefetchedEntry] = []
        /// For a copied row: the rows prefetched for its scopes (`including(all:)` nested in
        /// an included association), by scope name. A scope row gets them when it is made.
        @exclusivity(unchecked) var scopePrefetches: [String: PrefetchedScope] = [:]
    }

    /// See ``Extras/decoderCaches``.
    var decoderCaches: [DecoderCache] {
        get { optionalExtras?.decoderCaches ?? [] }
        set { extras.decoderCaches = newValue }
    }

    /// See ``Extras/liveScopeRows``.
    var liveScopeRows: [String: Row] {
        optionalExtras?.liveScopeRows ?? [:]
    }

    /// See ``Extras/lastLiveScope``.
    var lastLiveScope: (name: String, row: Row)? {
        optionalExtras?.lastLiveScope
    }

    /// The decoder the row keeps for the record type `recordType` (see
    /// ``Extras/decoderCaches``), or nil.
    ///
    /// The cache is returned unretained (a retain and a release per record): the row keeps
    /// it; read its decoder before anything else runs, and do not keep the result.
    // Unsafe: returns the cache unretained; the row keeps it in `decoderCaches`.
    @inline(__always)
    func cachedDecoder(for recordType: ObjectIdentifier) -> Unmanaged<DecoderCache>? {
        guard let extras = optionalExtras else { return nil }
        // Unsafe: the row keeps the cache in `decoderCaches` (see the method's comment).
        if let last = extras.lastDecoderCache, last.recordType == recordType { return .passUnretained(last) }
        for cache in extras.decoderCaches where cache.recordType == recordType {
            extras.lastDecoderCache = cache
            // Unsafe: as above.
            return .passUnretained(cache)
        }
        return nil
    }

    /// A decoder a live row keeps (see ``Extras/decoderCaches``).
    final class DecoderCache {
        let recordType: ObjectIdentifier
        /// (A class existential: its copy for each record's `init(from:)` is a retain, not a
        /// call to a value witness.)
        let decoder: any Decoder & AnyObject
        init(recordType: ObjectIdentifier, decoder: any Decoder & AnyObject) {
            self.recordType = recordType
            self.decoder = decoder
        }
    }

    /// For a copied row of a `fetchAll`: the decoders that the rows of the fetch share,
    /// unretained (valid as long as the row lives).
    // Unsafe: the row's block or extras (set once) keep the decoders, used while the row lives.
    var unretainedSharedDecoders: Unmanaged<SharedRowDecoders>? {
        @inline(__always) get {
            if case .block(let block) = storage { return Unmanaged.passUnretained(block.sharedDecoders) }
            return optionalExtras?.sharedDecoders.map(Unmanaged.passUnretained)
        }
    }

    /// The rows prefetched for the row (not for its scopes), by association key: those its
    /// block keeps for it (the rows of a fetch), then those of its extras.
    var prefetchedEntries: [PrefetchedEntry] {
        get {
            var entries: [PrefetchedEntry] = []
            if let (block, row) = positionInBlock {
                for prefetch in block.prefetches where prefetch.groups[row] != BlockPrefetch.noGroup {
                    entries.append(PrefetchedEntry(key: prefetch.key, group: PrefetchedGroup(store: prefetch.store, index: Int(prefetch.groups[row]))))
                }
            }
            for entry in optionalExtras?.prefetched ?? [] where !entries.contains(where: { $0.key == entry.key }) {
                entries.append(entry)
            }
            return entries
        }
        set { extras.prefetched = newValue }
    }

    /// The rows prefetched for the row (not for its scopes), by association key: made for
    /// each call.
    var prefetchedRowsStorage: [String: [Row]] {
        var rows: [String: [Row]] = [:]
        for entry in prefetchedEntries { rows[entry.key] = entry.group.rows }
        return rows
    }

    /// The group of rows prefetched for the row (not for its scopes) for `key`, if any.
    func prefetchedGroup(forKey key: String) -> PrefetchedGroup? {
        if case .block(let block) = storage, !block.prefetches.isEmpty, block.columnCount > 0,
           let group = block.prefetchedGroup(forKey: key, row: blockStart / block.columnCount) {
            return group
        }
        guard let optionalExtras else { return nil }
        for entry in optionalExtras.prefetched where entry.key == key { return entry.group }
        return nil
    }

    /// Attaches the rows prefetched for `key` (replacing those of the same key): in the row's
    /// block for a row of a fetch (no extras to make), in its extras otherwise.
    func setPrefetchedGroup(_ group: PrefetchedGroup, forKey key: String) {
        if let (block, row) = positionInBlock {
            block.setPrefetchedGroup(group.index, of: group.store, forKey: key, row: row)
            optionalExtras?.prefetched.removeAll { $0.key == key }
            return
        }
        let extras = self.extras
        if let index = extras.prefetched.firstIndex(where: { $0.key == key }) {
            extras.prefetched[index] = PrefetchedEntry(key: key, group: group)
        } else {
            extras.prefetched.append(PrefetchedEntry(key: key, group: group))
        }
    }

    /// See ``Extras/scopePrefetches``.
    var scopePrefetches: [String: PrefetchedScope] {
        get { optionalExtras?.scopePrefetches ?? [:] }
        set { extras.scopePrefetches = newValue }
    }

    /// The rows prefetched for a scope, and for its own scopes.
    final class PrefetchedScope: Equatable {
        let entries: [PrefetchedEntry]
        let scopes: [String: PrefetchedScope]

        init(entries: [PrefetchedEntry], scopes: [String: PrefetchedScope]) {
            self.entries = entries
            self.scopes = scopes
        }

        /// The rows, by association key.
        var rows: [String: [Row]] {
            var rows: [String: [Row]] = [:]
            for entry in entries { rows[entry.key] = entry.group.rows }
            return rows
        }

        static func == (lhs: PrefetchedScope, rhs: PrefetchedScope) -> Bool {
            lhs.rows == rhs.rows && lhs.scopes == rhs.scopes
        }
    }

    /// Breaks the reference cycles of the decoding caches.
    func forgetDecoders() {
        // The unadapted row (`unadapted`) may keep decoders of its own.
        if case .adapted(let base, _) = storage { base.forgetDecoders() }
        guard let optionalExtras else { return }
        optionalExtras.decoderCaches = []
        optionalExtras.lastDecoderCache = nil
        for scope in optionalExtras.liveScopeRows.values { scope.forgetDecoders() }
        optionalExtras.liveScopeRows = [:]
        optionalExtras.lastLiveScope = nil
    }

    init(statement: Statement) {
        storage = .statement(statement)
        sqliteStatement = statement.sqliteStatement
        columnLookup = statement.columnLookup
        adaptedSQLiteStatement = nil
        adaptedBaseIndexes = nil
        adaptedLayoutStorage = nil
        count = statement.columnCount
    }

    init(columns: [String], values: [DatabaseValue]) {
        precondition(columns.count == values.count)
        storage = .values(columns: columns, values: values)
        sqliteStatement = nil
        columnLookup = nil
        adaptedSQLiteStatement = nil
        adaptedBaseIndexes = nil
        adaptedLayoutStorage = nil
        count = columns.count
    }

    /// A copied row whose values are in a block, from `start`.
    init(block: RowValueBlock, start: Int) {
        storage = .block(block)
        sqliteStatement = nil
        columnLookup = nil
        adaptedSQLiteStatement = nil
        adaptedBaseIndexes = nil
        adaptedLayoutStorage = nil
        count = block.columnCount
        blockStart = start
    }

    /// An adapted row; `base` is an unadapted row.
    init(base: Row, layout: _RowLayout) {
        storage = .adapted(base: base, layout: layout)
        sqliteStatement = nil
        columnLookup = nil
        if case .statement(let statement) = base.storage {
            adaptedSQLiteStatement = statement.sqliteStatement
            adaptedBaseIndexes = layout.baseIndexes
        } else {
            adaptedSQLiteStatement = nil
            adaptedBaseIndexes = nil
        }
        // Unsafe: `storage` (set above) holds `layout`, and so its lists, as long as the row lives.
        adaptedLayoutStorage = .passUnretained(layout.storage)
        count = layout.names.count
    }

    /// Creates an empty row.
    public convenience init() {
        self.init(columns: [], values: [])
    }

    /// Creates a row from a dictionary of values. Column order follows the dictionary.
    public convenience init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        self.init(columns: Array(dictionary.keys), values: dictionary.values.map { $0?.databaseValue ?? .null })
    }

    /// Creates a row from a dictionary, or nil if a key is not a string or a value is not a
    /// database value.
    public convenience init?(_ dictionary: [AnyHashable: Any]) {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        for (key, value) in dictionary {
            guard let column = key.base as? String, let dbValue = DatabaseValue(value: value) else { return nil }
            columns.append(column)
            values.append(dbValue)
        }
        self.init(columns: columns, values: values)
    }

    /// Returns an immutable copy of the row, safe to keep after its cursor moved on.
    public func copy() -> Row {
        switch storage {
        case .values, .block:
            return self
        case .adapted(let base, let layout):
            guard base.isFetched else { return self }
            let copy = Row(base: base.copy(), layout: layout)
            if let optionalExtras {
                copy.extras.prefetched = optionalExtras.prefetched
                copy.extras.scopePrefetches = optionalExtras.scopePrefetches
            }
            return copy
        case .statement(let statement):
            let sqliteStatement = statement.sqliteStatement
            let values = (0..<CInt(count)).map { DatabaseValue(sqliteStatement: sqliteStatement, index: $0) }
            let copy = Row(columns: statement.columnNames, values: values)
            copy.isCopyOfFetchedRow = true
            return copy
        }
    }

    /// Whether a row that reads a live statement keeps the decoders of its records
    /// (``Extras/decoderCaches``). The cursor's row, its base and its scopes do: the cursor
    /// makes them forget their decoders, which refer to them, when it goes. A row made on
    /// demand from a live row (``unscoped``) does not: nothing would break the cycle.
    /// (Used on the connection's queue, by accesses that span no call.)
    @exclusivity(unchecked) var keepsDecoders = true

    /// Whether the values of a row made of values were copied from a fetched row.
    @exclusivity(unchecked) var isCopyOfFetchedRow = false

    /// Whether the row's values come from the database: a fetched row, or a copy of one (as
    /// GRDB's "fetched" rows). `Record` keeps only such rows as the reference of its change
    /// tracking; a record made from a literal row has all its columns changed.
    var comesFromDatabase: Bool {
        switch storage {
        case .statement, .block: return true
        case .values: return isCopyOfFetchedRow
        case .adapted(let base, _): return base.comesFromDatabase
        }
    }

    /// The values of a copied row whose values are in a block; nil for other rows. Valid
    /// as long as the row is.
    var blockValues: UnsafePointer<DatabaseValue>? {
        if case .block(let block) = storage { return block.values(from: blockStart) }
        return nil
    }

    /// Whether the row reads a live statement.
    var isFetched: Bool {
        if case .statement = storage { return true }
        return false
    }

    /// Whether the row reads a live statement, directly or through an adapter: its values
    /// change when the cursor moves, and it may keep decoders from one fetched row to the next.
    var readsLiveStatement: Bool {
        switch storage {
        case .statement: return true
        case .values, .block: return false
        case .adapted(let base, _): return base.isFetched
        }
    }

    /// The statement handle and the column indexes of a row that reads a live statement
    /// through an adapter; for a live row, the handle and nil.
    var liveColumns: (sqliteStatement: SQLiteStatement, baseIndexes: [Int]?)? {
        if let sqliteStatement { return (sqliteStatement, nil) }
        if let adaptedSQLiteStatement { return (adaptedSQLiteStatement, adaptedBaseIndexes) }
        return nil
    }

    /// The names of the columns, from left to right.
    public var columnNames: [String] {
        switch storage {
        case .statement(let statement): return statement.columnNames
        case .values(let columns, _): return columns
        case .block(let block): return block.columns
        case .adapted(_, let layout): return layout.names
        }
    }

    /// The database values, from left to right.
    public var databaseValues: [DatabaseValue] {
        (0..<count).map { databaseValue(at: $0) }
    }

    /// Whether the row has a column named `columnName` (case-insensitive).
    public func hasColumn(_ columnName: String) -> Bool {
        index(forColumn: columnName) != nil
    }

    /// Whether the value at `index` is NULL.
    public func hasNull(atIndex index: Int) -> Bool {
        databaseValue(at: checkedIndex(index)).isNull
    }

    /// Whether one value at least is not NULL.
    public var containsNonNullValue: Bool {
        if (0..<count).contains(where: { !databaseValue(at: $0).isNull }) { return true }
        // As GRDB (ROW-2): or a scope does (a scope without columns of its own whose
        // sub-scopes hold values).
        return scopes.contains { $0.row.containsNonNullValue }
    }

    /// The index of the leftmost column named `name`, compared case-insensitively.
    @inlinable @inline(__always)
    func index(forColumn name: String) -> Int? {
        if let columnLookup {
            // A live row: most lookups find the column the same lookup found on the previous row.
            let ordinal = columnLookup.nextOrdinal()
            if let index = columnLookup.remembered(ordinal, name) { return index }
            return searchIndex(forColumn: name, ordinal: ordinal)
        }
        return copiedIndex(forColumn: name)
    }

    @usableFromInline
    func searchIndex(forColumn name: String, ordinal: Int) -> Int? {
        switch storage {
        case .statement(let statement):
            return statement.searchIndex(ofColumn: name, ordinal: ordinal)
        case .values, .block, .adapted:
            return copiedIndex(forColumn: name)
        }
    }

    /// For an adapted row, the names of the scopes that lead to the nearest scope named
    /// `name` in its tree of scopes (``scopesTree``); nil when there is none, or the row is
    /// not adapted.
    func scopePath(to name: String) -> [String]? {
        guard let adaptedLayoutStorage else { return nil }
        // Unsafe: unretained; `storage` holds the layout as long as the row lives.
        return adaptedLayoutStorage._withUnsafeGuaranteedRef { $0.scopePath(to: name) }
    }

    @usableFromInline
    func copiedIndex(forColumn name: String) -> Int? {
        if let adaptedLayoutStorage {
            // Through the unretained layout, before the switch: binding the layout from
            // `storage` retained its lists, and switching over `storage` copied it.
            return adaptedLayoutStorage._withUnsafeGuaranteedRef { $0.index(ofColumn: name, guess: &lookupGuess) }
        }
        switch storage {
        case .statement(let statement):
            return statement.index(ofColumn: name)
        case .values(let columns, _):
            return columns.firstIndex { $0.equalsIgnoringASCIICase(name) }
        case .block(let block):
            return block.columns.firstIndex { $0.equalsIgnoringASCIICase(name) }
        case .adapted:
            return nil // (answered above)
        }
    }

    @inline(__always)
    func databaseValue(at index: Int) -> DatabaseValue {
        switch storage {
        case .statement(let statement):
            return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        case .values(_, let values):
            return values[index]
        case .block(let block):
            return block[blockStart + index]
        case .adapted(let base, let layout):
            return base.databaseValue(at: layout.baseIndexes[index])
        }
    }

    @usableFromInline
    func checkedIndex(_ index: Int) -> Int {
        precondition(index >= 0 && index < count, "row index out of range: \(index) (row has \(count) columns)")
        return index
    }

    func columnName(at index: Int) -> String {
        switch storage {
        case .statement(let statement): return statement.columnNames[index]
        case .values(let columns, _): return columns[index]
        case .block(let block): return block.columns[index]
        case .adapted(_, let layout): return layout.names[index]
        }
    }
}

// MARK: - Value access

extension Row {
    /// The value at `index`: `Int64`, `Double`, `String`, `Data`, or nil for NULL.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        databaseValue(at: checkedIndex(index)).storage.value
    }

    /// The value at `index`, converted to `Value`. NULL, or a value that does not convert, is a
    /// fatal error; ask for an optional to accept NULL.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        decodeOrFatal(Value.self, at: checkedIndex(index))
    }

    /// The value at `index`, converted to `Value` straight from SQLite (fast path).
    @inlinable @inline(__always)
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        if let sqliteStatement, index >= 0, index < count,
           let value = Row.liveValue(Value.self, sqliteStatement, CInt(index)) {
            return value
        }
        // A joined row: straight from the statement's column too.
        if let adaptedSQLiteStatement, index >= 0, index < count,
           let value = Row.liveValue(Value.self, adaptedSQLiteStatement, CInt(adaptedBaseIndexes.unsafelyUnwrapped[index])) {
            return value
        }
        return fastDecodeOrFatal(Value.self, at: checkedIndex(index))
    }

    /// The non-NULL value at `index` of a live statement, or nil if it is NULL or does not
    /// convert.
    @inlinable @inline(__always)
    static func liveValue<Value: StatementColumnConvertible>(_ type: Value.Type, _ sqliteStatement: SQLiteStatement, _ index: CInt) -> Value? {
        if decodesNullAsNil(Value.self) {
            return Value(sqliteStatement: sqliteStatement, index: index)
        }
        // Other conversions may assume a non-NULL column, as the protocol promises them.
        guard sqlite3_column_type(sqliteStatement, index) != SQLITE_NULL else { return nil }
        return Value(sqliteStatement: sqliteStatement, index: index)
    }

    /// Whether `Value`'s conversion is one of the library's, which check the column's type
    /// themselves and return nil for NULL: they need no NULL check before them. A constant in
    /// specialized code.
    @inlinable @inline(__always)
    static func decodesNullAsNil<Value>(_ type: Value.Type) -> Bool {
        Value.self == Int64.self || Value.self == Int.self || Value.self == Int32.self
            || Value.self == Double.self || Value.self == String.self || Value.self == Bool.self
            || Value.self == Data.self
    }

    /// The value of the leftmost column named `columnName` (case-insensitive): `Int64`,
    /// `Double`, `String`, `Data`, or nil for NULL or a missing column.
    public subscript(_ columnName: String) -> (any DatabaseValueConvertible)? {
        guard let index = index(forColumn: columnName) else { return nil }
        return databaseValue(at: index).storage.value
    }

    /// The value of the leftmost column named `columnName`, converted to `Value`.
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            fatalError(RowDecodingError.columnNotFound(columnName, type: Value.self, row: self).description)
        }
        return decodeOrFatal(Value.self, at: index)
    }

    /// The value of the leftmost column named `columnName`, converted to `Value` (fast path).
    @inlinable @inline(__always)
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ columnName: String) -> Value {
        guard let index = index(forColumn: columnName) else {
            return missingColumnOrFatal(columnName, Value.self)
        }
        return self[index] as Value
    }

    @usableFromInline
    func missingColumnOrFatal<Value: DatabaseValueConvertible>(_ columnName: String, _ type: Value.Type) -> Value {
        if let value = Value.fromMissingColumn() { return value }
        fatalError(RowDecodingError.columnNotFound(columnName, type: Value.self, row: self).description)
    }

    /// Returns the first non-null value among `columns`, if any (like SQL `COALESCE`).
    public func coalesce<Value: DatabaseValueConvertible>(_ columns: some Collection<String>) -> Value? {
        for column in columns {
            guard let index = index(forColumn: column), !databaseValueIsNull(at: index) else { continue }
            return decodeOrFatal(Value.self, at: index)
        }
        return nil
    }

    /// Returns the first non-null value among `columns`, if any (like SQL `COALESCE`).
    ///
    /// ```swift
    /// let nickname: String? = row.coalesce([Column("nickname"), Column("name")])
    /// ```
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<any ColumnExpression>) -> T? {
        coalesce(columns.map(\.name))
    }

    /// The Data at `index`, or nil for NULL.
    public func dataNoCopy(atIndex index: Int) -> Data? {
        self[index] as Data?
    }

    /// The Data of the column named `columnName`, or nil for NULL or a missing column.
    ///
    /// ```swift
    /// let thumbnail = row.dataNoCopy(named: "thumbnail")
    /// ```
    public func dataNoCopy(named columnName: String) -> Data? {
        guard let index = index(forColumn: columnName) else { return nil }
        return dataNoCopy(atIndex: index)
    }

    /// The Data of `column`, or nil for NULL or a missing column.
    public func dataNoCopy(_ column: some ColumnExpression) -> Data? {
        dataNoCopy(named: column.name)
    }

    /// Calls `body` with the Data at `index`, without copying the bytes when the row reads a
    /// live statement.
    public func withUnsafeData<T>(atIndex index: Int, _ body: (Data?) throws -> T) throws -> T {
        let index = checkedIndex(index)
        if case .statement(let statement) = storage {
            let sqliteStatement = statement.sqliteStatement
            if sqlite3_column_type(sqliteStatement, CInt(index)) == SQLITE_NULL {
                return try body(nil)
            }
            guard let bytes = sqlite3_column_blob(sqliteStatement, CInt(index)) else { return try body(Data()) }
            let count = Int(sqlite3_column_bytes(sqliteStatement, CInt(index)))
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: count, deallocator: .none)
            return try body(data)
        }
        if case .adapted(let base, let layout) = storage {
            return try base.withUnsafeData(atIndex: layout.baseIndexes[index], body)
        }
        return try body(self[index] as Data?)
    }

    /// Calls `body` with the Data of the column named `columnName`.
    public func withUnsafeData<T>(named columnName: String, _ body: (Data?) throws -> T) throws -> T {
        guard let index = index(forColumn: columnName) else { return try body(nil) }
        return try withUnsafeData(atIndex: index, body)
    }

    /// Calls `body` with the Data of `column` (nil for NULL or a missing column), without
    /// copying the bytes when the row reads a live statement. Do not keep the Data after
    /// `body` returns.
    ///
    /// ```swift
    /// let size = try row.withUnsafeData(at: Column("payload")) { $0?.count ?? 0 }
    /// ```
    public func withUnsafeData<T>(at column: some ColumnExpression, _ body: (Data?) throws -> T) throws -> T {
        try withUnsafeData(named: column.name, body)
    }
}

// MARK: - Decoding

extension Row {
    /// Decodes the value at `index`, or returns the decoding error.
    func decode<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int) -> Result<Value, RowDecodingError> {
        let dbValue = databaseValue(at: index)
        if let value = Value.fromDatabaseValue(dbValue) { return .success(value) }
        return .failure(.valueMismatch(type, dbValue: dbValue, column: columnName(at: index), index: index, row: self))
    }

    /// Decodes the value at `index` with the fast path, or returns the decoding error.
    func fastDecode<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, at index: Int) -> Result<Value, RowDecodingError> {
        if case .statement(let statement) = storage {
            let sqliteStatement = statement.sqliteStatement
            if sqlite3_column_type(sqliteStatement, CInt(index)) != SQLITE_NULL,
               let value = Value(sqliteStatement: sqliteStatement, index: CInt(index)) {
                return .success(value)
            }
        }
        if case .adapted(let base, let layout) = storage, base.isFetched {
            switch base.fastDecode(type, at: layout.baseIndexes[index]) {
            case .success(let value): return .success(value)
            case .failure: break // described with the adapted column below
            }
        }
        return decode(type, at: index)
    }

    func decodeOrFatal<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int) -> Value {
        switch decode(type, at: index) {
        case .success(let value): return value
        case .failure(let error): fatalError(error.description)
        }
    }

    @usableFromInline
    func fastDecodeOrFatal<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, at index: Int) -> Value {
        switch fastDecode(type, at: index) {
        case .success(let value): return value
        case .failure(let error): fatalError(error.description)
        }
    }

    func databaseValueIsNull(at index: Int) -> Bool {
        switch storage {
        case .statement(let statement):
            return sqlite3_column_type(statement.sqliteStatement, CInt(index)) == SQLITE_NULL
        case .values(_, let values):
            return values[index].isNull
        case .block(let block):
            return block[blockStart + index].isNull
        case .adapted(let base, let layout):
            return base.databaseValueIsNull(at: layout.baseIndexes[index])
        }
    }
}

/// A decoding error thrown when a row value cannot be converted to the requested type.
///
/// Its description names the column, its index and the requested type, and describes the
/// stored value by its SQLite storage class only: row content never reaches logs.
public struct RowDecodingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    static func valueMismatch(_ type: Any.Type, dbValue: DatabaseValue, column: String, index: Int, row: Row) -> RowDecodingError {
        RowDecodingError(description:
            "could not decode \(type) from database value of type \(dbValue.storageClassName)"
            + " - column: \(String(reflecting: column)), column index: \(index)"
            + " - row columns: \(row.columnNames)")
    }

    static func scopeNotFound(_ scope: String, type: Any.Type, row: Row) -> RowDecodingError {
        RowDecodingError(description:
            "scope not found: \(String(reflecting: scope)) (decoding \(type))"
            + " - available scopes: \(row.scopesTree.names.sorted())")
    }

    static func prefetchedRowsNotFound(_ key: String, type: Any.Type, row: Row) -> RowDecodingError {
        RowDecodingError(description:
            "prefetched rows not found: \(String(reflecting: key)) (decoding \(type))"
            + " - available keys: \(row.prefetchedRows.keys.sorted())")
    }

    static func columnNotFound(_ column: String, type: Any.Type, row: Row) -> RowDecodingError {
        RowDecodingError(description:
            "column not found: \(String(reflecting: column)) (decoding \(type))"
            + " - available columns: \(row.columnNames)")
    }
}

// MARK: - Collection

extension Row: RandomAccessCollection {
    /// An index to a (column, value) pair of a row.
    public struct Index: Comparable, Strideable, Sendable {
        let index: Int
        init(_ index: Int) { self.index = index }
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.index < rhs.index }
        public func distance(to other: Index) -> Int { other.index - index }
        public func advanced(by n: Int) -> Index { Index(index + n) }
    }

    public var startIndex: Index { Index(0) }
    public var endIndex: Index { Index(count) }

    /// The (column name, value) pair at `position`.
    public subscript(position: Index) -> (String, DatabaseValue) {
        (columnName(at: position.index), databaseValue(at: position.index))
    }
}

// MARK: - Equatable, Hashable, literals, description

extension Row: Equatable, Hashable {
    /// Rows are equal when they have the same columns, in the same order, with equal values,
    /// and equal scopes.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        if lhs === rhs { return true }
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count {
            guard lhs.columnName(at: index) == rhs.columnName(at: index),
                  lhs.databaseValue(at: index) == rhs.databaseValue(at: index)
            else { return false }
        }
        return lhs.hasEqualScopes(rhs) && lhs.prefetchedRowsStorage == rhs.prefetchedRowsStorage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in 0..<count {
            hasher.combine(columnName(at: index))
            hasher.combine(databaseValue(at: index))
        }
    }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// `let row: Row = ["id": 1, "name": "Arthur"]`, columns in literal order.
    public convenience init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(columns: elements.map(\.0), values: elements.map { $0.1?.databaseValue ?? .null })
    }
}
