/// The order `restmap sync` runs resources in: a resource that fans out over an entity comes after
/// every resource that keeps that entity.
public enum SyncOrder {
    /// The resources, parents first, each after those it depends on (file order otherwise);
    /// `nil` when they depend on each other in a cycle.
    public static func sorted(_ resources: [SyncResource]) -> [SyncResource]? {
        var placed: [SyncResource] = []
        var done = Set<String>()
        var remaining = resources
        while !remaining.isEmpty {
            guard let index = remaining.firstIndex(where: { resource in
                dependencies(of: resource, in: resources).allSatisfy { done.contains($0.name) }
            }) else { return nil }
            let next = remaining.remove(at: index)
            placed.append(next)
            done.insert(next.name)
        }
        return placed
    }

    /// A cycle of resources, each depending on the next and the last on the first; `nil` when there is none.
    static func cycle(in resources: [SyncResource]) -> [SyncResource]? {
        guard sorted(resources) == nil else { return nil }
        // Walk dependencies from a resource left unplaced until one repeats.
        var path: [SyncResource] = []
        var current = resources.first { resource in
            !dependencies(of: resource, in: resources).isEmpty
        }
        while let resource = current {
            if let start = path.firstIndex(where: { $0.name == resource.name }) { return Array(path[start...]) }
            path.append(resource)
            current = dependencies(of: resource, in: resources).first
        }
        return nil
    }

    /// The other resources keeping the entity `resource` fans out over.
    static func dependencies(of resource: SyncResource, in resources: [SyncResource]) -> [SyncResource] {
        guard let parent = resource.parent?.entity.value else { return [] }
        return resources.filter { $0.name != resource.name && $0.entity.value == parent }
    }
}
