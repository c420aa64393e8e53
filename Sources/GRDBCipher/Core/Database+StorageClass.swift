extension Database {
    /// An SQLite storage class, as used by `CAST` expressions.
    ///
    /// ```swift
    /// // SELECT CAST("wins" AS REAL) / "games" FROM "player"
    /// Player.select(cast(Column("wins"), as: .real) / Column("games"))
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/datatype3.html#storage_classes_and_datatypes>
    public struct StorageClass: RawRepresentable, Hashable, Sendable {
        /// The SQL name of the storage class.
        public let rawValue: String

        /// Creates a storage class from its SQL name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `INTEGER`
        public static let integer = StorageClass(rawValue: "INTEGER")
        /// `REAL`
        public static let real = StorageClass(rawValue: "REAL")
        /// `TEXT`
        public static let text = StorageClass(rawValue: "TEXT")
        /// `BLOB`
        public static let blob = StorageClass(rawValue: "BLOB")
    }
}
