// `reconscope watch RESOURCE [-n NS | -A] [-o json] [--kubeconfig F] [--context C]`: the headless
// face of the informer and the lifecycle rules. One line per lifecycle transition, starting with
// the current state of each object; reconnects and relists are absorbed by the reflector and the
// tracker, so nothing is printed twice and nothing is missed.
#include "app/commands.h"
#include "controller/kube/discovery.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/objectsummarizer.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/objectsummary.h"

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
class TransitionPrinter final : public QObject
{
public:
    TransitionPrinter(kube::RestClient *client, QString argument, QString ns, bool json)
        : m_client(client)
        , m_discovery(client)
        , m_argument(std::move(argument))
        , m_namespace(std::move(ns))
        , m_json(json)
    {
        connect(&m_discovery, &kube::DiscoveryClient::resourcesChanged, this, [this] {
            handleDiscovered();
        });
        connect(&m_discovery,
                &kube::DiscoveryClient::discoveryFailed,
                this,
                [](const apimachinery::ApiError &error) {
                    fail(u"discovery failed: %1"_s.arg(error.message));
                });
        m_discovery.refresh();
    }

private:
    static void fail(const QString &message)
    {
        std::fprintf(stderr, "reconscope watch: %s\n", message.toLocal8Bit().constData());
        QCoreApplication::exit(1);
    }

    void handleDiscovered()
    {
        if (m_reflector)
            return;
        const auto resource = m_discovery.resolve(m_argument);
        if (!resource) {
            fail(resource.error().message);
            return;
        }
        m_resource = resource.value();
        if (!m_resource.namespaced)
            m_namespace.clear();
        if (m_resource.group.isEmpty() || m_resource.group.contains(u'.') == false) {
            startWatching(models::LifecycleMapping::defaults());
            return;
        }
        // The CRD tells how to read the lifecycle (condition names, whether there is a status).
        m_client->get(kube::DiscoveryClient::CustomResourceDefinitions,
                      QString(),
                      m_resource.plural + u'.' + m_resource.group,
                      [this](kube::RestClient::JsonResult crd) {
                          startWatching(crd ? models::LifecycleMapping::forCrd(crd.value())
                                            : models::LifecycleMapping::defaults());
                      });
    }

    void startWatching(models::LifecycleMapping mapping)
    {
        m_mapping = std::move(mapping);
        m_summarizer = std::make_unique<kube::ObjectSummarizer>(m_mapping);
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
        for (const auto &delta : deltas) {
            std::optional<models::Transition> transition;
            if (delta.type == kube::Delta::Type::Delete) {
                transition = m_tracker.remove(delta.meta.key(), now);
            } else {
                const auto summary = m_summarizer->summarize(delta.object);
                if (!summary) {
                    std::fprintf(stderr,
                                 "reconscope watch: %s: %s\n",
                                 delta.meta.key().toLocal8Bit().constData(),
                                 summary.error().message.toLocal8Bit().constData());
                    continue;
                }
                transition = m_tracker.upsert(summary.value(), m_mapping, now);
            }
            if (transition)
                print(*transition);
        }
        std::fflush(stdout);
    }

    void print(const models::Transition &t) const
    {
        if (m_json) {
            std::puts(t.toJson().dump().c_str());
            return;
        }
        auto number = [](const std::optional<qint64> &n) {
            return n ? QString::number(*n) : u"-"_s;
        };
        const auto line = u"%1  %2  %3 → %4  %5  gen %6/%7%8"_s.arg(
            t.time.toString(Qt::ISODate),
            t.key,
            models::stateNodeName(t.from),
            models::stateNodeName(t.to),
            t.reason.isEmpty() ? u"-"_s : t.reason,
            number(t.generation),
            number(t.observedGeneration),
            t.onDesign ? QString() : u"  [off-design]"_s);
        std::puts(line.toUtf8().constData());
    }

    kube::RestClient *m_client;
    kube::DiscoveryClient m_discovery;
    QString m_argument;
    QString m_namespace;
    bool m_json;
    kube::DiscoveredResource m_resource;
    models::LifecycleMapping m_mapping;
    std::unique_ptr<kube::ObjectSummarizer> m_summarizer; // for m_mapping
    models::LifecycleTracker m_tracker;
    std::unique_ptr<kube::Reflector> m_reflector;
};

} // namespace

int runWatch(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Print each lifecycle transition of RESOURCE as it happens."_s);
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
    parser.addOptions({ nsOption, allOption, outputOption, kubeconfigOption, contextOption });
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
    const auto kubeconfig = kube::Kubeconfig::load(parser.value(kubeconfigOption));
    if (!kubeconfig) {
        std::fprintf(
            stderr, "reconscope watch: %s\n", kubeconfig.error().message.toLocal8Bit().constData());
        return 1;
    }
    const auto config = kubeconfig->resolve(parser.value(contextOption));
    if (!config) {
        std::fprintf(
            stderr, "reconscope watch: %s\n", config.error().message.toLocal8Bit().constData());
        return 1;
    }
    for (const auto &warning : config->warnings)
        std::fprintf(stderr, "reconscope watch: warning: %s\n", warning.toLocal8Bit().constData());
    const auto ns = parser.isSet(allOption) ? QString()
        : parser.isSet(nsOption)            ? parser.value(nsOption)
                                            : config->namespace_;
    kube::RestClient client(config.value());
    TransitionPrinter printer(
        &client, parser.positionalArguments().constFirst(), ns, !output.isEmpty());
    return app.exec();
}

} // namespace reconscope::app
