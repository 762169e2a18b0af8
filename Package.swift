// swift-tools-version:6.0
// Tern: an open-source mobile engagement system. One package, two halves: the SDK that apps embed
// (TernProtocol, TernCore, TernPush, TernNotificationService, TernTarget, TernProfile) and the
// self-hosted server with its `tern` command line. TernProtocol is the only code both halves share.
import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])
// The SDK's commands run on the core's actor: an async function or closure without isolation of its
// own runs where it was called from (SE-0461), so a module's command does not hop off the core and
// back for each step (docs/architecture.md, "the path of a call").
let onTheCallersActor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "Tern",
    // iOS 16: the SDK's time limits are `Duration`s and its locks `OSAllocatedUnfairLock`s (both iOS 16);
    // README.md, "Integrating the SDK", says so.
    platforms: [.iOS(.v16), .macOS(.v15)],
    products: [
        // SDK: each module is its own dependency.
        .library(name: "TernProtocol", targets: ["TernProtocol"]),
        .library(name: "TernCore", targets: ["TernCore"]),
        .library(name: "TernPush", targets: ["TernPush"]),
        .library(name: "TernNotificationService", targets: ["TernNotificationService"]),
        .library(name: "TernTarget", targets: ["TernTarget"]),
        .library(name: "TernProfile", targets: ["TernProfile"]),
        // In-app messages: the portable engine, and the iOS drawing (its sources compile only for Apple platforms).
        .library(name: "TernInApp", targets: ["TernInApp"]),
        .library(name: "TernInAppUI", targets: ["TernInAppUI"]),
        .library(name: "TernInbox", targets: ["TernInbox"]),
        // Apple only: the inbox drawn in SwiftUI (InboxView), over TernInbox's portable view model.
        .library(name: "TernInboxUI", targets: ["TernInboxUI"]),
        // Server.
        .library(name: "TernServer", targets: ["TernServer"]),
        .executable(name: "tern", targets: ["tern"]),
    ],
    targets: [
        // System-library shims (Debian -dev packages, Homebrew formulae).
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // <sys/epoll.h> for the HTTP server's event loop (Glibc's module leaves it out); Linux only.
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]),
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),

        // SDK.
        .target(name: "TernProtocol"),
        .target(name: "TernSQLite", dependencies: [.target(name: "CSQLite", condition: linuxOnly)]),
        // Each SDK product that collects data or reads file metadata carries its privacy manifest.
        .target(
            name: "TernCore", dependencies: ["TernProtocol", "TernSQLite"],
            resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: onTheCallersActor),
        .target(
            name: "TernPush", dependencies: ["TernCore", "TernProtocol"],
            resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: onTheCallersActor),
        .target(name: "TernNotificationService", dependencies: ["TernPush", "TernCore"]),
        .target(name: "TernTarget", dependencies: ["TernCore", "TernProtocol"]),
        .target(name: "TernProfile", dependencies: ["TernCore", "TernProtocol"]),
        .target(
            name: "TernInApp", dependencies: ["TernCore", "TernProtocol"],
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "TernInAppUI", dependencies: ["TernInApp"]),
        .target(name: "TernInbox", dependencies: ["TernCore", "TernProtocol"]),
        .target(name: "TernInboxUI", dependencies: ["TernInbox"]),

        // Server.
        .target(
            name: "TernHTTP",
            dependencies: [.target(name: "CEpoll", condition: linuxOnly), "CCurl", "CNGHTTP2", "COpenSSL"]),
        .target(name: "TernCrypto", dependencies: ["COpenSSL"]),
        .target(
            name: "TernServer",
            dependencies: ["TernProtocol", "TernSQLite", "TernHTTP", "TernCrypto", "COpenSSL", "CPostgres"],
            // The web console's HTML, CSS and JavaScript, served as they are (Bundle.module).
            resources: [.copy("Dashboard/Web")]),
        // Test support for the tests: runs the built `tern` binary; test certificates and peer processes.
        .target(name: "TernTestSupport", dependencies: ["TernHTTP", "CSpawn"]),
        // posix_spawn for the tests' child processes (TernTestSupport's ChildProcess says why).
        .target(name: "CSpawn"),
        .executableTarget(
            name: "tern",
            dependencies: ["TernServer", "TernCore", "TernPush", "TernTarget", "TernInbox", "TernProfile"]),
        // Issue 5's benchmark: the extension's path with an image from loopback, and the payload parser.
        .executableTarget(
            name: "tern-bench-nse", dependencies: ["TernPush", "TernHTTP", "TernTestSupport"], path: "bench/nse"),
        // Issue 7's benchmark: the APNs client against a local HTTP/2 TLS stand-in (bench/apns/run.sh).
        .executableTarget(
            name: "tern-bench-apns", dependencies: ["TernServer", "TernCrypto"], path: "bench/apns",
            exclude: ["run.sh", "aioapns_bench.py"]),

        // Issue 3's benchmark: the SDK outbox's enqueue and drain rates against plain SQLite inserts.
        .executableTarget(
            name: "tern-bench-sdk", dependencies: ["TernCore", "TernPush", "TernHTTP", "TernSQLite"], path: "bench/sdk"),
        // Issue 12's device-side benchmark: trigger matching over 1,000 cached campaigns.
        .executableTarget(
            name: "tern-bench-inapp", dependencies: ["TernInApp"], path: "bench/inapp",
            exclude: ["run.sh", "placements.lua", "placements_anonymous.lua", "setup.py"]),
        // Issue 20's benchmark: the body-limit scan beside decoding (bench/limits/run.sh).
        .executableTarget(
            name: "tern-bench-limits", dependencies: ["TernServer", "TernProtocol"], path: "bench/limits",
            exclude: ["run.sh", "normal.lua", "heavy.lua"]),
        // Issue 7's engine benchmark: fan-out and claim → send → record without a network.
        .executableTarget(
            name: "tern-bench-delivery", dependencies: ["TernServer", "TernProtocol"], path: "bench/delivery"),

        // Issue 13's benchmark: inbox syncs per second and fan-out with preferences (bench/inbox).
        .executableTarget(
            name: "tern-bench-inbox", dependencies: ["TernServer", "TernProtocol", "TernHTTP", "TernCrypto"],
            path: "bench/inbox"),

        // Issue 14's benchmark: segment previews on 1,000,000 subscriptions and segment fan-out.
        .executableTarget(
            name: "tern-bench-segments", dependencies: ["TernServer", "TernProtocol"], path: "bench/segments"),

        // Tests.
        .testTarget(name: "TernProtocolTests", dependencies: ["TernProtocol"]),
        .testTarget(name: "TernSQLiteTests", dependencies: ["TernSQLite"]),
        .testTarget(name: "TernHTTPTests", dependencies: ["TernHTTP", "TernTestSupport"]),
        .testTarget(name: "TernCryptoTests", dependencies: ["TernCrypto", "TernTestSupport"]),
        .testTarget(
            name: "TernServerTests",
            dependencies: [
                "TernServer", "TernProtocol", "TernTestSupport", "TernCrypto", "TernHTTP", "TernSQLite", "tern",
            ]),
        .testTarget(
            name: "TernCoreTests",
            dependencies: [
                "TernCore", "TernPush", "TernTarget", "TernProfile", "TernInApp", "TernInbox", "TernHTTP",
                "TernTestSupport", "TernSDKTestKit",
            ]),
        .testTarget(
            name: "TernPushTests",
            dependencies: [
                "TernPush", "TernCore", "TernHTTP", "TernTestSupport", "TernNotificationService", "TernSDKTestKit",
            ]),
        // Issue 2's vertical slice: the SDK through its outbox to a real `tern serve`.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "tern", "TernCore", "TernPush", "TernProtocol", "TernTestSupport", "TernNotificationService",
                "TernHTTP", "TernCrypto", "TernSQLite", "TernSDKTestKit", "TernServer",
            ]),
        // The simulated device in its own processes (`tern device`): SIGKILLs, two writers on one outbox.
        .testTarget(name: "TernDeviceTests", dependencies: ["tern", "TernCore", "TernSQLite", "TernTestSupport"]),
        // Goals, profile fields and tags: against loopback APIs, and end to end against the real `tern`
        // (JWTs signed in the test). TernSDKTestKit: the SDK harness, event log and servers both use.
        .target(
            name: "TernSDKTestKit", dependencies: ["TernCore", "TernHTTP", "TernCrypto", "TernTestSupport"],
            path: "Tests/TernSDKTestKit"),
        .testTarget(
            name: "TernTargetTests",
            dependencies: ["TernTarget", "TernPush", "TernSDKTestKit", "TernHTTP", "TernTestSupport", "tern"]),
        // Issue 20's security suite: each attack as a test against a real `tern serve` on loopback
        // (raw-socket framing, tenants, JWTs, body limits). Its own target, so that it grows.
        .testTarget(name: "TernSecurityTests", dependencies: ["tern", "TernCrypto", "TernTestSupport"]),
        .testTarget(
            name: "TernProfileTests",
            dependencies: ["TernProfile", "TernPush", "TernSDKTestKit", "TernHTTP", "TernTestSupport", "tern"]),
        .testTarget(
            name: "TernInAppTests",
            dependencies: ["TernInApp", "TernPush", "TernSDKTestKit", "TernHTTP", "TernTestSupport", "tern"]),
        // Issue 13: the inbox module and its view model, preferences and topics, against the real `tern`.
        .testTarget(
            name: "TernInboxTests",
            dependencies: [
                "TernInbox", "TernProfile", "TernPush", "TernSDKTestKit", "TernHTTP", "TernTestSupport", "tern",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
