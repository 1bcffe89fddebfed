import SqueezeZMQ

extension MessageType {
    /// The most frames and bytes a message of this type may hold, its header included (a
    /// ROUTER's routing id is not): what the decoder's limits allow, worked out from them, so
    /// a receiver can drop anything larger while it reads it (`ProtocolReceiveLimits`).
    public var bound: ZMQMessageBound {
        let header = ProtocolLimits.headerSize
        let blocks = ProtocolLimits.maxBlocksPerItem
        let item = ProtocolLimits.maxItemBytes
        // An item's blocks compressed: each at most `maxCompressedBytes(forRaw:)` of its raw length.
        let compressedItem = item + item / 8 + blocks * 4096
        switch self {
        case .heartbeat, .goodbye, .unknownPeer, .statusRequest:
            return ZMQMessageBound(frames: 1, bytes: header)
        case .cancelJob, .cancel, .discarded, .clock:
            return ZMQMessageBound(frames: 2, bytes: header + 8)
        case .timings:
            return ZMQMessageBound(frames: 2, bytes: header + 1)
        case .workerReady:
            return ZMQMessageBound(frames: 2, bytes: header + ProtocolLimits.maxHelloBody)
        case .welcome, .itemFailed, .timing, .probe, .probeReply, .submit, .attach, .submitted, .jobEvent, .statusReply, .error:
            return ZMQMessageBound(frames: 2, bytes: header + ProtocolLimits.maxControlBody)
        case .work:
            // Each block's payload is its dictionary and its data.
            return ZMQMessageBound(frames: 2 + blocks, bytes: header + WireCodec.maxWorkTable + item + blocks * ProtocolLimits.maxDictionarySize)
        case .result:
            return ZMQMessageBound(frames: 2 + blocks, bytes: header + WireCodec.maxResultTable + compressedItem)
        case .verify:
            // Two payloads per inline block: its dictionary and its compressed bytes.
            // Then the segments frame of references to composite sources.
            return ZMQMessageBound(
                frames: 3 + 2 * blocks,
                bytes: header + WireCodec.maxVerifyTable + blocks * ProtocolLimits.maxDictionarySize + compressedItem + ProtocolLimits.maxSegmentsFrame)
        case .verified:
            // The findings, then a listing check's answer when the `verifyBatch` carried one.
            return ZMQMessageBound(frames: 3, bytes: header + WireCodec.maxVerifiedTable + WireCodec.maxListingCheckedTable)
        case .workRef:
            // The table, then the segments frame when some block's source is composite.
            return ZMQMessageBound(frames: 3, bytes: header + WireCodec.maxWorkRefTable + ProtocolLimits.maxSegmentsFrame)
        case .resultRef:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxResultRefTable)
        case .stitch:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxStitchTable)
        case .stitched:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxStitchedTable)
        case .discard:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxDiscardTable)
        case .publish:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxPublishTable)
        case .published:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxPublishedTable)
        case .batch:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxBatchTable)
        case .verifyBatch:
            // The batch, then the listing check of its scan as a `checkListing`'s two frames.
            return ZMQMessageBound(frames: 4, bytes: header + WireCodec.maxBatchCheckTable + WireCodec.maxListingCheckTable + WireCodec.maxScanTable)
        case .scan:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxScanTable)
        case .checkListing:
            return ZMQMessageBound(frames: 3, bytes: header + WireCodec.maxListingCheckTable + WireCodec.maxScanTable)
        case .listingChecked:
            return ZMQMessageBound(frames: 2, bytes: header + WireCodec.maxListingCheckedTable)
        case .scanned:
            // The listing, then the batch's pieces when it has small files.
            return ZMQMessageBound(frames: 3, bytes: header + WireCodec.maxScannedTable + WireCodec.maxResultRefTable)
        }
    }
}
