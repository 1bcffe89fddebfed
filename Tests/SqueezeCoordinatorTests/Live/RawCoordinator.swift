import SqueezeProtocol
import SqueezeZMQ

/// A bare ROUTER on a free loopback port, standing in for a coordinator in tests that drive a
/// real `Worker` message by message.
struct RawCoordinator {
    let endpoint: ZMQEndpoint
    /// Where the worker connects.
    let address: String

    /// Binds it in `context`.
    static func start(context: ZMQContext) async throws -> RawCoordinator {
        let endpoint = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "raw-coordinator", type: .router, bind: ["tcp://127.0.0.1:*"]))
        guard let address = endpoint.boundEndpoints.first else {
            await endpoint.shutdown()
            throw ZMQError(operation: "bind", errno: 0)
        }
        return RawCoordinator(endpoint: endpoint, address: address)
    }

    /// Sends `message` to the peer whose routing id is `peer`.
    func send(_ message: WireMessage, to peer: [UInt8]) {
        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(message)))
    }
}
