import Foundation
import Glibc

/// Hosts on one switch, made of Linux network namespaces: each host is a namespace with a veth
/// `eth0` addressed `SUBNET.1/24`, `.2`, … in the order given, whose other end is a port of a
/// bridge in a namespace of its own (the switch). Nothing is made in the root namespace, and
/// every name carries the test process's pid, so runs never collide. Cutting a host's link
/// sets its switch port down: its packets are dropped silently, like a pulled cable.
/// Everything is removed by `remove()`, or when the value is dropped.
final class NetworkNamespaces {
    /// Why namespaces cannot be made here (not root, no `ip`); nil when they can.
    static let unavailable: String? = {
        if geteuid() != 0 { return "not root" }
        if ip == nil { return "no ip (iproute2) in /usr/sbin, /sbin, /usr/bin or /bin" }
        return nil
    }()

    /// iproute2's `ip`, if installed.
    static let ip: URL? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
        .map { URL(fileURLWithPath: $0) }

    /// The start of every namespace name this value makes.
    let prefix: String
    private let hosts: [String]
    private let subnet: String
    private let tool: URL
    private var made: [String] = []

    /// Makes the switch and one namespace per host, and brings every link up. Throws (after
    /// removing what it made) if a step fails.
    init(hosts: [String], subnet: String = "10.203.0") throws {
        guard let tool = Self.ip else { throw Failure(message: Self.unavailable ?? "no ip") }
        self.tool = tool
        self.hosts = hosts
        self.subnet = subnet
        prefix = "squeeze-\(getpid())-"
        do {
            try make(switchNamespace)
            try run(["-n", switchNamespace, "link", "set", "lo", "up"])
            try run(["-n", switchNamespace, "link", "add", "br0", "type", "bridge"])
            try run(["-n", switchNamespace, "link", "set", "br0", "up"])
            for (index, host) in hosts.enumerated() {
                let namespace = namespace(host)
                try make(namespace)
                try run(["-n", namespace, "link", "set", "lo", "up"])
                try run(["-n", switchNamespace, "link", "add", port(host), "type", "veth", "peer", "name", "eth0", "netns", namespace])
                try run(["-n", switchNamespace, "link", "set", port(host), "master", "br0", "up"])
                try run(["-n", namespace, "addr", "add", "\(subnet).\(index + 1)/24", "dev", "eth0"])
                try run(["-n", namespace, "link", "set", "eth0", "up"])
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit {
        remove()
    }

    /// The namespace of `host`.
    func namespace(_ host: String) -> String { prefix + host }

    /// The IPv4 address of `host`.
    func address(_ host: String) -> String {
        guard let index = hosts.firstIndex(of: host) else { preconditionFailure("unknown host \(host)") }
        return "\(subnet).\(index + 1)"
    }

    /// The program and arguments that run `executable` with `arguments` on `host`. `ip netns
    /// exec` execs the program (it does not fork), so the process it starts is the program.
    func command(on host: String, _ executable: URL, _ arguments: [String]) -> (executable: URL, arguments: [String]) {
        (tool, ["netns", "exec", namespace(host), executable.path] + arguments)
    }

    /// Cuts `host` off: its switch port goes down.
    func cut(_ host: String) throws {
        try run(["-n", switchNamespace, "link", "set", port(host), "down"])
    }

    /// Plugs `host` back in: its switch port comes up.
    func reconnect(_ host: String) throws {
        try run(["-n", switchNamespace, "link", "set", port(host), "up"])
    }

    /// Deletes every namespace this value made, hosts first, then the switch; the veths and
    /// the bridge go with them. Safe to call again.
    func remove() {
        for namespace in made.reversed() {
            _ = try? ProcessRunner.run(tool, ["netns", "delete", namespace], timeout: 30)
        }
        made.removeAll()
    }

    /// The namespaces whose names start with `prefix` (none once `remove()` has run).
    func leftovers() throws -> [String] {
        let listing = try ProcessRunner.run(tool, ["netns", "list"], timeout: 30)
        return listing.stdout.split(separator: "\n")
            .map { String($0.split(separator: " ").first ?? "") }
            .filter { $0.hasPrefix(prefix) }
    }

    private var switchNamespace: String { prefix + "switch" }

    /// The switch's end of `host`'s veth (at most 15 bytes, as every interface name).
    private func port(_ host: String) -> String {
        guard let index = hosts.firstIndex(of: host) else { preconditionFailure("unknown host \(host)") }
        return "port\(index + 1)"
    }

    private func make(_ namespace: String) throws {
        try run(["netns", "add", namespace])
        made.append(namespace)
    }

    private func run(_ arguments: [String]) throws {
        let outcome = try ProcessRunner.run(tool, arguments, timeout: 30)
        guard outcome.status == 0 else {
            throw Failure(message: "ip \(arguments.joined(separator: " ")): exit \(outcome.status): \(outcome.stderr)")
        }
    }

    /// A step that failed, with `ip`'s own words.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
