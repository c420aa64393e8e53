@_exported import GRDBCipher

/// Generates, for a struct, what a careful engineer writes by hand for a GRDB record, so that
/// fetching and saving it never goes through `Codable`:
///
/// - `init(row:)`, when the struct declares `FetchableRecord`: each stored property read from
///   its column by name, straight from SQLite for the standard value types;
/// - `encode(to:)`, when it declares `EncodableRecord`, `PersistableRecord` or
///   `MutablePersistableRecord`: each stored property written to its column;
/// - `databaseTableName` (GRDB's rule: the type name with a lowercase first letter), when the
///   struct declares a record protocol and does not declare the name itself;
/// - `enum Columns`, one `Column` per stored property, unless the struct declares its own.
///
/// ```swift
/// import GRDBCipherMacros
///
/// @DatabaseRecord
/// struct Player: FetchableRecord, PersistableRecord {
///     var id: Int64
///     var name: String
///     var score: Int
///     var lastSeen: Date?          // the record's date strategies apply
///     var preferences: Preferences // a nested Codable value: a JSON column
/// }
///
/// let best = try Player.order(Player.Columns.score.desc).fetchOne(db)
/// ```
///
/// `CodingKeys` with raw values rename columns, and leave out the properties they do not list,
/// as they do for `Codable`. The column, date, data, UUID and JSON strategies of the record
/// (`databaseColumnDecodingStrategy`, `databaseDateEncodingStrategy(for:)`…) apply as they do
/// to a `Codable` record. GRDB programs never need this macro: it is an opt-in of GRDBCipher.
@attached(extension,
          names: named(init(row:)), named(encode(to:)), named(databaseTableName), named(Columns))
public macro DatabaseRecord() = #externalMacro(module: "GRDBCipherMacrosPlugin", type: "DatabaseRecordMacro")
