import SqueezeProtocol

/// What a verifier's findings say about an answer, against what the coordinator expects: each
/// block decoded, to the CRC-32 the compressing worker claimed, which must also be that of
/// the source (read at dispatch by the coordinator in remote mode, re-read by the verifier on
/// shared storage). The verifier is never told the claim, so agreeing with it takes decoding.
enum VerdictReading: Sendable, Equatable {
    /// Every block decoded to its claim.
    case good
    /// Some block did not (the verifier says the answer is bad): named, with the reason.
    case bad(String)
    /// The verifier could not read the bytes (shared storage): its word counts for nothing.
    case unreadable(String)

    /// Reads `findings` against the claimed CRCs, in order.
    static func read(_ findings: [VerifyFinding], claims: [UInt32], byReference: [Bool]) -> VerdictReading {
        guard findings.count == claims.count, claims.count == byReference.count else {
            return .bad("\(findings.count) findings for \(claims.count) blocks")
        }
        for (position, finding) in findings.enumerated() {
            switch finding.outcome {
            case .unreadable:
                return .unreadable("block \(position): \(finding.reason)")
            case .defect:
                return .bad("block \(position): \(finding.reason)")
            case .decoded:
                if finding.crc != claims[position] {
                    return .bad("block \(position): decodes to CRC-32 \(String(finding.crc, radix: 16)), \(String(claims[position], radix: 16)) claimed")
                }
                if byReference[position], finding.sourceCRC != claims[position] {
                    return .bad("block \(position): the source's CRC-32 is \(String(finding.sourceCRC, radix: 16)), \(String(claims[position], radix: 16)) claimed")
                }
            }
        }
        return .good
    }
}
