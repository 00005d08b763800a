import Foundation
import RestMap
import Testing

/// The seed stories mapped end to end from `Samples/` by `Schemas/`, asserting what the seeds state.
@Suite struct SeedStoryTests {
    @Test func bankAccountCollectionOperators() throws {
        let mapper = try Fixture.mapper(schema: "bank.yaml")
        let result = try mapper.map(Response(path: "/accounts.json", body: try Fixture.sample("bank/account.json")))
        #expect(result.errors.isEmpty)
        let account = try #require(result.records.first)
        #expect(account.transactionCount.int == 4)
        #expect(account.averageAmount.decimal == Decimal(string: "150.115"))
        let payees = try #require(account.payees.array).compactMap(\.stringValue)
        #expect(payees.joined(separator: ", ") == "Joe Blow, Grocery Store, John Doe")
        #expect(account.balance.decimal == Decimal(string: "5013.26"))
        #expect(account.transactions.records.count == 4)
    }

    @Test func taskListConnectsTasksToUsers() throws {
        let mapper = try Fixture.mapper(schema: "tasks.yaml")
        let result = try mapper.map(Response(path: "/task_list", body: try Fixture.sample("tasks/task_list.json")))
        #expect(result.errors.isEmpty)
        #expect(result["project"].count == 3)
        let tasks = result.records(of: "Task")
        #expect(tasks.count == 11)
        let users = result.records(of: "User")
        #expect(users.count == 3)
        for task in tasks {
            let assigned = try #require(task.assignedUser.record, "task \(task.taskID) has no assigned user")
            #expect(assigned.userID.int == task.assignedUserID.int)
        }
        let blake = try #require(users.first { $0.userID.int == 1 })
        #expect(blake.assignedTasks.records.compactMap(\.taskID.int) == [1, 2, 3, 4, 7])
        let projectIDs = tasks.map { $0.projectID.int ?? 0 }
        #expect(projectIDs == [123, 123, 123, 123, 456, 456, 456, 456, 789, 789, 789])
    }

    @Test func taskCreationErrorJoinsMessages() throws {
        let mapper = try Fixture.mapper(schema: "tasks.yaml")
        let body = try Fixture.sample("tasks/create_task_error.json")
        #expect {
            _ = try mapper.map(Response(method: "POST", path: "/tasks", status: 422, body: body))
        } throws: { error in
            (error as? MappingFailure)?.description == "Name can't be blank, Assigned user must exist"
        }
    }

    @Test func parentsAndChildrenMergeByIdentity() throws {
        let mapper = try Fixture.mapper(schema: "edge-cases.yaml")
        let result = try mapper.map(Response(path: "/parents", body: try Fixture.sample("edge-cases/parents_and_children.json")))
        #expect(result.records(of: "Parent").count == 2)
        #expect(result.records(of: "Child").count == 4)
    }
}
