import Foundation
import Glibc
@testable import SqueezeIO
import Testing

/// The process behind a loopback connection, as the kernel says, on real sockets.
@Suite("LoopbackPeers")
struct LoopbackPeersTests {
    /// A listening TCP socket on loopback (`::1` when `six`); returns it and its port.
    func listener(six: Bool = false) throws -> (Int32, UInt16) {
        let fd = socket(six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var rc: Int32
        var length: socklen_t
        if six {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        }
        try #require(rc == 0 && listen(fd, 128) == 0)
        var bound = sockaddr_storage()
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = withUnsafePointer(to: &bound) { pointer in
            six ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, port)
    }

    /// A socket of this process connected to 127.0.0.1:`port`.
    func connected(to port: UInt16) throws -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(client >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if rc != 0 { close(client) }
        try #require(rc == 0)
        return client
    }

    @Test("a connection from another process names that process, over IPv4 and IPv6", arguments: [false, true])
    func otherProcess(six: Bool) throws {
        let (server, port) = try listener(six: six)
        defer { close(server) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let host = six ? "::1" : "127.0.0.1"
        child.arguments = ["-c", "import socket, time; s = socket.create_connection(('\(host)', \(port))); time.sleep(20)"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let connection = accept(server, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        #expect(LoopbackPeers().process(ofConnection: connection) == child.processIdentifier)
    }

    @Test("a connection from this process names it; a listening socket, with no peer, names nothing")
    func thisProcess() throws {
        let (server, port) = try listener()
        defer { close(server) }
        let client = try connected(to: port)
        defer { close(client) }
        let connection = accept(server, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        let peers = LoopbackPeers()
        #expect(peers.process(ofConnection: connection) == getpid())
        #expect(peers.process(ofConnection: server) == nil, "a listener has no peer")
        // A cached owner counts only while it still holds the socket (inode numbers come back).
        let ends = try #require(LoopbackPeers.ends(of: connection))
        let inode = try #require(LoopbackPeers.inode(local: ends.peer, remote: ends.mine))
        #expect(LoopbackPeers.process(getpid(), holds: inode))
        #expect(!LoopbackPeers.process(1, holds: inode))
    }

    @Test("with enough connections that the kernel's table runs past its first page, the last one is still found")
    func longTable() throws {
        let (server, port) = try listener()
        defer { close(server) }
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        // 100 connections, each two rows of about 150 bytes: several pages of /proc/net/tcp.
        var last: Int32 = -1
        for _ in 0..<100 {
            descriptors.append(try connected(to: port))
            last = accept(server, nil, nil)
            try #require(last >= 0)
            descriptors.append(last)
        }
        #expect(LoopbackPeers().process(ofConnection: last) == getpid())
    }
}
