#include "controller/lint/report.h"

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::lint {

namespace {

json probeJson(const std::optional<Probe> &probe)
{
    if (!probe)
        return nullptr;
    return { { "path", probe->dotted().toStdString() }, { "value", probe->value } };
}

// Markdown table cells: no raw pipes or newlines.
QString cell(QString s)
{
    return s.replace(u'|', u"\\|"_s).replace(u'\n', u' ');
}

QString fence(const QString &s)
{
    return u"`"_s + QString(s).replace(u'`', u'\'') + u"`"_s;
}

QString summaryLine(const CrdLintResult &result)
{
    if (result.clean())
        return u"clean: no findings (the Spec/Status boundary holds)"_s;
    return u"%1 error(s), %2 warning(s), %3 info"_s.arg(result.count(Severity::Error))
        .arg(result.count(Severity::Warning))
        .arg(result.count(Severity::Info));
}

QString liveTitle(const BoundaryCheckResult &live)
{
    return u"%1 %2%3 (%4)"_s.arg(
        live.plural, live.ns.isEmpty() ? QString() : live.ns + u'/', live.name, live.apiVersion);
}

} // namespace

bool BoundaryReport::hasErrors() const
{
    for (const CrdLintResult &result : lint) {
        if (result.hasErrors())
            return true;
    }
    return live && !live->passed();
}

json reportJson(const BoundaryReport &report)
{
    json crds = json::array();
    for (const CrdLintResult &result : report.lint) {
        json findings = json::array();
        for (const Finding &finding : result.findings)
            findings.push_back({ { "id", finding.id.toStdString() },
                                 { "severity", severityName(finding.severity).toStdString() },
                                 { "version", finding.version.toStdString() },
                                 { "path", finding.path.toStdString() },
                                 { "message", finding.message.toStdString() } });
        json served = json::array();
        for (const QString &version : result.servedVersions)
            served.push_back(version.toStdString());
        crds.push_back({ { "name", result.crdName.toStdString() },
                         { "group", result.group.toStdString() },
                         { "kind", result.kind.toStdString() },
                         { "servedVersions", served },
                         { "source", result.source.toStdString() },
                         { "clean", result.clean() },
                         { "summary",
                           { { "error", result.count(Severity::Error) },
                             { "warning", result.count(Severity::Warning) },
                             { "info", result.count(Severity::Info) } } },
                         { "findings", findings } });
    }
    json out = { { "crds", crds }, { "hasErrors", report.hasErrors() } };
    if (report.live) {
        const BoundaryCheckResult &live = *report.live;
        json verdicts = json::array();
        for (const Verdict &verdict : live.verdicts)
            verdicts.push_back({ { "id", verdict.id.toStdString() },
                                 { "pass", verdict.pass },
                                 { "expectation", verdict.expectation.toStdString() },
                                 { "observed", verdict.observed.toStdString() },
                                 { "request",
                                   { { "method", verdict.request.method.toStdString() },
                                     { "url", verdict.request.url.toStdString() },
                                     { "contentType", verdict.request.contentType.toStdString() },
                                     { "body", verdict.request.body.toStdString() } } },
                                 { "response",
                                   { { "code", verdict.response.code },
                                     { "fields", verdict.response.fields } } } });
        out["live"] = { { "crd", live.crdName.toStdString() },
                        { "apiVersion", live.apiVersion.toStdString() },
                        { "resource", live.plural.toStdString() },
                        { "namespace", live.ns.toStdString() },
                        { "name", live.name.toStdString() },
                        { "statusSubresource", live.statusSubresource },
                        { "statusProbe", probeJson(live.statusProbe) },
                        { "specProbe", probeJson(live.specProbe) },
                        { "error", live.error.toStdString() },
                        { "passed", live.passed() },
                        { "verdicts", verdicts } };
    }
    return out;
}

QString reportMarkdown(const BoundaryReport &report)
{
    QString md = u"# API boundary report\n\n"_s;
    md += u"Spec is the desired state, written by users and GitOps only; status is the observed "
          "state, written by the controller only, through the /status subresource.\n"_s;
    for (const CrdLintResult &result : report.lint) {
        md += u"\n## CRD `%1`\n\n"_s.arg(result.crdName);
        md += u"Kind %1, served versions %2%3. **%4**\n"_s.arg(
            result.kind,
            result.servedVersions.join(u", "_s),
            result.source.isEmpty() ? QString() : u", from "_s + fence(result.source),
            summaryLine(result));
        if (result.clean())
            continue;
        md += u"\n| severity | rule | path | why it matters |\n|---|---|---|---|\n"_s;
        for (const Finding &finding : result.findings)
            md += u"| %1 | %2 | %3 | %4 |\n"_s.arg(severityName(finding.severity),
                                                   finding.id,
                                                   fence(finding.path),
                                                   cell(finding.message));
    }
    if (report.live) {
        const BoundaryCheckResult &live = *report.live;
        md += u"\n## Live boundary check: %1\n\n"_s.arg(liveTitle(live));
        md += u"Server-side dry run (`dryRun=All`): nothing is stored. Status subresource: %1. "
              "Status probe: %2; spec probe: %3.\n"_s.arg(
                  live.statusSubresource ? u"yes"_s : u"**no**"_s,
                  live.statusProbe ? fence(live.statusProbe->dotted()) : u"-"_s,
                  live.specProbe ? fence(live.specProbe->dotted()) : u"-"_s);
        if (!live.error.isEmpty())
            md += u"\n**The check could not run:** %1\n"_s.arg(live.error);
        else
            md += u"\n**%1**\n"_s.arg(live.passed() ? u"All verdicts pass."_s
                                                    : u"The boundary does not hold."_s);
        for (const Verdict &verdict : live.verdicts) {
            md += u"\n### %1 %2\n\n"_s.arg(verdict.pass ? u"PASS"_s : u"FAIL"_s, verdict.id);
            md += u"- expected: %1\n- observed: %2\n"_s.arg(verdict.expectation, verdict.observed);
            md += u"- request: `%1 %2`"_s.arg(verdict.request.method, verdict.request.url);
            if (!verdict.request.body.isEmpty())
                md += u" (%1) `%2`"_s.arg(verdict.request.contentType, verdict.request.body);
            md += u"\n- response: %1 `%2`\n"_s.arg(verdict.response.code)
                      .arg(QString::fromStdString(verdict.response.fields.dump()));
        }
    }
    return md;
}

QString reportText(const BoundaryReport &report)
{
    QString out;
    for (const CrdLintResult &result : report.lint) {
        out += u"%1 (%2): %3\n"_s.arg(result.crdName,
                                      result.source.isEmpty() ? u"cluster"_s : result.source,
                                      summaryLine(result));
        for (const Finding &finding : result.findings) {
            out += u"  %1  %2  %3\n"_s.arg(
                severityName(finding.severity).leftJustified(7), finding.id, finding.path);
            out += u"      %1\n"_s.arg(finding.message);
        }
    }
    if (report.live) {
        const BoundaryCheckResult &live = *report.live;
        out += u"live check of %1 (dryRun=All):\n"_s.arg(liveTitle(live));
        if (!live.error.isEmpty())
            out += u"  could not run: %1\n"_s.arg(live.error);
        for (const Verdict &verdict : live.verdicts) {
            out += u"  %1  %2: %3\n"_s.arg(
                verdict.pass ? u"pass"_s : u"FAIL"_s, verdict.id, verdict.observed);
            out += u"      expected: %1\n"_s.arg(verdict.expectation);
            out += u"      %1 %2 %3\n"_s.arg(
                verdict.request.method, verdict.request.url, verdict.request.body);
            out += u"      -> %1 %2\n"_s.arg(verdict.response.code)
                       .arg(QString::fromStdString(verdict.response.fields.dump()));
        }
    }
    return out;
}

} // namespace reconscope::controller::lint
