extension FindingCode {
    static let profileCodes: [FindingCode] = []
}
