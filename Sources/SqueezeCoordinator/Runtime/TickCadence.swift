/// How often the coordinator's workers' endpoint ticks (`EndpointClock`): the clock on which
/// heartbeats go out, held checks leave, writers publish and progress snapshots are taken.
///
/// Every tick costs the coordinator a wake of its endpoint thread and a turn of its actor,
/// busy or idle: an idle coordinator with two workers woke 27 times and spent 1.6 ms of CPU a
/// second with 100 ms ticks, 17 times and 1.0 ms with 200 ms. The tick never waits longer than
/// the progress interval, nor a fifth of the heartbeat period, so that a short heartbeat
/// (tests run with 200 ms) still goes out and is judged several times per period.
enum TickCadence {
    /// The longest interval: progress and published outputs are at most this (and half of
    /// it, the endpoint's slack) late.
    static let longest = Duration.milliseconds(200)
    /// The shortest: the poll's resolution is a millisecond; a tick is a turn of the actor.
    static let shortest = Duration.milliseconds(10)

    /// The interval for a coordinator with these settings.
    static func interval(heartbeat: Duration, progress: Duration) -> Duration {
        max(shortest, min(longest, progress, heartbeat / 5))
    }
}
