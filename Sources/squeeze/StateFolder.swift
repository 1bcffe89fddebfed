import Foundation
import Glibc
import SqueezeJournal

/// Where `squeeze coordinator` keeps its journal: `--state DIR`, else `$XDG_STATE_HOME/squeeze`,
/// else `~/.local/state/squeeze`.
enum StateFolder {
    /// The folder to use when `--state` is not given.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/squeeze" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/squeeze"
    }

    /// Makes `folder` (mode 0700, parents as needed) and opens the journal in it; every
    /// failure is one line naming the path on stderr, and exit status 1.
    static func openJournal(in folder: String) throws -> Journal {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure.exit("cannot create the state folder \(folder): \((error as NSError).localizedDescription)")
        }
        do {
            return try Journal(path: folder + "/" + Journal.stateFileName)
        } catch {
            throw CommandFailure.exit("\(error)")
        }
    }
}
