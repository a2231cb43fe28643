// `reconscope explain RESOURCE/NAME [-n NS] [-o json] [--kubeconfig F] [--context C]`: "why is it
// not Ready?" for one object, headless (controller/troubleshoot): its causes, ranked, each with
// its evidence, and what was looked at.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "app/resourcelookup.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/troubleshoot/explainreader.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace troubleshoot = reconscope::controller::troubleshoot;

namespace reconscope::app {

namespace {

constexpr const char *Usage = "usage: reconscope explain RESOURCE/NAME | RESOURCE NAME [-n NS] "
                              "[-o json] [--kubeconfig F] [--context C]\n";

// The rules, as docs/troubleshooting.md writes them.
const char *const Rules
    = "The causes are ranked by these rules, in this order; within a rule, in the order found:\n"
      "  1. deletion-waits: a deletionTimestamp is set and finalizers are left (each named, with\n"
      "     the owned objects still present).\n"
      "  2. workload-failing: a Deployment it owns has ReplicaFailure=True (e.g. exceeded quota),\n"
      "     Available=False or Progressing=False, or a Pod of one has a container waiting with\n"
      "     ImagePullBackOff, ErrImagePull, CrashLoopBackOff, CreateContainerConfigError, ...\n"
      "     (with the Warning Events of each).\n"
      "  3. stalled: a Stalled condition is True (the controller gave up: terminal).\n"
      "  4. condition-failing: a Degraded condition is True, or the Ready condition is not True.\n"
      "  5. stale-status: status.observedGeneration is behind metadata.generation. A condition\n"
      "     written for an older generation (its own observedGeneration) ranks right after this.\n"
      "  6. no-controller: no status was written in more than 2 minutes since creation; Leases\n"
      "     and Deployments named like its API group or kind are looked for, and named.\n"
      "  7. warning-event: its own Warning Events, newest first.\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope explain: %s\n%s", qPrintable(message), Usage);
    return 2;
}

} // namespace

int runExplain(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Why is it not Ready? The causes of one object's state, ranked, with their evidence.\n\n"_s
        + QString::fromLatin1(Rules));
    parser.addHelpOption();
    parser.addPositionalArgument(u"RESOURCE/NAME"_s,
                                 u"The object, as kubectl names it (customapp/web, or customapps "
                                 "web)."_s);
    const QCommandLineOption nsOption(
        { u"n"_s, u"namespace"_s }, u"Namespace (default: the context's)."_s, u"NS"_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"\"json\": the explanation as one JSON object."_s, u"FORMAT"_s);
    const QCommandLineOption kubeconfigOption(u"kubeconfig"_s, u"Kubeconfig file."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    parser.addOptions({ nsOption, outputOption, kubeconfigOption, contextOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    parser.process(arguments);

    const auto target = objectTarget(parser.positionalArguments());
    if (!target)
        return usageError(u"name one object: RESOURCE/NAME or RESOURCE NAME"_s);
    const QString output = parser.value(outputOption);
    if (!output.isEmpty() && output != u"json"_s)
        return usageError(u"unknown output format \"%1\" (only json)"_s.arg(output));
    const auto config
        = loadClientConfig("explain", parser.value(kubeconfigOption), parser.value(contextOption));
    if (!config) {
        std::fprintf(stderr, "reconscope explain: %s\n", qPrintable(config.error().message));
        return 1;
    }
    const QString ns = parser.isSet(nsOption) ? parser.value(nsOption) : config->namespace_;

    kube::RestClient client(config.value());
    troubleshoot::ExplainReader reader(&client);
    const bool json = !output.isEmpty();
    const QString name = target->second;
    lookUpResource(&client, target->first, &app, [&](models::Result<LookedUpResource> found) {
        if (!found) {
            std::fprintf(stderr, "reconscope explain: %s\n", qPrintable(found.error().message));
            QCoreApplication::exit(1);
            return;
        }
        const auto &resource = found->resource;
        reader.explain(resource.ref(),
                       resource.namespaced ? ns : QString(),
                       name,
                       found->mapping,
                       QDateTime::currentDateTimeUtc(),
                       {},
                       [json](auto explanation) {
                           if (!explanation) {
                               std::fprintf(stderr,
                                            "reconscope explain: %s\n",
                                            qPrintable(explanation.error().toString()));
                               QCoreApplication::exit(1);
                               return;
                           }
                           if (json)
                               std::puts(troubleshoot::toJson(explanation.value()).dump().c_str());
                           else
                               std::fputs(qPrintable(troubleshoot::toText(explanation.value())),
                                          stdout);
                           QCoreApplication::exit(0);
                       });
    });
    return app.exec();
}

} // namespace reconscope::app
