import Foundation
import RestMap
import Testing

@Suite struct ConcurrencyTests {
    @Test func oneMapperMapsFromManyTasksAtOnce() async throws {
        let mapper = try Fixture.mapper(schema: "tasks.yaml")
        let body = try Fixture.sample("tasks/task_list.json")
        let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let result = try mapper.map(Response(path: "/task_list", body: body))
                    return [result.records(of: "Project").count, result.records(of: "Task").count, result.records(of: "User").count]
                }
            }
            return try await group.reduce(into: [[Int]]()) { $0.append($1) }
        }
        #expect(counts.count == 16)
        #expect(counts.allSatisfy { $0 == [3, 11, 3] })
    }
}
