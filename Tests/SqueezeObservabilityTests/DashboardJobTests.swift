import SqueezeObservability
import SqueezeProtocol
import Testing

struct DashboardJobTests {
    @Test("percent, rate, ETA and ratio of a running job; an ETA only once the scan is over")
    func rates() {
        var status = JobStatus(jobID: 1, source: "/s", state: .running, filesDone: 1, files: 4, bytesDone: 25_000_000, bytes: 100_000_000)
        status.seconds = 5
        status.bytesOut = 10_000_000
        let job = DashboardJob(status)
        #expect(job.percent == 25)
        #expect(job.megabytesPerSecond == 5)
        #expect(job.etaSeconds == 15)
        #expect(job.ratio == 0.4)
        status.scanning = true
        #expect(DashboardJob(status).etaSeconds == nil)
    }

    @Test("a job that has done nothing yet has no rate, ratio or ETA; a completed one is at 100 %")
    func edges() {
        var status = JobStatus(jobID: 1, source: "/s", state: .running, filesDone: 0, files: 0, bytesDone: 0, bytes: 0)
        status.seconds = 0
        let idle = DashboardJob(status)
        #expect(idle.percent == 0 && idle.megabytesPerSecond == nil && idle.etaSeconds == nil && idle.ratio == nil)
        status.state = .completed
        #expect(DashboardJob(status).percent == 100)
    }
}
