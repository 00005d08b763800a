import Foundation
@testable import RestMapClient
import Testing

/// The readers of the servers' rate-limit signals, without a server.
@Suite("Rate-limit headers")
struct RateLimitHeaderTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("X-RateLimit-Reset is seconds from now up to 10^9, an epoch time above")
    func xRateLimit() throws {
        let delta = try #require(ServerRateLimit.xRateLimit(remaining: "0", reset: "30", now: now))
        #expect(delta.remaining == 0)
        #expect(delta.resetAfter == 30)
        let epoch = try #require(ServerRateLimit.xRateLimit(remaining: "4", reset: "1800000045", now: now))
        #expect(epoch.remaining == 4)
        #expect(epoch.resetAfter == 45)
        #expect(ServerRateLimit.xRateLimit(remaining: "0", reset: "1799999990", now: now)?.resetAfter == 0, "an epoch in the past means now")
        #expect(ServerRateLimit.xRateLimit(remaining: " 2 ", reset: "1.5", now: now)?.resetAfter == 1.5)
        #expect(ServerRateLimit.xRateLimit(remaining: "0", reset: nil, now: now) == nil, "a count without a reset says nothing")
        #expect(ServerRateLimit.xRateLimit(remaining: "many", reset: "3", now: now) == nil)
        #expect(ServerRateLimit.xRateLimit(remaining: "1", reset: "soon", now: now) == nil)
    }

    @Test("RateLimit (draft -10): the most restrictive policy; t from the policy's window when absent")
    func rateLimitField() throws {
        let one = try #require(ServerRateLimit.rateLimitField(#""default";r=0;t=5"#, policy: #""default";q=100;w=60"#))
        #expect(one.remaining == 0)
        #expect(one.resetAfter == 5)
        let two = try #require(ServerRateLimit.rateLimitField(#""burst";r=40;t=2, "daily";r=0;t=3600"#, policy: nil))
        #expect(two.remaining == 0)
        #expect(two.resetAfter == 3600)
        let windowed = try #require(ServerRateLimit.rateLimitField(#""hourly";r=3"#, policy: #""hourly";q=10;w=3600"#))
        #expect(windowed.resetAfter == 3600)
        #expect(ServerRateLimit.rateLimitField(#""hourly";r=3"#, policy: nil) == nil)
        let partitioned = try #require(ServerRateLimit.rateLimitField(#""default";r=7;t=9;pk=:cHJpdmF0ZQ==:"#, policy: nil))
        #expect(partitioned.remaining == 7)
        #expect(ServerRateLimit.rateLimitField("limit=10, remaining=0, reset=5", policy: nil) == nil, "revision 07's dictionary is not read")
    }

    @Test("RateLimit-Policy items")
    func policy() {
        #expect(RateLimitPolicy.parse(#""burst";q=100;w=60,"daily";q=1000;w=86400"#)
            == [RateLimitPolicy(name: "burst", quota: 100, window: 60), RateLimitPolicy(name: "daily", quota: 1000, window: 86400)])
        #expect(RateLimitPolicy.parse(#""a";q=5, garbage(, "b";w=2"#) == [RateLimitPolicy(name: "a", quota: 5, window: nil)])
    }

    @Test("A response's headers: the fewest requests left wins")
    func combined() throws {
        let signal = try #require(ServerRateLimit.parse([
            ("x-ratelimit-remaining", "3"), ("X-RateLimit-Reset", "10"), ("RateLimit", #""default";r=0;t=4"#),
        ], now: now))
        #expect(signal.remaining == 0)
        #expect(signal.resetAfter == 4)
        #expect(ServerRateLimit.parse([("Content-Type", "application/json")], now: now) == nil)
    }

    @Test("The gate holds requests until the server's reset, and spaces them by the budget")
    func gate() async throws {
        let start = ContinuousClock.now
        let held = RateGate(budget: nil, honoursServer: true)
        #expect(await held.reserve(now: start) == nil)
        await held.observe(ServerRateLimit(remaining: 1, resetAfter: 2, source: "test"), now: start)
        #expect(await held.reserve(now: start) == nil, "one request left")
        let wait = try #require(await held.reserve(now: start))
        #expect(wait.wait == .seconds(2))
        #expect(wait.reason.contains("used up"))
        #expect(await held.reserve(now: start + .seconds(2)) == nil, "after the reset requests go again")

        let budget = RateGate(budget: RequestBudget(requests: 2, per: .seconds(1), burst: 2), honoursServer: false, now: start)
        #expect(await budget.reserve(now: start) == nil)
        #expect(await budget.reserve(now: start) == nil)
        #expect(await budget.reserve(now: start)?.wait == .milliseconds(500))
        #expect(await budget.reserve(now: start)?.wait == .milliseconds(1000), "waiting requests queue in order")
        #expect(await budget.reserve(now: start + .seconds(5)) == nil, "a quiet time refills the bucket")
        #expect(await budget.reserve(now: start + .seconds(5)) == nil)
        #expect(await budget.reserve(now: start + .seconds(5)) != nil, "up to the burst")
        let ignoring = RateGate(budget: nil, honoursServer: false)
        await ignoring.observe(ServerRateLimit(remaining: 0, resetAfter: 60, source: "test"), now: start)
        #expect(await ignoring.reserve(now: start) == nil)
    }
}
