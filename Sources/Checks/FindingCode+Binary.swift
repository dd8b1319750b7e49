extension FindingCode {
    static let binaryCodes: [FindingCode] = []
}
