/// The order `restmap sync` runs resources in: a resource that fans out over an entity comes after
/// every resource that keeps that entity. Linear in the number of resources, whatever the schema.
public enum SyncOrder {
    /// The resources, parents first, each after those it depends on (file order otherwise);
    /// `nil` when they depend on each other in a cycle. A resource over its own entity (folders
    /// in folders) comes after the other resources keeping that entity.
    public static func sorted(_ resources: [SyncResource]) -> [SyncResource]? {
        let graph = EntityGraph(resources)
        guard graph.remaining.isEmpty else { return nil }
        func key(_ item: (offset: Int, element: SyncResource)) -> (Int, Int, Int) {
            let resource = item.element
            return (graph.level[resource.entity.value] ?? 0, resource.parent?.entity.value == resource.entity.value ? 1 : 0, item.offset)
        }
        return resources.enumerated().sorted { key($0) < key($1) }.map(\.element)
    }

    /// Resources that depend on each other in a cycle, each on the next and the last on the
    /// first; `nil` when there is none.
    static func cycle(in resources: [SyncResource]) -> [SyncResource]? {
        let graph = EntityGraph(resources)
        // Every entity left after the topological pass has a predecessor left too: walking back
        // through them must repeat an entity, and the resources walked from there form a cycle.
        guard let start = resources.lazy.map(\.entity.value).first(where: graph.remaining.contains) else { return nil }
        var walked: [(entity: String, resource: SyncResource)] = []
        var entity = start
        var seen: [String: Int] = [:]
        while seen[entity] == nil {
            seen[entity] = walked.count
            guard let edge = graph.incoming[entity]?.first(where: { graph.remaining.contains($0.parent) }) else { return nil }
            walked.append((entity, edge.resource))
            entity = edge.parent
        }
        return walked[seen[entity]!...].map(\.resource)
    }

    /// Entities as nodes, each resource with a parent of another entity an edge parent → entity.
    private struct EntityGraph {
        /// Each entity's incoming edges: the parent entity and the resource.
        var incoming: [String: [(parent: String, resource: SyncResource)]] = [:]
        /// The longest path to each entity (Kahn's order), for the entities not in or after a cycle.
        var level: [String: Int] = [:]
        /// Entities in a cycle or depending on one.
        var remaining: Set<String> = []

        init(_ resources: [SyncResource]) {
            var outgoing: [String: [String]] = [:]
            var indegree: [String: Int] = [:]
            for resource in resources {
                let entity = resource.entity.value
                indegree[entity, default: 0] += 0
                guard let parent = resource.parent?.entity.value, parent != entity else { continue }
                indegree[parent, default: 0] += 0
                indegree[entity, default: 0] += 1
                outgoing[parent, default: []].append(entity)
                incoming[entity, default: []].append((parent, resource))
            }
            var ready = indegree.filter { $0.value == 0 }.map(\.key)
            for entity in ready { level[entity] = 0 }
            while let entity = ready.popLast() {
                for child in outgoing[entity] ?? [] {
                    level[child] = max(level[child] ?? 0, (level[entity] ?? 0) + 1)
                    indegree[child]! -= 1
                    if indegree[child] == 0 { ready.append(child) }
                }
            }
            remaining = Set(indegree.filter { $0.value > 0 }.map(\.key))
        }
    }
}
