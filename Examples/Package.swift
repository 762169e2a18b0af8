// swift-tools-version:6.0
// The example's sources as package targets, so they compile for iOS on any machine with the Swift
// toolchain (scripts/examples.sh runs ../shared/apple/ios-build.sh on them in `make test`). To run
// the app, open TernExample/TernExample.xcodeproj in Xcode instead: it builds the same files as an
// app with its Notification Service Extension.
import PackageDescription

let package = Package(
    name: "TernExamples",
    platforms: [.iOS(.v16)],
    dependencies: [.package(name: "Tern", path: "..")],
    targets: [
        .target(
            name: "TernExampleApp",
            dependencies: [
                .product(name: "TernCore", package: "Tern"),
                .product(name: "TernPush", package: "Tern"),
                .product(name: "TernTarget", package: "Tern"),
                .product(name: "TernProfile", package: "Tern"),
            ],
            path: "TernExample/TernExample",
            exclude: ["Info.plist", "TernExample.entitlements"]),
        .target(
            name: "TernExampleNotificationService",
            dependencies: [.product(name: "TernNotificationService", package: "Tern")],
            path: "TernExample/NotificationService",
            exclude: ["Info.plist", "NotificationService.entitlements"]),
    ],
    swiftLanguageModes: [.v6]
)
