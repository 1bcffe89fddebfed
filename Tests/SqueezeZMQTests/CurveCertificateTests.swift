import Foundation
import Testing
@testable import SqueezeZMQ

@Suite("CURVE keys and certificates")
struct CurveCertificateTests {
    @Test("Z85 matches ZeroMQ RFC 32's example, and keys round-trip through it")
    func z85() throws {
        // RFC 32: 86 4F D2 6F B5 59 F7 5B encodes as "HelloWorld"; a key is 4 of those.
        let bytes: [UInt8] = Array(repeating: [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B], count: 4).flatMap { $0 }
        let key = try #require(CurveKey(bytes: bytes))
        #expect(key.z85 == String(repeating: "HelloWorld", count: 4))
        #expect(CurveKey(z85: key.z85) == key)
        #expect(CurveKey(bytes: Array(bytes.prefix(31))) == nil)
        #expect(CurveKey(z85: String(repeating: "HelloWorld", count: 3)) == nil, "too short")
        #expect(CurveKey(z85: String(repeating: "Hello\"orld", count: 4)) == nil, "a quote is not Z85")
        #expect(CurveKey(z85: String(repeating: "Hello~orld", count: 4)) == nil, "a tilde is not Z85")
    }

    @Test("a generated pair's public key is derived from its secret key")
    func keyPair() throws {
        try #require(CurveKeyPair.isAvailable, "libzmq without CURVE")
        let pair = try CurveKeyPair.generate()
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(try CurveKeyPair.generate().publicKey != pair.publicKey)
    }

    @Test("secret and public certificates round-trip through their text")
    func roundTrip() throws {
        let pair = try CurveKeyPair.generate()
        let secret = CurveCertificate(publicKey: pair.publicKey, secretKey: pair.secretKey, metadata: ["name": "worker-1"])
        let parsed = try CurveCertificate(parsing: secret.text)
        #expect(parsed == secret)
        #expect(parsed.keyPair == pair)
        let publicOnly = try CurveCertificate(parsing: secret.publicOnly.text)
        #expect(publicOnly.secretKey == nil && publicOnly.publicKey == pair.publicKey)
        #expect(!secret.publicOnly.text.contains(pair.secretKey.z85))
        #expect(secret.text.contains("\ncurve\n    public-key = \"\(pair.publicKey.z85)\"\n    secret-key = \"\(pair.secretKey.z85)\"\n"))
    }

    @Test("a certificate as czmq and pyzmq write it parses: banner, metadata, CRLF, single quotes")
    func foreignFormat() throws {
        let pair = try CurveKeyPair.generate()
        let text = """
        #   ****  Generated on 2024-05-01 10:00:00 by czmq  ****\r
        #   ZeroMQ CURVE **Secret** Certificate\r
        \r
        metadata\r
            name = "outside worker"\r
            email = ops@example.org\r
        curve\r
            public-key = '\(pair.publicKey.z85)'\r
            secret-key = "\(pair.secretKey.z85)"   # a comment\r

        """
        let certificate = try CurveCertificate(parsing: text)
        #expect(certificate.keyPair == pair)
        #expect(certificate.metadata == ["name": "outside worker", "email": "ops@example.org"])
    }

    @Test("defects are named", arguments: [
        ("metadata\ncurve\n", "no public-key"),
        ("curve\n    public-key = \"short\"\n", "the public-key is not a key"),
        ("curve\n    public-key\n", "line 2: expected `name = value`"),
        ("curve\n    public-key = \"\(String(repeating: "HelloWorld", count: 4))\"\n    public-key = \"x\"\n", "line 3: a second public-key"),
        ("metadata\n    public-key = \"\(String(repeating: "HelloWorld", count: 4))\"\n", "no public-key"),
    ])
    func defects(text: String, reason: String) {
        #expect {
            try CurveCertificate(parsing: text)
        } throws: { error in
            (error as? CurveCertificateError)?.reason.hasPrefix(reason) == true
        }
    }

    @Test("a secret-key that is not the public key's own is refused")
    func mismatchedPair() throws {
        let one = try CurveKeyPair.generate()
        let other = try CurveKeyPair.generate()
        let text = "curve\n    public-key = \"\(one.publicKey.z85)\"\n    secret-key = \"\(other.secretKey.z85)\"\n"
        #expect(throws: CurveCertificateError(reason: "the secret-key does not belong to the public-key")) {
            try CurveCertificate(parsing: text)
        }
    }

    @Test("load names the file: missing, a folder, too large, not UTF-8")
    func loadErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-cert-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = folder + "/big.pub"
        try Data(repeating: 0x23, count: CurveCertificate.maxFileBytes + 1).write(to: URL(fileURLWithPath: big))
        let binary = folder + "/binary.pub"
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: binary))
        for (path, reason) in [(folder + "/missing.pub", "cannot open"), (folder, "not a regular file"),
                               (big, "too large"), (binary, "not a certificate")] {
            #expect {
                try CurveCertificate.load(path: path)
            } throws: { error in
                let error = error as? CurveCertificateError
                return error?.path == path && error?.reason.hasPrefix(reason) == true && error?.description.hasPrefix(path + ": ") == true
            }
        }
    }

    @Test("loopback addresses are local; anything reachable from elsewhere is not", arguments: [
        ("tcp://127.0.0.1:5555", true), ("tcp://127.8.9.10:0", true), ("tcp://localhost:5555", true), ("tcp://lo:5555", true),
        ("tcp://[::1]:5555", true), ("tcp://[::ffff:127.0.0.1]:5555", true), ("ipc:///tmp/squeeze", true), ("inproc://x", true),
        ("tcp://0.0.0.0:5555", false), ("tcp://*:5555", false), ("tcp://[::]:5555", false), ("tcp://eth0:5555", false),
        ("tcp://10.1.2.3:5555", false), ("tcp://example.org:5555", false), ("tcp://128.0.0.1:5555", false),
        ("tcp://[::ffff:10.0.0.1]:5555", false), ("ws://127.0.0.1:80", false), ("pgm://eth0;239.192.1.1:5555", false),
    ])
    func loopback(address: String, local: Bool) {
        #expect(ZMQBindAddress.isLocal(address) == local)
    }
}
