import CSQLCipher

/// What a statement does, as SQLite reports it to the authorizer while it compiles the
/// statement: what it reads, what it writes, whether it changes the schema or the
/// transaction state. Nothing here comes from reading the SQL text.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
struct StatementAnalysis: Sendable {
    /// What a statement does to the transaction state.
    enum TransactionEffect: Equatable, Sendable {
        /// `BEGIN`.
        case beginTransaction
        /// `COMMIT`, `END`.
        case commitTransaction
        /// `ROLLBACK`.
        case rollbackTransaction
        /// `SAVEPOINT name`.
        case beginSavepoint(String)
        /// `RELEASE [SAVEPOINT] name`.
        case releaseSavepoint(String)
        /// `ROLLBACK TO [SAVEPOINT] name`.
        case rollbackSavepoint(String)
    }

    /// The tables and columns the statement reads.
    var region = DatabaseRegion()

    /// The views whose tables the statement reads, lowercased (and the triggers that read):
    /// observations leave them out of their region (``Statement/observedRegion``).
    var readViews: Set<String> = []

    /// The tables that a view of the same name reads, lowercased: tables, even if a view has
    /// their name.
    var tablesReadByViewsOfTheirName: Set<String> = []

    /// The names an observation leaves out of the region: views, not tables.
    var unobservedNames: Set<String> { readViews.subtracting(tablesReadByViewsOfTheirName) }

    /// The changes the statement (with its triggers and foreign key actions) may make.
    var eventKinds: [DatabaseEventKind] = []

    /// The statement creates, drops or alters a schema object, or attaches or detaches a
    /// database.
    var changesSchema = false

    /// The statement attaches or detaches a database, which SQLite refuses in a transaction.
    var attachesOrDetaches = false

    /// The statement is a pragma.
    var isPragma = false

    /// The statement drops a schema object (its deletions must not be altered).
    var drops = false

    /// The transaction statement, if the statement is one.
    var transactionEffect: TransactionEffect?

    /// Whether SQLite reported anything at all: `VACUUM` compiles without a single authorizer
    /// call.
    var reportedActions = false

    /// The statement deletes from a table with SQLite's truncate optimization allowed: a
    /// `DELETE` without `WHERE` then deletes every row at once, without telling the update hook.
    var allowsTruncation = false

    /// The statement can run inside a savepoint: it does not manage transactions, and SQLite
    /// accepts it in a transaction.
    func canRunInSavepoint(isReadonly: Bool) -> Bool {
        if transactionEffect != nil || attachesOrDetaches || isPragma { return false }
        // A writing statement SQLite says nothing about is VACUUM (or alike).
        return reportedActions || isReadonly
    }

    /// Records an insert, delete or update of a table.
    mutating func addEvent(_ kind: DatabaseEventKind) {
        switch kind {
        case .insert, .delete:
            if !eventKinds.contains(kind) { eventKinds.append(kind) }
        case let .update(tableName: table, columnNames: columns):
            if let index = eventKinds.firstIndex(where: {
                if case let .update(tableName: other, columnNames: _) = $0 { return other == table }
                return false
            }), case let .update(tableName: _, columnNames: known) = eventKinds[index] {
                eventKinds[index] = .update(tableName: table, columnNames: known.union(columns))
            } else {
                eventKinds.append(kind)
            }
        }
    }
}

/// The connection's authorizer: installed once, it records the analysis of the statement
/// being compiled, and, when transaction observers may hear of it, disables SQLite's truncate
/// optimization so that `DELETE FROM t` reports each deleted row. SQLite also calls it for
/// statements it compiles on its own (when a statement is prepared again after a schema
/// change, or inside `VACUUM`): those are allowed and not recorded.
final class StatementAuthorizer {
    /// The analysis of the statement being compiled by the library, if any.
    private(set) var analysis: StatementAnalysis?

    /// An extra policy: a reason to refuse an action (see ``Database/refusingActions(_:_:)``).
    var refusal: ((_ action: CInt, _ first: String?, _ second: String?) -> String?)?

    /// The first refusal of the policy since it was set.
    var firstRefusal: String?

    /// The connection's hooks, to know whether observers may hear of deletions when SQLite
    /// prepares a statement again on its own (after a schema change).
    // Unsafe: the connection owns both the authorizer and the hooks, and uninstalls the
    // authorizer before it goes: the hooks outlive every call.
    unowned(unsafe) var hooks: ConnectionHooks?

    /// The table of the last DROP SQLite reported: its deletion must not be altered (an ignored
    /// deletion cancels the drop).
    private var lastDroppedTable: String?

    func install(on handle: OpaquePointer) {
        // Unsafe: unretained; the connection owns the authorizer, and removes it from the
        // handle before the handle can outlive the connection (a zombie closed later).
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(handle, { context, action, first, second, _, source in
            // Unsafe: SQLite calls back only while the authorizer is installed, hence alive.
            let authorizer = Unmanaged<StatementAuthorizer>.fromOpaque(context!).takeUnretainedValue()
            return authorizer.authorize(action, first, second, source: source)
        }, context)
    }

    static func uninstall(from handle: OpaquePointer) {
        sqlite3_set_authorizer(handle, nil, nil)
    }

    /// Whether the statement being compiled deletes row by row (see ``analyze(preventsTruncation:_:)``).
    private var preventsTruncation = false

    /// Runs `compile` with the analysis recorded; returns what `compile` returns and the
    /// analysis. With `preventsTruncation`, deletions are compiled row by row, so that the
    /// update hook hears of each deleted row.
    func analyze<T>(preventsTruncation: Bool, _ compile: () throws -> T) rethrows -> (T, StatementAnalysis) {
        let saved = (analysis, self.preventsTruncation)
        analysis = StatementAnalysis()
        self.preventsTruncation = preventsTruncation
        defer { (analysis, self.preventsTruncation) = saved }
        let result = try compile()
        return (result, analysis!)
    }

