/// The order in which running jobs get dispatch turns: round-robin between clients, then
/// round-robin between each client's jobs. So one client with 10,000 jobs gets one turn in
/// every round, like a client with one job, and cannot starve the others.
///
/// A client is whoever submitted the job, identified by the routing id of its connection
/// (jobs submitted in-process, `squeeze compress`, share the empty id).
struct FairOrder: Sendable {
    /// One client's jobs, in the order they were added, and whose turn is next among them.
    private struct Client: Sendable {
        var key: PeerID
        var jobs: [JobID]
        var next = 0
    }

    /// A position in one round of turns: which client, and which of its jobs.
    struct Cursor: Sendable {
        fileprivate var client = 0
        fileprivate var job = 0
        /// The client and job returned last, for `served`.
        fileprivate var last: (client: Int, job: Int)?
    }

    /// Clients with running jobs, in the order they first submitted one.
    private var clients: [Client] = []
    /// The client whose turn comes first in the next round.
    private var nextClient = 0

    /// Whether no job is running.
    var isEmpty: Bool { clients.isEmpty }

    /// Every running job, client by client.
    var jobs: [JobID] { clients.flatMap(\.jobs) }

    /// Adds job `id`, submitted by `client`, after that client's other jobs.
    mutating func add(_ id: JobID, client: PeerID) {
        if let index = clients.firstIndex(where: { $0.key == client }) {
            clients[index].jobs.append(id)
        } else {
            clients.append(Client(key: client, jobs: [id]))
        }
    }

    /// Removes job `id` (and its client, when it was the client's last). Turns stay where they were.
    mutating func remove(_ id: JobID) {
        guard let index = clients.firstIndex(where: { $0.jobs.contains(id) }),
              let position = clients[index].jobs.firstIndex(of: id) else { return }
        clients[index].jobs.remove(at: position)
        if clients[index].jobs.isEmpty {
            clients.remove(at: index)
            if index < nextClient { nextClient -= 1 }
            if nextClient >= clients.count { nextClient = 0 }
            return
        }
        if position < clients[index].next { clients[index].next -= 1 }
        if clients[index].next >= clients[index].jobs.count { clients[index].next = 0 }
    }

    /// The start of a round: the next client's next job comes first.
    func cursor() -> Cursor { Cursor() }

    /// The job after the cursor in this round, nil once every job of every client was offered:
    /// each client's jobs from its next one on, then the next client's.
    func next(_ cursor: inout Cursor) -> JobID? {
        while cursor.client < clients.count {
            let index = (nextClient + cursor.client) % clients.count
            let client = clients[index]
            if cursor.job < client.jobs.count {
                let position = (client.next + cursor.job) % client.jobs.count
                cursor.job += 1
                cursor.last = (index, position)
                return client.jobs[position]
            }
            cursor.client += 1
            cursor.job = 0
        }
        return nil
    }

    /// The job the cursor returned last was served: the next turn goes to the next client,
    /// and this client's next turn to its next job.
    mutating func served(_ cursor: Cursor) {
        guard let (index, position) = cursor.last, index < clients.count else { return }
        clients[index].next = (position + 1) % clients[index].jobs.count
        nextClient = (index + 1) % clients.count
    }
}
