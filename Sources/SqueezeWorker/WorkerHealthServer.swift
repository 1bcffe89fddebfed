import Logging
import SqueezeProtocol
import SqueezeZMQ

/// Answers `statusRequest` on a local ROUTER (`--health`) with what `reply` says, and echoes
/// heartbeats; for container health checks (`squeeze health`).
struct WorkerHealthServer: Sendable {
    /// Where it listens.
    let address: String
    let context: ZMQContext
    let logger: Logger
    /// The answer to a status request, made when one comes.
    let reply: @Sendable () -> WireMessage

    /// Serves until the task is cancelled. A health endpoint that cannot bind is logged: the
    /// worker works without it.
    func run() async {
        let endpoint: ZMQEndpoint
        do {
            endpoint = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
                name: "health", type: .router,
                options: [.routerMandatory(true), .maxMessageSize(64 << 10), .sendHighWaterMark(1_000), .receiveHighWaterMark(1_000)],
                bind: [address]))
        } catch {
            logger.error("cannot serve health checks: \(error)", metadata: ["health": "\(address)"])
            return
        }
        for await event in endpoint.events {
            guard case .message(let message) = event, message.frames.count >= 2 else { continue }
            let peer = Array(message.frames[0])
            guard let envelope = try? WireCodec.decode(message.frames.dropFirst()) else { continue }
            let answer: WireMessage
            switch envelope.message {
            case .statusRequest: answer = reply()
            case .heartbeat: answer = .heartbeat
            default: continue
            }
            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(answer, correlation: envelope.correlation)))
        }
        await endpoint.shutdown()
    }
}