    /// `source`: the innermost view or trigger responsible for the action, nil for the
    /// statement's own SQL.
    private func authorize(_ action: CInt, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?, source: UnsafePointer<CChar>?) -> CInt {
        if let refusal {
            if let reason = refusal(action, first.map { String(cString: $0) }, second.map { String(cString: $0) }) {
                if firstRefusal == nil { firstRefusal = reason }
                return SQLITE_DENY
            }
        }
        guard analysis != nil else {
            // SQLite prepares a statement again (after a schema change), or compiles its own SQL:
            // nothing is recorded, but deletions stay row by row while observers may hear of them.
            switch action {
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
                lastDroppedTable = first.map { String(cString: $0) }
            case SQLITE_DELETE:
                if let table = Self.userTable(first), hooks?.hasObservers == true {
                    if let dropped = lastDroppedTable, dropped.equalsIgnoringASCIICase(table) {
                        lastDroppedTable = nil
                    } else {
                        return SQLITE_IGNORE
                    }
                }
            default:
                break
            }
            return SQLITE_OK
        }
        analysis!.reportedActions = true
        switch action {
        case SQLITE_READ:
            guard let first else { return SQLITE_OK }
            analysis!.region.insert(table: String(cString: first), column: second.map { String(cString: $0) } ?? "")
            if let source {
                // A read on behalf of a view (or a trigger): the view is one of the tables read.
                // A view may read a table of its own name (a temporary view over a table of
                // the main schema): that name is a table read, and stays.
                let view = String(cString: source).asciiLowercased()
                if view == String(cString: first).asciiLowercased() {
                    analysis!.tablesReadByViewsOfTheirName.insert(view)
                } else {
                    analysis!.readViews.insert(view)
                }
            }
        case SQLITE_INSERT:
            if let table = Self.userTable(first) {
                analysis!.addEvent(.insert(tableName: table))
            }
        case SQLITE_DELETE:
            if let table = Self.userTable(first) {
                analysis!.addEvent(.delete(tableName: table))
                // DROP TABLE deletes the table's content: an ignored deletion cancels the drop.
                if !analysis!.drops {
                    if preventsTruncation {
                        // Rows are deleted one by one, so that observers hear of each.
                        return SQLITE_IGNORE
                    }
                    analysis!.allowsTruncation = true
                }
            }
        case SQLITE_UPDATE:
            if let table = Self.userTable(first), let second {
                analysis!.addEvent(.update(tableName: table, columnNames: [String(cString: second)]))
            }
        case SQLITE_TRANSACTION:
            switch first.map({ String(cString: $0) }) {
            case "BEGIN": analysis!.transactionEffect = .beginTransaction
            case "COMMIT": analysis!.transactionEffect = .commitTransaction
            case "ROLLBACK": analysis!.transactionEffect = .rollbackTransaction
            default: break
            }
        case SQLITE_SAVEPOINT:
            let name = second.map { String(cString: $0) } ?? ""
            switch first.map({ String(cString: $0) }) {
            case "BEGIN": analysis!.transactionEffect = .beginSavepoint(name)
            case "RELEASE": analysis!.transactionEffect = .releaseSavepoint(name)
            case "ROLLBACK": analysis!.transactionEffect = .rollbackSavepoint(name)
            default: break
            }
        case SQLITE_PRAGMA:
            analysis!.isPragma = true
        case SQLITE_ATTACH, SQLITE_DETACH:
            analysis!.changesSchema = true
            analysis!.attachesOrDetaches = true
        case SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
             SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW,
             SQLITE_DROP_VTABLE:
            analysis!.changesSchema = true
            analysis!.drops = true
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
             SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
             SQLITE_CREATE_VTABLE, SQLITE_ALTER_TABLE:
            analysis!.changesSchema = true
        default:
            break
        }
        return SQLITE_OK
    }

    /// The table name, unless it is one of SQLite's own tables (`sqlite_master`,
    /// `sqlite_sequence`...), whose changes are not row events.
    private static func userTable(_ name: UnsafePointer<CChar>?) -> String? {
        guard let name else { return nil }
        if sqlite3_strnicmp(name, "sqlite_", 7) == 0 { return nil }
        return String(cString: name)
    }
}

extension Database {
    /// Compiles each statement of `sql` with an extra authorizer policy, without running
    /// anything, and returns the first reason to refuse: the policy's, or "writes" when SQLite
    /// says a statement is not read-only. Returns nil when every statement passes; a statement
    /// that does not compile stops the check (running the SQL reports the error).
    ///
    /// For the `grdbcipher` command, whose `query` runs read-only SQL only: the connection's
    /// single authorizer applies the policy, instead of a second one replacing it.
    @_spi(GRDBCipherTools)
    public func firstRefusal(
        in sql: String,
        policy: @escaping (_ action: CInt, _ first: String?, _ second: String?) -> String?) -> String?
    {
        guard let handle = sqliteConnection else { return nil }
        authorizer.refusal = policy
        authorizer.firstRefusal = nil
        defer {
            authorizer.refusal = nil
            authorizer.firstRefusal = nil
        }
        return sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                let code = sqlite3_prepare_v2(handle, current, -1, &statement, &next)
                defer { sqlite3_finalize(statement) }
                if let refusal = authorizer.firstRefusal { return refusal }
                guard code == SQLITE_OK else { return nil }
                if let statement, sqlite3_stmt_readonly(statement) == 0 { return "writes" }
            }
            return nil
        }
    }
}
