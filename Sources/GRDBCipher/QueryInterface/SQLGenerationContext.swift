/// What SQL generation tracks: the statement arguments, the names given to table aliases, and
/// the table of the SELECT being generated.
struct SQLGenerationContext {
    let db: Database
    private(set) var arguments = StatementArguments()

    /// Alias names resolved so far, by alias.
    private var aliasNames: [ObjectIdentifier: String] = [:]
    /// The tables of the aliases named so far, by alias.
    private var aliasTables: [ObjectIdentifier: String] = [:]
    /// Names given so far, lowercased.
    private var takenNames: Set<String> = []
    /// The aliases of the SELECTs being generated, outermost first.
    private var scopes: [TableAliasBase] = []
    /// Aliases that must not take their table name, because a subquery refers to an outer
    /// alias of the same name.
    private var renamedAliases: Set<ObjectIdentifier> = []
    /// Aliases found to hide an outer alias that a column refers to.
    private(set) var shadowingAliases: Set<ObjectIdentifier> = []

    /// Whether values are written as SQL literals instead of parameters (schema statements).
    var inlinesValues = false

    /// The alias of the innermost SELECT, and whether its columns are qualified.
    var currentAlias: TableAliasBase?
    var qualifiesCurrentColumns = false

    init(_ db: Database) {
        self.db = db
    }

    /// A context for the body of a common table expression: the statement's arguments so
    /// far, and alias names of its own (the body cannot refer to the tables of the SELECT
    /// that uses it), as GRDB names them. Continue with ``continue(after:)``.
    func forCommonTableExpression() -> SQLGenerationContext {
        var context = SQLGenerationContext(db)
        context.arguments = arguments
        context.inlinesValues = inlinesValues
        return context
    }

    /// Takes the arguments of a context made by ``forCommonTableExpression()``.
    mutating func `continue`(after context: SQLGenerationContext) {
        arguments = context.arguments
    }

    mutating func append(_ value: DatabaseValue) {
        arguments.values.append(value)
    }

    mutating func append(_ arguments: StatementArguments) {
        // Literals of one statement may share a named argument: the last value wins.
        _ = self.arguments.append(contentsOf: arguments)
    }

    /// Raw SQL with its arguments: the text as is, or with its `?` parameters replaced by SQL
    /// literals when values are inlined.
    mutating func rawSQL(_ text: String, _ arguments: StatementArguments) throws -> String {
        guard inlinesValues, !arguments.isEmpty else {
            append(arguments)
            return text
        }
        guard arguments.namedValues.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "named arguments are not supported in schema statements")
        }
        var values = arguments.values.makeIterator()
        var result = ""
        var inString = false
        for character in text {
            if character == "'" { inString.toggle() }
            if character == "?", !inString {
                guard let value = values.next() else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments in schema statement")
                }
                result += value.sqlLiteral
            } else {
                result.append(character)
            }
        }
        if values.next() != nil {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments in schema statement")
        }
        return result
    }

    /// The name of an alias in the statement, resolved the first time: the user's name, or the
    /// table name (numbered when the alias must be told apart from an outer one).
    mutating func name(of alias: TableAliasBase, tableName: String) -> String {
        let id = ObjectIdentifier(alias)
        if let name = aliasNames[id] { return name }
        var name = alias.userName ?? tableName
        if alias.userName == nil, renamedAliases.contains(id) {
            var suffix = 1
            while takenNames.contains("\(tableName)\(suffix)".lowercased()) { suffix += 1 }
            name = "\(tableName)\(suffix)"
        }
        aliasNames[id] = name
        aliasTables[id] = tableName
        takenNames.insert(name.lowercased())
        return name
    }

    /// Names an alias before the SQL is written (the tables of a relation tree).
    mutating func assignName(_ name: String, to alias: TableAliasBase, tableName: String) {
        let id = ObjectIdentifier(alias)
        guard aliasNames[id] == nil else { return }
        aliasNames[id] = name
        aliasTables[id] = tableName
        takenNames.insert(name.lowercased())
    }

    /// Whether a name is given to an alias already.
    func isNameTaken(_ name: String) -> Bool {
        takenNames.contains(name.lowercased())
    }

    /// Runs `body` with `alias` as the table of unqualified columns, qualified.
    mutating func withCurrentAlias<T>(_ alias: TableAliasBase, _ body: (inout SQLGenerationContext) throws -> T) rethrows -> T {
        let saved = (currentAlias, qualifiesCurrentColumns)
        currentAlias = alias
        qualifiesCurrentColumns = true
        defer { (currentAlias, qualifiesCurrentColumns) = saved }
        return try body(&self)
    }

    /// Runs `body` without a table for unqualified columns: they stay unqualified.
    mutating func withoutCurrentAlias<T>(_ body: (inout SQLGenerationContext) throws -> T) rethrows -> T {
        let saved = (currentAlias, qualifiesCurrentColumns)
        currentAlias = nil
        qualifiesCurrentColumns = false
        defer { (currentAlias, qualifiesCurrentColumns) = saved }
        return try body(&self)
    }

    /// The table of an alias (nil: the current SELECT's), once the alias is named.
    func tableName(of alias: TableAliasBase?) -> String? {
        guard let alias = alias ?? currentAlias else { return nil }
        return aliasTables[ObjectIdentifier(alias)]
    }

    func resolvedName(of alias: TableAliasBase) -> String? {
        aliasNames[ObjectIdentifier(alias)]
    }

    /// Enters a SELECT whose table is `alias`.
    mutating func enterScope(_ alias: TableAliasBase) {
        scopes.append(alias)
    }

    mutating func leaveScope() {
        scopes.removeLast()
    }

    /// Marks an alias to be numbered when its SELECT is generated again.
    mutating func rename(_ alias: TableAliasBase) {
        renamedAliases.insert(ObjectIdentifier(alias))
    }

    /// Records the inner aliases that hide `alias`, when a column refers to it.
    private mutating func noticeReference(to alias: TableAliasBase, name: String) {
        guard let position = scopes.lastIndex(where: { $0 === alias }) else { return }
        for inner in scopes[(position + 1)...] where resolvedName(of: inner)?.lowercased() == name.lowercased() {
            shadowingAliases.insert(ObjectIdentifier(inner))
        }
    }

    /// The SQL of a column: qualified when it belongs to another table than the current SELECT's,
    /// or when the current SELECT qualifies its columns.
    mutating func columnSQL(_ name: String, alias: TableAliasBase?) -> String {
        qualifier(alias) + name.quotedDatabaseIdentifier
    }

    /// `"alias".` when columns of this alias (nil: the current SELECT's table) are qualified,
    /// or the empty string.
    mutating func qualifier(_ alias: TableAliasBase?) -> String {
        guard let alias = alias ?? currentAlias else { return "" }
        if alias === currentAlias && !qualifiesCurrentColumns { return "" }
        // An alias used by no table of the statement stays unqualified: SQLite then reports
        // the unknown column by name.
        guard let aliasName = resolvedName(of: alias) else { return "" }
        noticeReference(to: alias, name: aliasName)
        return aliasName.quotedDatabaseIdentifier + "."
    }
}
