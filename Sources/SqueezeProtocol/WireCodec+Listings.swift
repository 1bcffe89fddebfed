import SqueezeZMQ

/// The binary tables of `checkListing` and `listingChecked` (docs/protocol.md, "Listing checks").
extension WireCodec {
    /// A `checkListing`'s first table: check id and key.
    static let maxListingCheckTable = 8 + 8 + 8
    /// A `listingChecked`'s table: check id and digest.
    static let maxListingCheckedTable = 8 + 8

    static func encodeListingCheck(_ check: ListingCheck) -> [UInt8] {
        var writer = ByteWriter(capacity: maxListingCheckTable)
        writer.write(check.checkID)
        writer.write(check.key0)
        writer.write(check.key1)
        return writer.bytes
    }

    /// A listing check's two frames, in a `checkListing` or riding in a `verifyBatch`: its
    /// table, then the slice's `scan` table.
    static func listingCheckFrames(_ check: ListingCheck) -> [ZMQFrame] {
        [ZMQFrame(encodeListingCheck(check)), ZMQFrame(encodeScan(check.scan))]
    }

    /// A `checkListing`: its table, then a `scan` table held to the same rules as a `scan`'s.
    static func listingCheck(_ parts: [ZMQFrame]) throws(ProtocolError) -> ListingCheck {
        guard parts.count == 2 else { throw .frameCount(expected: 3, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let id = try reader.read(UInt64.self, "check id")
        let key0 = try reader.read(UInt64.self, "key")
        let key1 = try reader.read(UInt64.self, "key")
        try reader.expectEnd("checkListing table")
        return ListingCheck(checkID: id, key0: key0, key1: key1, scan: try scan([parts[1]]))
    }

    static func encodeListingChecked(_ answer: ListingChecked) -> [UInt8] {
        var writer = ByteWriter(capacity: maxListingCheckedTable)
        writer.write(answer.checkID)
        writer.write(answer.digest)
        return writer.bytes
    }

    static func listingChecked(_ parts: [ZMQFrame]) throws(ProtocolError) -> ListingChecked {
        try expectFrames(parts, 1)
        var reader = ByteReader(parts[0])
        let id = try reader.read(UInt64.self, "check id")
        let digest = try reader.read(UInt64.self, "digest")
        try reader.expectEnd("listingChecked table")
        return ListingChecked(checkID: id, digest: digest)
    }
}
