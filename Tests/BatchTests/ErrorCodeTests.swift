import Batch
import FormatSupport
import Policy
import Testing
import ToolData
import Wrapping
import XMLSupport

/// The codes and categories users search for and the docs list stay what they are, now that each
/// error takes them from its `Reason` (issue 28), and each case of an error keeps its own.
@Suite struct ErrorCodeTests {
    @Test func batchInputErrorsKeepTheirCodes() {
        let errors: [(BatchInputError, String, ErrorCategory)] = [
            (.listUnreadable("l", reason: "r"), "BATCH_LIST_UNREADABLE", .io),
            (.folderUnreadable("f", reason: "r"), "BATCH_FOLDER_UNREADABLE", .io),
            (.noInputs(searched: []), "BATCH_NO_INPUTS", .usage),
            (.outputCollision(output: "o", first: "a", second: "b"), "BATCH_OUTPUT_COLLISION", .usage),
            (.outputIsInput(output: "o"), "BATCH_OUTPUT_IS_INPUT", .usage),
            (.invalidShard("0/0"), "BATCH_SHARD_INVALID", .usage),
            (.folderTooLarge("f", limit: 1), "BATCH_FOLDER_TOO_LARGE", .invalidInput),
            (.folderTimeLimit("f", seconds: 1), "BATCH_FOLDER_TIME_LIMIT", .invalidInput),
        ]
        #expect(Set(errors.map(\.0.reason)) == Set(BatchInputError.Reason.allCases), "one row per reason")
        for (error, code, category) in errors {
            #expect(error.code == code && error.category == category, "\(error)")
        }
        #expect(BatchInputError.invalidShard("5/4").description == "--shard expects I/N with 1 <= I <= N (e.g. 2/4), got '5/4'")
    }

    @Test func batchMergeErrorsKeepTheirCodes() {
        let errors: [(BatchMergeError, String)] = [
            (.notBatchOutput("a", reason: "r"), "BATCH_REPORT_NOT_BATCH_OUTPUT"),
            (.mixed(file: "a", line: 1, other: "b", otherLine: 2, difference: "d"), "BATCH_REPORT_MIXED_RUNS"),
            (.shardTwice(shard: "1/2", first: "a", second: "b"), "BATCH_REPORT_SHARD_TWICE"),
            (.shardIncomplete(shard: "1/2", file: "a", results: 1, inputs: 2), "BATCH_REPORT_SHARD_INCOMPLETE"),
            (.shardsMissing(shards: ["2/2"], results: 1, inputs: 2), "BATCH_REPORT_SHARD_MISSING"),
            (.noResults(files: ["a"]), "BATCH_REPORT_NO_RESULTS"),
        ]
        #expect(Set(errors.map(\.0.reason)) == Set(BatchMergeError.Reason.allCases), "one row per reason")
        for (error, code) in errors {
            #expect(error.code == code && error.category == .invalidInput, "\(error)")
        }
    }

    @Test func toolDataErrorsKeepTheirCodes() {
        let version = ToolkitVersionError(value: "20.x")
        #expect(version.code == "TOOLKIT_VERSION_INVALID" && version.category == .usage)
        #expect(version.description == "--toolkit-version expects a version such as 20.10.5 (numbers separated by dots), got '20.x'")
        let unreadable = SDKCatalogError(.unreadable(path: "c.json"))
        #expect(unreadable.code == "SDK_CATALOG_UNREADABLE" && unreadable.category == .io)
        #expect(unreadable.description == "c.json: the SDK catalog does not exist or cannot be read")
        let invalid = SDKCatalogError(.invalid(path: "c.json", detail: "it is not valid JSON"))
        #expect(invalid.code == "SDK_CATALOG_INVALID" && invalid.category == .invalidInput)
        #expect(invalid.description == "c.json: it is not valid JSON")
    }

    @Test func policyWrapAndFormatErrorsKeepTheirCodes() {
        let unreadable = WrapError(.policyFileUnreadable, "the policy file cannot be read: No such file or directory", file: "p.xml")
        #expect(unreadable.code == "POLICY_FILE_UNREADABLE" && unreadable.category == .io)
        #expect(unreadable.description == "p.xml: the policy file cannot be read: No such file or directory")
        let serialization = PolicySerializationError(message: "m")
        #expect(serialization.code == "POLICY_SERIALIZATION" && serialization.category == .invalidInput && "\(serialization)" == "m")
        let validation = PolicyValidationError(issues: [PolicyIssue(.invalidDefault, line: 3, "bad"), PolicyIssue(.schema, line: 4, "x")])
        #expect(validation.code == "POLICY_INVALID_DEFAULT" && validation.category == .invalidInput)
        #expect(PolicyValidationError(issues: []).code == "POLICY_SCHEMA")
        let schema = XMLSchemaError(line: 2, message: "m")
        #expect(schema.code == "XML_SCHEMA_INVALID" && schema.category == .invalidInput && "\(schema)" == "schema line 2: m")
        let bounds = OutOfBoundsError(offset: 4, length: 2, size: 5)
        #expect(bounds.code == "TRUNCATED_DATA" && bounds.category == .invalidInput)
        #expect("\(bounds)" == "data is truncated: needed 2 byte(s) at offset 4, but only 5 byte(s) exist")
    }
}
