// `reconscope lint-crd FILE|NAME [-o json|markdown] [--live [--object NS/NAME]] [--kubeconfig F]
// [--context C]`: the API boundary verifier headless. A FILE (an existing path) is linted offline;
// otherwise NAME is the CustomResourceDefinition fetched from the cluster. --live adds the
// server-side dry-run boundary check on one object of that CRD (the first one found unless
// --object names it). Exit codes, for CI: 0 clean or only warnings, 1 an error-level finding (or
// a failed live verdict), 2 usage or input errors.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "controller/kube/discovery.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/lint/boundarycheck.h"
#include "controller/lint/crdlint.h"
#include "controller/lint/report.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace lint = reconscope::controller::lint;

namespace reconscope::app {

namespace {

enum class Output { Text, Json, Markdown };

constexpr const char *usage
    = "usage: reconscope lint-crd FILE|NAME [-o json|markdown] [--live [--object NS/NAME]]\n"
      "                            [--kubeconfig F] [--context C]\n";

int inputError(const QString &message)
{
    std::fprintf(stderr, "reconscope lint-crd: %s\n", message.toLocal8Bit().constData());
    return 2;
}

int print(const lint::BoundaryReport &report, Output output)
{
    QString text;
    switch (output) {
    case Output::Json:
        text = QString::fromStdString(lint::reportJson(report).dump(2)) + u'\n';
        break;
    case Output::Markdown:
        text = lint::reportMarkdown(report);
        break;
    case Output::Text:
        text = lint::reportText(report);
        break;
    }
    std::fputs(text.toUtf8().constData(), stdout);
    std::fflush(stdout);
    if (report.live && !report.live->error.isEmpty())
        return inputError(u"live check: "_s + report.live->error);
    return report.hasErrors() ? 1 : 0;
}

// The command line, read.
struct LintArguments
{
    QString target; // FILE or NAME
    Output output = Output::Text;
    bool live = false;
    QString objectNs; // --object NS/NAME (empty: cluster scope or the first object found)
    QString objectName;
    QString kubeconfig;
    QString context;
};

// Reads the command line (the application exists: help texts need its name); the exit code when
// the program stops here (help printed, a usage error).
std::optional<int> parseArguments(int argc, char *argv[], LintArguments *out)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Lint a CustomResourceDefinition's Spec/Status boundary (a file offline, or a CRD of the "
        "cluster by name) and optionally prove it on the cluster with server-side dry-run."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"FILE|NAME"_s,
                                 u"A CRD manifest (YAML or JSON, several documents allowed), or "
                                 "the name of a CRD in the cluster (plural.group)."_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"json or markdown (default: text)."_s, u"FORMAT"_s);
    const QCommandLineOption liveOption(
        u"live"_s, u"Also run the live boundary check (dry-run writes on the cluster)."_s);
    const QCommandLineOption objectOption(
        u"object"_s,
        u"The object of the live check: NS/NAME, or NAME for cluster scope."_s,
        u"NS/NAME"_s);
    const QCommandLineOption kubeconfigOption(u"kubeconfig"_s, u"Kubeconfig file."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    parser.addOptions({ outputOption, liveOption, objectOption, kubeconfigOption, contextOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "reconscope lint-crd: %s\n%s", qPrintable(parser.errorText()), usage);
        return 2;
    }
    if (parser.isSet(u"help"_s)) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (parser.positionalArguments().size() != 1) {
        std::fputs(usage, stderr);
        return 2;
    }
    const QString format = parser.value(outputOption);
    if (format == u"json")
        out->output = Output::Json;
    else if (format == u"markdown" || format == u"md")
        out->output = Output::Markdown;
    else if (!format.isEmpty() && format != u"text")
        return inputError(u"unknown output format \"%1\" (json, markdown or text)"_s.arg(format));
    out->live = parser.isSet(liveOption);
    if (parser.isSet(objectOption) && !out->live)
        return inputError(u"--object needs --live"_s);
    out->objectName = parser.value(objectOption);
    if (const qsizetype slash = out->objectName.indexOf(u'/'); slash >= 0) {
        out->objectNs = out->objectName.left(slash);
        out->objectName = out->objectName.mid(slash + 1);
        if (out->objectNs.isEmpty() || out->objectName.isEmpty() || out->objectName.contains(u'/'))
            return inputError(
                u"--object \"%1\": expected NS/NAME or NAME"_s.arg(parser.value(objectOption)));
    }
    out->target = parser.positionalArguments().constFirst();
    out->kubeconfig = parser.value(kubeconfigOption);
    out->context = parser.value(contextOption);
    return std::nullopt;
}

// A target that is a file, linted into `report`; for --live its one CRD into *crd. The exit code
// when the program stops here (offline report printed, input error). A target that is no file
// but looks like a path is an input error; a name returns nothing to do here.
std::optional<int> lintFile(const LintArguments &args,
                            lint::BoundaryReport *report,
                            std::optional<nlohmann::json> *crd)
{
    const QString &target = args.target;
    if (!QFileInfo::exists(target)) {
        if (target.contains(u'/') || target.endsWith(u".yaml") || target.endsWith(u".yml")
            || target.endsWith(u".json"))
            return inputError(u"%1: no such file"_s.arg(target));
        return std::nullopt;
    }
    if (QFileInfo(target).isDir())
        return inputError(u"%1: is a directory, not a CRD manifest"_s.arg(target));
    auto results = lint::lintCrdFile(target);
    if (!results)
        return inputError(results.error().message);
    report->lint = results.value();
    if (!args.live)
        return print(*report, args.output);
    if (report->lint.size() != 1)
        return inputError(
            u"%1 holds %2 CRDs; --live checks one (name it instead)"_s.arg(target).arg(
                report->lint.size()));
    QFile in(target);
    if (in.open(QIODevice::ReadOnly)) {
        auto crds = lint::crdsFromManifest(in.readAll(), target);
        if (crds)
            *crd = crds->first();
    }
    return std::nullopt;
}

} // namespace

