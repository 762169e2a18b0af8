import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The hand decoders of the hot SDK shapes give exactly what JSONDecoder gives, and step aside
/// (nil) for anything they are not sure of, so JSONDecoder's answer and 400s stay the same.
@Suite struct FastRequestDecodingTests {
    static func both<T: Decodable & Equatable>(_ type: T.Type, _ text: String) -> (fast: T?, foundation: T?) {
        let body = Data(text.utf8)
        return (FastRequestDecoding.decode(type, from: body), try? JSONDecoder().decode(type, from: body))
    }

    @Test(arguments: [
        #"{"time":1700000000000,"provider":"ios-apns","subscription_id":"tok","sync":true}"#,
        #"{"time":1,"provider":"ios-apns","subscription_id":"tok"}"#,
        #"{"time":-5,"provider":"ios-apns","subscription_id":"t\"o\\k\u00e9\ud83d\ude00","sync":null,"x":[1]}"#,
        #" { "time" : 0 , "provider":"p","subscription_id":"t","sync":false,"replace":true,"skip_triggers":false,"#
            + #""profile_fields":{"_fname":"Ada","n":{"action":"incr","value":1},"l":[1,"a",null,true]},"#
            + #""custom_fields":{"_os":"IOS"}} "#,
    ])
    func subscribeDecodesAsJSONDecoderDoes(_ text: String) {
        let (fast, foundation) = Self.both(PushSubscriptionRequest.self, text)
        #expect(fast != nil)
        #expect(fast == foundation)
    }

    @Test(arguments: [
        #"{"time":"1","provider":"p","subscription_id":"t"}"#,  // wrong type: JSONDecoder's 400
        #"{"provider":"p","subscription_id":"t"}"#,  // missing field
        #"{"time":1.0,"provider":"p","subscription_id":"t"}"#,  // fractional: JSONDecoder decides
        #"{"time":01,"provider":"p","subscription_id":"t"}"#,  // leading zero: not JSON
        #"{"time":1,"provider":"p","subscription_id":"t","profile_fields":{"v":2.5}}"#,
        #"{"time":1,"provider":"p","subscription_id":"t","cats":[{"name":"news"}]}"#,
        "{\"time\":1,\"provider\":\"p\",\"subscription_id\":\"tab\tinside\"}",  // raw control character
        "{\"time\":1,\"provider\":\"p\",\"subscription_id\":\"caf\u{e9}\"}",  // non-ASCII bytes
        #"{"time":1,"provider":"p","subscription_id":"t"} trailing"#,
        #"[1,2]"#,
        #"{"time":1,"provider":"p","subscription_id":"t","sync":1}"#,
    ])
    func anythingUncertainFallsBackToJSONDecoder(_ text: String) {
        #expect(FastRequestDecoding.decode(PushSubscriptionRequest.self, from: Data(text.utf8)) == nil)
    }

    @Test func updateAndEventPushDecodeAsJSONDecoderDoes() {
        for text in [
            #"{"provider":"ios-apns","old_provider":"ios-apns","old_subscription_id":"a","subscription_id":"b","#
                + #""custom_fields":{"_app_version":"1"}}"#,
            #"{"provider":"ios-apns","subscription_id":"b","old_subscription_id":null}"#,
        ] {
            let (fast, foundation) = Self.both(PushUpdateRequest.self, text)
            #expect(fast != nil)
            #expect(fast == foundation)
        }
        let events =
            #"{"events":[{"message_id":"m-1","type":"delivery","time":1},{"message_id":"m","type":"open","time":2}]}"#
        let (fast, foundation) = Self.both(PushEventRequest.self, events)
        #expect(fast != nil)
        #expect(fast == foundation)
        #expect(
            FastRequestDecoding.decode(
                PushEventRequest.self, from: Data(#"{"events":[{"message_id":"m","type":"click","time":1}]}"#.utf8))
                == nil)
    }

    @Test(arguments: [
        #"{"events":[{"sid":"px","client_id":"c-1","event_name":"purchase","payload":{"amount":1},"time":17}]}"#,
        #"{"events":[{"sid":"px","event_name":"open","time":1},{"sid":"q","event_name":"e","time":2,"#
            + #""client_id":null,"send_message_id":"m.1","matching":{"email":"a@b"},"matching_type":"email","#
            + #""profile_fields":{"n":{"action":"incr","value":1}},"subscription":null}]}"#,
        #"{"events":[]}"#,
        #"{"provider":"ios-apns","subscription_id":"3f2a","events":[{"sid":"px","event_name":"cart","time":1}]}"#,
        #"{"events":[{"sid":"px","event_name":"cart","time":1}],"provider":null,"subscription_id":"t"}"#,
    ])
    func goalsDecodeAsJSONDecoderDoes(_ text: String) {
        let (fast, foundation) = Self.both(GoalEventRequest.self, text)
        #expect(fast != nil)
        #expect(fast == foundation)
    }

    @Test(arguments: [
        #"{"events":[{"sid":"px","event_name":"e","time":1,"utm":{"source":"s"}}]}"#,
        #"{"events":[{"sid":"px","event_name":"e","time":1,"subscription":{"provider":"ios-apns"}}]}"#,
        #"{"events":[{"sid":"px","event_name":"e","time":1,"payload":{"price":9.5}}]}"#,
        #"{"events":[{"sid":"px","event_name":"e"}]}"#,
        #"{"events":[{"sid":1,"event_name":"e","time":1}]}"#,
        #"{"events":[{"sid":"px","event_name":"e","time":1,"client_id":5}]}"#,
        #"{"events":{}}"#,
        #"{"events":[{"sid":"px","event_name":"e","time":1}],"provider":1,"subscription_id":"t"}"#,
    ])
    func uncertainGoalsFallBackToJSONDecoder(_ text: String) {
        #expect(FastRequestDecoding.decode(GoalEventRequest.self, from: Data(text.utf8)) == nil)
    }

    @Test func otherShapesAreLeftToJSONDecoder() {
        #expect(FastRequestDecoding.decode(PushStatusRequest.self, from: Data(#"{"mode":"latest"}"#.utf8)) == nil)
    }
}
