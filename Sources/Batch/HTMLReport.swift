import AppBundle
import Checks
import FormatSupport
import Foundation
import Reporting
import XMLSupport

/// The diagnostics page of a batch (`--report report.html`): one self-contained file, no network
/// (inline CSS and script, icons as `data:` URIs, a Content-Security-Policy that forbids loading
/// anything), with one row per input (icon, name, bundle ID, versions, minimum OS, SDKs, profiles
/// and their expiry, status, findings with their remedies), sortable by any column and filterable
/// by text and status in the browser.
///
/// Every value from an input is escaped: Info.plist strings are attacker-controlled. The page is
/// also well-formed XML (void elements closed, the script in CDATA), so a strict XML parser can
/// check it.
public struct HTMLReport: Sendable {
    /// The command, e.g. `check`, shown in the title.
    public var command: String
    public var tool: Report.Tool
    public var generated: Date
    /// The moment profile expiry is judged at (`--at`, else `generated`).
    public var evaluationDate: Date
    public var shard: Shard?
    public var interrupted: Bool
    public var summary: BatchSummary
    /// Whether the batch signed (`sign`, `wrap --sign`): a column shows each app's signature.
    public var signing: Bool

    public init(
        command: String, tool: Report.Tool, generated: Date = Date(), evaluationDate: Date? = nil, shard: Shard? = nil,
        interrupted: Bool = false, summary: BatchSummary, signing: Bool = false
    ) {
        self.command = command
        self.tool = tool
        self.generated = generated
        self.evaluationDate = evaluationDate ?? generated
        self.shard = shard
        self.interrupted = interrupted
        self.summary = summary
        self.signing = signing
    }

    /// The page of `run` (a shard's, or the whole merged run's).
    public init(run: BatchRun, generated: Date = Date(), interrupted: Bool = false, summary: BatchSummary) {
        self.init(
            command: run.command, tool: run.tool, generated: generated, evaluationDate: run.evaluationDate, shard: run.shard,
            interrupted: interrupted, summary: summary, signing: run.signs)
    }

