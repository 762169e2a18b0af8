import Foundation

// tern: the command line. `tern serve` runs the server; the admin subcommands call its management
// API over HTTP; `tern device` runs the SDK as a simulated device.
let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "help"
let rest = Array(arguments.dropFirst())

switch command {
case "serve":
    await ServeCommand.run(rest)
case "device":
    await DeviceCommand.run(rest)
case "send":
    await SendCommand.run(rest)
case "inapp":
    await InAppCommand.run(rest)
case "template", "templates":
    await TemplateCommand.run(rest)
case "store":
    await StoreCommand.run(rest)
case _ where AdminCommand.topics.contains(command):
    await AdminCommand.run(command, rest)
case "help", "--help", "-h":
    print(Usage.text)
default:
    Usage.fail("unknown command \(command)")
}
