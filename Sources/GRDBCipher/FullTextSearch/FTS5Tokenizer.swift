import CSQLCipher
import Foundation

/// The function a tokenizer calls for each token it finds: the `xToken` callback of FTS5's
/// `xTokenize`.
///
/// - parameters:
///     - context: The opaque pointer given to the tokenizer, unchanged.
///     - flags: ``FTS5TokenFlags`` (`FTS5_TOKEN_COLOCATED` for a synonym).
///     - pToken: The token bytes, not necessarily nul-terminated.
///     - nToken: The number of bytes of the token.
///     - iStart: The byte offset of the token in the tokenized text.
///     - iEnd: The byte offset of the end of the token in the tokenized text.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
public typealias FTS5TokenCallback = @convention(c) (
    _ context: UnsafeMutableRawPointer?,
    _ flags: CInt,
    _ pToken: UnsafePointer<CChar>?,
    _ nToken: CInt,
    _ iStart: CInt,
    _ iEnd: CInt) -> CInt

/// Flags that tell FTS5 how to register a token.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
public struct FTS5TokenFlags: OptionSet, Sendable {
    public let rawValue: CInt

    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The token is a synonym of the previous one, at the same position
    /// (`FTS5_TOKEN_COLOCATED`).
    public static let colocated = FTS5TokenFlags(rawValue: FTS5_TOKEN_COLOCATED)
}

/// Why FTS5 asks for tokens.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
public struct FTS5Tokenization: OptionSet, Sendable {
    public let rawValue: CInt

    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// A MATCH query is tokenized (`FTS5_TOKENIZE_QUERY`).
    public static let query = FTS5Tokenization(rawValue: FTS5_TOKENIZE_QUERY)

    /// The query term is a prefix (`FTS5_TOKENIZE_PREFIX`, with ``query``).
    public static let prefix = FTS5Tokenization(rawValue: FTS5_TOKENIZE_PREFIX)

    /// A document is inserted, or deleted (`FTS5_TOKENIZE_DOCUMENT`).
    public static let document = FTS5Tokenization(rawValue: FTS5_TOKENIZE_DOCUMENT)

    /// An auxiliary function asks for tokens (`FTS5_TOKENIZE_AUX`).
    public static let aux = FTS5Tokenization(rawValue: FTS5_TOKENIZE_AUX)
}

/// An FTS5 tokenizer: a built-in one (`ascii`, `unicode61`, `porter`, `trigram`), or a custom
/// one (``FTS5CustomTokenizer``, ``FTS5WrapperTokenizer``).
///
/// ```swift
/// let ascii = try db.makeTokenizer(.ascii())
/// for (token, flags) in try ascii.tokenize(query: "SQLite database") {
///     print(token) // "sqlite", then "database"
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_tokenizers>
public protocol FTS5Tokenizer: AnyObject {
    /// Tokenizes the text, calling `tokenCallback` for each token: FTS5's `xTokenize`.
    ///
    /// - parameters:
    ///     - context: An opaque pointer, the first argument of each call to `tokenCallback`.
    ///     - tokenization: Why tokens are asked for.
    ///     - pText: The text bytes, not necessarily nul-terminated.
    ///     - nText: The number of bytes of the text.
    ///     - tokenCallback: The function to call for each token.
    /// - returns: `SQLITE_OK`, or an error code (the code returned by `tokenCallback`, when
    ///   it returns something else than `SQLITE_OK`).
    func tokenize(
        context: UnsafeMutableRawPointer?,
        tokenization: FTS5Tokenization,
        pText: UnsafePointer<CChar>?,
        nText: CInt,
        tokenCallback: @escaping FTS5TokenCallback) -> CInt
}

extension FTS5Tokenizer {
    /// The tokens of a string tokenized as a query (`FTS5_TOKENIZE_QUERY`): use them to build
    /// raw patterns.
    ///
    /// ```swift
    /// let tokens = try db.makeTokenizer(.porter()).tokenize(query: "SQLite databases")
    /// // [("sqlite", []), ("databas", [])]
    /// ```
    public func tokenize(query string: String) throws -> [(token: String, flags: FTS5TokenFlags)] {
        try tokenize(string, for: .query)
    }

    /// The tokens of a string tokenized as a document (`FTS5_TOKENIZE_DOCUMENT`).
    public func tokenize(document string: String) throws -> [(token: String, flags: FTS5TokenFlags)] {
        try tokenize(string, for: .document)
    }

