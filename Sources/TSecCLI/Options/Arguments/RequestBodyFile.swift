import Foundation
import TransportSecurity

/// A file named on the command line for (a part of) a request body held in memory, as `-d @FILE`
/// and `-F NAME=@FILE` name it: `-` is standard input; at most 1 GiB (`-T` streams larger ones).
enum RequestBodyFile {
    /// The whole content of `name`.
    static func read(_ name: String) throws(InputFile.Failure) -> Data {
        try InputFile.read(name == "-" ? "/dev/stdin" : name, limit: 1 << 30)
    }
}
