// `reconscope fields RESOURCE/NAME [-n NS] [-o json] [--manager M] [--kubeconfig F] [--context C]`:
// who owns what, headless — the object's YAML with a gutter naming, for every field, the managers
// its managedFields name (controller/fieldowner/blame), or the owned fields as JSON.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "app/resourcelookup.h"
#include "controller/fieldowner/blame.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace fieldowner = reconscope::controller::fieldowner;
namespace kube = reconscope::controller::kube;

namespace reconscope::app {

namespace {

constexpr const char *Usage = "usage: reconscope fields RESOURCE/NAME | RESOURCE NAME [-n NS] "
                              "[-o json] [--manager M] [--kubeconfig F] [--context C]\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope fields: %s\n%s", qPrintable(message), Usage);
    return 2;
}

} // namespace

int runFields(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Who owns what: the object's YAML with, beside each line, the field managers that own "
        "the field (from metadata.managedFields): manager (operation [/subresource]) and how long "
        "ago it wrote. Several owners share the field; \"^\" marks owners of a whole list or map "
        "the line is part of. Entries that cannot be read are listed at the end."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"RESOURCE/NAME"_s,
                                 u"The object, as kubectl names it (customapp/web, or customapps "
                                 "web)."_s);
    const QCommandLineOption nsOption(
        { u"n"_s, u"namespace"_s }, u"Namespace (default: the context's)."_s, u"NS"_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s },
        u"\"json\": the owned fields, the managers and the unreadable entries as one JSON "
        "object."_s,
        u"FORMAT"_s);
    const QCommandLineOption managerOption(
        u"manager"_s, u"Show only this manager's fields in the gutter."_s, u"M"_s);
    const QCommandLineOption kubeconfigOption(u"kubeconfig"_s, u"Kubeconfig file."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    parser.addOptions({ nsOption, outputOption, managerOption, kubeconfigOption, contextOption });
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
        = loadClientConfig("fields", parser.value(kubeconfigOption), parser.value(contextOption));
    if (!config) {
        std::fprintf(stderr, "reconscope fields: %s\n", qPrintable(config.error().message));
        return 1;
    }
    const QString ns = parser.isSet(nsOption) ? parser.value(nsOption) : config->namespace_;
    const QString manager = parser.value(managerOption);
    const bool json = !output.isEmpty();

    kube::RestClient client(config.value());
    lookUpResource(&client, target->first, &app, [&](models::Result<LookedUpResource> found) {
        if (!found) {
            std::fprintf(stderr, "reconscope fields: %s\n", qPrintable(found.error().message));
            QCoreApplication::exit(1);
            return;
        }
        const auto &resource = found->resource;
        client.get(
            resource.ref(), resource.namespaced ? ns : QString(), target->second, [&](auto object) {
                if (!object) {
                    std::fprintf(
                        stderr, "reconscope fields: %s\n", qPrintable(object.error().toString()));
                    QCoreApplication::exit(1);
                    return;
                }
                const fieldowner::Blame blame = fieldowner::blame(object.value());
                if (json)
                    std::puts(fieldowner::blameJson(blame).dump().c_str());
                else
                    std::fputs(qPrintable(fieldowner::blameText(
                                   blame, QDateTime::currentDateTimeUtc(), manager)),
                               stdout);
                QCoreApplication::exit(0);
            });
    });
    return app.exec();
}

} // namespace reconscope::app
