import Foundation

/// Folders the coordinator's tests write in: a fresh one under the system's temporary folder,
/// removed by the test that made it.
enum ScratchFolder {
    /// Creates `squeeze-LABEL-UUID` and returns its path.
    static func make(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
