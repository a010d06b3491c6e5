/// A flight's deferred task assignment (schema §5.3 taskId, §5.5; `Spec/sync-rules.tsv`
/// taskAssignmentDeferred): a flight pulled before its task is stored without it and gets the
/// assignment once the task has arrived, unless the pilot changed the flight in between.
public enum TaskAssignment {
    /// What to do with a pending assignment.
    public enum Decision: String, Sendable, Hashable, CaseIterable {
        /// The task is on the device and the flight is unchanged: set `taskId` to the pending id.
        case assign
        /// The task has not arrived yet: keep waiting (pass the id back as ``MergeContext/deferredTaskId``).
        case wait
        /// The pilot changed the flight since the deferral: forget the pending id.
        case drop
    }

    /// Decides a pending assignment.
    ///
    /// - Parameters:
    ///   - deferredTaskId: the pending id (a ``MergeResult/deferredTaskId``).
    ///   - tasksOnDevice: ids of the task documents on the device now.
    ///   - flightChangedSinceDeferral: whether the pilot edited the flight after the merge that deferred.
    public static func decide(
        deferredTaskId: String, tasksOnDevice: Set<String>, flightChangedSinceDeferral: Bool
    ) -> Decision {
        if flightChangedSinceDeferral { return .drop }
        return tasksOnDevice.contains(deferredTaskId) ? .assign : .wait
    }
}
