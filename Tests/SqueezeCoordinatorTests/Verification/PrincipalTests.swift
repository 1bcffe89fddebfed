import Testing
@testable import SqueezeCoordinator

/// Who may vouch for whom, as values.
@Suite("Principal")
struct PrincipalTests {
    func principal(key: String? = nil, address: String? = nil, host: String = "h", pid: Int32) -> Principal {
        Principal(origin: ConnectionOrigin(key: key, address: address), host: host, pid: pid)
    }

    @Test("without keys, one address is one principal whatever the worker claims; two addresses are two")
    func addresses() {
        #expect(!principal(address: "10.0.0.1", host: "a", pid: 1).isIndependent(of: principal(address: "10.0.0.1", host: "b", pid: 2)))
        #expect(principal(address: "10.0.0.1", pid: 1).isIndependent(of: principal(address: "10.0.0.2", pid: 2)))
        // An address the transport did not give (inproc) proves nothing.
        #expect(!principal(pid: 1).isIndependent(of: principal(address: "10.0.0.2", pid: 2)))
        #expect(!principal(pid: 1).isIndependent(of: principal(pid: 2)))
    }

    @Test("with keys, the key decides: one key at two addresses is one principal, two keys at one address are two")
    func keys() {
        #expect(!principal(key: "k1", address: "10.0.0.1", pid: 1).isIndependent(of: principal(key: "k1", address: "10.0.0.2", pid: 2)))
        #expect(principal(key: "k1", address: "192.0.2.7", pid: 1).isIndependent(of: principal(key: "k2", address: "192.0.2.7", pid: 2)))
        // One side without a key: the addresses decide.
        #expect(!principal(key: "k1", address: "10.0.0.1", pid: 1).isIndependent(of: principal(address: "10.0.0.1", pid: 2)))
        // libzmq's "no user id" is empty: no key.
        #expect(ConnectionOrigin(key: "", address: "").key == nil && ConnectionOrigin(key: "", address: "").address == nil)
    }

    @Test("a worker never vouches for one claiming its host and pid, whatever its key or address")
    func sameProcess() {
        #expect(!principal(key: "k1", address: "10.0.0.1", host: "box", pid: 7).isIndependent(of: principal(key: "k2", address: "10.0.0.2", host: "box", pid: 7)))
        #expect(principal(key: "k1", host: "box", pid: 7).isIndependent(of: principal(key: "k2", host: "box", pid: 8)))
    }

    @Test("over loopback the kernel's process decides: two processes are two principals, one process under two ids is one")
    func localProcesses() {
        let first = principal(address: "127.0.0.1", host: "a", pid: 10)
        var one = first, two = principal(address: "127.0.0.1", host: "b", pid: 20)
        one.origin.process = 4000
        two.origin.process = 4001
        #expect(one.isIndependent(of: two))
        two.origin.process = 4000
        #expect(!one.isIndependent(of: two), "one process, whatever it claims")
        // Keys still decide between two processes: one key in two processes is one principal.
        var keyed = principal(key: "k", address: "127.0.0.1", host: "a", pid: 1), sameKey = principal(key: "k", address: "127.0.0.1", host: "b", pid: 2)
        keyed.origin.process = 1
        sameKey.origin.process = 2
        #expect(!keyed.isIndependent(of: sameKey))
        // One process with two keys is still one.
        sameKey.origin = ConnectionOrigin(key: "k2", address: "127.0.0.1", process: 1)
        #expect(!keyed.isIndependent(of: sameKey))
        // Two keys in two processes are two.
        sameKey.origin = ConnectionOrigin(key: "k2", address: "127.0.0.1", process: 2)
        #expect(keyed.isIndependent(of: sameKey))
        // A loopback worker whose process is not known (yet) may be anyone's on this host,
        // whatever its key.
        sameKey.origin = ConnectionOrigin(key: "k2", address: "127.0.0.1")
        #expect(!keyed.isIndependent(of: sameKey))
    }

    @Test("independence is symmetric")
    func symmetric() {
        let all = [principal(key: "k1", address: "a", pid: 1), principal(key: "k2", address: "a", pid: 2), principal(address: "a", pid: 3),
                   principal(address: "b", pid: 4), principal(pid: 5), principal(key: "k1", address: "b", host: "x", pid: 1),
                   Principal(origin: ConnectionOrigin(address: "127.0.0.1", process: 9), host: "p", pid: 9),
                   Principal(origin: ConnectionOrigin(key: "k2", address: "127.0.0.1", process: 9), host: "q", pid: 9)]
        for left in all {
            for right in all { #expect(left.isIndependent(of: right) == right.isIndependent(of: left)) }
        }
    }
}
