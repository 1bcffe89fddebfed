import SqueezeObservability
import Testing

struct HTTPAddressTests {
    @Test("a port alone binds loopback; host:port and [v6]:port are taken as given")
    func parsing() throws {
        #expect(try HTTPAddress(parsing: "8080") == HTTPAddress(parsing: "127.0.0.1:8080"))
        #expect(try HTTPAddress(parsing: ":0").host == "127.0.0.1")
        #expect(try HTTPAddress(parsing: "0.0.0.0:9100").isLoopback == false)
        let v6 = try HTTPAddress(parsing: "[::1]:9100")
        #expect(v6.host == "::1" && v6.port == 9100 && v6.isLoopback)
        #expect(v6.description == "[::1]:9100")
        #expect(try HTTPAddress(parsing: "localhost:1").isLoopback)
    }

    @Test("bad ports and hosts are refused with a reason")
    func refusals() {
        for text in ["", "99999", "-1", "host:", "a b:80", "::1:80", "[::1]80", "1:2:3", "80000000000000000000"] {
            #expect(throws: HTTPAddressError.self, "\(text)") { try HTTPAddress(parsing: text) }
        }
    }
}
