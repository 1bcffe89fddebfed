import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// A worker on another host that sees the data through a network file system whose inode
/// numbers and mtimes are not the coordinator's: sshfs, from a mount namespace of its own, over
/// a bridge between network namespaces, from an sshd on the coordinator's host. The storage
/// probe (a token read back both ways and the sample's first bytes) makes it a shared-storage
/// worker all the same: it reads the sources and writes the outputs itself.
@Suite("shared storage over a network file system", .serialized)
struct NetworkFileSystemTests {
    /// Why this cannot run here: no namespaces, or no sshd, sshfs or ssh-keygen.
    static let unavailable: String? = {
        if let reason = NetworkNamespaces.unavailable { return reason }
        for tool in ["/usr/sbin/sshd", "/usr/bin/sshfs", "/usr/bin/ssh-keygen", "/usr/bin/unshare", "/usr/bin/mountpoint"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "no \(tool) (make deps installs openssh-server and sshfs)"
        }
        return nil
    }()

    @Test(
        "a worker seeing the data over sshfs (its own inode numbers, mtimes to the second) is a shared-storage worker: embedded mode's bytes, nothing relayed",
        .enabled(if: unavailable == nil, "needs root, ip netns, sshd and sshfs"))
    func sshfsWorker() throws {
        let tree = try TestTree()
        let data = tree.path("data")
        try TestCorpus.make(at: tree.path("data/src/big"), files: 2, bytesPerFile: 6 << 20)
        var text = TestData(seed: 31)
        for index in 0..<60 { try tree.write("data/src/small/d\(index % 5)/f\(index).txt", text.text(200 + index * 97)) }
        try FileManager.default.createDirectory(atPath: tree.path("data/src/empty"), withIntermediateDirectories: true)
        let options = ["--level", "6", "--block-size", "1M", "--json"]
        let reference = try SqueezeBinary.run(["compress", tree.path("data/src"), "-o", tree.path("data/reference")] + options, timeout: 300)
        try #require(reference.status == 0, "\(reference.stderr)")

        let ssh = tree.path("ssh")
        try FileManager.default.createDirectory(atPath: ssh, withIntermediateDirectories: true)
        for key in ["host", "client"] {
            let made = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-q", "-t", "ed25519", "-N", "", "-f", "\(ssh)/\(key)"])
            try #require(made.status == 0, "\(made.stderr)")
        }
        try FileManager.default.copyItem(atPath: "\(ssh)/client.pub", toPath: "\(ssh)/authorized_keys")
        // sshd refuses to start without its privilege separation directory.
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)

        let network = try NetworkNamespaces(hosts: ["coordinator", "fuse"], subnet: "10.204.0")
        let coordinatorAddress = network.address("coordinator")
        try """
            Port 2222
            ListenAddress \(coordinatorAddress)
            HostKey \(ssh)/host
            AuthorizedKeysFile \(ssh)/authorized_keys
            PermitRootLogin prohibit-password
            PasswordAuthentication no
            UsePAM no
            StrictModes no
            PidFile \(ssh)/sshd.pid
            Subsystem sftp internal-sftp

            """.write(toFile: "\(ssh)/sshd_config", atomically: true, encoding: .utf8)

