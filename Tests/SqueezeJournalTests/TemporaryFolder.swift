import Foundation

/// A fresh folder under the system's temporary directory, removed with everything in it once `body` returns.
func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-journal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try body(folder)
}

/// The names in `folder`, sorted.
func contents(of folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}
