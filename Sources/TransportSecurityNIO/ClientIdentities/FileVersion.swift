#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What tells one version of a file from the next without reading it: the file the path leads
/// to (device and inode, so that a rename over it or a Kubernetes secret's switched symbolic link
/// shows), its size, and the times of its last write and last status change.
struct FileVersion: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int
    let changedSeconds: Int
    let changedNanoseconds: Int

    /// The version of the file at `path` now (following symbolic links), `nil` when nothing can
    /// be found there.
    init?(ofFileAt path: String) {
        guard !path.utf8.contains(0) else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int(status.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int(status.st_mtimespec.tv_nsec)
        changedSeconds = Int(status.st_ctimespec.tv_sec)
        changedNanoseconds = Int(status.st_ctimespec.tv_nsec)
        #else
        modifiedSeconds = Int(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
        changedSeconds = Int(status.st_ctim.tv_sec)
        changedNanoseconds = Int(status.st_ctim.tv_nsec)
        #endif
    }
}
