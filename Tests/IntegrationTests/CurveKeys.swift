import Foundation
import Testing

/// Key pairs made with the real `squeeze keygen` in one folder, and the options that use them.
struct CurveKeys {
    let folder: String

    /// Makes the folder (and `authorized/` in it) under `tree`.
    init(in tree: TestTree) throws {
        folder = tree.path("keys")
        try FileManager.default.createDirectory(atPath: folder + "/authorized", withIntermediateDirectories: true)
    }

    /// `squeeze keygen NAME -o folder`; returns the public key's Z85 text from its output.
    @discardableResult
    func make(_ name: String) throws -> String {
        let outcome = try SqueezeBinary.run(["keygen", name, "-o", folder])
        try #require(outcome.status == 0, "keygen \(name): \(outcome.stderr)")
        return String(outcome.stdout.components(separatedBy: "key ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func secret(_ name: String) -> String { "\(folder)/\(name).key" }
    func publicCertificate(_ name: String) -> String { "\(folder)/\(name).pub" }
    var authorized: String { folder + "/authorized" }

    /// Copies NAME.pub into the allow-list folder.
    func authorize(_ name: String) throws {
        try FileManager.default.copyItem(atPath: publicCertificate(name), toPath: "\(authorized)/\(name).pub")
    }

    /// Keys for a cluster whose workers are separate principals (docs/architecture.md,
    /// "Checking results"): on one host without keys they all count as one, and none may
    /// check another's answers. Makes and authorizes `client` and every name in `principals`.
    static func principals(_ principals: [String], in tree: TestTree) throws -> CurveKeys {
        let keys = try CurveKeys(in: tree)
        _ = try keys.make("coordinator")
        for name in ["client"] + principals {
            _ = try keys.make(name)
            try keys.authorize(name)
        }
        return keys
    }

    /// The environment that connects Tests/Peers/bad_worker.py with the key pair NAME.
    func hostileEnvironment(_ name: String) -> [String: String] {
        ["CURVE_SECRET": secret(name), "CURVE_SERVER": publicCertificate("coordinator")]
    }

    /// Removes NAME.pub from the allow-list folder.
    func revoke(_ name: String) throws {
        try FileManager.default.removeItem(atPath: "\(authorized)/\(name).pub")
    }

    /// The coordinator's options: its key and the allow-list.
    var coordinatorArguments: [String] { ["--key", secret("coordinator"), "--authorized", authorized] }

    /// A worker's or client's options with the key pair NAME.
    func clientArguments(_ name: String) -> [String] {
        ["--key", secret(name), "--coordinator-key", publicCertificate("coordinator")]
    }
}
