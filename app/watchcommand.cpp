// `reconscope watch RESOURCE [-n NS | -A] [-o json] [--kubeconfig F] [--context C]`: the headless
// face of the informer and the lifecycle rules. First the census (one line per object, in the state
// it was found in when the watch connected), then one line per lifecycle transition; reconnects
// are absorbed by the reflector, and a relist after a watch gap prints one move per object that
// changed meanwhile, marked as across the gap, so nothing is printed twice and nothing is missed.
// Field-manager fights the objects' managedFields show are printed as they start.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "app/resourcelookup.h"
#include "app/transitionprinter.h"
#include "controller/kube/discovery.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "models/lifecyclemapping.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>

#include <cstdio>
#include <memory>

using namespace Qt::StringLiterals;
namespace apimachinery = reconscope::controller::apimachinery;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;

namespace reconscope::app {

namespace {

// Prints transitions of one resource's objects as they happen.
class WatchSession final : public QObject
{
public:
    WatchSession(kube::RestClient *client,
                 const QString &argument,
                 QString ns,
                 bool json,
                 controller::fieldowner::FightSettings fights)
        : m_client(client)
        , m_namespace(std::move(ns))
        , m_json(json)
        , m_fights(fights)
    {
        lookUpResource(client, argument, this, [this](models::Result<LookedUpResource> found) {
            if (!found) {
                fail(found.error().message);
                return;
            }
            m_resource = found->resource;
            if (!m_resource.namespaced)
                m_namespace.clear();
            startWatching(found->mapping);
        });
    }

private:
    static void fail(const QString &message)
    {
        std::fprintf(stderr, "reconscope watch: %s\n", message.toLocal8Bit().constData());
        QCoreApplication::exit(1);
    }

    void startWatching(models::LifecycleMapping mapping)
    {
        m_printer
            = std::make_unique<TransitionPrinter>("watch", std::move(mapping), m_json, m_fights);
        m_printer->setReportLatency(m_resource.qualifiedName());
        m_reflector = std::make_unique<kube::Reflector>(m_client, m_resource.ref(), m_namespace);
        connect(m_reflector.get(),
                &kube::Reflector::deltasReceived,
                this,
                [this](const QList<kube::Delta> &deltas) { handleDeltas(deltas); });
        connect(m_reflector.get(),
                &kube::Reflector::stateChanged,
                this,
                [](const kube::ReflectorState &state) {
                    if (state.phase == kube::ReflectorState::Phase::Reconnecting
                        || state.phase == kube::ReflectorState::Phase::Relisting)
                        std::fprintf(stderr,
                                     "reconscope watch: %s\n",
                                     state.toString().toLocal8Bit().constData());
                });
        m_reflector->start();
    }

    void handleDeltas(const QList<kube::Delta> &deltas)
    {
        const auto now = QDateTime::currentDateTimeUtc();
        // A list's deltas come while the reflector lists: the first is the census, a later one
        // (after a watch gap) finds what moved meanwhile.
        const auto phase = m_reflector->state().phase;
        const models::Observed observed = phase == kube::ReflectorState::Phase::Listing
            ? models::Observed::AtConnect
            : phase == kube::ReflectorState::Phase::Relisting ? models::Observed::AcrossGap
                                                              : models::Observed::Live;
        for (const auto &delta : deltas) {
            if (delta.type == kube::Delta::Type::Delete)
                m_printer->remove(delta.meta.key(), now, observed);
            else
                m_printer->upsert(delta.object, delta.meta.key(), now, observed);
        }
        std::fflush(stdout);
    }

    kube::RestClient *m_client;
    QString m_namespace;
    bool m_json;
    controller::fieldowner::FightSettings m_fights;
    kube::DiscoveredResource m_resource;
    std::unique_ptr<TransitionPrinter> m_printer;
    std::unique_ptr<kube::Reflector> m_reflector;
};

} // namespace

int runWatch(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Print the census of RESOURCE's objects (the state each is in when the watch connects), "
        "then each lifecycle transition as it happens, and each field-manager fight as it starts: "
        "a field two managers take from each other (managedFields) at least N times within the "
        "window, or a spec field owned by the manager that writes the object's /status. With -o "
        "json, a \"latency\" "
        "record too whenever an object settles (Ready or Degraded) after a spec change the watch "
        "saw: generation bump to observedGeneration caught up to settled, and the resource's "
        "p50/p95/p99 so far."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"RESOURCE"_s,
                                 u"customapps, customapps.infrastructure.internal.net, ca, ..."_s);
    const QCommandLineOption nsOption(
        { u"n"_s, u"namespace"_s }, u"Namespace (default: the context's)."_s, u"NS"_s);
    const QCommandLineOption allOption({ u"A"_s, u"all-namespaces"_s },
                                       u"Objects of all namespaces."_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"\"json\": one JSON object per line."_s, u"FORMAT"_s);
    const QCommandLineOption kubeconfigOption(u"kubeconfig"_s, u"Kubeconfig file."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    const QCommandLineOption fightChangesOption(
        u"fight-changes"_s, u"Ownership changes that make a fight (default 3)."_s, u"N"_s, u"3"_s);
    const QCommandLineOption fightWindowOption(
        u"fight-window"_s, u"Within how many seconds (default 60)."_s, u"SECONDS"_s, u"60"_s);
    parser.addOptions({ nsOption,
                        allOption,
                        outputOption,
                        kubeconfigOption,
                        contextOption,
                        fightChangesOption,
                        fightWindowOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    parser.process(arguments);

    if (parser.positionalArguments().size() != 1) {
        std::fputs("usage: reconscope watch RESOURCE [-n NS | -A] [-o json] [--kubeconfig F] "
                   "[--context C]\n",
                   stderr);
        return 2;
    }
    const auto output = parser.value(outputOption);
    if (!output.isEmpty() && output != u"json"_s) {
        std::fprintf(stderr,
                     "reconscope watch: unknown output format \"%s\" (only json)\n",
                     qPrintable(output));
        return 2;
    }
    bool changesOk = false;
    bool windowOk = false;
    const int fightChanges = parser.value(fightChangesOption).toInt(&changesOk);
    const int fightWindow = parser.value(fightWindowOption).toInt(&windowOk);
    if (!changesOk || fightChanges < 2 || !windowOk || fightWindow < 1) {
        std::fputs("reconscope watch: --fight-changes takes a whole number of at least 2, "
                   "--fight-window a number of seconds of at least 1\n",
                   stderr);
        return 2;
    }
    const auto config
        = loadClientConfig("watch", parser.value(kubeconfigOption), parser.value(contextOption));
    if (!config) {
        std::fprintf(stderr, "reconscope watch: %s\n", qPrintable(config.error().message));
        return 1;
    }
    const auto ns = parser.isSet(allOption) ? QString()
        : parser.isSet(nsOption)            ? parser.value(nsOption)
                                            : config->namespace_;
    kube::RestClient client(config.value());
    WatchSession session(&client,
                         parser.positionalArguments().constFirst(),
                         ns,
                         !output.isEmpty(),
                         { fightChanges, fightWindow * qint64(1000) });
    return app.exec();
}

} // namespace reconscope::app
