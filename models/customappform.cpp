#include "models/customappform.h"

#include <QCoreApplication>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("CustomAppForm", text);
}

} // namespace

QString dns1123LabelProblem(const QString &value)
{
    static const QRegularExpression label(u"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"_s);
    if (value.isEmpty())
        return tr("required");
    if (value.size() > 63)
        return tr("must be no more than 63 characters");
    if (!label.match(value).hasMatch())
        return tr("lower-case letters, digits and '-', starting and ending with a letter or digit");
    return {};
}

QString dns1123SubdomainProblem(const QString &value)
{
    static const QRegularExpression subdomain(
        u"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"_s);
    if (value.isEmpty())
        return tr("required");
    if (value.size() > 253)
        return tr("must be no more than 253 characters");
    if (!subdomain.match(value).hasMatch())
        return tr("lower-case letters, digits, '-' and '.', starting and ending with a letter or "
                  "digit");
    return {};
}

QMap<CustomAppForm::Field, QString> CustomAppForm::problems() const
{
    QMap<Field, QString> problems;
    if (const QString problem = dns1123SubdomainProblem(name); !problem.isEmpty())
        problems.insert(Field::Name, problem);
    if (const QString problem = dns1123LabelProblem(namespaceName); !problem.isEmpty())
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
        if (const QString problem = dns1123SubdomainProblem(secretName); !problem.isEmpty())
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
