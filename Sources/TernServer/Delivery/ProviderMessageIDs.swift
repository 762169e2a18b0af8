import TernProtocol

/// The provider's id of a sent push: kept only where Tern cannot make it again.
///
/// Tern sends every APNs push with an `apns-id` made from its message and delivery
/// (``APNsID/delivery(messageId:deliveryId:)``), and APNs answers with the id it was given. Such
/// an answer is recorded without the id, so that a chunk's sent first attempts are kept as one
/// run instead of a row each (``SQLiteMigrations/sentRuns``), and a message's deliveries page
/// shows it made again. An id APNs chose otherwise, and FCM's and Huawei's ids, are kept.
enum ProviderMessageIDs {
    /// The id to record for `push` answered with `answered`: nil when it is the one Tern made.
    static func kept(_ answered: String?, for push: OutgoingPush) -> String? {
        guard push.provider == .apns else { return answered }
        guard let answered else { return nil }
        let made = APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId)
        // A UUID's hex digits may come back in upper case.
        return answered.lowercased() == made ? nil : answered
    }

    /// The id a deliveries page shows: the recorded one, else for a sent APNs push the one Tern
    /// made for it.
    static func shown(_ row: DeliveryRow, messageId: String) -> String? {
        guard row.providerMessageId == nil, row.provider == .apns, row.status == .sent else {
            return row.providerMessageId
        }
        return APNsID.delivery(messageId: messageId, deliveryId: row.id)
    }
}
