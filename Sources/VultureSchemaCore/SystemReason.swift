import Foundation

/// The system's words for why a file operation failed (`No such file or directory`): Foundation's
/// own text ("The operation could not be completed") names no cause a user can act on. A POSIX
/// error, or the POSIX error under a Foundation one, by `strerror`; a Foundation file error without
/// one (Linux's `createDirectory` under a file) by what the system says of its path now; any other
/// error as Foundation describes it.
package func systemReason(of error: any Error) -> String {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
    if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(posix.code)))
    }
    if ns.domain == NSCocoaErrorDomain,
        let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
    {
        var st = stat()
        if stat(path, &st) != 0 { return String(cString: strerror(errno)) }
    }
    return ns.localizedDescription
}
