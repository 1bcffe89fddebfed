/// A worker's announcement: who it is and how many items it can hold at once.
public struct WorkerHello: Codable, Sendable, Equatable {
    /// Stable for the life of the worker process; also its ZeroMQ routing id.
    public var workerID: String
    /// The host name, for `status`.
    public var host: String
    /// Compression slots; the coordinator's credit to this worker.
    public var slots: Int
    /// The worker's process id, for `status`.
    public var pid: Int32
    /// The engines it can compress with (`zlib`, `libdeflate`, `isal`); nil means zlib only.
    /// Names it does not know are ignored by the coordinator.
    public var engines: [String]?
    /// `auto`, `shared` or `remote` (`StorageMode`); nil means remote.
    public var storage: String?
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`): a worker on the
    /// coordinator's kernel writes through the same page cache, so the coordinator's `syncfs`
    /// makes its pieces durable; any other must fsync them itself.
    public var bootID: String?
    /// What it can do beyond compressing (`verify`: it answers `verify` items); nil means
    /// nothing. Names the coordinator does not know are ignored.
    public var capabilities: [String]?
    /// The items it still holds from an earlier registration (it reconnected, or the
    /// coordinator had forgotten it): queued, compressing, or answered while it had no
    /// coordinator to answer to. The coordinator's `welcome.keep` says which it still wants;
    /// nil from workers that drop their items when they register again.
    public var holding: [HeldItems]?

    /// The capability of answering `verify` items.
    public static let verifyCapability = "verify"
    /// The capability of answering `verify` range blocks (kind 3) and reporting the CRC-32 of
    /// the compressed bytes read for each block: what checking a stitched file takes.
    public static let verifyRangeCapability = "verifyRange"
    /// The capability of answering `publish`: renaming an accepted attempt's whole members
    /// into place itself, so the coordinator touches none of those files.
    public static let publishCapability = "publish"
    /// The capability of reading blocks whose source is composite (`RefSegment`, a `--tar`
    /// job's stream) in `workRef` and `verify`: such a worker gets a tar job by reference.
    public static let segmentsCapability = "segments"
    /// The capability of answering `batch` and `verifyBatch`: one-block files named below a
    /// root, so the coordinator sends a batch, not a reference per file.
    public static let batchesCapability = "batches"
    /// The capability of answering `scan`: listing a slice of a directory below a job's root
    /// and compressing its one-block files as a batch.
    public static let scansCapability = "scans"
    /// The capability of answering `checkListing`: listing a slice as a `scan` would and
    /// answering with the listing's digest, so a scan by another principal is checked.
    public static let listingsCapability = "listings"
    /// The capability of answering a `checkListing` that rides in a `verifyBatch`, in that
    /// batch's `verified`: a scan's listing and its batch are checked in one round trip.
    public static let batchListingsCapability = "batchListings"
    /// The capability of writing a stitch's final header (`StitchRequest.finalHeader`, the
    /// offset table's lengths): only such a worker stitches a member that carries the table.
    public static let offsetTableCapability = "offsetTable"
    /// The capability of compressing and checking whole files of several blocks in a `scan`,
    /// `batch` and `verifyBatch` (`MemberBlocks`): such a worker's batches take a folder's
    /// files up to the scan's limit, not only its one-block files.
    public static let wholeFilesCapability = "wholeFiles"

    /// The slots a coordinator accepts: a worker claiming more is refused, not trusted.
    public static let slotRange = 1...1024
    /// Longest worker id or host name accepted, in UTF-8 bytes.
    public static let maxNameBytes = 128

    /// Why the announcement cannot be accepted, or nil when it can: slots out of range, or an
    /// id or host that is empty, too long or has control characters (which would forge log lines).
    public var defect: String? {
        guard Self.slotRange.contains(slots) else {
            return "worker announced \(slots) slots (must be \(Self.slotRange.lowerBound)-\(Self.slotRange.upperBound))"
        }
        if let storage, StorageMode(rawValue: storage) == nil { return "unknown storage mode (auto, shared or remote)" }
        if let bootID, bootID.utf8.count > 64 { return "bootID longer than 64 bytes" }
        if let holding, holding.reduce(0, { $0 + $1.itemIDs.count }) > HeldItems.limit(slots: slots) {
            return "holding more than \(HeldItems.limit(slots: slots)) items (65 per slot)"
        }
        if let capabilities, capabilities.count > 16 || capabilities.contains(where: { $0.utf8.count > 32 }) {
            return "at most 16 capabilities of at most 32 bytes"
        }
        for (field, value) in [("workerID", workerID), ("host", host)] {
            guard !value.isEmpty, value.utf8.count <= Self.maxNameBytes,
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return "\(field) must be 1-\(Self.maxNameBytes) bytes without control characters"
            }
        }
        return nil
    }

    /// Creates an announcement.
    public init(workerID: String, host: String, slots: Int, pid: Int32, engines: [String]? = nil, storage: StorageMode? = nil, bootID: String? = nil,
                capabilities: [String]? = nil, holding: [HeldItems]? = nil) {
        self.capabilities = capabilities
        self.holding = holding
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.pid = pid
        self.engines = engines
        self.storage = storage?.rawValue
        self.bootID = bootID
    }
}
