import Testing
import XMLSupport

@Suite struct XMLDocumentTests {
    private func parse(_ text: String) throws(XMLParseError) -> XMLDocument {
        try XMLDocument(bytes: Array(text.utf8))
    }

    @Test func readsElementsTextAndLines() throws {
        let document = try parse("<a x=\"1\">\n  <b>one &amp; two</b>\n  <c/>\n</a>")
        let root = try #require(document.root)
        #expect(root.name == "a")
        #expect(root.attribute("x") == "1")
        #expect(root.children.map(\.name) == ["b", "c"])
        #expect(root.children.first?.text == "one & two")
        #expect(root.children.first?.line == 2)
        #expect(root.child(named: "c")?.isNamed("c") == true)
    }

    @Test func acceptsBOMAndLeadingWhitespace() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("\n  \n<?xml version=\"1.0\"?><r/>".utf8)
        #expect(try XMLDocument(bytes: bytes).root?.name == "r")
    }

    @Test func reportsTheLineOfMalformedXML() {
        #expect {
            try parse("<a>\n<b>\n</a>")
        } throws: { error in
            guard let error = error as? XMLParseError else { return false }
            return error.reason == .malformed && error.line == 3
        }
    }

    @Test func refusesBillionLaughs() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        text += "]>\n<lolz>&lol9;</lolz>"
        #expect(throws: XMLParseError(
            reason: .entityDeclaration, line: 3,
            message: "the document declares an XML entity; entity declarations are refused")
        ) { try parse(text) }
    }

    @Test func refusesExternalEntities() {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <r>&xxe;</r>
            """
        #expect { try parse(text) } throws: { ($0 as? XMLParseError)?.reason == .entityDeclaration }
        let parameter = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]>
            <r/>
            """
        #expect { try parse(parameter) } throws: { ($0 as? XMLParseError)?.reason == .entityDeclaration }
    }

    @Test func refusesUndeclaredEntitiesAndDeepNesting() {
        #expect { try parse("<r>&nope;</r>") } throws: { ($0 as? XMLParseError)?.reason == .malformed }
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        #expect { try parse(deep) } throws: { ($0 as? XMLParseError)?.reason == .malformed }
    }

    @Test func keepsTheExternalDTDUnloaded() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict/></plist>
            """
        let document = try parse(text)
        #expect(document.doctypePublicID == "-//Apple//DTD PLIST 1.0//EN")
        #expect(document.root?.attribute("version") == "1.0")
    }

    @Test func refusesOversizedDocuments() {
        #expect { try XMLDocument(bytes: Array("<r/>".utf8), maximumSize: 3) } throws: {
            ($0 as? XMLParseError)?.reason == .tooLarge
        }
    }
}

@Suite struct XMLInputTests {
    @Test func whitespaceBeforeTheDeclarationKeepsLineNumbers() throws {
        let text = "\n\n<?xml version=\"1.0\"?>\n<a>\n<b>\n</a>"
        #expect { try XMLDocument(bytes: Array(text.utf8)) } throws: { error in
            (error as? XMLParseError)?.line == 6
        }
        let good = try XMLDocument(bytes: Array("\n\n<?xml version=\"1.0\"?>\n<a>\n  <b/>\n</a>".utf8))
        #expect(good.root?.children.first?.line == 5)
    }

    @Test func reportsTheFirstErrorNotItsConsequences() {
        let text = "<a>\n<b>\n<c>\n</b>\n</a>\n"
        #expect { try XMLDocument(bytes: Array(text.utf8)) } throws: { error in
            (error as? XMLParseError)?.line == 4
        }
    }
}
