import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

@Suite struct IGCHeaderTests {
    @Test func readsHeaderFieldsDateAndFixes() throws {
        let igc = """
            AXCS AAA\r
            HFDTE081116\r
            HFPLTPILOTINCHARGE:ARNE MARTIN GUETTLER\r
            HFCM2CREW2:NIL\r
            HFGTYGLIDERTYPE:DUO DISCUS\r
            HFGIDGLIDERID:DUO\r
            HFCIDCOMPETITIONID:\r
            HFCCLCOMPETITIONCLASS:Doubleseater\r
            B2359585110683N00613448EA0039800498\r
            B0000035110683N00613448EA0039800498\r
            B0130005110683N00613448EA0039800498\r

            """
        let h = IGCHeader(igcBytes: Data(igc.utf8))
        #expect(h.pilotName == "ARNE MARTIN GUETTLER")
        #expect(h.passengerName == nil)
        #expect(h.gliderType == "DUO DISCUS")
        #expect(h.gliderRegistration == "DUO")
        #expect(h.competitionIdentification == nil)
        #expect(h.competitionClass == "Doubleseater")
        #expect(h.fixCount == 3)
        #expect(h.firstFix?.rfc3339 == "2016-11-08T23:59:58Z")
        #expect(h.lastFix?.rfc3339 == "2016-11-09T01:30:00Z", "the clock wrapped past midnight")
    }

    @Test func aFixOutOfOrderNeverPutsTheFirstFixAfterTheLast() {
        // Found by the fuzz target igc-header (Tools/fuzz/regressions/igc-header/fix-out-of-order.igc): a
        // stray B record at 12:00:00 before fixes from 08:32:22 made takeoff later than landing.
        let igc = """
            AXCS001\r
            HFDTE081116\r
            B1200005110683N00613448EA0039300718\r
            B0832224549135N01145829EA0063600717\r
            B0837374549135N01145829EA0063600717\r

            """
        let h = IGCHeader(igcBytes: Data(igc.utf8))
        #expect(h.fixCount == 3)
        #expect(h.firstFix?.rfc3339 == "2016-11-08T08:32:22Z")
        #expect(h.lastFix?.rfc3339 == "2016-11-08T12:00:00Z")
    }

    @Test(arguments: [
        ("DATE:040920,01", "2020-09-04"), ("150419", "2019-04-15"), ("311299", "1999-12-31"), ("310219", nil),
    ])
    func dates(_ text: String, _ day: String?) throws {
        let days = IGCHeader.dateDays(text)
        #expect(days.map { try! FirestoreTimestamp(seconds: $0 * 86_400).rfc3339.prefix(10) }.map(String.init) == day)
    }

    @Test func latin1HeaderIsReadAsISO88591() {
        // "Jérôme" in ISO-8859-1: é = 0xE9, ô = 0xF4, not valid UTF-8.
        let bytes = Array("HFDTE270623\r\nHFPLTPILOT:J".utf8) + [0xE9] + Array("r".utf8) + [0xF4] + Array("me\r\n".utf8)
        #expect(IGCHeader(igcBytes: Data(bytes)).pilotName == "Jérôme")
    }
}
