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

        /// `TEXT`.
        public static let text = ColumnType(rawValue: "TEXT")
        /// `INTEGER`.
        public static let integer = ColumnType(rawValue: "INTEGER")
        /// `DOUBLE` (real affinity).
        public static let double = ColumnType(rawValue: "DOUBLE")
        /// `REAL`.
        public static let real = ColumnType(rawValue: "REAL")
        /// `NUMERIC`.
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        /// `BOOLEAN` (numeric affinity).
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        /// `BLOB`.
        public static let blob = ColumnType(rawValue: "BLOB")
        /// `DATE` (numeric affinity).
        public static let date = ColumnType(rawValue: "DATE")
        /// `DATETIME` (numeric affinity).
        public static let datetime = ColumnType(rawValue: "DATETIME")
        /// `ANY` (for STRICT tables).
        public static let any = ColumnType(rawValue: "ANY")
        /// `JSON` (text holding JSON).
        public static let json = ColumnType(rawValue: "JSON")
        /// A column of JSON text: `TEXT`.
        public static let jsonText = ColumnType(rawValue: "TEXT")
        /// A column of SQLite's binary JSON: `BLOB`.
        public static let jsonb = ColumnType(rawValue: "BLOB")
    }
}
