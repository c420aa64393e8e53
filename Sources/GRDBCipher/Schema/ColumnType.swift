extension Database {
    /// A column type, for table definitions and `CAST` expressions.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.column("name", .text)
    /// }
    /// Player.select(cast(Column("score"), as: .real))
    /// ```
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public static let text = ColumnType(rawValue: "TEXT")
        public static let integer = ColumnType(rawValue: "INTEGER")
        public static let double = ColumnType(rawValue: "DOUBLE")
        public static let real = ColumnType(rawValue: "REAL")
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        public static let blob = ColumnType(rawValue: "BLOB")
        public static let date = ColumnType(rawValue: "DATE")
        public static let datetime = ColumnType(rawValue: "DATETIME")
        public static let any = ColumnType(rawValue: "ANY")
        public static let json = ColumnType(rawValue: "JSON")
        /// A column of JSON text: `TEXT`.
        public static let jsonText = ColumnType(rawValue: "TEXT")
        /// A column of SQLite's binary JSON: `BLOB`.
        public static let jsonb = ColumnType(rawValue: "BLOB")
    }
}
