import Foundation

// A `Codable` type that declares `DatabaseValueConvertible` gets its database form from its
// `Codable` implementation: a single value (an enum with a raw value, a wrapper of a `Date`…)
// is stored as that value's database form; a value that encodes keyed or unkeyed containers
// (a struct, an array) is stored as JSON text.

extension DatabaseValueConvertible where Self: Encodable {
    /// The database form of the value: the database value of the single value it encodes, or
    /// JSON text, written by ``databaseJSONEncoder()``, when it encodes a keyed or an unkeyed
    /// container.
    ///
    /// ```swift
    /// struct Address: Codable, DatabaseValueConvertible {
    ///     var street: String
    ///     var city: String
    /// }
    /// try db.execute(sql: "INSERT INTO place (address) VALUES (?)",
    ///                arguments: [Address(street: "Main St", city: "Lyon")])
    /// // stores '{"city":"Lyon","street":"Main St"}'
    /// ```
    ///
    /// A value that JSON cannot encode (a non-finite `Double`, say) is a programmer error.
    public var databaseValue: DatabaseValue {
        let encoder = SingleDatabaseValueEncoder()
        do {
            try encode(to: encoder)
            if !encoder.requiresJSON, let value = encoder.value {
                return value
            }
            let json = try Self.databaseJSONEncoder().encode(self)
            return String(decoding: json, as: UTF8.self).databaseValue
        } catch {
            fatalError("could not encode \(Self.self) as a database value: \(type(of: error))")
        }
    }
}

extension DatabaseValueConvertible where Self: Decodable {
    /// Decodes a value from its database form: the single value it decodes, or the JSON text
    /// (or blob) read by ``databaseJSONDecoder()`` when it decodes a keyed or unkeyed
    /// container. Nil when the database value does not decode.
    ///
    /// ```swift
    /// let address = try Address.fetchOne(db, sql: "SELECT address FROM place")
    /// ```
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        do {
            return try Self(from: SingleDatabaseValueDecoder(dbValue: dbValue))
        } catch is DatabaseValueRequiresJSON {
            let json: Data
            switch dbValue.storage {
            case .string(let string): json = Data(string.utf8)
            case .blob(let data): json = data
            default: return nil
            }
            return try? databaseJSONDecoder().decode(Self.self, from: json)
        } catch {
            return nil
        }
    }
}

// The JSON coders are requirements of `DatabaseValueConvertible`: a type customizes the JSON
// form of its values (dates as ISO 8601, say) by implementing them.

extension DatabaseValueConvertible {
    /// The encoder of the JSON form of values: base64 data, dates in milliseconds since 1970,
    /// sorted keys, non-finite numbers refused.
    ///
    /// ```swift
    /// let json = try Address.databaseJSONEncoder().encode(address)
    /// ```
    public static func databaseJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// The decoder of the JSON form of values: base64 data, dates in milliseconds since 1970,
    /// non-finite numbers refused.
    ///
    /// ```swift
    /// let address = try Address.databaseJSONDecoder().decode(Address.self, from: json)
    /// ```
    public static func databaseJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }
}

// A `Codable` enum with a raw value would get both its raw value's form and its `Codable`
// form: its raw value wins, as in GRDB.

extension DatabaseValueConvertible where Self: Encodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The database form of the raw value.
    ///
    /// ```swift
    /// enum Grade: String, Codable, DatabaseValueConvertible { case a, b }
    /// Grade.a.databaseValue // "a"
    /// ```
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
}

extension DatabaseValueConvertible where Self: Decodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The value whose raw value is decoded from the database value.
    ///
    /// ```swift
    /// Grade.fromDatabaseValue("b".databaseValue) // .b
    /// ```
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

/// Thrown by ``SingleDatabaseValueDecoder`` when the value decodes a keyed or unkeyed
/// container: it is read from JSON instead.
private struct DatabaseValueRequiresJSON: Error {}

/// Encodes a single value into its database form; a value that asks for a keyed or unkeyed
/// container is marked for JSON encoding instead.
private final class SingleDatabaseValueEncoder: Encoder, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var value: DatabaseValue?
    var requiresJSON = false

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(IgnoringKeyedContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return IgnoringUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws {
        value = .null
    }

    func encode<T: Encodable>(_ value: T) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            // Dates, URLs, UUIDs… keep their database form.
            self.value = convertible.databaseValue
        } else {
            try value.encode(to: self)
        }
    }
}

/// Decodes a single value from its database form; keyed and unkeyed containers throw
/// ``DatabaseValueRequiresJSON``.
private struct SingleDatabaseValueDecoder: Decoder, SingleValueDecodingContainer {
    let dbValue: DatabaseValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DatabaseValueRequiresJSON()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DatabaseValueRequiresJSON()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { dbValue.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = convertible.fromDatabaseValue(dbValue) else {
                throw DecodingError.typeMismatch(T.self, DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "could not decode \(T.self) from a database \(dbValue.storageClassName)"))
            }
            return value as! T
        }
        return try T(from: self)
    }
}
