import Foundation
import TernProtocol

extension ProfileService {
    /// `profile/authenticate` and `profile/update`; in the SDK group.
    var routes: [Route] {
        let service = self
        return [
            .sdk(.profileAuthenticate, PushTokenRequest.self) { request, caller, key in
                try request.validate()
                return try await service.authenticate(request, caller: caller, idempotency: key)
            },
            .sdk(.profileUpdate, ProfileUpdateRequest.self) { request, caller, key in
                try await service.update(request, caller: caller, idempotency: key)
            },
        ]
    }
}

extension TagService {
    /// `profile/tags/set` and `profile/tags/remove`; in the SDK group.
    var routes: [Route] {
        let service = self
        return [
            .sdk(.profileTagsSet, TagsSetRequest.self) { request, caller, key in
                try await service.set(request, caller: caller, idempotency: key)
            },
            .sdk(.profileTagsRemove, TagsRemoveRequest.self) { request, caller, key in
                try await service.remove(request, caller: caller, idempotency: key)
            },
        ]
    }
}
