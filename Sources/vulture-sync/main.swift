import VultureCommandLine
import VultureSyncCommand

// `vulture-sync`: the reference sync engine as "the other device" (README "vulture-sync").
CommandLineTool(name: "vulture-sync", usage: SyncCommand.usage).run { arguments in
    try SyncCommand.run(arguments)
}
