import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@DatabaseRecord`: an extension of the struct with `init(row:)`, `encode(to:)`,
/// `databaseTableName` and `Columns`, each only where the struct's declared protocols call for
/// it and the struct does not declare it itself.
public struct DatabaseRecordMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax]
    {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: RecordMacroMessage.notAStruct))
            return []
        }
        let inherited = Set(structDecl.inheritanceClause?.inheritedTypes.map { lastComponent(of: $0.type) } ?? [])
        let fetchable = inherited.contains("FetchableRecord")
        let encodable = !inherited.isDisjoint(with: ["EncodableRecord", "PersistableRecord", "MutablePersistableRecord"])
        let tableRecord = !inherited.isDisjoint(with: ["TableRecord", "PersistableRecord", "MutablePersistableRecord"])
        guard fetchable || encodable || tableRecord else {
            context.diagnose(Diagnostic(node: structDecl.name, message: RecordMacroMessage.noRecordProtocol))
            return []
        }

        let members = structDecl.memberBlock.members.map(\.decl)
        let declaredNames = Set(members.flatMap(memberNames(of:)))
        let codingKeys = self.codingKeys(in: members)
        var properties: [StoredProperty] = []
        var failed = false
        for member in members {
            guard let variable = member.as(VariableDeclSyntax.self) else { continue }
            for property in storedProperties(of: variable, context: context, failed: &failed) {
                properties.append(property)
            }
        }
        if failed { return [] }

        // The properties CodingKeys lists, under its names (all of them without CodingKeys).
        var coded: [(property: StoredProperty, key: String)] = []
        for property in properties {
            if let codingKeys {
                guard let key = codingKeys[property.name] else {
                    if fetchable && property.initializedInDeclaration == false && !property.isOptional {
                        context.diagnose(Diagnostic(node: property.node, message: RecordMacroMessage.notInCodingKeys(property.name)))
                        failed = true
                    }
                    continue
                }
                coded.append((property, key))
            } else {
                coded.append((property, property.name))
            }
        }
        if failed { return [] }

        let access = accessPrefix(of: structDecl)
        var decls: [String] = []
        if fetchable && !declaredNames.contains("init(row:Row)") {
            decls.append(initRow(coded, access: access))
        }
        if encodable && !declaredNames.contains("encode(to:PersistenceContainer)") {
            decls.append(encodeTo(coded, access: access))
        }
        let isGeneric = structDecl.genericParameterClause != nil
        if tableRecord && !isGeneric && !declaredNames.contains("databaseTableName") {
            let name = defaultTableName(structDecl.name.text)
            decls.append("\(access)static var databaseTableName: String { \(stringLiteral(name)) }")
        }
        // Columns by key: with a column strategy of its own, the struct names its columns.
        let hasColumnStrategy = declaredNames.contains("databaseColumnDecodingStrategy") || declaredNames.contains("databaseColumnEncodingStrategy")
        if (tableRecord || fetchable) && !declaredNames.contains("Columns") && !hasColumnStrategy {
            let columns = coded.map { "\(access)static let \(escapedIdentifier($0.property.name)) = GRDBCipher.Column(\(stringLiteral($0.key)))" }
            decls.append("\(access)enum Columns {\n\(columns.joined(separator: "\n"))\n}")
        }
        if decls.isEmpty { return [] }
        let source = "extension \(type.trimmedDescription) {\n\(decls.joined(separator: "\n\n"))\n}"
        return [try ExtensionDeclSyntax("\(raw: source)")]
    }

    // MARK: - Generated members

    static func initRow(_ coded: [(property: StoredProperty, key: String)], access: String) -> String {
        let decoded = coded.filter { !$0.property.isLet || !$0.property.initializedInDeclaration }
        if decoded.isEmpty {
            return "\(access)init(row: GRDBCipher.Row) throws {\n}"
        }
        var lines = ["var decoding = GRDBCipher._DatabaseRecordDecoding<Self>(row: row)"]
        for (property, key) in decoded {
            let method = property.isOptional ? "decodeIfPresent" : "decode"
            lines.append("self.\(escapedIdentifier(property.name)) = try decoding.\(method)(\(stringLiteral(key)))")
        }
        return "\(access)init(row: GRDBCipher.Row) throws {\n\(lines.joined(separator: "\n"))\n}"
    }

    static func encodeTo(_ coded: [(property: StoredProperty, key: String)], access: String) -> String {
        if coded.isEmpty {
            return "\(access)func encode(to container: inout GRDBCipher.PersistenceContainer) throws {\n}"
        }
        var lines = ["let encoding = GRDBCipher._DatabaseRecordEncoding<Self>()"]
        for (property, key) in coded {
            let method = property.isOptional ? "encodeIfPresent" : "encode"
            lines.append("try encoding.\(method)(self.\(escapedIdentifier(property.name)), \(stringLiteral(key)), into: &container)")
        }
        return "\(access)func encode(to container: inout GRDBCipher.PersistenceContainer) throws {\n\(lines.joined(separator: "\n"))\n}"
    }

    // MARK: - Reading the struct

    struct StoredProperty {
        var name: String
        var isLet: Bool
        var isOptional: Bool
        var initializedInDeclaration: Bool
        var node: Syntax
    }

    /// The stored instance properties a declaration declares (none for static, computed or
    /// lazy ones); a property without a type annotation is diagnosed.
    static func storedProperties(of variable: VariableDeclSyntax, context: some MacroExpansionContext, failed: inout Bool) -> [StoredProperty] {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if modifiers.contains("static") || modifiers.contains("class") || modifiers.contains("lazy") {
            return []
        }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let bindings = Array(variable.bindings)
        var result: [StoredProperty] = []
        for (index, binding) in bindings.enumerated() {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                // `var (a, b): (Int, Int)`: no column for a tuple.
                context.diagnose(Diagnostic(node: binding.pattern, message: RecordMacroMessage.tuplePattern(binding.pattern.trimmedDescription)))
                failed = true
                continue
            }
            if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
            // `var a, b: Int`: a binding without a type takes the next one's. Without a type
            // (`var score = 0`), the initializer's is not optional: the generated code lets
            // the compiler infer it.
            let type = bindings[index...].lazy.compactMap(\.typeAnnotation).first?.type
            result.append(StoredProperty(
                name: identifier.identifier.trimmedDescription.trimmingBackticks,
                isLet: isLet,
                isOptional: type.map(isOptional) ?? false,
                initializedInDeclaration: binding.initializer != nil,
                node: Syntax(binding)))
        }
        return result
    }

    static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter:
            return true
        case .accessors(let list):
            // Observers (willSet, didSet) keep a property stored.
            return list.contains { [.keyword(.get), .keyword(.set), .keyword(._modify), .keyword(._read)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional", identifier.genericArgumentClause != nil {
            return true
        }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional", member.genericArgumentClause != nil,
           member.baseType.trimmedDescription == "Swift"
        {
            return true
        }
        return false
    }

    /// `CodingKeys`' keys by property, if the struct declares the enum: a case's raw value, or
    /// its name.
    static func codingKeys(in members: [DeclSyntax]) -> [String: String]? {
        for member in members {
            guard let enumDecl = member.as(EnumDeclSyntax.self), enumDecl.name.text == "CodingKeys" else { continue }
            var keys: [String: String] = [:]
            for caseMember in enumDecl.memberBlock.members {
                guard let caseDecl = caseMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let name = element.name.trimmedDescription.trimmingBackticks
                    if let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self),
                       let value = literal.representedLiteralValue
                    {
                        keys[name] = value
                    } else {
                        keys[name] = name
                    }
                }
            }
            return keys
        }
        return nil
    }

    /// The names a member declares: `init(row:)` and `encode(to:)` with their labels.
    static func memberNames(of decl: DeclSyntax) -> [String] {
        // Functions and initializers with their labels and parameter types: `init(row i: Int)`
        // is not `init(row: Row)`.
        if let function = decl.as(FunctionDeclSyntax.self) {
            let parameters = function.signature.parameterClause.parameters.map { "\($0.firstName.text):\(lastComponent(of: $0.type))" }.joined()
            return [function.name.text, "\(function.name.text)(\(parameters))"]
        }
        if let initializer = decl.as(InitializerDeclSyntax.self) {
            let parameters = initializer.signature.parameterClause.parameters.map { "\($0.firstName.text):\(lastComponent(of: $0.type))" }.joined()
            return ["init(\(parameters))"]
        }
        if let variable = decl.as(VariableDeclSyntax.self) {
            return variable.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text.trimmingBackticks }
        }
        if let enumDecl = decl.as(EnumDeclSyntax.self) { return [enumDecl.name.text] }
        if let structDecl = decl.as(StructDeclSyntax.self) { return [structDecl.name.text] }
        if let alias = decl.as(TypeAliasDeclSyntax.self) { return [alias.name.text] }
        return []
    }

    static func lastComponent(of type: TypeSyntax) -> String {
        if let attributed = type.as(AttributedTypeSyntax.self) { return lastComponent(of: attributed.baseType) }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return type.trimmedDescription
    }

    static func accessPrefix(of decl: StructDeclSyntax) -> String {
        for modifier in decl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// GRDB's default table name rule, applied to the type name: the first word is
    /// lowercased; of a run of capitals followed by a lowercase letter, the last capital stays
    /// (it starts the second word). `HTTPRequest` → "httpRequest".
    static func defaultTableName(_ typeName: String) -> String {
        let characters = Array(typeName)
        var start = 0
        while start < characters.count, !characters[start].isUppercase { start += 1 }
        var end = start
        while end < characters.count, characters[end].isUppercase { end += 1 }
        let lowered = end - start > 1 && end < characters.count ? end - 1 : end
        return characters[..<lowered].map { $0.lowercased() }.joined() + String(characters[lowered...])
    }

    static func stringLiteral(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func escapedIdentifier(_ name: String) -> String {
        let keywords: Set<String> = ["default", "case", "class", "struct", "enum", "func", "var", "let", "in", "is", "as", "self", "Self", "init", "protocol", "extension", "import", "return", "if", "else", "for", "while", "switch", "where", "repeat", "do", "try", "throw", "throws", "static", "public", "private", "internal", "operator", "subscript", "typealias", "associatedtype", "deinit", "guard", "defer", "break", "continue", "fallthrough", "true", "false", "nil", "Type", "Protocol", "inout", "any", "some"]
        return keywords.contains(name) ? "`\(name)`" : name
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// What the macro explains when it cannot generate the record.
enum RecordMacroMessage: DiagnosticMessage {
    case notAStruct
    case noRecordProtocol
    case tuplePattern(String)
    case notInCodingKeys(String)

    var message: String {
        switch self {
        case .notAStruct:
            return "@DatabaseRecord applies to structs only; write init(row:) and encode(to:) by hand for classes and enums"
        case .noRecordProtocol:
            return "@DatabaseRecord needs a record protocol on the struct itself: declare FetchableRecord, PersistableRecord, MutablePersistableRecord, EncodableRecord or TableRecord in its inheritance clause"
        case .tuplePattern(let pattern):
            return "@DatabaseRecord can not map '\(pattern)' to columns: declare one stored property per column"
        case .notInCodingKeys(let name):
            return "'\(name)' is not in CodingKeys and has no default value: init(row:) could not initialize it; add it to CodingKeys or give it a default value"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAStruct: id = "notAStruct"
        case .noRecordProtocol: id = "noRecordProtocol"
        case .tuplePattern: id = "tuplePattern"
        case .notInCodingKeys: id = "notInCodingKeys"
        }
        return MessageID(domain: "GRDBCipherMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

@main
struct GRDBCipherMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [DatabaseRecordMacro.self]
}
