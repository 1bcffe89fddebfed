import Foundation
import Glibc
import SqueezeProtocol
import SqueezeZMQ
import Testing

/// CURVE and the allow-list with the real binary: keygen's files, authorized and refused
/// workers and clients, keys added and removed while the coordinator runs, the safe
/// defaults, and a capture of the loopback traffic of a secured job.
@Suite("CURVE, the allow-list and safe defaults", .serialized)
struct CurveTests {
    /// Python with pyzmq (Debian's python3-zmq, which `make deps` installs), if there is one.
    static let pyzmq: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { python in
        FileManager.default.isExecutableFile(atPath: python)
            && (try? ProcessRunner.run(URL(fileURLWithPath: python), ["-c", "import zmq.auth"], timeout: 30).status) == 0
    }

    static let tcpdump: String? = ["/usr/bin/tcpdump", "/usr/sbin/tcpdump"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A folder `data/src` of `files` files, and a cluster whose coordinator has a key and an
    /// allow-list, with one worker and clients using the keys `worker` and `client`, both
    /// authorized; the worker gets `arguments` too.
    private static func securedCluster(files: Int, bytesPerFile: Int, arguments: [String] = []) throws -> (TestTree, CurveKeys, TestCluster) {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: files, bytesPerFile: bytesPerFile)
        let keys = try CurveKeys(in: tree)
        for name in ["coordinator", "worker", "client"] { try keys.make(name) }
        try keys.authorize("worker")
        try keys.authorize("client")
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 1,
            coordinatorArguments: keys.coordinatorArguments, workerArguments: keys.clientArguments("worker") + arguments,
            clientArguments: keys.clientArguments("client"))
        return (tree, keys, cluster)
    }

    @Test("keygen writes NAME.key (0600) and NAME.pub (0644) that parse, and replaces them only with --force")
    func keygen() throws {
        let tree = try TestTree()
        let keys = try CurveKeys(in: tree)
        let publicText = try keys.make("node-1")
        for (path, mode) in [(keys.secret("node-1"), 0o600), (keys.publicCertificate("node-1"), 0o644)] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(Int(info.st_mode & 0o777) == mode, "\(path): mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        let secret = try CurveCertificate.load(path: keys.secret("node-1"))
        let publicOnly = try CurveCertificate.load(path: keys.publicCertificate("node-1"))
        #expect(secret.publicKey.z85 == publicText && publicOnly.publicKey == secret.publicKey)
        #expect(secret.keyPair != nil && publicOnly.secretKey == nil)
        #expect(secret.metadata["name"] == "node-1")

        let again = try SqueezeBinary.run(["keygen", "node-1", "-o", keys.folder])
        #expect(again.status == 1 && again.stderr == "squeeze: \(keys.secret("node-1")) exists (--force replaces it)\n", "\(again.stderr)")
        #expect(try CurveCertificate.load(path: keys.secret("node-1")) == secret, "an existing key was changed")
        let forced = try SqueezeBinary.run(["keygen", "node-1", "-o", keys.folder, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try CurveCertificate.load(path: keys.secret("node-1")).publicKey != secret.publicKey)
        let badName = try SqueezeBinary.run(["keygen", "../escape", "-o", keys.folder])
        #expect(badName.status == 1 && badName.stderr.contains("a name is 1-64 letters"), "\(badName.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: keys.folder).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporaries left: \(leftovers)")
    }

    @Test("pyzmq's load_certificate reads keygen's files, and squeeze reads pyzmq's",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func pyzmqReadsCertificates() throws {
        let python = try #require(Self.pyzmq)
        let tree = try TestTree()
        let keys = try CurveKeys(in: tree)
        try keys.make("py")
        let script = """
        import sys, zmq, zmq.auth
        public, secret = zmq.auth.load_certificate(sys.argv[1])
        public_only, none = zmq.auth.load_certificate(sys.argv[2])
        assert none is None and public_only == public, (public_only, public)
        assert zmq.curve_public(secret) == public
        zmq.auth.create_certificates(sys.argv[3], "made-by-pyzmq")
        print(public.decode())
        """
        let outcome = try ProcessRunner.run(
            URL(fileURLWithPath: python), ["-c", script, keys.secret("py"), keys.publicCertificate("py"), keys.folder], timeout: 60)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let ours = try CurveCertificate.load(path: keys.secret("py"))
        #expect(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ours.publicKey.z85)
        // pyzmq names its public certificate NAME.key and its secret one NAME.key_secret.
        let theirs = try CurveCertificate.load(path: keys.folder + "/made-by-pyzmq.key_secret")
        #expect(theirs.keyPair != nil)
        #expect(try CurveCertificate.load(path: keys.folder + "/made-by-pyzmq.key").publicKey == theirs.publicKey)
    }

    @Test("an authorized worker and client: the job completes with every output correct")
    func authorizedJob() throws {
        let (tree, _, cluster) = try Self.securedCluster(files: 6, bytesPerFile: 1 << 20, arguments: ["--storage", "remote"])
        let outcome = try cluster.submitAndWait(["src"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 6)
        let status = try cluster.status()
        #expect(status.authorizedKeys == 2)
        #expect(status.refusedConnections == 0)
        #expect(status.workers.map(\.itemsDone).reduce(0, +) > 0)
    }

    @Test("workers and clients with an unknown key or none get nothing, nothing is written, and each refusal is logged and counted")
    func refusedPeers() throws {
        let (tree, keys, cluster) = try Self.securedCluster(files: 2, bytesPerFile: 256 << 10)
        let stranger = try keys.make("stranger")
        try cluster.addWorker(id: "stranger", arguments: keys.clientArguments("stranger"))
        try cluster.addWorker(id: "keyless")
        let tried = Poll.until(timeout: 20, every: 0.2) {
            (try? cluster.status().refusedConnections ?? 0) ?? 0 >= 2 && cluster.coordinator.stderr.contains(stranger)
        }
        #expect(tried, "the refusals were not counted: \(cluster.coordinator.stderr)")
        #expect(try cluster.status().workers.map(\.workerID) == ["worker-1"])

        for (name, arguments) in [("stranger", keys.clientArguments("stranger")), ("keyless", [])] {
            let outcome = try SqueezeBinary.run(
                ["submit", "--coordinator", cluster.clientEndpoint, "src", "-o", "out-\(name)"] + arguments, timeout: 60)
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("cannot reach the coordinator"), "\(name): \(outcome.stderr)")
            #expect(outcome.stderr.contains("--authorized folder") == (name == "stranger"), "\(name): \(outcome.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tree.path("data/out-\(name)")), "\(name) had something written")
            let status = try SqueezeBinary.run(["status", "--coordinator", cluster.clientEndpoint, "--json"] + arguments, timeout: 30)
            #expect(status.status == 1 && status.stdout.isEmpty, "\(name) got a status: \(status.stdout)")
        }
        let log = cluster.coordinator.stderr
        #expect(log.contains("refused connection: key not authorized") && log.contains("key=\(stranger)"), "\(log)")
        #expect(log.contains("refused connection: handshake failed"), "the keyless peers were not logged: \(log)")
        let status = try cluster.status()
        #expect(status.jobs.isEmpty, "a refused client started a job: \(status.jobs)")
        #expect(status.workers.map(\.workerID) == ["worker-1"])
        #expect(try cluster.submitAndWait(["src"]).status == 0, "the authorized client was affected")
    }

    @Test("a key added to the allow-list lets its worker in without a restart; once removed, new connections with it are refused")
    func allowListChanges() throws {
        let (tree, keys, cluster) = try Self.securedCluster(files: 2, bytesPerFile: 256 << 10)
        defer { withExtendedLifetime(tree) {} }  // its folder holds the keys
        try keys.make("late")
        try cluster.addWorker(id: "late-1", arguments: keys.clientArguments("late"))
        let refusedFirst = Poll.until(timeout: 20, every: 0.2) { (try? cluster.status().refusedConnections ?? 0) ?? 0 >= 1 }
        #expect(refusedFirst, "the late worker was not refused before its key was added")
        #expect(try cluster.status().workers.count == 1)

        try keys.authorize("late")
        #expect(cluster.waitForWorkers(2, timeout: 20), "the late worker did not get in: \(cluster.coordinator.stderr)")
        #expect(try cluster.status().authorizedKeys == 3)

        try keys.revoke("late")
        let refusedBefore = try cluster.status().refusedConnections ?? 0
        try cluster.addWorker(id: "late-2", arguments: keys.clientArguments("late"))
        let refusedAgain = Poll.until(timeout: 20, every: 0.2) { (try? cluster.status().refusedConnections ?? 0) ?? 0 > refusedBefore }
        #expect(refusedAgain, "a new connection with the removed key was not refused")
        let workers = try cluster.status().workers.map(\.workerID)
        #expect(!workers.contains("late-2"), "the removed key got in: \(workers)")
        #expect(workers.contains("late-1"), "a connection made before the removal stays")
    }

    @Test("safe defaults: loopback by default; other addresses need --key or --insecure, and --root")
    func safeDefaults() throws {
        let tree = try TestTree()
        let keys = try CurveKeys(in: tree)
        try keys.make("coordinator")
        let help = try SqueezeBinary.run(["coordinator", "--help"])
        #expect(help.stdout.contains("tcp://127.0.0.1:5555") && help.stdout.contains("tcp://127.0.0.1:5556"), "\(help.stdout)")
        let loopbackWorkers = "tcp://127.0.0.1:\(FreePort.next())"
        let cases: [([String], [String])] = [
            (["--listen", "tcp://0.0.0.0:\(FreePort.next())", "--workers-listen", loopbackWorkers], ["--key", "--insecure", "not a loopback address"]),
            (["--listen", "tcp://127.0.0.1:\(FreePort.next())", "--workers-listen", "tcp://*:\(FreePort.next())"], ["--workers-listen", "--key", "--insecure"]),
            (["--listen", "tcp://0.0.0.0:\(FreePort.next())", "--workers-listen", loopbackWorkers, "--insecure"], ["--root"]),
            (["--listen", "tcp://0.0.0.0:\(FreePort.next())", "--workers-listen", loopbackWorkers] + keys.coordinatorArguments, ["--root"]),
            (["--key", keys.secret("coordinator")], ["--authorized"]),
            (["--authorized", keys.authorized], ["--key"]),
            (["--key", keys.publicCertificate("coordinator"), "--authorized", keys.authorized], [keys.publicCertificate("coordinator"), "no secret-key"]),
            (["--key", keys.secret("coordinator"), "--authorized", keys.folder + "/missing"], [keys.folder + "/missing"]),
        ]
        for (arguments, words) in cases {
            let outcome = try SqueezeBinary.run(["coordinator"] + arguments, timeout: 30)
            #expect(outcome.status == 1, "\(arguments) started")
            let lines = outcome.stderr.split(separator: "\n").filter { !$0.contains(" info ") }
            #expect(lines.count == 1, "\(arguments): not one line: \(outcome.stderr)")
            for word in words { #expect(outcome.stderr.contains(word), "\(arguments): \(outcome.stderr)") }
        }
        for arguments in [["--key", keys.secret("coordinator")], ["--coordinator-key", keys.publicCertificate("coordinator")]] {
            for command in ["worker", "submit", "status"] {
                let outcome = try SqueezeBinary.run([command] + (command == "submit" ? ["x"] : []) + arguments, timeout: 30)
                #expect(outcome.status == 1 && outcome.stderr.split(separator: "\n").count == 1, "\(command) \(arguments): \(outcome.stderr)")
                #expect(outcome.stderr.contains(arguments[0] == "--key" ? "--key needs --coordinator-key" : "--coordinator-key needs --key"))
            }
        }

        // Beyond loopback with --insecure and --root, it listens (with a warning).
        let insecure = try BackgroundProcess("insecure", arguments: [
            "coordinator", "--listen", "tcp://0.0.0.0:0", "--workers-listen", "tcp://127.0.0.1:0", "--insecure", "--root", tree.root.path,
        ], in: tree.root)
        #expect(insecure.waitForOutput(timeout: 20) { $0.contains("listening") }, "\(insecure.stderr)")
        #expect(insecure.stderr.contains("without CURVE"))
    }

    @Test("a capture of the loopback traffic of a CURVE job holds neither a file name nor file content",
          .enabled(if: getuid() == 0 && CurveTests.tcpdump != nil, "needs root and tcpdump (make deps installs it)"))
    func captureShowsNoPlaintext() throws {
        let tcpdump = try #require(Self.tcpdump)
        let tree = try TestTree()
        let folderName = "secret-folder-\(UInt32.random(in: 0...UInt32.max))"
        let fileName = "classified-report-\(UInt32.random(in: 0...UInt32.max)).txt"
        let marker = "CONTENT-MARKER-\(UUID().uuidString)"
        // Text that compresses well, so the markers would survive in the workers' deflate too.
        let content = (0..<40_000).map { "\(marker) line \($0)\n" }.joined()
        try tree.write("data/\(folderName)/\(fileName)", Array(content.utf8))
        let keys = try CurveKeys(in: tree)
        for name in ["coordinator", "worker", "client"] { try keys.make(name) }
        try keys.authorize("worker")
        try keys.authorize("client")

        let clients = FreePort.next()
        let workers = FreePort.next()
        let capture = tree.path("capture.pcap")
        // --immediate-mode: packets reach the file as they come (without it this kernel hands
        // them over only when a buffer block fills); -U flushes each one; -B 64 MiB so a burst
        // of blocks is not dropped. Started through Python, which unblocks the signals the test
        // runner's threads block (a child inherits the mask), so SIGTERM stops it cleanly.
        let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        let dump = try BackgroundProcess("tcpdump", executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: [
            "python3", "-c", unblock, tcpdump,
            "-i", "lo", "--immediate-mode", "-U", "-B", "65536", "-s", "0", "-w", capture, "tcp port \(clients) or tcp port \(workers)",
        ], in: tree.root)
        let listening = Poll.until(timeout: 20) { dump.stderr.contains("listening on") }
        try #require(listening, "tcpdump did not start: \(dump.stderr)")

        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: keys.coordinatorArguments,
            clientArguments: keys.clientArguments("client"), listen: ("tcp://127.0.0.1:\(clients)", "tcp://127.0.0.1:\(workers)"))
        // A remote worker: every byte of the file travels to it over the worker port.
        try cluster.addWorker(id: "remote", arguments: keys.clientArguments("worker") + ["--storage", "remote"])
        try #require(cluster.waitForWorkers(1), "\(cluster.coordinator.stderr)")
        let outcome = try cluster.submitAndWait([folderName, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains(fileName), "the client saw its file's name")
        #expect(JobEvents.finished(outcome.stdout)?["bytesRelayed"] as? Int == content.utf8.count, "the bytes went through the network")
        #expect(try TreeCheck.verify(source: tree.path("data/\(folderName)"), destination: tree.path("data/\(folderName).squeezed")) == 1)

        dump.signal(SIGTERM)
        #expect(dump.wait(timeout: 20) != nil, "tcpdump did not stop")
        #expect(dump.stderr.contains("\n0 packets dropped by kernel"), "\(dump.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: capture))
        // The capture holds the traffic: the ZMTP greetings name the CURVE mechanism in clear,
        // and there is at least as much of it as the file.
        #expect(bytes.count > content.utf8.count, "only \(bytes.count) bytes captured: \(dump.stderr)")
        #expect(bytes.range(of: Data("CURVE".utf8)) != nil, "no ZMTP greeting in the capture")
        for secret in [folderName, fileName, marker] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) crossed loopback in clear")
        }
    }
}
