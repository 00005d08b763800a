import RestMapTestSupport
import Testing

@Suite("Task list with Rails-style forms")
struct TaskListTests {
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    @Test func taskListIsTheSeedsProjects() async throws {
        try await SampleServer.with { server async throws in
            let list = try await server.json("GET", "/task_list")
            #expect(list.elements.map { $0["project"]?["id"]?.int } == [123, 456, 789])
            #expect(list.elements.map { $0["project"]?["tasks"]?.count } == [4, 4, 3])
            #expect(list[1]?["project"]?["tasks"]?[2]?["assigned_user_id"]?.int == 1)   // task 7 goes to Blake
        }
    }

    @Test func formBodyCreatesATaskInItsProject() async throws {
        try await SampleServer.with { server async throws in
            let created = try await server.json(
                "POST", "/tasks", headers: Self.form, body: Array("task%5Bname%5D=Dry+the+cat&task[assigned_user_id]=3&task[project_id]=789".utf8), status: 201
            )
            #expect(created["id"]?.int == 12)
            #expect(created["name"]?.stringValue == "Dry the cat")
            #expect(created["assigned_user_id"]?.int == 3)
            #expect(created["project_id"]?.int == 789)
            let tasks = try #require(try await server.json("GET", "/task_list")[2]?["project"]?["tasks"])
            #expect(tasks.column("id") == ["9", "10", "11", "12"])
        }
    }

    @Test func jsonBodyAndValidationErrors() async throws {
        try await SampleServer.with { server async throws in
            let json = ["Content-Type": "application/json"]
            let created = try await server.json("POST", "/tasks", headers: json, body: Array(#"{"task": {"name": "Feed the cat", "assigned_user_id": 2}}"#.utf8), status: 201)
            #expect(created["project_id"] == nil)
            let invalid = try await server.json("POST", "/tasks", headers: Self.form, body: Array("task[name]=&task[assigned_user_id]=9".utf8), status: 422)
            #expect(invalid["errors"]?.elements.map(\.stringValue) == ["Name can't be blank", "Assigned user must exist"])
        }
    }

    @Test func updateAndDeleteATask() async throws {
        try await SampleServer.with { server async throws in
            let updated = try await server.json("PUT", "/tasks/3", headers: Self.form, body: Array("task[name]=Push+to+GitHub".utf8))
            #expect(updated["name"]?.stringValue == "Push to GitHub")
            #expect(updated["project_id"]?.int == 123)
            #expect(try await server.json("GET", "/tasks/3")["name"]?.stringValue == "Push to GitHub")
            #expect(try await server.send("DELETE", "/tasks/3").status == 204)
            #expect(try await server.json("GET", "/tasks/3", status: 404)["errors"]?[0]?.stringValue == "Task not found")
            #expect(try await server.json("GET", "/task_list")[0]?["project"]?["tasks"]?.column("id") == ["1", "2", "4"])
        }
    }
}