    private func tokenize(_ string: String, for tokenization: FTS5Tokenization) throws -> [(token: String, flags: FTS5TokenFlags)] {
        let collector = FTS5TokenCollector()
        var string = string
        let code = string.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                withExtendedLifetime(collector) {
                    // Unsafe: the collector is unretained: withExtendedLifetime keeps it alive
                    // until `tokenize` returns, and tokenizers call back only before they return.
                    tokenize(
                        context: Unmanaged.passUnretained(collector).toOpaque(),
                        tokenization: tokenization,
                        pText: text.baseAddress,
                        nText: CInt(text.count),
                        tokenCallback: { context, flags, pToken, nToken, _, _ in
                            guard let context else { return SQLITE_ERROR }
                            // Unsafe: the collector passed above, alive while `tokenize` runs.
                            let collector = Unmanaged<FTS5TokenCollector>.fromOpaque(context).takeUnretainedValue()
                            collector.tokens.append((fts5String(pToken, nToken), FTS5TokenFlags(rawValue: flags)))
                            return SQLITE_OK
                        })
                }
            }
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "tokenization failed")
        }
        return collector.tokens
    }
}

/// The tokens of ``FTS5Tokenizer/tokenize(query:)`` and ``FTS5Tokenizer/tokenize(document:)``.
private final class FTS5TokenCollector {
    var tokens: [(token: String, flags: FTS5TokenFlags)] = []
}

/// Calls `body` with the text pointer, or a pointer to an empty C string when it is nil:
/// tokenizers expect a non-null pointer.
func withNonNullText<T>(_ text: UnsafePointer<CChar>?, _ body: (UnsafePointer<CChar>) -> T) -> T {
    if let text { return body(text) }
    var empty: CChar = 0
    return withUnsafePointer(to: &empty) { body($0) }
}

/// The string of token bytes (invalid UTF-8 is repaired).
func fts5String(_ bytes: UnsafePointer<CChar>?, _ count: CInt) -> String {
    guard let bytes, count > 0 else { return "" }
    return bytes.withMemoryRebound(to: UInt8.self, capacity: Int(count)) {
        String(decoding: UnsafeBufferPointer(start: $0, count: Int(count)), as: UTF8.self)
    }
}

/// A tokenizer registered with FTS5 (built-in or custom), created by ``Database/makeTokenizer(_:)``.
final class FTS5RegisteredTokenizer: FTS5Tokenizer {
    private let module: fts5_tokenizer
    private let handle: OpaquePointer

    init(module: fts5_tokenizer, handle: OpaquePointer) {
        self.module = module
        self.handle = handle
    }

    deinit {
        module.xDelete?(handle)
    }

    func tokenize(
        context: UnsafeMutableRawPointer?,
        tokenization: FTS5Tokenization,
        pText: UnsafePointer<CChar>?,
        nText: CInt,
        tokenCallback: @escaping FTS5TokenCallback) -> CInt
    {
        guard let xTokenize = module.xTokenize else { return SQLITE_ERROR }
        return withNonNullText(pText) { text in
            xTokenize(handle, context, tokenization.rawValue, text, pText == nil ? 0 : nText, tokenCallback)
        }
    }
}

extension Database {
    /// Creates a tokenizer: a built-in one, or a custom one added with
    /// ``add(tokenizer:)``.
    ///
    /// ```swift
    /// let unicode61 = try db.makeTokenizer(.unicode61())
    /// let tokens = try unicode61.tokenize(document: "Jérôme") // [("jerome", [])]
    /// ```
    ///
    /// - throws: A ``DatabaseError`` when the tokenizer is unknown, or refuses its arguments.
    public func makeTokenizer(_ descriptor: FTS5TokenizerDescriptor) throws -> any FTS5Tokenizer {
        let api = try fts5API()
        var userData: UnsafeMutableRawPointer?
        var module = fts5_tokenizer()
        let findCode = descriptor.name.withCString { name in
            api.pointee.xFindTokenizer(UnsafeMutablePointer(mutating: api), name, &userData, &module)
        }
        guard findCode == SQLITE_OK, let xCreate = module.xCreate else {
            throw DatabaseError(resultCode: ResultCode(rawValue: findCode == SQLITE_OK ? SQLITE_ERROR : findCode),
                                message: "no such tokenizer: \(descriptor.name)")
        }
        var handle: OpaquePointer?
        let createCode = withCStringArray(descriptor.arguments) { arguments in
            xCreate(userData, arguments, CInt(descriptor.arguments.count), &handle)
        }
        guard createCode == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: createCode == SQLITE_OK ? SQLITE_ERROR : createCode),
                                message: "could not create tokenizer: \(descriptor.name)")
        }
        return FTS5RegisteredTokenizer(module: module, handle: handle)
    }
}

/// Calls `body` with a C array of C strings, valid during the call.
func withCStringArray<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress) }
}
