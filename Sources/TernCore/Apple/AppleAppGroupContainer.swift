#if canImport(Darwin)
    import Foundation

    /// ``AppGroupContainer`` on Apple platforms: `Library/Application Support/Tern` inside the app
    /// group's container (shared by the app and its Notification Service Extension), or inside the
    /// app's own Application Support without a group. The directory is readable after the first
    /// unlock, so the extension can write the outbox while the phone is locked.
    public struct AppleAppGroupContainer: AppGroupContainer {
        /// The container; ``TernEnvironment/platformDefault`` uses it on iOS.
        public init() {}

        public func directory(forGroup groupName: String?) throws -> URL {
            let base: URL
            if let groupName {
                guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: groupName)
                else {
                    throw TernError(
                        "app group \(groupName) has no container: add it to the App Groups capability of the app "
                            + "and of its Notification Service Extension")
                }
                base = container.appendingPathComponent("Library/Application Support", isDirectory: true)
            } else {
                guard
                    let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                else { throw TernError("the app has no Application Support directory") }
                base = support
            }
            let directory = base.appendingPathComponent("Tern", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                #if os(iOS)
                    try FileManager.default.setAttributes(
                        [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication],
                        ofItemAtPath: directory.path)
                #endif
            } catch {
                throw TernError("cannot prepare the SDK's directory \(directory.path): \(error.localizedDescription)")
            }
            return directory
        }
    }
#endif
