import Foundation
import TernProtocol

/// The store-side checks of a filter's engagement conditions, where a filter is saved or sent:
/// each message it names exists, is of the audience's project, and still has its deliveries and
/// reports (retention removes them, `docs/operating.md`), so that what it counts can be told.
enum EngagementCheck {
    /// Refuses (400) the first engagement condition of `filter` naming a message that does not
    /// exist, is of another project, or whose history was removed; `path` names the filter.
    static func check(_ tx: any StoreTransaction, _ filter: AudienceExpression, projectId: Int64, path: String) throws {
        for (path, condition) in filter.engagements(path: path) {
            guard let id = condition.messageId else { continue }
            guard let message = try tx.message(publicId: id) else {
                throw APIError.badRequest(
                    "\(path).message: no message has the id \(id.prefix(64)): name a message of project "
                        + "\(projectId) by the id its send answered (GET /api/v1/admin/messages lists them)")
            }
            guard message.projectId == projectId else {
                throw APIError.badRequest(
                    "\(path).message: message \(id) is not a message of project \(projectId): a filter reads "
                        + "engagement with its own project's messages")
            }
            if let history = try tx.messageHistory(messageId: message.id) {
                let removed = InAppWire.format(Date(timeIntervalSince1970: Double(history.removedAt) / 1000))
                throw APIError.badRequest(
                    "\(path).message: message \(id) is past retention: its deliveries and reports were removed "
                        + "on \(removed): engagement with it can no longer be told")
            }
        }
    }
}