int runLintCrd(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    LintArguments args;
    if (const std::optional<int> stop = parseArguments(argc, argv, &args))
        return *stop;
    const QString &target = args.target;
    const Output output = args.output;
    lint::BoundaryReport report;
    std::optional<nlohmann::json> fileCrd;
    if (const std::optional<int> stop = lintFile(args, &report, &fileCrd))
        return *stop;

    const auto config = loadClientConfig("lint-crd", args.kubeconfig, args.context);
    if (!config)
        return inputError(config.error().message);
    kube::RestClient client(config.value());
    // Declared after the client it uses, so that it goes first: a check parented to the
    // application would outlive the client and could touch it at exit.
    std::unique_ptr<lint::BoundaryCheck> check;
    int exitCode = 0;
    auto runLive = [&](const nlohmann::json &crd) {
        check = std::make_unique<lint::BoundaryCheck>(&client);
        QObject::connect(check.get(),
                         &lint::BoundaryCheck::finished,
                         &app,
                         [&](const lint::BoundaryCheckResult &result) {
                             report.live = result;
                             exitCode = print(report, output);
                             QCoreApplication::exit(exitCode);
                         });
        check->start(crd, args.objectNs, args.objectName);
    };
    if (fileCrd) {
        runLive(*fileCrd);
    } else {
        client.get(kube::DiscoveryClient::CustomResourceDefinitions,
                   QString(),
                   target,
                   [&](kube::RestClient::JsonResult crd) {
                       if (!crd) {
                           exitCode = inputError(
                               u"CustomResourceDefinition %1 (not a file either): %2"_s.arg(
                                   target, crd.error().toString()));
                           QCoreApplication::exit(exitCode);
                           return;
                       }
                       auto linted = lint::lintCrd(crd.value());
                       if (!linted) {
                           exitCode = inputError(linted.error().message);
                           QCoreApplication::exit(exitCode);
                           return;
                       }
                       linted->source = u"cluster"_s;
                       report.lint = { linted.value() };
                       if (!args.live) {
                           exitCode = print(report, output);
                           QCoreApplication::exit(exitCode);
                           return;
                       }
                       runLive(crd.value());
                   });
    }
    app.exec();
    return exitCode;
}

} // namespace reconscope::app
