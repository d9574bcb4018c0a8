extension FormStyle: CustomStringConvertible {
    /// The options in Swift syntax, such as `FormStyle(arrays: .indexed, nesting: .dots)`,
    /// naming only those that differ from the defaults.
    public var description: String {
        let defaults = FormStyle()
        var parts: [String] = []
        if arrays != defaults.arrays { parts.append("arrays: \(arrays)") }
        if bools != defaults.bools { parts.append("bools: \(bools)") }
        if nesting != defaults.nesting { parts.append("nesting: \(nesting)") }
        if nils != defaults.nils { parts.append("nils: \(nils)") }
        if spaces != defaults.spaces { parts.append("spaces: \(spaces)") }
        if keyOrder != defaults.keyOrder { parts.append("keyOrder: \(keyOrder)") }
        if brackets != defaults.brackets { parts.append("brackets: \(brackets)") }
        return "FormStyle(\(parts.joined(separator: ", ")))"
    }
}

extension FormStyle.Arrays: CustomStringConvertible {
    /// `.brackets`, `.noBrackets` or `.indexed`.
    public var description: String {
        switch kind {
        case .brackets: return ".brackets"
        case .noBrackets: return ".noBrackets"
        case .indexed: return ".indexed"
        }
    }
}

extension FormStyle.Bools: CustomStringConvertible {
    /// `.numeric` or `.literal`.
    public var description: String { literal ? ".literal" : ".numeric" }
}

extension FormStyle.Nesting: CustomStringConvertible {
    /// `.brackets` or `.dots`.
    public var description: String { dots ? ".dots" : ".brackets" }
}

extension FormStyle.Nils: CustomStringConvertible {
    /// `.omit`, `.emptyValue` or `.keyOnly`.
    public var description: String {
        switch kind {
        case .omit: return ".omit"
        case .emptyValue: return ".emptyValue"
        case .keyOnly: return ".keyOnly"
        }
    }
}

extension FormStyle.Spaces: CustomStringConvertible {
    /// `.automatic`, `.percent20` or `.plus`.
    public var description: String {
        switch kind {
        case .automatic: return ".automatic"
        case .percent20: return ".percent20"
        case .plus: return ".plus"
        }
    }
}

extension FormStyle.KeyOrder: CustomStringConvertible {
    /// `.sorted` or `.asEncoded`.
    public var description: String { sorted ? ".sorted" : ".asEncoded" }
}

extension FormStyle.Brackets: CustomStringConvertible {
    /// `.percentEncoded` or `.literal`.
    public var description: String { literal ? ".literal" : ".percentEncoded" }
}
