import CSQLCipher

/// The function a wrapper tokenizer calls for each token it outputs, with its flags.
///
/// Errors it throws tell that FTS5 wants tokenization to stop: do not catch them.
public typealias FTS5WrapperTokenCallback = (_ token: String, _ flags: FTS5TokenFlags) throws -> Void

/// A custom FTS5 tokenizer that post-processes the tokens of another tokenizer, the
/// "wrapped tokenizer", without dealing with the raw C API.
///
/// ```swift
/// final class SynonymsTokenizer: FTS5WrapperTokenizer {
///     static let name = "synonyms"
///     let wrappedTokenizer: any FTS5Tokenizer
///
///     init(db: Database, arguments: [String]) throws {
///         wrappedTokenizer = try db.makeTokenizer(.unicode61())
///     }
///
///     func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
///                 tokenCallback: FTS5WrapperTokenCallback) throws {
///         try tokenCallback(token, flags)
///         if token == "first" && tokenization.contains(.document) {
///             try tokenCallback("1st", flags.union(.colocated))
///         }
///     }
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#synonym_support>
public protocol FTS5WrapperTokenizer: FTS5CustomTokenizer {
    /// The tokenizer whose tokens are post-processed.
    var wrappedTokenizer: any FTS5Tokenizer { get }

    /// Processes a token of the wrapped tokenizer: calls `tokenCallback` for each output
    /// token (none to drop the token, several for synonyms, with ``FTS5TokenFlags/colocated``
    /// for all but the first).
    ///
    /// - parameters:
    ///     - token: A token of the wrapped tokenizer.
    ///     - flags: Its flags: give them to `tokenCallback` unchanged, or with
    ///       ``FTS5TokenFlags/colocated`` added for synonyms.
    ///     - tokenization: Why tokens are asked for.
    ///     - tokenCallback: The function to call for each output token. Do not catch its
    ///       errors.
    func accept(
        token: String,
        flags: FTS5TokenFlags,
        for tokenization: FTS5Tokenization,
        tokenCallback: FTS5WrapperTokenCallback) throws
}

/// The error that stops a wrapper tokenizer when FTS5's callback returns an error code.
private struct FTS5TokenCallbackError: Error {
    var code: CInt
}

/// What the wrapped tokenizer's callback needs to reach the wrapper and FTS5's callback.
private final class FTS5WrapperContext {
    let accept: (String, FTS5TokenFlags, FTS5WrapperTokenCallback) throws -> Void
    let context: UnsafeMutableRawPointer?
    let tokenCallback: FTS5TokenCallback

    init(
        accept: @escaping (String, FTS5TokenFlags, FTS5WrapperTokenCallback) throws -> Void,
        context: UnsafeMutableRawPointer?,
        tokenCallback: @escaping FTS5TokenCallback)
    {
        self.accept = accept
        self.context = context
        self.tokenCallback = tokenCallback
    }
}

extension FTS5WrapperTokenizer {
    /// Tokenizes the text with the wrapped tokenizer, and gives each token to
    /// ``accept(token:flags:for:tokenCallback:)``. The output tokens keep the byte offsets of
    /// the token they come from.
    public func tokenize(
        context: UnsafeMutableRawPointer?,
        tokenization: FTS5Tokenization,
        pText: UnsafePointer<CChar>?,
        nText: CInt,
        tokenCallback: @escaping FTS5TokenCallback) -> CInt
    {
        let wrapperContext = FTS5WrapperContext(
            accept: { token, flags, callback in
                try self.accept(token: token, flags: flags, for: tokenization, tokenCallback: callback)
            },
            context: context,
            tokenCallback: tokenCallback)
        return withExtendedLifetime(wrapperContext) {
            // Unsafe: the context is unretained: withExtendedLifetime keeps it alive until the
            // wrapped tokenizer returns, and tokenizers call back only before they return.
            wrappedTokenizer.tokenize(
                context: Unmanaged.passUnretained(wrapperContext).toOpaque(),
                tokenization: tokenization,
                pText: pText,
                nText: nText,
                tokenCallback: { context, flags, pToken, nToken, iStart, iEnd in
                    guard let context else { return SQLITE_ERROR }
                    // Unsafe: the context passed above, alive while `tokenize` runs.
                    let wrapperContext = Unmanaged<FTS5WrapperContext>.fromOpaque(context).takeUnretainedValue()
                    let token = fts5String(pToken, nToken)
                    do {
                        try wrapperContext.accept(token, FTS5TokenFlags(rawValue: flags)) { output, outputFlags in
                            var output = output
                            let code = output.withUTF8 { buffer in
                                buffer.withMemoryRebound(to: CChar.self) { bytes in
                                    withNonNullText(bytes.baseAddress) { pointer in
                                        wrapperContext.tokenCallback(
                                            wrapperContext.context, outputFlags.rawValue,
                                            pointer, CInt(bytes.count), iStart, iEnd)
                                    }
                                }
                            }
                            if code != SQLITE_OK {
                                throw FTS5TokenCallbackError(code: code)
                            }
                        }
                        return SQLITE_OK
                    } catch let error as FTS5TokenCallbackError {
                        return error.code
                    } catch let error as DatabaseError {
                        return error.extendedResultCode.rawValue
                    } catch {
                        return SQLITE_ERROR
                    }
                })
        }
    }
}
