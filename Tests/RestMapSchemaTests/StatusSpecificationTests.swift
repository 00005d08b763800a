import RestMapSchema
import Testing

/// The items of `status:`: one code, a class, a range, with blanks around them or their bounds.
@Suite("Status items")
struct StatusSpecificationTests {
    @Test("Codes, classes and ranges are read with the blanks around them and their bounds ignored",
          arguments: [("201", 201...201), (" 404\t", 404...404), ("2xx", 200...299), ("\t4XX ", 400...499),
                      ("400-499", 400...499), (" 400 - 499 ", 400...499), ("500\t-\t503", 500...503)])
    func accepted(_ text: String, _ range: ClosedRange<Int>) {
        #expect(StatusSpecification.parseItem(text) == range)
    }

    @Test("Codes outside 100–599, reversed ranges, line breaks inside and other words are refused",
          arguments: ["99", "600", "6xx", "0xx", "499-400", "400-", "-499", "4 00", "abc", "", "  ", "400-\n499x", "2xxx"])
    func refused(_ text: String) {
        #expect(StatusSpecification.parseItem(text) == nil)
    }
}
