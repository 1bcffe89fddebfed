import CZeroMQ

/// A CURVE key pair: the public key others are given and the secret key that proves it.
public struct CurveKeyPair: Sendable, Equatable {
    /// The public key.
    public let publicKey: CurveKey
    /// The secret key.
    public let secretKey: CurveKey

    /// Whether this libzmq was built with CURVE (libsodium); false when it cannot be loaded
    /// (`ZMQLibrary.load` says why).
    public static var isAvailable: Bool { squeeze_zmq_has("curve") != 0 }

    /// A fresh key pair from libzmq (`zmq_curve_keypair`).
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: CurveKey.textCount + 1)
        var secretText = [CChar](repeating: 0, count: CurveKey.textCount + 1)
        let rc = publicText.withUnsafeMutableBufferPointer { publicBuffer in
            secretText.withUnsafeMutableBufferPointer { secretBuffer in
                squeeze_zmq_curve_keypair(publicBuffer.baseAddress, secretBuffer.baseAddress)
            }
        }
        guard rc == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        guard let publicKey = CurveKey(z85: Self.string(publicText)), let secretKey = CurveKey(z85: Self.string(secretText)) else {
            throw ZMQError(operation: "zmq_curve_keypair (unreadable key)", errno: EPROTO)
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The pair of `secretKey`, its public key derived with `zmq_curve_public`.
    public init(secretKey: CurveKey) throws(ZMQError) {
        var publicText = [CChar](repeating: 0, count: CurveKey.textCount + 1)
        let secretText = secretKey.z85
        let rc = publicText.withUnsafeMutableBufferPointer { squeeze_zmq_curve_public($0.baseAddress, secretText) }
        guard rc == 0 else { throw ZMQError.last("zmq_curve_public") }
        guard let publicKey = CurveKey(z85: Self.string(publicText)) else {
            throw ZMQError(operation: "zmq_curve_public (unreadable key)", errno: EPROTO)
        }
        self.init(publicKey: publicKey, secretKey: secretKey)
    }

    /// A pair from both keys, as read from a certificate (see `CurveCertificate` for the check
    /// that they belong together).
    public init(publicKey: CurveKey, secretKey: CurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
