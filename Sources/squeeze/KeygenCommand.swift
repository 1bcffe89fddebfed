import ArgumentParser
import Foundation
import SqueezeZMQ

/// `squeeze keygen NAME`: a CURVE key pair as czmq certificates, NAME.key (secret, mode 0600)
/// and NAME.pub (public).
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create a CURVE key pair: NAME.key (secret certificate, mode 0600) and NAME.pub (public certificate).",
        discussion: """
        The files are czmq certificates, which pyzmq's zmq.auth.load_certificate and czmq read. \
        A coordinator is started with --key NAME.key and a folder of the .pub files of the \
        workers and clients it lets in (--authorized); workers and clients get --key with their \
        own .key and --coordinator-key with the coordinator's .pub.
        """
    )

    @Argument(help: "The name of the pair: letters, digits, '.', '_' and '-', at most 64.")
    var name: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "The folder to write to.")
    var output = "."

    @Flag(help: "Replace existing files.")
    var force = false

    func run() throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw CommandFailure.exit("keygen \(name.debugDescription): a name is 1-64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        do { try ZMQLibrary.load() } catch { throw CommandFailure.exit("keygen: \(error)") }
        guard CurveKeyPair.isAvailable else {
            throw CommandFailure.exit("keygen: this libzmq has no CURVE support (it was built without libsodium)")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure.exit("-o \(output): not a folder")
        }
        let base = (output as NSString).appendingPathComponent(name)
        let secretPath = base + ".key"
        let publicPath = base + ".pub"
        if !force {
            for path in [secretPath, publicPath] where FileManager.default.fileExists(atPath: path) {
                throw CommandFailure.exit("\(path) exists (--force replaces it)")
            }
        }
        let pair: CurveKeyPair
        do {
            pair = try CurveKeyPair.generate()
        } catch {
            throw CommandFailure.exit("keygen: \(error)")
        }
        let certificate = CurveCertificate(publicKey: pair.publicKey, secretKey: pair.secretKey, metadata: ["name": name])
        do {
            try KeyFileWriter.write(certificate.text, to: secretPath, mode: 0o600, replace: force)
        } catch {
            throw CommandFailure.exit(error.description)
        }
        do {
            try KeyFileWriter.write(certificate.publicOnly.text, to: publicPath, mode: 0o644, replace: force)
        } catch {
            // A secret without its public half is of no use; do not leave it behind.
            unlink(secretPath)
            throw CommandFailure.exit(error.description)
        }
        print("\(secretPath): secret certificate (keep it to this host)")
        print("\(publicPath): public certificate, key \(pair.publicKey.z85)")
    }
}
