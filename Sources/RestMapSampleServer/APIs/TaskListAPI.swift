import Foundation
import Hummingbird

/// The task list of RestKit's relationship example (Schemas/tasks.yaml): `/task_list` and task CRUD with Rails-style
/// form bodies (`task[name]=…`) or JSON (`{"task": {…}}`).
actor TaskListAPI {
    private struct Task {
        var id: Int
        var name: String
        var assignedUserID: Int
        var projectID: Int?

        /// The task as the sample lists it inside its project.
        var listed: JSONValue {
            .object(["id": .integer(id), "name": .string(name), "assigned_user_id": .integer(assignedUserID)])
        }

        /// The task on its own, with `project_id` when it has one.
        var json: JSONValue {
            var value = listed
            if let projectID { value.set("project_id", .integer(projectID)) }
            return value
        }
    }

    /// The sample, `[{"project": {…, "tasks": […]}}, …]`; the tasks are served from `tasks`.
    private var projects: [JSONValue]
    /// Every task by id, sample tasks included.
    private var tasks: [Int: Task] = [:]
    private var nextID: Int
    private let userIDs: Set<Int>

    init(data: SampleData) throws(SampleData.LoadError) {
        projects = try data.array("tasks/task_list.json")
        let sampleTasks = projects.flatMap { entry in
            (entry["project"]?["tasks"]?.arrayValue ?? []).map { (task: $0, project: entry["project"]?["id"]?.intValue) }
        }
        for (task, project) in sampleTasks {
            guard let id = task["id"]?.intValue else { continue }
            tasks[id] = Task(id: id, name: task["name"]?.stringValue ?? "", assignedUserID: task["assigned_user_id"]?.intValue ?? 0, projectID: project)
        }
        nextID = (tasks.keys.max() ?? 0) + 1
        userIDs = Set(projects.compactMap { $0["project"]?["user"]?["id"]?.intValue })
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.get, "/task_list") { _ in await self.taskList() }
        router.on(.post, "/tasks") { request in await self.create(request) }
        router.on(.get, "/tasks/:id") { request in await self.task(request) }
        router.on(.put, "/tasks/:id") { request in await self.update(request) }
        router.on(.delete, "/tasks/:id") { request in await self.delete(request) }
    }

    private static func errors(_ messages: [String], status: HTTPResponse.Status = .unprocessableContent) -> Reply {
        .json(.object(["errors": .array(messages.map(JSONValue.string))]), status: status)
    }

    private static let notFound = errors(["Task not found"], status: .notFound)

    /// The sample with every task as it is now: changed ones updated, deleted ones gone, new ones
    /// appended to their project.
    private func taskList() -> Reply {
        let list = projects.map { entry -> JSONValue in
            guard var project = entry["project"], let projectID = project["id"]?.intValue else { return entry }
            let current = tasks.values.filter { $0.projectID == projectID }.sorted { $0.id < $1.id }
            project.set("tasks", .array(current.map(\.listed)))
            return .object(["project": project])
        }
        return .json(.array(list))
    }

    /// The `task` object of a form (`task[name]=…`) or JSON body (`{"task": {…}}` or bare).
    private static func fields(_ request: RouteRequest) -> JSONValue? {
        guard let body = request.bodyObject() else { return nil }
        if let nested = body["task"], case .object = nested { return nested }
        return body
    }

    /// Applies the given fields; answers the validation messages (empty when valid).
    private func apply(_ fields: JSONValue, to task: inout Task) -> [String] {
        var messages: [String] = []
        if let name = fields["name"] {
            task.name = name.stringValue ?? ""
        }
        if task.name.trimmingCharacters(in: .whitespaces).isEmpty { messages.append("Name can't be blank") }
        if let assigned = fields["assigned_user_id"] {
            task.assignedUserID = assigned.intValue ?? 0
        }
        if !userIDs.contains(task.assignedUserID) { messages.append("Assigned user must exist") }
        if let project = fields["project_id"] {
            task.projectID = project.intValue
        }
        return messages
    }

    private func create(_ request: RouteRequest) -> Reply {
        guard let fields = Self.fields(request) else { return Self.errors(["Body must be a form or a JSON object"], status: .badRequest) }
        var task = Task(id: nextID, name: "", assignedUserID: 0, projectID: nil)
        let messages = apply(fields, to: &task)
        guard messages.isEmpty else { return Self.errors(messages) }
        nextID += 1
        tasks[task.id] = task
        return .json(task.json, status: .created)
    }

    private func task(_ request: RouteRequest) -> Reply {
        guard let id = Int(request.parameter("id")), let task = tasks[id] else { return Self.notFound }
        return .json(task.json)
    }

    private func update(_ request: RouteRequest) -> Reply {
        guard let id = Int(request.parameter("id")), var task = tasks[id] else { return Self.notFound }
        guard let fields = Self.fields(request) else { return Self.errors(["Body must be a form or a JSON object"], status: .badRequest) }
        let messages = apply(fields, to: &task)
        guard messages.isEmpty else { return Self.errors(messages) }
        tasks[id] = task
        return .json(task.json)
    }

    private func delete(_ request: RouteRequest) -> Reply {
        guard let id = Int(request.parameter("id")), tasks.removeValue(forKey: id) != nil else { return Self.notFound }
        return .noContent
    }
}