    /// The page for `results` (in the order given; the reader can sort it).
    public func render(_ results: [BatchResult]) -> String {
        var html = HTMLBuilder()
        let title = "ipawrap batch \(command)" + (shard.map { " (shard \($0))" } ?? "")
        html.raw("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"/>
            <meta name="generator" content="\(HTMLBuilder.escape("\(tool.name) \(tool.version)"))"/>
            <title>\(HTMLBuilder.escape(title)): \(results.count) app\(results.count == 1 ? "" : "s")</title>
            <style>\(Self.css)</style>
            </head>
            <body>
            <header>
            <h1>\(HTMLBuilder.escape(title))</h1>

            """)
        html.raw("<p class=\"summary\">")
        html.text("\(results.count) input\(results.count == 1 ? "" : "s"): ")
        html.raw("<span class=\"badge ok\">\(summary.ok) ok</span> ")
        html.raw("<span class=\"badge findings\">\(summary.withFindings) with findings</span> ")
        html.raw("<span class=\"badge failed\">\(summary.failed) failed</span>")
        html.raw("</p>\n<p class=\"meta\">")
        html.text("Generated \(ReportJSON.timestamp(generated)) by \(tool.name) \(tool.version)")
        if evaluationDate != generated { html.text("; profile expiry judged at \(ReportJSON.timestamp(evaluationDate))") }
        html.text(".")
        html.raw("</p>\n")
        if interrupted {
            html.raw("<p class=\"notice\">")
            html.text("The batch was interrupted: \(summary.total - summary.finished) of \(summary.total) inputs were not done and are not listed.")
            html.raw("</p>\n")
        }
        html.raw("</header>\n")
        codeTable(results, into: &html)
        html.raw("""
            <div class="controls">
            <input type="search" id="filter" placeholder="Filter: name, bundle ID, version, finding code…" aria-label="Filter rows"/>
            <select id="status" aria-label="Status">
            <option value="">every status</option>
            <option value="ok">ok</option>
            <option value="findings">with findings</option>
            <option value="failed">failed</option>
            </select>
            <span id="shown" aria-live="polite">\(results.count) of \(results.count) shown</span>
            </div>
            <table id="apps">
            <thead><tr>
            <th class="icon">Icon</th>
            <th aria-sort="none"><button type="button">App</button></th>
            <th aria-sort="none"><button type="button">Bundle ID</button></th>
            <th aria-sort="none"><button type="button">Version</button></th>
            <th aria-sort="none"><button type="button">Minimum OS</button></th>
            <th aria-sort="none"><button type="button">SDKs</button></th>
            <th aria-sort="none"><button type="button">Profiles</button></th>
            \(signing ? "<th aria-sort=\"none\"><button type=\"button\">Signature</button></th>\n" : "")<th aria-sort="none" data-type="number"><button type="button">Status</button></th>
            <th aria-sort="none" data-type="number"><button type="button">Findings</button></th>
            </tr></thead>
            <tbody>

            """)
        for result in results {
            row(result, into: &html)
        }
        html.raw("</tbody>\n</table>\n")
        if results.isEmpty {
            html.raw("<p class=\"empty\">No inputs.</p>\n")
        }
        html.raw("<script>//<![CDATA[\n\(Self.script)\n//]]></script>\n</body>\n</html>\n")
        return html.output
    }

    // MARK: Rows

    private func row(_ result: BatchResult, into html: inout HTMLBuilder) {
        let report = result.outcome.report
        let app = report?.app
        let statusRank = [BatchResult.Status.failed: 0, .findings: 1, .ok: 2][result.status] ?? 3
        html.raw("<tr class=\"\(result.status.rawValue)\" data-status=\"\(result.status.rawValue)\">")

        // Icon.
        if let icon = result.iconThumbnail {
            html.raw("<td class=\"icon\"><img src=\"data:image/png;base64,\(Data(icon).base64EncodedString())\" alt=\"\" width=\"48\" height=\"48\"/></td>")
        } else {
            html.raw("<td class=\"icon\"><span class=\"noicon\" title=\"no icon\">?</span></td>")
        }

        // App: display name, then the input.
        let name = app?.displayName
        html.cell(sort: (name ?? result.input.name).lowercased()) { html in
            if let name {
                html.raw("<div class=\"name\">")
                html.text(name)
                html.raw("</div>")
            }
            html.raw("<div class=\"file\" title=\"")
            html.text(result.input.path)
            html.raw("\">")
            html.text(result.input.name)
            html.raw("</div>")
        }
        html.cell(sort: app?.bundleId ?? "", class: "mono") { html in
            guard let id = app?.bundleId else { html.text("—"); return }
            // Long identifiers break after a dot rather than anywhere.
            for (index, part) in id.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { html.raw(".<wbr/>") }
                html.text(String(part))
            }
        }
        html.cell(sort: app?.version ?? "") { html in
            html.text(app?.version ?? "—")
            if let build = app?.build { html.raw(" <span class=\"dim\">("); html.text(build); html.raw(")</span>") }
        }
        html.cell(sort: app?.minimumOS ?? app?.executable?.minOS ?? "") { html in
            if let minimum = app?.minimumOS {
                html.text("iOS \(minimum)")
            } else if let minOS = app?.executable?.minOS {
                html.text("iOS \(minOS)")
                html.raw(" <span class=\"dim\">(binary)</span>")
            } else {
                html.text("—")
            }
            if let sdk = app?.executable?.sdk {
                html.raw("<div class=\"dim\">built with SDK ")
                html.text(sdk)
                html.raw("</div>")
            }
        }
        let sdks = report?.sdks ?? []
        html.cell(sort: sdks.map(\.framework).joined(separator: " ")) { html in
            guard !sdks.isEmpty else { html.text("—"); return }
            html.raw("<ul>")
            for sdk in sdks {
                html.raw("<li>")
                html.text("\(sdk.framework) \(sdk.version ?? "?")")
                html.raw(" <span class=\"dim\">")
                html.text(sdk.family)
                html.raw("</span></li>")
            }
            html.raw("</ul>")
        }
        let profiles = report?.profiles ?? []
        let earliest = profiles.compactMap(\.expirationDate).min().map(ReportJSON.timestamp) ?? ""
        html.cell(sort: earliest) { html in
            guard !profiles.isEmpty else { html.text("—"); return }
            html.raw("<ul>")
            for profile in profiles {
                html.raw("<li>")
                html.text(profile.kind?.rawValue ?? "unknown kind")
                if let expiry = profile.expirationDate {
                    html.raw(", ")
                    writeExpiry(expiry, to: &html)
                }
                if profiles.count > 1 || profile.bundlePath != app?.path {
                    html.raw(" <span class=\"dim\">")
                    html.text(BundleInfo.folderName(of: profile.bundlePath))
                    html.raw("</span>")
                }
                if let identifier = profile.appIdentifier {
                    html.raw("<div class=\"dim mono\">")
                    html.text(identifier)
                    html.raw("</div>")
                }
                html.raw("</li>")
            }
            html.raw("</ul>")
        }
        if signing { signatureCell(result, into: &html) }
        html.cell(sort: String(statusRank), class: "status") { html in
            html.raw("<span class=\"badge \(result.status.rawValue)\">\(result.status.rawValue)</span>")
            html.raw("<div class=\"dim\">exit \(result.exitCode) · ")
            html.text(String(format: "%.2f s", result.seconds))
            html.raw("</div>")
        }
        let findingRank = result.errors * 1_000_000 + result.warnings * 1000 + result.infos + (result.outcome.failure == nil ? 0 : 1_000_000_000)
        html.cell(sort: String(findingRank), class: "findings") { html in
            var items: [(severity: Severity, code: String, message: String, remedy: String?)] = []
            // The failure first, then what a report made before it found.
            let (failure, findings) = (result.outcome.failure, result.outcome.findings)
            if let failure {
                items.append((.error, failure.code, failure.message, Self.remedy(forExitCode: result.exitCode)))
            }
            for finding in findings {
                items.append((finding.severity, finding.code, finding.message,
                              finding.remedy ?? finding.findingCode?.remedy))
            }
            guard !items.isEmpty else { html.raw("<span class=\"dim\">none</span>"); return }
            html.raw("<ul>")
            for item in items {
                html.raw("<li class=\"\(item.severity.rawValue)\">")
                html.raw("<span class=\"sev\">")
                html.text(item.severity.rawValue)
                html.raw("</span> <code>")
                html.text(item.code)
                html.raw("</code> ")
                html.text(item.message)
                if let remedy = item.remedy {
                    html.raw("<div class=\"remedy\">")
                    html.text("→ " + remedy)
                    html.raw("</div>")
                }
                html.raw("</li>")
            }
            html.raw("</ul>")
        }
        html.raw("</tr>\n")
    }

    /// What the app was signed with: the team, the certificate and its expiry, and each signed
    /// bundle's hash types and profile (the one `check` assigned, now embedded).
    private func signatureCell(_ result: BatchResult, into html: inout HTMLBuilder) {
        let bundles = result.signedBundles ?? []
        let first = bundles.first?.signature
        html.cell(sort: first?.teamId ?? "", class: "signature") { html in
            guard let first else { html.raw("<span class=\"dim\">not signed</span>"); return }
            html.text("team \(first.teamId ?? "none")")
            if let certificate = first.certificate {
                html.raw("<div class=\"dim\">")
                html.text(certificate.subject)
                html.raw("</div>")
                html.raw("<div>certificate ")
                writeExpiry(certificate.notValidAfter, to: &html)
                html.raw("</div>")
            }
            let profiles = Dictionary(
                (result.outcome.report?.profiles ?? []).map { ($0.bundlePath, $0) }, uniquingKeysWith: { first, _ in first })
            html.raw("<ul>")
            for bundle in bundles {
                html.raw("<li>")
                html.text(BundleInfo.folderName(of: bundle.path))
                html.raw(" <span class=\"dim\">")
                html.text((bundle.signature?.hashTypes ?? []).joined(separator: ", "))
                html.raw("</span>")
                if let profile = profiles[bundle.path] {
                    html.raw("<div class=\"dim mono\">")
                    html.text("profile " + (profile.file.map { BundleInfo.folderName(of: $0) } ?? "?") + " (\(profile.source.rawValue))")
                    html.raw("</div>")
                }
                html.raw("</li>")
            }
            html.raw("</ul>")
        }
    }

    /// Every code found, how many apps have it, and what to do about it; a click filters by it.
    private func codeTable(_ results: [BatchResult], into html: inout HTMLBuilder) {
        var apps: [String: (severity: Severity, count: Int, remedy: String?)] = [:]
        for result in results {
            var seen: Set<String> = []
            let (failure, findings) = (result.outcome.failure, result.outcome.findings)
            if let failure, seen.insert(failure.code).inserted {
                apps[failure.code, default: (.error, 0, Self.remedy(forExitCode: result.exitCode))].count += 1
            }
            for finding in findings where seen.insert(finding.code).inserted {
                // The code's own remedy: one app's remedy names that app's bundle and files.
                let remedy = finding.findingCode?.remedy ?? finding.remedy
                apps[finding.code, default: (finding.severity, 0, remedy)].count += 1
            }
        }
        guard !apps.isEmpty else { return }
        // Severity's own order (errors first), then the codes most apps have, then by code.
        let sorted = apps.sorted {
            ($0.value.severity, -$0.value.count, $0.key) < ($1.value.severity, -$1.value.count, $1.key)
        }
        html.raw("<details class=\"codes\" open=\"open\"><summary>Findings by code</summary>\n<table>\n<thead><tr><th>Code</th><th>Apps</th><th>What to do</th></tr></thead>\n<tbody>\n")
        for (code, entry) in sorted {
            html.raw("<tr class=\"\(entry.severity.rawValue)\"><td><button type=\"button\" class=\"code\" data-code=\"")
            html.text(code)
            html.raw("\" title=\"Show the apps with this code\">")
            html.text(code)
            html.raw("</button></td><td>\(entry.count)</td><td>")
            html.text(entry.remedy ?? "")
            html.raw("</td></tr>\n")
        }
        html.raw("</tbody>\n</table>\n</details>\n")
    }

    /// An expiry as its state (expired, expiring, valid) and its day: the profile and the
    /// certificate columns write it alike.
    private func writeExpiry(_ expiry: Date, to html: inout HTMLBuilder) {
        let state = expiryState(expiry)
        html.raw("<span class=\"\(state.class)\">")
        html.text(state.label)
        html.raw(" <span class=\"date\">")
        html.text(String(ReportJSON.timestamp(expiry).prefix(10)))
        html.raw("</span></span>")
    }

    /// Highlighted as `PROFILE_EXPIRED` and `PROFILE_EXPIRING` are reported (`ProfileExpiry`).
    private func expiryState(_ expiry: Date) -> (class: String, label: String) {
        switch ProfileExpiry(expiration: expiry, at: evaluationDate) {
        case .expired: ("expired", "expired")
        case .expiring: ("expiring", "expires")
        case .valid: ("", "expires")
        }
    }

    /// What to do about an input that failed without a report, by the kind of failure.
    static func remedy(forExitCode code: Int32) -> String? {
        switch code {
        case ExitStatus.invalidInput: "The file is not a readable, safe iOS app archive: export the IPA again (the message says what is wrong)."
        case ExitStatus.io: "The output could not be written: check the output folder's permissions and free space."
        case ExitStatus.usage: "The request cannot be carried out as given: see the message."
        case ExitStatus.internalError: "An internal error of ipawrap: please report it with the input."
        default: nil
        }
    }

    // MARK: Page resources

    static let css = """

        :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --dim: #6e6e73; --line: #d2d2d7; --head: #f5f5f7;
          --ok: #1a7f37; --warn: #9a6700; --err: #cf222e; --okbg: #dafbe1; --warnbg: #fff8c5; --errbg: #ffebe9; }
        @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --bg: #1d1d1f; --dim: #a1a1a6; --line: #3a3a3c;
          --head: #2c2c2e; --ok: #3fb950; --warn: #d29922; --err: #f85149; --okbg: #12261e; --warnbg: #2e2410; --errbg: #3c1618; } }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 1.25rem 1.5rem 3rem; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--fg); background: var(--bg); }
        h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
        header p { margin: .2rem 0; }
        .meta, .dim { color: var(--dim); }
        .dim { font-size: 12px; }
        .mono, code, .file { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12px; }
        .notice { color: var(--warn); font-weight: 600; }
        .badge { display: inline-block; padding: 0 .5em; border-radius: 1em; font-size: 12px; font-weight: 600; white-space: nowrap; }
        .badge.ok { color: var(--ok); background: var(--okbg); }
        .badge.findings { color: var(--warn); background: var(--warnbg); }
        .badge.failed { color: var(--err); background: var(--errbg); }
        .controls { position: sticky; top: 0; z-index: 2; display: flex; gap: .75rem; align-items: center; padding: .6rem 0;
          background: var(--bg); }
        #filter { flex: 0 1 28rem; padding: .35rem .6rem; font: inherit; border: 1px solid var(--line); border-radius: 6px;
          background: var(--bg); color: var(--fg); }
        select { font: inherit; padding: .3rem; border-radius: 6px; }
        table { border-collapse: collapse; width: 100%; }
        #apps th { position: sticky; top: 2.9rem; z-index: 1; }
        th { background: var(--head); text-align: left; font-weight: 600; padding: .4rem .5rem; border-bottom: 1px solid var(--line);
          white-space: nowrap; }
        th button { all: unset; cursor: pointer; }
        th button:focus-visible { outline: 2px solid Highlight; }
        th[aria-sort="ascending"] button::after { content: " ▲"; font-size: 10px; }
        th[aria-sort="descending"] button::after { content: " ▼"; font-size: 10px; }
        td { padding: .45rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; unicode-bidi: isolate;
          overflow-wrap: break-word; }
        td.findings, .file { overflow-wrap: anywhere; }
        td.mono { min-width: 11rem; }
        .date { white-space: nowrap; }
        td.status { white-space: nowrap; }
        #apps tbody tr { border-left: 4px solid transparent; }
        #apps tbody tr.failed { border-left-color: var(--err); }
        #apps tbody tr.findings { border-left-color: var(--warn); }
        #apps tbody tr.ok { border-left-color: var(--ok); }
        td.icon, th.icon { width: 64px; }
        td.icon img, .noicon { display: block; width: 48px; height: 48px; border-radius: 11px; border: 1px solid var(--line); }
        .noicon { line-height: 46px; text-align: center; color: var(--dim); background: var(--head); }
        .name { font-weight: 600; }
        ul { margin: 0; padding: 0; list-style: none; }
        td.findings { min-width: 18rem; max-width: 44rem; }
        td.findings li { margin-bottom: .35rem; }
        .sev { font-size: 11px; font-weight: 700; text-transform: uppercase; }
        li.error .sev, tr.error td:first-child { color: var(--err); }
        li.warning .sev, tr.warning td:first-child { color: var(--warn); }
        li.info .sev { color: var(--dim); }
        .remedy { color: var(--dim); font-size: 12px; }
        .expired { color: var(--err); font-weight: 600; }
        .expiring { color: var(--warn); font-weight: 600; }
        details.codes { margin: .75rem 0 .25rem; }
        details.codes summary { cursor: pointer; font-weight: 600; }
        details.codes table { width: auto; margin-top: .4rem; }
        details.codes td { padding: .2rem .5rem; }
        button.code { font: 600 12px ui-monospace, Menlo, Consolas, monospace; color: inherit; background: none; border: 0;
          padding: 0; cursor: pointer; text-decoration: underline dotted; }
        tr[hidden] { display: none; }
        .empty { color: var(--dim); }
        @media print { .controls { display: none; } #apps th { position: static; } }

        """

    /// Sorting, filtering, and the view kept in the address's fragment (`#q=…&status=…&sort=N&desc=1`)
    /// so a link reopens the same view. Plain ES5, no library.
    static let script = """
        (function () {
          "use strict";
          var table = document.getElementById("apps");
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
          var filter = document.getElementById("filter");
          var status = document.getElementById("status");
          var shown = document.getElementById("shown");
          var sortColumn = -1;
          var descending = false;
          rows.forEach(function (row, index) {
            row.ipawrapIndex = index;
            row.ipawrapText = row.textContent.toLowerCase();
          });
          function key(row, column) {
            var cell = row.cells[column];
            var value = cell.getAttribute("data-sort");
            return value === null ? cell.textContent.trim() : value;
          }
          function compare(a, b, column) {
            var x = key(a, column), y = key(b, column);
            if (headers[column].getAttribute("data-type") === "number") { return Number(x) - Number(y); }
            if (x === "" || y === "") { return x === y ? 0 : (x === "" ? 1 : -1); }
            return x.localeCompare(y, undefined, { numeric: true, sensitivity: "base" });
          }
          function save() {
            var parts = [];
            if (filter.value) { parts.push("q=" + encodeURIComponent(filter.value)); }
            if (status.value) { parts.push("status=" + encodeURIComponent(status.value)); }
            if (sortColumn >= 0) { parts.push("sort=" + sortColumn + (descending ? "&desc=1" : "")); }
            var url = location.href.replace(/#.*$/, "") + (parts.length ? "#" + parts.join("&") : "");
            try { history.replaceState(null, "", url); } catch (error) { /* some browsers refuse it for file: URLs */ }
          }
          function apply() {
            var words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
            var wanted = status.value;
            var count = 0;
            rows.forEach(function (row) {
              var visible = (!wanted || row.getAttribute("data-status") === wanted) &&
                words.every(function (word) { return row.ipawrapText.indexOf(word) !== -1; });
              row.hidden = !visible;
              if (visible) { count += 1; }
            });
            shown.textContent = count + " of " + rows.length + " shown";
            save();
          }
          function sortBy(column, desc) {
            sortColumn = column;
            descending = desc;
            rows.slice().sort(function (a, b) {
              var order = compare(a, b, column) || a.ipawrapIndex - b.ipawrapIndex;
              return desc ? -order : order;
            }).forEach(function (row) { body.appendChild(row); });
            headers.forEach(function (header, index) {
              if (header.hasAttribute("aria-sort")) {
                header.setAttribute("aria-sort", index === column ? (desc ? "descending" : "ascending") : "none");
              }
            });
            save();
          }
          headers.forEach(function (header, column) {
            var button = header.querySelector("button");
            if (!button) { return; }
            button.addEventListener("click", function () {
              sortBy(column, sortColumn === column ? !descending : false);
            });
          });
          filter.addEventListener("input", apply);
          status.addEventListener("change", apply);
          Array.prototype.forEach.call(document.querySelectorAll("button.code"), function (button) {
            button.addEventListener("click", function () {
              filter.value = button.getAttribute("data-code");
              apply();
              table.scrollIntoView();
            });
          });
          var state = {};
          location.hash.replace(/^#/, "").split("&").forEach(function (part) {
            var at = part.indexOf("=");
            if (at > 0) {
              try { state[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1)); } catch (error) { /* ignore */ }
            }
          });
          if (state.q) { filter.value = state.q; }
          if (state.status) { status.value = state.status; }
          var column = Number(state.sort);
          if (state.sort && column >= 0 && headers[column] && headers[column].querySelector("button")) {
            sortBy(column, state.desc === "1");
          }
          apply();
          document.documentElement.setAttribute("data-ready", "true");
        })();
        """
}

/// Builds HTML text, escaping every value that comes from an input.
struct HTMLBuilder {
    private(set) var output = ""

    mutating func raw(_ markup: String) {
        output += markup
    }

    mutating func text(_ value: String) {
        output += Self.escape(value)
    }

    /// A table cell with a sort key (escaped) and content.
    mutating func cell(sort: String, class className: String? = nil, _ content: (inout HTMLBuilder) -> Void) {
        output += "<td"
        if let className { output += " class=\"\(className)\"" }
        output += " data-sort=\"" + Self.escape(sort) + "\">"
        content(&self)
        output += "</td>"
    }

    /// Text safe in element content and in quoted attribute values (see `MarkupText`).
    static func escape(_ text: String) -> String {
        MarkupText.escaped(text)
    }
}
