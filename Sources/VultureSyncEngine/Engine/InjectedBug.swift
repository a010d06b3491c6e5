/// A realistic engine bug the reference engine can be told to have, so the simulation and the
/// scenarios can show that they catch it (`vulture-simulate --inject NAME`). Never set outside a
/// test or a simulation run.
public enum InjectedBug: String, Sendable, Hashable, CaseIterable {
    /// Later pull pages continue after the last `updatedAt` alone, not `(updatedAt, name)`: ties
    /// across a page edge are lost.
    case pagingByUpdatedAtAlone
    /// The pull asks from the cursor itself, without the 2-minute overlap: commits visible late are missed.
    case noOverlap
    /// The first page asks `updatedAt > cursor − overlap` instead of `>=`.
    case strictCursor
    /// A clear of `lastOpenedAt` on one side does not travel: the other side's agreed date is kept.
    case clearDoesNotTravel
    /// The recents trim orders equal instants by arrival on the device instead of by id.
    case trimWithoutIdTieBreak
    /// A retried reservation is sent without its precondition: a lost answer counts the blob twice.
    case reserveWithoutPrecondition
    /// The purge asks for documents not edited for the retention (`clientUpdatedAt`), not for old
    /// tombstones (`deletedAt`), and deletes them live or not.
    case purgeDeletesLive
    /// A flight's file is downloaded whenever its blob map exists, before `uploaded` is true.
    case downloadBeforeUploaded
}
