import Foundation

/// Namespace for the answers the SDK hands to apps.
public enum ResponseModel {
    /// The envelope every server answer carries: `{"error": 0, "error_text": "", "profile": {...}}`.
    public struct ResponseWithProfile: Codable, Sendable, Equatable {
        /// The platform's error code; 0 when there is none.
        public let error: Int?
        /// The platform's error text; empty when there is none.
        public let errorText: String?
        /// The profile the request concerns, with its subscription; nil when the request failed, for
        /// `sync == false`, or when the profile does not exist.
        public let profile: ProfileData?

        /// An envelope.
        ///
        /// - Parameters:
        ///   - error: The platform's error code; 0 when there is none.
        ///   - errorText: The platform's error text; empty when there is none.
        ///   - profile: The profile, or nil.
        public init(error: Int?, errorText: String?, profile: ProfileData?) {
            self.error = error
            self.errorText = errorText
            self.profile = profile
        }

        enum CodingKeys: String, CodingKey {
            case error, profile
            case errorText = "error_text"
        }
    }

    /// An answer with the transport's status code beside it.
    public struct ResponseWithHttpCode<Response: Sendable>: Sendable {
        /// The HTTP status of the answer; nil when no answer came.
        public let httpCode: Int?
        /// The decoded answer; nil when there was none or it could not be decoded.
        public let response: Response?

        /// An answer with its status.
        ///
        /// - Parameters:
        ///   - httpCode: The HTTP status, or nil.
        ///   - response: The answer, or nil.
        public init(httpCode: Int?, response: Response?) {
            self.httpCode = httpCode
            self.response = response
        }
    }
}

extension ResponseModel.ResponseWithHttpCode: Equatable where Response: Equatable {}

/// The envelope of an answer that carries no profile (errors, events).
public typealias ResponseEnvelope = ResponseModel.ResponseWithProfile

extension ResponseModel.ResponseWithProfile {
    /// A success with an optional profile.
    public static func ok(_ profile: ProfileData? = nil) -> Self {
        Self(error: 0, errorText: "", profile: profile)
    }

    /// A failure; the platform's `error` repeats the HTTP status, as the reference's answers do.
    public static func failure(_ code: Int, _ text: String) -> Self {
        Self(error: code, errorText: text, profile: nil)
    }
}
