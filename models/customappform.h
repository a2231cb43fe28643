#pragma once

#include <nlohmann/json.hpp>

#include <QMap>
#include <QString>

namespace reconscope::models {

// The "New CustomApp" form's values, checked as the CRD's schema and the reconciler will check them
// (a name the API accepts, replicas 0..100, port 1..65535, configJSON that parses), so that the
// user hears about mistakes before the server or the reconciler does.
struct CustomAppForm
{
    QString name;
    QString namespaceName;
    QString image;
    int replicas = 1;
    int port = 8080;
    QString configJSON = QStringLiteral("{}");
    QString secretName; // optional spec.secretRef.name

    enum class Field { Name, Namespace, Image, Replicas, Port, ConfigJSON, SecretName };
    // Field -> what is wrong with it; empty when the form can be sent.
    QMap<Field, QString> problems() const;
    // The CustomApp object to POST.
    nlohmann::json toObject() const;
};

} // namespace reconscope::models
