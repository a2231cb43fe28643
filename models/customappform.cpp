#include "models/customappform.h"

#include "models/dnsnames.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("CustomAppForm", text);
}

// "required", or the messages the API server would answer the name with.
QString nameProblem(const QString &value, QStringList (*check)(const QString &))
{
    return value.isEmpty() ? tr("required") : check(value).join(u", "_s);
}

} // namespace

QMap<CustomAppForm::Field, QString> CustomAppForm::problems() const
{
    QMap<Field, QString> problems;
    if (const QString problem = nameProblem(name, isDNS1123Subdomain); !problem.isEmpty())
        problems.insert(Field::Name, problem);
    if (const QString problem = nameProblem(namespaceName, isDNS1123Label); !problem.isEmpty())
        problems.insert(Field::Namespace, problem);
    if (image.trimmed().isEmpty())
        problems.insert(Field::Image, tr("required"));
    else if (image.contains(u' '))
        problems.insert(Field::Image, tr("an image reference has no spaces"));
    if (replicas < 0 || replicas > 100)
        problems.insert(Field::Replicas, tr("0 to 100"));
    if (port < 1 || port > 65535)
        problems.insert(Field::Port, tr("1 to 65535"));
    if (!configJSON.isEmpty()) {
        const QByteArray bytes = configJSON.toUtf8();
        const auto parsed = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (parsed.is_discarded())
            problems.insert(Field::ConfigJSON, tr("not valid JSON"));
    }
    if (!secretName.isEmpty()) {
        if (const QString problem = nameProblem(secretName, isDNS1123Subdomain); !problem.isEmpty())
            problems.insert(Field::SecretName, problem);
    }
    return problems;
}

nlohmann::json CustomAppForm::toObject() const
{
    nlohmann::json spec = { { "image", image.trimmed().toStdString() },
                            { "replicas", replicas },
                            { "port", port } };
    if (!configJSON.isEmpty())
        spec["configJSON"] = configJSON.toStdString();
    if (!secretName.isEmpty())
        spec["secretRef"] = { { "name", secretName.toStdString() } };
    nlohmann::json metadata
        = { { "name", name.toStdString() }, { "namespace", namespaceName.toStdString() } };
    if (name.size() <= 63) // a label value's limit
        metadata["labels"] = { { "app", name.toStdString() } };
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata", metadata },
             { "spec", spec } };
}

} // namespace reconscope::models
