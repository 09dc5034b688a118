import Foundation
import TSecCLI

let status = await TSec.run(arguments: Array(CommandLine.arguments.dropFirst()), output: .standardStreams())
exit(status)
