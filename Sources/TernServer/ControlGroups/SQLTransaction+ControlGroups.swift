import Foundation
import TernSQLite

extension SQLTransaction {
    func addControlGroupPeople(messageId: Int64, heldOut: [Int64], sent: [Int64]) throws {
        let people = heldOut.map { ($0, 1) } + sent.map { ($0, 0) }
        for rows in RowGroups(people) {
            var parameters: [any SQLiteBindable] = []
            parameters.reserveCapacity(rows.count * 3)
            for (id, held) in rows { parameters += [messageId, id, held] as [any SQLiteBindable] }
            try database.run(
                """
                INSERT INTO control_group_people (message_id, profile_id, held_out)
                VALUES \(RowTexts.values("(?, ?, ?)", rows: rows.count))
                ON CONFLICT (message_id, profile_id) DO NOTHING
                """, parameters)
        }
    }

    func controlGroupFigures(messageId: Int64, projectId: Int64, goal: String, from: Int64, until: Int64) throws
        -> (control: ControlGroupStats.Group, sent: ControlGroupStats.Group)
    {
        var people: [Int64: Int64] = [:]
        for row in try database.query(
            "SELECT held_out, COUNT(*) FROM control_group_people WHERE message_id = ? GROUP BY held_out", [messageId])
        {
            people[row.requiredInt(0)] = row.requiredInt(1)
        }
        // The project's goals by `goals_pixel`, each looked up in the message's people by their key:
        // no index of `goals` by person, which every goal would pay for.
        var converted: [Int64: Int64] = [:]
        if !people.isEmpty {
            for row in try database.query(
                """
                SELECT c.held_out, COUNT(DISTINCT g.profile_id) FROM goals g
                JOIN control_group_people c ON c.message_id = ? AND c.profile_id = g.profile_id
                WHERE g.pixel_id IN (SELECT id FROM pixels WHERE project_id = ?) AND g.event_name = ?
                    AND g.time >= ? AND g.time < ?
                GROUP BY c.held_out
                """, [messageId, projectId, goal, from, until])
            {
                converted[row.requiredInt(0)] = row.requiredInt(1)
            }
        }
        return (
            ControlGroupStats.Group(people: people[1] ?? 0, converted: converted[1] ?? 0),
            ControlGroupStats.Group(people: people[0] ?? 0, converted: converted[0] ?? 0)
        )
    }
}
