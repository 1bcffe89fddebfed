/// What the coordinator read for one block it sent to a remote worker, kept until the answer
/// is checked: the CRC-32 of the block's data, and the dictionary it was primed with (empty
/// for engines without one).
struct SourceBlock: Sendable {
    /// CRC-32 of the block's data as read.
    var crc: UInt32
    /// The bytes before the block that were sent as its dictionary.
    var dictionary: [UInt8]
}
