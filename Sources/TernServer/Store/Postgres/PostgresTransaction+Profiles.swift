import Foundation
import TernProtocol
import TernSQLite

/// The profile queries PostgreSQL's dialect needs written its own way; the others are in
/// `Store/SQL/SQLTransaction+Profiles.swift`.
extension PostgresTransaction {
    func createProfile(dbId: Int64, publicId: String, now: Int64) throws -> Profile {
        let id = try insert(
            """
            INSERT INTO profiles (public_id, db_id, is_test, skip_triggers, created_at, updated_at)
            VALUES (?, ?, false, false, ?, ?)
            """, [publicId, dbId, now, now])
        return Profile(id: id, publicId: publicId, dbId: dbId, createdAt: now, updatedAt: now)
    }

    func profiles(dbId: Int64, field name: String, value: JSONValue) throws -> [Profile] {
        try database.query(
            """
            SELECT p.id, p.public_id, p.db_id, p.is_test, p.skip_triggers, p.created_at, p.updated_at
            FROM profile_fields f JOIN profiles p ON p.id = f.profile_id
            WHERE f.name = ? AND md5(f.value) = md5(?) AND f.value = ? AND p.db_id = ? ORDER BY p.id
            """, [name, Self.json(value), Self.json(value), dbId]
        ).map(Self.profile)
    }
}
