import Foundation

// Foundation's reference types as database values, stored like their Swift value
// counterparts (`Data`, `Date`, `String`, `URL`, `UUID`, numbers). Each `fromDatabaseValue`
// builds the most derived class the value can be (a mutable data or string, a decimal number),
// so that it also answers for the subclasses GRDB programs fetch (`NSMutableData`,
// `NSDecimalNumber`…).

/// `NSData` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSData: DatabaseValueConvertible {
    /// A BLOB.
    public var databaseValue: DatabaseValue {
        Data(referencing: self).databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let data = Data.fromDatabaseValue(dbValue) else { return nil }
        return NSMutableData(data: data) as? Self
    }
}

/// `NSDate` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSDate: DatabaseValueConvertible {
    /// Text, as a `Date`.
    public var databaseValue: DatabaseValue {
        Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate).databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let date = Date.fromDatabaseValue(dbValue) else { return nil }
        return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate) as? Self
    }
}

/// `NSNull` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSNull: DatabaseValueConvertible {
    /// NULL.
    public var databaseValue: DatabaseValue { .null }

    /// Always nil, as GRDB (VAL-3): NULL is decoded as nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        nil
    }
}

/// `NSNumber` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSNumber: DatabaseValueConvertible {
    /// An INTEGER or a REAL, as the number holds. As GRDB (VAL-3), an `NSDecimalNumber` is an
    /// INTEGER when it is a whole number that fits `Int64`, a REAL otherwise.
    public var databaseValue: DatabaseValue {
        if let decimal = self as? NSDecimalNumber {
            let int64 = decimal.int64Value
            if Decimal(int64) == decimal.decimalValue {
                return int64.databaseValue
            }
            return decimal.doubleValue.databaseValue
        }
        switch String(cString: objCType) {
        case "f", "d":
            return doubleValue.databaseValue
        case "Q", "L":
            // Unsigned values above Int64.max, as UInt64 stores them.
            return uint64Value > UInt64(Int64.max) ? doubleValue.databaseValue : int64Value.databaseValue
        default:
            return int64Value.databaseValue
        }
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        if Self.self is NSDecimalNumber.Type {
            guard let decimal = Decimal.fromDatabaseValue(dbValue) else { return nil }
            return NSDecimalNumber(decimal: decimal) as? Self
        }
        switch dbValue.storage {
        case .int64(let int64): return NSNumber(value: int64) as? Self
        case .double(let double): return NSNumber(value: double) as? Self
        case .string(let string):
            // As GRDB (VAL-3): text is parsed as a decimal number.
            guard let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")),
                  !decimal.isNaN else { return nil }
            return NSDecimalNumber(decimal: decimal) as? Self
        default: return nil
        }
    }
}

/// `NSString` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSString: DatabaseValueConvertible {
    /// TEXT.
    public var databaseValue: DatabaseValue {
        String(describing: self).databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let string = String.fromDatabaseValue(dbValue) else { return nil }
        return NSMutableString(string: string) as? Self
    }
}

/// `NSURL` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSURL: DatabaseValueConvertible {
    /// TEXT: the absolute string.
    public var databaseValue: DatabaseValue {
        // Optional on Apple platforms, not in swift-corelibs-foundation.
        let string: String? = absoluteString
        return (string ?? "").databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let url = URL.fromDatabaseValue(dbValue) else { return nil }
        return NSURL(string: url.absoluteString) as? Self
    }
}

/// `NSUUID` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension NSUUID: DatabaseValueConvertible {
    /// A 16-byte BLOB, as a `UUID`.
    public var databaseValue: DatabaseValue {
        UUID(uuidString: uuidString)!.databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let uuid = UUID.fromDatabaseValue(dbValue) else { return nil }
        return NSUUID(uuidString: uuid.uuidString) as? Self
    }
}

/// `CGFloat` stores into and reads from the database as a ``DatabaseValueConvertible`` value.
extension CGFloat: DatabaseValueConvertible {
    /// A REAL.
    public var databaseValue: DatabaseValue {
        Double(self).databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> CGFloat? {
        Double.fromDatabaseValue(dbValue).map { CGFloat($0) }
    }
}
