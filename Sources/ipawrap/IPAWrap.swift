import ArgumentParser
import IPAArchive

@main
struct IPAWrap: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ipawrap")
}
