import Foundation
import TernProtocol

/// An alert whose texts the device looks up in the app's own `Localizable.strings`, in its own
/// language: each text's key (`title-loc-key`, `subtitle-loc-key`, `loc-key`) and the values its
/// format fills in (`…-loc-args`, `loc-args`), as APNs names them in `aps.alert`. The message's own
/// title and body stay beside them: what a device shows when the app has no such key.
struct AlertLocalization: Sendable, Equatable {
    /// The longest key, and the longest value of its arguments, in characters.
    static let maxKey = 256
    static let maxArgument = 1024
    /// At most this many arguments a key.
    static let maxArguments = 20

    struct Text: Sendable, Equatable {
        var key: String
        var arguments: [String]?
    }

    var title: Text?
    var subtitle: Text?
    var body: Text?

    init() {}

    /// The request's keys, checked; each refusal names the field and what it takes.
    init(_ request: MessageRequest) throws(APIError) {
        title = try Self.text(request.titleLocKey, request.titleLocArgs, "title")
        subtitle = try Self.text(request.subtitleLocKey, request.subtitleLocArgs, "subtitle")
        body = try Self.text(request.bodyLocKey, request.bodyLocArgs, "body")
    }

    /// True when the device has a text to show from the app's strings: a title or a body key.
    var showsText: Bool { title != nil || body != nil }

    private static func text(_ key: String?, _ arguments: [String]?, _ part: String) throws(APIError) -> Text? {
        guard let key else {
            if arguments != nil {
                throw .badRequest("\(part)_loc_args goes with \(part)_loc_key (the key whose format they fill in)")
            }
            return nil
        }
        try MessagePlan.text(key, "\(part)_loc_key", max: maxKey)
        if let arguments {
            guard arguments.count <= maxArguments else {
                throw .badRequest("\(part)_loc_args has \(arguments.count) values, more than \(maxArguments)")
            }
            for argument in arguments where !TextLength.fits(argument, max: maxArgument) {
                throw .badRequest("a value of \(part)_loc_args is longer than \(maxArgument) characters")
            }
        }
        return Text(key: key, arguments: arguments)
    }

    /// The fields of it `request` names, for the refusals of pushes that show no alert.
    static func given(_ request: MessageRequest) -> [(String, Bool)] {
        [
            ("title_loc_key", request.titleLocKey != nil), ("title_loc_args", request.titleLocArgs != nil),
            ("subtitle_loc_key", request.subtitleLocKey != nil), ("subtitle_loc_args", request.subtitleLocArgs != nil),
            ("body_loc_key", request.bodyLocKey != nil), ("body_loc_args", request.bodyLocArgs != nil),
        ]
    }

    /// Writes its keys into an alert.
    func apply(to alert: inout [String: JSONValue]) {
        for (text, key, arguments) in [
            (title, "title-loc-key", "title-loc-args"), (subtitle, "subtitle-loc-key", "subtitle-loc-args"),
            (body, "loc-key", "loc-args"),
        ] {
            guard let text else { continue }
            alert[key] = .string(text.key)
            if let values = text.arguments { alert[arguments] = .array(values.map(JSONValue.string)) }
        }
    }
}
