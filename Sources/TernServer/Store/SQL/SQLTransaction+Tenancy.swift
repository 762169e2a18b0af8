import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    func createProject(name: String, audience: String?, now: Int64) throws -> Project {
        let id = try insert(
            "INSERT INTO projects (name, audience, created_at) VALUES (?, ?, ?)", [name, audience ?? "", now])
        let audience = audience ?? "tern:\(id)"
        try database.run("UPDATE projects SET audience = ? WHERE id = ?", [audience, id])
        return Project(id: id, name: name, audience: audience, createdAt: now)
    }

    func projects() throws -> [Project] {
        try database.query("SELECT \(Self.projectColumns) FROM projects ORDER BY id", []).map(Self.project)
    }

    func project(id: Int64) throws -> Project? {
        try database.queryFirst("SELECT \(Self.projectColumns) FROM projects WHERE id = ?", [id]).map(Self.project)
    }

    func setFrequencyCap(projectId: Int64, _ cap: FrequencyCap?) throws {
        try database.run(
            "UPDATE projects SET cap_pushes = ?, cap_hours = ? WHERE id = ?", [cap?.pushes, cap?.hours, projectId])
    }

    func createDatabase(projectId: Int64, name: String, now: Int64) throws -> ProfileDatabase {
        let id = try insert(
            "INSERT INTO profile_databases (project_id, name, created_at) VALUES (?, ?, ?)", [projectId, name, now])
        return ProfileDatabase(id: id, projectId: projectId, name: name, createdAt: now)
    }

    func databases(projectId: Int64) throws -> [ProfileDatabase] {
        try database.query(
            "SELECT id, project_id, name, created_at FROM profile_databases WHERE project_id = ? ORDER BY id",
            [projectId]
        ).map(Self.profileDatabase)
    }

    func database(id: Int64) throws -> ProfileDatabase? {
        try database.queryFirst("SELECT id, project_id, name, created_at FROM profile_databases WHERE id = ?", [id])
            .map(Self.profileDatabase)
    }

    func createResource(
        projectId: Int64, dbId: Int64, name: String, channels: [SubscriptionChannel], rToken: String, now: Int64
    ) throws -> Resource {
        let id = try insert(
            """
            INSERT INTO resources (project_id, db_id, name, channels, rtoken, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, [projectId, dbId, name, channels.map(\.rawValue).joined(separator: ","), rToken, now])
        return Resource(
            id: id, projectId: projectId, dbId: dbId, name: name, channels: channels,
            rToken: rToken, createdAt: now)
    }

    private static var resourceColumns: String { "id, project_id, db_id, name, channels, rtoken, created_at" }

    /// Every resource (`projectId` nil) is what bootstrap reads before it creates the first
    /// project: that read takes the backend's bootstrap lock first (`lockForBootstrap`).
    func resources(projectId: Int64?) throws -> [Resource] {
        if let projectId {
            return try database.query(
                "SELECT \(Self.resourceColumns) FROM resources WHERE project_id = ? ORDER BY id", [projectId]
            ).map(Self.resource)
        }
        try lockForBootstrap()
        return try database.query("SELECT \(Self.resourceColumns) FROM resources ORDER BY id", []).map(Self.resource)
    }

    func resource(id: Int64) throws -> Resource? {
        try database.queryFirst("SELECT \(Self.resourceColumns) FROM resources WHERE id = ?", [id]).map(Self.resource)
    }

    func resource(rToken: String) throws -> Resource? {
        try database.queryFirst("SELECT \(Self.resourceColumns) FROM resources WHERE rtoken = ?", [rToken])
            .map(Self.resource)
    }

    func upsertCategory(_ category: ResourceCategory) throws {
        try database.run(
            """
            INSERT INTO categories (resource_id, name, title, steady) VALUES (?, ?, ?, ?)
            ON CONFLICT (resource_id, name) DO UPDATE SET title = excluded.title, steady = excluded.steady
            """, [category.resourceId, category.name, category.title, category.steady])
    }

    func categories(resourceId: Int64) throws -> [ResourceCategory] {
        try database.query(
            "SELECT resource_id, name, title, steady FROM categories WHERE resource_id = ? ORDER BY name", [resourceId]
        ).map {
            ResourceCategory(
                resourceId: $0.requiredInt(0), name: $0.requiredString(1), title: $0.requiredString(2),
                steady: $0.bool(3) ?? false)
        }
    }

    func deleteCategory(resourceId: Int64, name: String) throws -> Bool {
        try database.run("DELETE FROM categories WHERE resource_id = ? AND name = ?", [resourceId, name]) > 0
    }

    func createPixel(projectId: Int64, sid: String, name: String, now: Int64) throws -> Pixel {
        let id = try insert(
            "INSERT INTO pixels (project_id, sid, name, created_at) VALUES (?, ?, ?, ?)", [projectId, sid, name, now])
        return Pixel(id: id, projectId: projectId, sid: sid, name: name, createdAt: now)
    }

    func pixels(projectId: Int64) throws -> [Pixel] {
        try database.query(
            "SELECT id, project_id, sid, name, created_at FROM pixels WHERE project_id = ? ORDER BY id", [projectId]
        ).map(Self.pixel)
    }

    func pixel(projectId: Int64, sid: String) throws -> Pixel? {
        try database.queryFirst(
            "SELECT id, project_id, sid, name, created_at FROM pixels WHERE project_id = ? AND sid = ?",
            [projectId, sid]
        ).map(Self.pixel)
    }

    func deletePixel(projectId: Int64, sid: String) throws -> Bool {
        try database.run("DELETE FROM pixels WHERE project_id = ? AND sid = ?", [projectId, sid]) > 0
    }

    func addJWTKey(projectId: Int64, kid: String, algorithm: String, key: String, now: Int64) throws -> JWTKeyRecord {
        let id = try insert(
            "INSERT INTO jwt_keys (project_id, kid, algorithm, key, created_at) VALUES (?, ?, ?, ?, ?)",
            [projectId, kid, algorithm, key, now])
        return JWTKeyRecord(
            id: id, projectId: projectId, kid: kid, algorithm: algorithm, key: key,
            createdAt: now)
    }

    func jwtKeys(projectId: Int64) throws -> [JWTKeyRecord] {
        try database.query(
            "SELECT id, project_id, kid, algorithm, key, created_at FROM jwt_keys WHERE project_id = ? ORDER BY id",
            [projectId]
        ).map(Self.jwtKey)
    }

    func jwtKeys(kid: String) throws -> [JWTKeyRecord] {
        try database.query(
            "SELECT id, project_id, kid, algorithm, key, created_at FROM jwt_keys WHERE kid = ? ORDER BY id", [kid]
        ).map(Self.jwtKey)
    }

    func deleteJWTKey(projectId: Int64, kid: String) throws -> Bool {
        try database.run("DELETE FROM jwt_keys WHERE project_id = ? AND kid = ?", [projectId, kid]) > 0
    }

    func addAdminKey(digest: String, name: String, now: Int64) throws {
        try database.run("INSERT INTO admin_keys (digest, name, created_at) VALUES (?, ?, ?)", [digest, name, now])
    }

    func hasAdminKey(digest: String) throws -> Bool {
        try scalar(
            "SELECT COUNT(*) FROM admin_keys WHERE digest = ? AND role = 'server' AND revoked_at IS NULL", [digest]) > 0
    }

    func adminKeyCount() throws -> Int {
        Int(try scalar("SELECT COUNT(*) FROM admin_keys"))
    }

    private static var projectColumns: String { "id, name, audience, created_at, cap_pushes, cap_hours" }

    private static func project(_ row: Connection.Row) -> Project {
        var cap: FrequencyCap?
        if let pushes = row.int(4), let hours = row.int(5) {
            cap = FrequencyCap(pushes: Int(pushes), hours: Int(hours))
        }
        return Project(
            id: row.requiredInt(0), name: row.requiredString(1), audience: row.requiredString(2),
            createdAt: row.requiredInt(3), frequencyCap: cap)
    }

    private static func profileDatabase(_ row: Connection.Row) -> ProfileDatabase {
        ProfileDatabase(
            id: row.requiredInt(0), projectId: row.requiredInt(1), name: row.requiredString(2),
            createdAt: row.requiredInt(3))
    }

    private static func resource(_ row: Connection.Row) -> Resource {
        Resource(
            id: row.requiredInt(0), projectId: row.requiredInt(1), dbId: row.requiredInt(2),
            name: row.requiredString(3),
            channels: row.requiredString(4).split(separator: ",").compactMap {
                SubscriptionChannel(rawValue: String($0))
            }, rToken: row.requiredString(5),
            createdAt: row.requiredInt(6))
    }

    private static func pixel(_ row: Connection.Row) -> Pixel {
        Pixel(
            id: row.requiredInt(0), projectId: row.requiredInt(1), sid: row.requiredString(2),
            name: row.requiredString(3), createdAt: row.requiredInt(4))
    }

    private static func jwtKey(_ row: Connection.Row) -> JWTKeyRecord {
        JWTKeyRecord(
            id: row.requiredInt(0), projectId: row.requiredInt(1), kid: row.requiredString(2),
            algorithm: row.requiredString(3), key: row.requiredString(4), createdAt: row.requiredInt(5))
    }
}
