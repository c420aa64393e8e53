import CSQLCipher

/// A custom FTS5 tokenizer, written in Swift, that works with the raw FTS5 C API.
///
/// Register it with ``Database/add(tokenizer:)``, then use it in full-text tables:
///
/// ```swift
/// final class MyTokenizer: FTS5CustomTokenizer {
///     static let name = "custom"
///     init(db: Database, arguments: [String]) throws { ... }
///     func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization,
///                   pText: UnsafePointer<CChar>?, nText: CInt,
///                   tokenCallback: @escaping FTS5TokenCallback) -> CInt { ... }
/// }
///
/// var config = Configuration()
/// config.prepareDatabase { db in
///     db.add(tokenizer: MyTokenizer.self)
/// }
///
/// // CREATE VIRTUAL TABLE "documents" USING fts5(content, tokenize='''custom''')
/// try db.create(virtualTable: "documents", using: FTS5()) { t in
///     t.tokenizer = MyTokenizer.tokenizerDescriptor()
///     t.column("content")
/// }
/// ```
///
/// ``FTS5WrapperTokenizer`` is easier to write: it post-processes the tokens of another
/// tokenizer.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
public protocol FTS5CustomTokenizer: FTS5Tokenizer {
    /// The name of the tokenizer (not `ascii`, `porter`, `unicode61` or `trigram`, which
    /// SQLite already uses).
    static var name: String { get }

    /// Creates a tokenizer, with the arguments given in the `tokenize` option of the table.
    init(db: Database, arguments: [String]) throws
}

extension FTS5CustomTokenizer {
    /// The descriptor of the tokenizer with arguments, for the `tokenizer` of an FTS5 table
    /// or ``Database/makeTokenizer(_:)``.
    ///
    /// ```swift
    /// // tokenize='''custom'' ''arg1'' ''arg2'''
    /// t.tokenizer = MyTokenizer.tokenizerDescriptor(arguments: ["arg1", "arg2"])
    /// ```
    public static func tokenizerDescriptor(arguments: [String] = []) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: [name] + arguments)
    }
}

/// What FTS5 keeps of a custom tokenizer type registered on a connection: how to create
/// tokenizers of this type.
private final class FTS5TokenizerRegistration {
    /// Weak: the registration belongs to the connection (SQLite releases it when the
    /// connection closes), and must not keep it alive.
    weak var db: Database?
    let make: (Database, [String]) throws -> any FTS5Tokenizer

    init(db: Database, make: @escaping (Database, [String]) throws -> any FTS5Tokenizer) {
        self.db = db
        self.make = make
    }
}

/// A tokenizer created by FTS5 for a registered custom type (the `Fts5Tokenizer*` of FTS5).
private final class FTS5TokenizerInstance {
    let tokenizer: any FTS5Tokenizer

    init(_ tokenizer: any FTS5Tokenizer) {
        self.tokenizer = tokenizer
    }
}

extension Database {
    /// Registers a custom FTS5 tokenizer on the connection, so that full-text tables can use
    /// it. Register it on every connection, in ``Configuration/prepareDatabase(_:)``:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     db.add(tokenizer: SynonymsTokenizer.self)
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
    public func add(tokenizer: (some FTS5CustomTokenizer).Type) {
        let tokenizerType = tokenizer
        let api: UnsafePointer<fts5_api>
        do {
            api = try fts5API()
        } catch {
            // As GRDB (FTS5.api(_:)): a tokenizer that cannot be registered is a fatal error,
            // never a table that later fails with "no such tokenizer".
            fatalError("FTS5 is not available: \(error)")
        }
        let registration = FTS5TokenizerRegistration(db: self) { db, arguments in
            try tokenizerType.init(db: db, arguments: arguments)
        }
        var module = fts5_tokenizer(
            xCreate: { userData, arguments, argumentCount, tokenizerPointer in
                guard let userData, let tokenizerPointer else { return SQLITE_ERROR }
                // Unsafe: userData is the registration retained below for FTS5, which calls
                // xCreate only while it keeps the registration (until its xDestroy).
                let registration = Unmanaged<FTS5TokenizerRegistration>.fromOpaque(userData).takeUnretainedValue()
                guard let db = registration.db else { return SQLITE_ERROR }
                var strings: [String] = []
                if let arguments {
                    for index in 0..<Int(argumentCount) {
                        if let argument = arguments[index] {
                            strings.append(String(cString: argument))
                        }
                    }
                }
                do {
                    let tokenizer = try registration.make(db, strings)
                    // Unsafe: retained for FTS5, which owns the instance from this successful
                    // xCreate until it calls xDelete, once.
                    let instance = Unmanaged.passRetained(FTS5TokenizerInstance(tokenizer)).toOpaque()
                    tokenizerPointer.pointee = OpaquePointer(instance)
                    return SQLITE_OK
                } catch let error as DatabaseError {
                    return error.extendedResultCode.rawValue
                } catch {
                    return SQLITE_ERROR
                }
            },
            xDelete: { tokenizerPointer in
                guard let tokenizerPointer else { return }
                // Unsafe: balances the retain of xCreate; FTS5 deletes an instance once, after
                // its last xTokenize.
                Unmanaged<FTS5TokenizerInstance>.fromOpaque(UnsafeRawPointer(tokenizerPointer)).release()
            },
            xTokenize: { tokenizerPointer, context, flags, pText, nText, tokenCallback in
                guard let tokenizerPointer, let tokenCallback else { return SQLITE_ERROR }
                // Unsafe: FTS5 tokenizes with an instance only between its xCreate and its
                // xDelete, while the instance is retained.
                let instance = Unmanaged<FTS5TokenizerInstance>.fromOpaque(UnsafeRawPointer(tokenizerPointer)).takeUnretainedValue()
                return instance.tokenizer.tokenize(
                    context: context,
                    tokenization: FTS5Tokenization(rawValue: flags),
                    pText: pText,
                    nText: nText,
                    tokenCallback: tokenCallback)
            })
        // Unsafe: retained for FTS5, which releases it with xDestroy when the connection closes
        // (or below, when FTS5 refuses the registration).
        let userData = Unmanaged.passRetained(registration).toOpaque()
        let code = tokenizerType.name.withCString { name in
            api.pointee.xCreateTokenizer(
                UnsafeMutablePointer(mutating: api), name, userData, &module,
                { userData in
                    guard let userData else { return }
                    // Unsafe: FTS5 calls xDestroy once, when the connection closes: it balances
                    // the retain above.
                    Unmanaged<FTS5TokenizerRegistration>.fromOpaque(userData).release()
                })
        }
        if code != SQLITE_OK {
            // Unsafe: FTS5 did not take the registration, and will not call xDestroy: the
            // retain above is balanced here.
            Unmanaged<FTS5TokenizerRegistration>.fromOpaque(userData).release()
        }
    }
}
