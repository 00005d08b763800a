import Testing

@Test func moduleBuilds() { #expect(1 + 1 == 2) }
