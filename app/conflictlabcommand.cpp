// `reconscope conflict-lab --design a|b|c|d|e --seconds N [--objects K] [--no-force]
// [--kubeconfig F] [--context C] [-o json]`: the conflict lab headless, for scripts and CI. Without
// --kubeconfig/--context it runs on an embedded cluster of its own.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "controller/kube/kubeconfig.h"
#include "controller/labs/conflictlab.h"
#include "controller/labs/labcluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <memory>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace clabs = reconscope::controller::labs;

namespace reconscope::app {

namespace {

constexpr auto usage
    = "usage: reconscope conflict-lab --design a|b|c|d|e --seconds N [--objects K] "
      "[--no-force] [--kubeconfig F] [--context C] [-o json]\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope conflict-lab: %s\n%s", qPrintable(message), usage);
    return 2;
}

// Runs one lab against `config` and prints its result; the exit code says whether it ran.
class LabRunner final : public QObject
{
public:
    LabRunner(clabs::ConflictLabOptions options, bool json)
        : m_options(std::move(options))
        , m_json(json)
    { }

    void run(const kube::ClientConfig &config)
    {
        m_lab = std::make_unique<clabs::ConflictLab>(config, m_options);
        connect(
            m_lab.get(), &clabs::ConflictLab::progress, this, [this](double, const QString &text) {
                if (!m_json && text != m_lastProgress)
                    std::fprintf(stderr, "conflict-lab: %s\n", qPrintable(text));
                m_lastProgress = text;
            });
        connect(m_lab.get(),
                &clabs::ConflictLab::finished,
                this,
                [this](const clabs::ConflictLabResult &result) { print(result); });
        m_lab->start();
    }

    void fail(const QString &message)
    {
        std::fprintf(stderr, "reconscope conflict-lab: %s\n", qPrintable(message));
        QCoreApplication::exit(1);
    }

private:
    void print(const clabs::ConflictLabResult &result)
    {
        if (m_json)
            std::puts(result.toJson().dump().c_str());
        else
            std::fputs(result.toText().toUtf8().constData(), stdout);
        std::fflush(stdout);
        if (!result.error.isEmpty())
            std::fprintf(stderr, "reconscope conflict-lab: %s\n", qPrintable(result.error));
        QCoreApplication::exit(result.error.isEmpty() ? 0 : 1);
    }

    clabs::ConflictLabOptions m_options;
    bool m_json;
    std::unique_ptr<clabs::ConflictLab> m_lab;
    QString m_lastProgress;
};

} // namespace

int runConflictLab(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"The conflict lab: a GitOps writer and a reconciler write the same objects for N "
        "seconds under one API design; prints 409s, writes, lost updates, generation bumps and "
        "reconciles per writer.\n"
        "  a  spec/status separated, the reconciler PUTs /status with the resourceVersion\n"
        "  b  spec/status separated, the reconciler merge-patches /status without one\n"
        "  c  the observed count in spec, no status subresource, full-object PUTs\n"
        "  d  spec/status separated under server-side apply: GitOps applies the spec (forced),\n"
        "     the reconciler applies /status with its own field manager\n"
        "  e  the observed count in spec under server-side apply: the Git manifest carries it\n"
        "     too; the reconciler's apply conflicts, then forces (ownership ping-pong)\n"
        "Designs d and e add applyConflicts and ownershipChanges per writer."_s);
    parser.addHelpOption();
    const QCommandLineOption designOption(u"design"_s, u"a, b, c, d or e."_s, u"a|b|c|d|e"_s);
    const QCommandLineOption noForceOption(
        u"no-force"_s,
        u"Design e: the reconciler does not force after an apply conflict (it retries, "
        "conflicting again)."_s);
    const QCommandLineOption secondsOption(u"seconds"_s, u"How long the writers run."_s, u"N"_s);
    const QCommandLineOption objectsOption(
        u"objects"_s, u"How many objects (default 3)."_s, u"K"_s, u"3"_s);
    const QCommandLineOption kubeconfigOption(
        u"kubeconfig"_s, u"Run against this cluster (default: an embedded one)."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    const QCommandLineOption namespaceOption(
        { u"n"_s, u"namespace"_s },
        u"The lab's namespace (default reconscope-conflict-lab)."_s,
        u"NS"_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"\"json\": one JSON object."_s, u"FORMAT"_s);
    parser.addOptions({ designOption,
                        noForceOption,
                        secondsOption,
                        objectsOption,
                        kubeconfigOption,
                        contextOption,
                        namespaceOption,
                        outputOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    if (parser.isSet(u"help"_s)) {
        std::fputs(parser.helpText().toLocal8Bit().constData(), stdout);
        return 0;
    }
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            u"unexpected argument \"%1\""_s.arg(parser.positionalArguments().first()));

    clabs::ConflictLabOptions options;
    if (!parser.isSet(designOption))
        return usageError(u"--design is required"_s);
    const auto design = clabs::conflictDesignFromLetter(parser.value(designOption));
    if (!design)
        return usageError(
            u"unknown design \"%1\" (a, b, c, d or e)"_s.arg(parser.value(designOption)));
    options.design = *design;
    options.reconcilerForces = !parser.isSet(noForceOption);
    if (!parser.isSet(secondsOption))
        return usageError(u"--seconds is required"_s);
    bool ok = false;
    const double seconds = parser.value(secondsOption).toDouble(&ok);
    if (!ok || seconds <= 0 || seconds > 3600)
        return usageError(u"--seconds needs a number of seconds in (0, 3600]"_s);
    options.durationMs = int(seconds * 1000);
    const int objects = parser.value(objectsOption).toInt(&ok);
    if (!ok || objects < 1 || objects > 1000)
        return usageError(u"--objects needs a whole number from 1 to 1000"_s);
    options.objects = objects;
    if (parser.isSet(namespaceOption))
        options.namespace_ = parser.value(namespaceOption);
    const QString output = parser.value(outputOption);
    if (!output.isEmpty() && output != u"json")
        return usageError(u"unknown output format \"%1\" (only json)"_s.arg(output));

    std::unique_ptr<clabs::LabCluster> embedded; // outlives the lab's clients
    LabRunner runner(options, output == u"json");
    if (parser.isSet(kubeconfigOption) || parser.isSet(contextOption)) {
        const auto config = loadClientConfig(
            "conflict-lab", parser.value(kubeconfigOption), parser.value(contextOption));
        if (!config) {
            std::fprintf(
                stderr, "reconscope conflict-lab: %s\n", qPrintable(config.error().message));
            return 1;
        }
        runner.run(config.value());
    } else {
        embedded = std::make_unique<clabs::LabCluster>();
        QObject::connect(embedded.get(),
                         &clabs::LabCluster::ready,
                         &runner,
                         [&runner](const kube::ClientConfig &config) { runner.run(config); });
        QObject::connect(
            embedded.get(), &clabs::LabCluster::failed, &runner, [&runner](const QString &message) {
                runner.fail(u"the embedded cluster did not start: %1"_s.arg(message));
            });
        const auto started = embedded->start();
        if (!started.ok()) {
            std::fprintf(
                stderr, "reconscope conflict-lab: %s\n", qPrintable(started.error().message));
            return 1;
        }
    }
    return app.exec();
}

} // namespace reconscope::app
