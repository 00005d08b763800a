import Foundation
import RestMap
import RestMapClient
import RestMapSchema
import RestMapStore

extension Synchronizer {
    /// Fetches the pages of one range (from the state's resume point when there is one), keeps
    /// the records, and saves each page with the state that follows it in one transaction.
    /// - Parameters:
    ///   - last: this range ends the (resource, parent) run: its last page finishes the run.
    ///   - completing: the end of a date window: every record before it was read once the range
    ///     is complete, so the high-water mark moves there.
    func runPages(_ run: inout PageRun, query: [String: String], state: inout SyncState, last: Bool,
                  completing windowEnd: SyncCursorValue? = nil, _ emit: (SyncEvent) -> Void) async throws {
        let resource = run.resource
        let cursor = resource.cursor
        let attribute = cursor?.attribute?.value
        let identity = schema.entities.first { $0.name == resource.entity.value }?.identifiedBy.map(\.value) ?? []
        // One page per request, each saved before the next is asked for: a run holds one page at a
        // time, and a kill costs at most the page in flight.
        var visited = Set<String>()
        while true {
            if let limit = run.maxPages, run.pages >= limit {
                run.stopped = true
                return
            }
            try Task.checkCancellation()
            let resume = state.resume
            if let url = resume?.url, !visited.insert(url).inserted {
                throw SyncError("\(run.label): the service sent page \(url) twice: stopped")
            }
            var pages = client.pages(route: resource.route.value, parameters: run.parent.parameters,
                                     query: resume == nil ? query : [:], maxPages: 1, resumingAt: resume,
                                     extracting: cursor?.token.map { [$0] } ?? []).makeAsyncIterator()
            guard let page = try await pages.next() else { return }
            let read = page.records.filter { $0.entity == resource.entity.value }
            if run.fullRefresh { run.seen += read.map { record in identity.map { record[$0].value ?? .null } } }
            var records = read
            if let attribute, cursor?.filter == .client, let baseline = run.baseline {
                records = records.filter { record in
                    SyncCursorValue(record[attribute].value).map { $0 > baseline } ?? true
                }
            }
            if let attribute {
                let newest = records.compactMap { SyncCursorValue($0[attribute].value) }.max()
                state.runNewest = [state.runNewest, newest].compactMap { $0 }.max()
            } else if cursor?.token != nil, let text = Router.text(page.extracted.first ?? nil), !text.isEmpty {
                // A token the API hands back: the latest one is the state, whatever it sorts like.
                state.runNewest = .text(text)
            }
            run.pages += 1
            run.kept += records.count
            state.pages += 1
            state.records += records.count
            state.lastError = nil
            var sweep: StoreSweep?
            if let next = page.nextURL {
                // More pages follow (also when a page limit stops this run): go on there next time.
                state.resume = PageResumePoint(url: next, number: page.number + 1)
                if cursor?.ordered == true, let newest = state.runNewest {
                    state.highWater = max(state.highWater ?? newest, newest)
                }
                // (Each request asks for one page, so its stop reason is that limit: more pages follow.)
            } else {
                // The range is complete: the high-water mark moves now.
                state.resume = nil
                let complete = page.stopReason?.isIncomplete != true
                if complete, cursor?.token != nil {
                    state.highWater = state.runNewest ?? state.highWater
                } else if complete, let newest = [state.runNewest, windowEnd].compactMap({ $0 }).max() {
                    state.highWater = run.fullRefresh && windowEnd == nil ? newest : max(state.highWater ?? newest, newest)
                }
                if last {
                    state.runNewest = nil
                    state.windowEnd = nil
                    state.stopReason = page.stopReason?.description
                    state.lastRun = Date()
                    if run.fullRefresh, complete { sweep = try fullRefreshSweep(run, identity: identity, emit) }
                }
            }
            let checkpoint = StoreCheckpoint(key: run.key, value: try Self.encode(state), expected: run.stored)
            let response = Response(method: "GET", path: page.response.url, status: page.response.status.code, body: [])
            if !records.isEmpty || cursor?.filter != .client || sweep != nil {
                // A sync response is never "the whole answer": the store's orphan rules do not run on it.
                try await store.save(page.response.result, of: response, isCompletePage: false, checkpoints: [checkpoint], sweep: sweep)
            } else {
                try await store.setCheckpoints([checkpoint])
            }
            run.stored = .value(checkpoint.value)
            emit(.pageSaved(resource: resource.name, parent: run.parent.key, page: page.number, records: records.count))
            if state.resume == nil { return }
        }
    }

    /// What a full refresh removes after its last page: the entity's records of this parent that
    /// the source no longer has. A parent's records are those whose attribute named like a route
    /// parameter holds the parent's value; without such an attribute nothing is removed.
    func fullRefreshSweep(_ run: PageRun, identity: [String], _ emit: (SyncEvent) -> Void) throws -> StoreSweep? {
        let entity = run.resource.entity.value
        var scope: [String: Value] = [:]
        let attributes = Set(schema.entities.first { $0.name == entity }?.attributes.map(\.name) ?? [])
        for (parameter, text) in run.parent.parameters where attributes.contains(parameter) {
            scope[parameter] = try client.mapper.coerce(.string(text), toAttribute: parameter, of: entity)
        }
        if run.resource.parent != nil, scope.isEmpty {
            emit(.note("\(run.label): nothing removed: '\(entity)' has no attribute named like a route parameter to tell this parent's records"))
            return nil
        }
        return StoreSweep(entity: entity, scope: scope, kept: run.seen)
    }
}
