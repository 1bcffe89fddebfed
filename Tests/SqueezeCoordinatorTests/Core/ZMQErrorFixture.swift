import Glibc
import SqueezeZMQ

/// ZeroMQ errors as the endpoints report them, for events in core tests.
enum ZMQErrorFixture {
    static let hostUnreachable = ZMQError(operation: "zmq_msg_send", errno: EHOSTUNREACH)
    static let wouldBlock = ZMQError(operation: "zmq_msg_send", errno: EAGAIN)
}
