#pragma once

#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/crd.h"
#include "controller/cluster/schema/fielderror.h"
#include "models/yamljson.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QString>
#include <QTest>

// Shared helpers of the schema tests: fixtures from disk, JSON literals, readable failures.
namespace schematest {

using json = nlohmann::json;

inline QString sharedPath(const QString &relative)
{
    return QStringLiteral(RECONSCOPE_SHARED_DIR "/") + relative;
}

inline QString sourcePath(const QString &relative)
{
    return QStringLiteral(RECONSCOPE_SOURCE_DIR "/") + relative;
}

inline QByteArray readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

// The documents of a YAML file, empty documents skipped.
inline QList<json> yamlDocuments(const QString &path)
{
    auto documents = reconscope::models::yamlDocumentsToJson(readFile(path));
    if (!documents)
        qFatal("%s: %s", qPrintable(path), qPrintable(documents.error().message));
    return *documents;
}

inline json yamlFile(const QString &path)
{
    const QList<json> documents = yamlDocuments(path);
    if (documents.size() != 1)
        qFatal("%s: expected one document, got %d", qPrintable(path), int(documents.size()));
    return documents.first();
}

// A JSON literal from a test table; aborts the test run on malformed input.
inline json parse(const QByteArray &text)
{
    json value = json::parse(text.toStdString(), nullptr, false);
    if (value.is_discarded())
        qFatal("malformed JSON in test data: %s", text.constData());
    return value;
}

// {"type":"object","properties":{"a": inner}} without copying `inner` (deep-nesting tests).
inline json nested(json inner)
{
    json outer = json::object();
    outer["type"] = "object";
    outer["properties"]["a"] = std::move(inner);
    return outer;
}

inline QString dump(const json &value)
{
    return QString::fromStdString(value.dump());
}

inline json customAppCrd()
{
    return yamlFile(
        sourcePath(QStringLiteral("resources/crds/customapps.infrastructure.internal.net.yaml")));
}

inline QList<reconscope::controller::cluster::ResourceType> customAppTypes()
{
    auto types = reconscope::controller::cluster::resourceTypesFromCrd(customAppCrd());
    if (!types)
        qFatal("CustomApp CRD: %s", qPrintable(types.error().message));
    return *types;
}

inline QStringList errorLines(const QList<reconscope::controller::cluster::FieldError> &errors)
{
    QStringList lines;
    for (const auto &error : errors)
        lines.append(error.reason + u'|' + error.field + u'|' + error.message);
    return lines;
}

} // namespace schematest

// QCOMPARE cannot take nlohmann::json directly (its conversion templates collide with QtTest's
// qfloat16 overloads); compare the compact serializations, which also show readable diffs.
#define QCOMPARE_JSON(actual, expected) \
    QCOMPARE(schematest::dump(actual), schematest::dump(expected))
