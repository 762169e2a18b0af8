import Foundation
import TernProtocol

extension MessageService {
    /// `request` with its template's content (`template_id`) where it gives none, and the template's
    /// project, which the message's must be (``stored(_:_:plan:keyProject:recurringOf:)`` checks it
    /// once the message's project is known); `request` as it is, and nil, without a template. Read
    /// once, when the message is made or edited: the message keeps the merged content.
    ///
    /// - Throws: 404 for a template that does not exist (or is another project's, for a project
    ///   key), 400 for one of another project than the request's `project_id`, or with a Live
    ///   Activity (which has content of its own).
    func withTemplate(_ request: MessageRequest, keyProject: Int64?) async throws -> (MessageRequest, Int64?) {
        guard let id = request.templateId else { return (request, nil) }
        guard request.liveActivity == nil else {
            throw APIError.badRequest(
                "template_id does not go with live_activity: a template holds a notification's content; send the "
                    + "activity's alert in live_activity")
        }
        let template = try await store.read { tx in try tx.template(id: id) }
        guard let template, keyProject == nil || keyProject == template.projectId else {
            throw APIError.notFound(
                "template_id: template \(id) does not exist\(keyProject.map { " in project \($0)" } ?? "") "
                    + "(tern template list shows the project's templates)")
        }
        if let projectId = request.projectId, projectId != template.projectId {
            throw Self.otherProject(id, template.projectId, projectId)
        }
        return (try MessageContent.fill(request, from: TemplateService.content(template)), template.projectId)
    }

    /// Refuses a template of another project than the message's.
    static func otherProject(_ id: Int64, _ templateProject: Int64, _ messageProject: Int64) -> APIError {
        APIError.badRequest(
            "template_id: template \(id) is a template of project \(templateProject), and this message goes from "
                + "project \(messageProject): use a template of project \(messageProject) (tern template list "
                + "--project \(messageProject))")
    }
}
