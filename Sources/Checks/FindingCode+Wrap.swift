extension FindingCode {
    static let wrapCodes: [FindingCode] = []
}
