#pragma once

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace reconscope::controller::cluster {

// One additionalPrinterColumns entry of a CRD version.
struct PrinterColumn
{
    QString name;
    QString type; // integer, number, string, boolean, date
    QString format;
    QString description;
    int priority = 0;
    QString jsonPath;
};

// One served resource (group/version/plural) as the embedded cluster knows it: a CRD version or a
// built-in kind. Everything discovery, OpenAPI, Table rendering and the request handler need.
struct ResourceType
{
    QString group; // empty for the core group ("v1")
    QString version;
    QString plural;
    QString singular;
    QString kind;
    QString listKind;
    bool namespaced = true;
    QStringList shortNames;
    QStringList categories;
    bool served = true;
    bool storage = true;
    bool statusSubresource = false;
    // Scale subresource (CRD spec.versions[].subresources.scale), empty paths when absent.
    bool scaleSubresource = false;
    QString specReplicasPath;
    QString statusReplicasPath;
    QString labelSelectorPath;
    // openAPIV3Schema of this version (null for built-ins that are not schema-checked).
    nlohmann::json schema;
    QList<PrinterColumn> printerColumns;
    QStringList selectableFields; // JSON paths such as ".spec.color"
    bool builtin = false;

    QString groupVersion() const { return group.isEmpty() ? version : group + u'/' + version; }
    // "customapps.infrastructure.internal.net", or "pods" for the core group.
    QString qualifiedResource() const { return group.isEmpty() ? plural : plural + u'.' + group; }
};

} // namespace reconscope::controller::cluster
