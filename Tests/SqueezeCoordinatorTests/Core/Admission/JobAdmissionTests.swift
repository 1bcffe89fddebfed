import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// How many jobs the coordinator takes at once, as values.
@Suite("JobAdmission")
struct JobAdmissionTests {
    @Test("past the limit per client, that client is refused with tooMany and others are not")
    func perClient() {
        var admission = JobAdmission(maxJobs: 10, maxJobsPerClient: 2)
        #expect(admission.admit("a") == nil)
        #expect(admission.admit("a") == nil)
        let refusal = admission.admit("a")
        #expect(refusal?.hasPrefix("tooMany:") == true && refusal?.contains("--max-jobs-per-client 2") == true)
        #expect(admission.admit("b") == nil)
        #expect(admission.total == 3 && admission.byClient == ["a": 2, "b": 1])
        admission.release("a")
        #expect(admission.admit("a") == nil, "a place freed is taken again")
    }

    @Test("past the limit in all, everyone is refused; a resumed job is never refused but counts")
    func inAll() {
        var admission = JobAdmission(maxJobs: 3, maxJobsPerClient: 3)
        for client in ["a", "b", "c"] { #expect(admission.admit(client) == nil) }
        #expect(admission.admit("d")?.contains("--max-jobs 3") == true)
        #expect(admission.admit("journal", force: true) == nil)
        #expect(admission.total == 4)
        admission.release("a")
        #expect(admission.admit("d") != nil, "still over: the forced one holds a place")
        admission.release("journal")
        #expect(admission.admit("d") == nil)
    }

    @Test("releasing what was never admitted changes nothing")
    func strayRelease() {
        var admission = JobAdmission(maxJobs: 1, maxJobsPerClient: 1)
        admission.release("nobody")
        #expect(admission.total == 0)
        #expect(admission.admit("a") == nil)
        admission.release("b")
        #expect(admission.admit("c") != nil)
    }

    @Test("the workers' endpoint answers a bare heartbeat itself, and nothing else")
    func heartbeatReflex() throws {
        let routing = ZMQFrame(Array("w1".utf8))
        let beat = ZMQMessage([routing] + WireCodec.encode(.heartbeat))
        let answer = try #require(HeartbeatReflex.answer(beat))
        #expect(answer.frames.first == routing)
        let decoded = try WireCodec.decode(answer.frames.dropFirst())
        #expect(decoded.message == .heartbeat)
        #expect(HeartbeatReflex.answer(ZMQMessage([routing] + WireCodec.encode(.goodbye))) == nil)
        #expect(HeartbeatReflex.answer(ZMQMessage([routing] + WireCodec.encode(.heartbeat) + [ZMQFrame([1])])) == nil, "a heartbeat with a body is not one")
        #expect(HeartbeatReflex.answer(ZMQMessage([routing])) == nil)
    }
}
