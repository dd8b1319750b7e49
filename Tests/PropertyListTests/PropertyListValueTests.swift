import PropertyList
import Testing

@Suite struct PropertyListValueTests {
    let info: PropertyListValue = [
        "CFBundleIcons": ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "AppIcon"]],
        "CFBundleIconFiles": "Icon",
        "CFBundleVersion": 42,
        "CFBundleShortVersionString": 1.5,
        "UIRequiresFullScreen": "YES",
        "UIFileSharingEnabled": true,
        "Count": 3,
        "com.apple.developer.team-identifier": "ABCDE12345",
    ]

    @Test func nestedLookupsNeverTrap() {
        #expect(info["CFBundleIcons"]?["CFBundlePrimaryIcon"]?["CFBundleIconFiles"]?.stringArray == ["AppIcon60x60"])
        #expect(info[path: "CFBundleIcons", "CFBundlePrimaryIcon", "CFBundleIconName"]?.string == "AppIcon")
        #expect(info[path: "CFBundleIcons", "Missing", "CFBundleIconName"] == nil)
        #expect(info[path: "CFBundleVersion", "deeper"] == nil)  // through a non-dictionary
        #expect(info["com.apple.developer.team-identifier"]?.string == "ABCDE12345")  // dots are not separators
        #expect(info[0] == nil)
        #expect(info["CFBundleIcons"]?[-1] == nil)
        let array: PropertyListValue = ["a", "b"]
        #expect(array[1] == "b")
        #expect(array[2] == nil)
        #expect(array[Int.min] == nil)
        #expect(array["key"] == nil)
    }

    @Test func stringArrayAcceptsASingleString() {
        #expect(info["CFBundleIconFiles"]?.stringArray == ["Icon"])
        #expect(PropertyListValue.array(["a", 1]).stringArray == nil)
        #expect(PropertyListValue.integer(1).stringArray == nil)
        #expect(PropertyListValue.array([]).stringArray == [])
    }

    @Test func boolIsStrictAndLenientBoolMirrorsBoolValue() {
        #expect(info["UIFileSharingEnabled"]?.bool == true)
        #expect(info["UIRequiresFullScreen"]?.bool == nil)
        #expect(info["UIRequiresFullScreen"]?.lenientBool == true)
        for (text, expected) in [("yes", true), (" TRUE ", true), ("1", true), ("No", false), ("false", false), ("0", false)] {
            #expect(PropertyListValue.string(text).lenientBool == expected, "\(text)")
        }
        #expect(PropertyListValue.string("maybe").lenientBool == nil)
        #expect(PropertyListValue.string("").lenientBool == nil)
        #expect(PropertyListValue.integer(0).lenientBool == false)
        #expect(PropertyListValue.integer(7).lenientBool == true)
        #expect(PropertyListValue.real(1).lenientBool == nil)
    }

    @Test func versionStringAcceptsStringsIntegersAndReals() {
        #expect(info["CFBundleVersion"]?.versionString == "42")
        #expect(info["CFBundleShortVersionString"]?.versionString == "1.5")
        #expect(PropertyListValue.real(2).versionString == "2")
        #expect(PropertyListValue.string("1.2.3").versionString == "1.2.3")
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).versionString == "18446744073709551615")
        #expect(PropertyListValue.bool(true).versionString == nil)
        #expect(PropertyListValue.array(["1"]).versionString == nil)
    }

    @Test func numericAccessors() {
        #expect(info["Count"]?.int == 3)
        #expect(info["Count"]?.number == 3)
        #expect(info["CFBundleShortVersionString"]?.number == 1.5)
        #expect(info["CFBundleShortVersionString"]?.int == nil)
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).int == nil)
        #expect(PropertyListValue.integer(PropertyListInteger(high: 1, low: 0)).number == 18_446_744_073_709_551_616.0)
        #expect(info["Count"]?.string == nil)
        #expect(info["Count"]?.dictionary == nil)
        #expect(info.dictionary?.count == 8)
    }

    @Test func nestedEditsThroughSubscripts() {
        var value = info
        value["CFBundleIcons"]?["CFBundlePrimaryIcon"]?["CFBundleIconName"] = "NewIcon"
        #expect(value[path: "CFBundleIcons", "CFBundlePrimaryIcon", "CFBundleIconName"] == "NewIcon")
        #expect(info[path: "CFBundleIcons", "CFBundlePrimaryIcon", "CFBundleIconName"] == "AppIcon")  // a copy
        value["Count"] = nil
        #expect(value["Count"] == nil)
        value["Missing"]?["Deeper"] = "x"  // nothing to edit: no effect
        #expect(value["Missing"] == nil)
        var string: PropertyListValue = "not a dictionary"
        string["key"] = "x"
        #expect(string == "not a dictionary")
    }

    @Test func sortingKeysSortsEveryLevel() {
        let value: PropertyListValue = ["b": ["z": 1, "a": [["y": 1, "x": 2]]], "a": 1]
        let sorted = value.sortingKeys()
        #expect(sorted.dictionary?.keys == ["a", "b"])
        #expect(sorted["b"]?.dictionary?.keys == ["a", "z"])
        #expect(sorted["b"]?["a"]?[0]?.dictionary?.keys == ["x", "y"])
        #expect(sorted == value)
    }

    @Test func equalityIsExact() {
        #expect(PropertyListValue.real(.nan) == .real(.nan))
        #expect(PropertyListValue.real(0) != .real(-0.0))
        #expect(PropertyListValue.integer(1) != .real(1))
        #expect(PropertyListValue.integer(1) != .bool(true))
        #expect(PropertyListValue.uid(1) != .integer(1))
        let set: Set<PropertyListValue> = [.real(.nan), .real(.nan), "a", "a"]
        #expect(set.count == 2)
    }
}