        var processes: [BackgroundProcess] = []
        let sshfsPidFile = "\(ssh)/sshfs.pid"
        /// The pid a program wrote to `file`, once it has.
        func pid(in file: String) -> Int32? {
            (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        defer {
            // The worker and the rest first, then the sshfs under the worker, then sshd: each by pid.
            for process in processes.reversed() { process.signal(SIGKILL) }
            if let sshfs = pid(in: sshfsPidFile) { kill(sshfs, SIGKILL) }
            if let sshd = pid(in: "\(ssh)/sshd.pid") { kill(sshd, SIGTERM) }
            for process in processes { process.wait(timeout: 10) }
            network.remove()
        }
        func start(_ name: String, on host: String, _ executable: URL, _ arguments: [String]) throws -> BackgroundProcess {
            let command = network.command(on: host, executable, arguments)
            let process = try BackgroundProcess(name, executable: command.executable, arguments: command.arguments, in: tree.root)
            processes.append(process)
            return process
        }

        // sshd detaches (its pid in sshd.pid, killed by the cleanup): Foundation's `Process`,
        // watching it as a child, blocks in `wait4` on it and stops reaping every other child.
        let daemon = network.command(on: "coordinator", URL(fileURLWithPath: "/usr/sbin/sshd"), ["-f", "\(ssh)/sshd_config", "-E", "\(ssh)/sshd.log"])
        let sshd = try ProcessRunner.run(daemon.executable, daemon.arguments, timeout: 30)
        try #require(sshd.status == 0 && Poll.until(timeout: 20) { pid(in: "\(ssh)/sshd.pid") != nil }, "\(sshd.stderr)")
        let clients = "tcp://\(coordinatorAddress):5555"
        let workers = "tcp://\(coordinatorAddress):5556"
        let coordinator = try start("coordinator", on: "coordinator", SqueezeBinary.url, [
            "coordinator", "--listen", clients, "--workers-listen", workers, "--root", data, "--state", tree.path("state"),
            "--heartbeat", "500ms", "--insecure",
        ])
        try #require(coordinator.waitForOutput(timeout: 20) { $0.contains("listening") }, "\(coordinator.stderr)")

        // In a mount namespace of its own, the worker's host mounts the coordinator's data folder
        // over sshfs at the same path, then becomes the worker (`exec`: its pid is the worker's).
        let sshfsOptions = "IdentityFile=\(ssh)/client,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=2222"
        let script = """
            /usr/bin/sshfs -f -o \(sshfsOptions) root@\(coordinatorAddress):\(data) \(data) &
            echo $! > \(sshfsPidFile)
            tries=0
            until /usr/bin/mountpoint -q \(data); do
              tries=$((tries + 1)); [ $tries -gt 200 ] && { echo "sshfs did not mount" >&2; exit 3; }
              sleep 0.1
            done
            exec \(SqueezeBinary.url.path) worker --coordinator \(workers) --id fuse --slots 2 --storage auto
            """
        let worker = try start("worker", on: "fuse", URL(fileURLWithPath: "/usr/bin/unshare"), ["--mount", "--propagation", "private", "/bin/sh", "-c", script])
        func status() -> ClusterStatus? {
            let command = network.command(on: "coordinator", SqueezeBinary.url, ["status", "--coordinator", clients, "--json"])
            guard let outcome = try? ProcessRunner.run(command.executable, command.arguments, timeout: 30), outcome.status == 0 else { return nil }
            return try? JSONDecoder().decode(ClusterStatus.self, from: Data(outcome.stdout.utf8))
        }
        try #require(Poll.until(timeout: 30, every: 0.2) { status()?.workers.count == 1 }, "the worker did not register: \(worker.stderr)")
        // What the worker sees really is another file system: other inode numbers, mtimes to the second.
        let seen = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/nsenter"), [
            "--target", "\(worker.pid)", "--mount", "/usr/bin/stat", "-c", "%i %y", tree.path("data/src/big/part-0/file-0.dat"),
        ])
        let local = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/stat"), ["-c", "%i %y", tree.path("data/src/big/part-0/file-0.dat")])
        #expect(seen.status == 0 && local.status == 0 && seen.stdout != local.stdout, "worker sees \(seen.stdout) \(seen.stderr), coordinator \(local.stdout)")

        let submit = try start("submit", on: "coordinator", SqueezeBinary.url, ["submit", "--coordinator", clients, "src", "-o", "out"] + options)
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)\n\(coordinator.stderr)")
        let summary = try #require(JobEvents.finished(submit.stdout))
        #expect(summary["state"] as? String == "completed")
        #expect(summary["bytesRelayed"] as? Int == 0, "bytes went through the coordinator: \(summary)")
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("data/reference"), tree.path("data/out")])
        #expect(same.status == 0, "the outputs differ from embedded mode's: \(same.stdout)")
        #expect(coordinator.stderr.contains("shared storage") && coordinator.stderr.contains("its own inode numbers"), "\(coordinator.stderr)")
        #expect(status()?.workers.first?.itemsDone ?? 0 > 0)
    }
}
