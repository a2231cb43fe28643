#pragma once

// Readable QCOMPARE output for the lifecycle types (found by argument-dependent lookup).

#include "controller/kube/objectsummarizer.h"
#include "models/lifecyclestate.h"
#include "models/objectsummary.h"
#include "models/stategraphstats.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

namespace reconscope::models {

inline char *toString(const LifecycleState &state)
{
    return qstrdup(lifecycleStateName(state).toUtf8().constData());
}

inline char *toString(const KStatus &status)
{
    return qstrdup(kstatusName(status).toUtf8().constData());
}

inline char *toString(const StateNode &node)
{
    return qstrdup(stateNodeName(node).toUtf8().constData());
}

} // namespace reconscope::models

namespace reconscope::tests {

// An object's summary read from its bytes as the product reads it (the client's ObjectSummarizer).
inline models::Result<models::ObjectSummary>
summaryFromBytes(QByteArrayView bytes, const models::LifecycleMapping &mapping)
{
    return controller::kube::ObjectSummarizer(mapping).summarize(bytes);
}

inline QByteArray readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

inline nlohmann::json readJsonFile(const QString &path)
{
    const QByteArray bytes = readFile(path);
    return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

} // namespace reconscope::tests
