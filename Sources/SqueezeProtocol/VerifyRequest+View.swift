extension VerifyRequest {
    /// Says of every reference block that the verifier sees `view` of the source's stamp.
    public mutating func setView(_ view: SharedView) {
        blocks = blocks.map { block in
            guard case .reference(var reference) = block else { return block }
            reference.view = view
            return .reference(reference)
        }
    }
}
