/// What one run of steps under load measured.
struct LoadFigures {
    /// Steps acknowledged per second.
    var stepsPerSecond: Double
    /// flowd's processor time per step (µs, all its threads, user and system).
    var flowdMicrosecondsPerStep: Double
    /// The watcher's processor time per step (µs), when one was attached.
    var watcherMicrosecondsPerStep: Double?
    /// The Swift stepper processes' processor time per step (µs, together).
    var stepperMicrosecondsPerStep: Double = 0
    /// The Swift presenter process's processor time per step (µs).
    var presenterMicrosecondsPerStep: Double = 0
}
