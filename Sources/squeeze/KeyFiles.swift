import SqueezeZMQ

/// Reads the certificate files named on the command line; each failure is one line naming
/// the option and the file.
enum KeyFiles {
    /// The key pair in the secret certificate at `path`, given as `option`.
    static func secret(_ path: String, option: String) throws -> CurveKeyPair {
        let certificate = try load(path, option: option)
        guard let pair = certificate.keyPair else {
            throw CommandFailure.exit("\(option) \(path): no secret-key (a public certificate; give the .key file made by squeeze keygen)")
        }
        return pair
    }

    /// The public key in the certificate at `path`, given as `option`.
    static func publicKey(_ path: String, option: String) throws -> CurveKey {
        try load(path, option: option).publicKey
    }

    private static func load(_ path: String, option: String) throws -> CurveCertificate {
        do { try ZMQLibrary.load() } catch { throw CommandFailure.exit("\(option): \(error)") }
        guard CurveKeyPair.isAvailable else {
            throw CommandFailure.exit("\(option): this libzmq has no CURVE support (it was built without libsodium)")
        }
        do {
            return try CurveCertificate.load(path: path)
        } catch {
            throw CommandFailure.exit("\(option) \(error)")
        }
    }
}
