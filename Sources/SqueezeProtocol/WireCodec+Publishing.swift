import SqueezeZMQ

/// The binary tables of `publish` and `published` (docs/protocol.md, "Publishing").
extension WireCodec {
    static func encodePublish(_ grant: PublishGrant) -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + grant.workspace.count + grant.members.reduce(0) { $0 + 9 + $1.output.count })
        writer.write(grant.jobID)
        writer.write(grant.itemID)
        writer.write(grant.attempt)
        writer.write(UInt8(grant.syncPieces ? 1 : 0))
        writeBytes(grant.workspace, to: &writer)
        writer.write(UInt32(grant.members.count))
        for member in grant.members {
            writer.write(member.position)
            writer.write(UInt8(member.replace ? 1 : 0))
            writeBytes(member.output, to: &writer)
        }
        return writer.bytes
    }

    static func encodePublished(_ report: PublishReport) -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + report.failures.count * 64)
        writer.write(report.jobID)
        writer.write(report.itemID)
        writer.write(report.attempt)
        writer.write(UInt32(report.failures.count))
        for failure in report.failures {
            writer.write(failure.position)
            writeBytes(Array(failure.reason.utf8.prefix(maxFailureBytes)), to: &writer)
        }
        return writer.bytes
    }

    static func publish(_ parts: [ZMQFrame]) throws(ProtocolError) -> PublishGrant {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let flags = try reader.read(UInt8.self, "flags")
        let workspace = try path(&reader, "workspace")
        let count = Int(try reader.read(UInt32.self, "member count"))
        guard flags <= 1 else { throw .malformed("flags \(flags)") }
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("member count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var members: [PublishMember] = []
        members.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            let position = try reader.read(UInt32.self, "position")
            let replace = try reader.read(UInt8.self, "replace")
            let output = try path(&reader, "output")
            guard position < ProtocolLimits.maxBlocksPerItem else { throw .malformed("position \(position)") }
            guard replace <= 1 else { throw .malformed("replace \(replace)") }
            members.append(PublishMember(position: position, output: output, replace: replace == 1))
        }
        try reader.expectEnd("publish table")
        return PublishGrant(jobID: job, itemID: item, attempt: attempt, workspace: workspace, syncPieces: flags == 1, members: members)
    }

    static func published(_ parts: [ZMQFrame]) throws(ProtocolError) -> PublishReport {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let count = Int(try reader.read(UInt32.self, "failure count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("failure count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var failures: [PublishFailure] = []
        failures.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            let position = try reader.read(UInt32.self, "position")
            let reason = try readBytes(&reader, limit: maxFailureBytes, "reason")
            guard position < ProtocolLimits.maxBlocksPerItem else { throw .malformed("position \(position)") }
            failures.append(PublishFailure(position: position, reason: String(decoding: reason, as: UTF8.self)))
        }
        try reader.expectEnd("published table")
        return PublishReport(jobID: job, itemID: item, attempt: attempt, failures: failures)
    }
}
