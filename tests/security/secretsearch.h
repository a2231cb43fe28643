#pragma once

// What the secret-leak tests share: the secrets a kubeconfig holds, and the search for them in
// captured output.

#include "controller/kube/clientconfig.h"

#include <QByteArray>
#include <QDir>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QTest>

#include <algorithm>

namespace reconscope::tests {

// The secrets of one resolved context: its token, and every line of its client key's body (each
// long enough to be unmistakable).
inline QList<QByteArray> secretsOf(const controller::kube::ClientConfig &config)
{
    QList<QByteArray> secrets;
    if (!config.token.isEmpty())
        secrets << config.token.toUtf8();
    if (!config.clientKey.isNull()) {
        for (const QByteArray &line : config.clientKey.toPem().split('\n')) {
            if (line.size() >= 40 && !line.startsWith("-----"))
                secrets << line;
        }
    }
    return secrets;
}

// The environment of the program under test: no SPDLOG_LEVEL of the caller's, and the XDG
// directories (log files, settings, caches) inside `dir`, so that every file it writes is checked.
inline QProcessEnvironment isolatedEnvironment(const QString &dir)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("SPDLOG_LEVEL"));
    for (const char *variable : { "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME" }) {
        const QString name = QString::fromLatin1(variable);
        QDir(dir).mkpath(name.toLower());
        environment.insert(name, QDir(dir).filePath(name.toLower()));
    }
    return environment;
}

// Fails the current test when one of `secrets` appears in `output`, showing where.
inline void verifyNoSecretIn(const QByteArray &output, const QList<QByteArray> &secrets)
{
    for (const QByteArray &secret : secrets) {
        const auto at = output.indexOf(secret);
        QVERIFY2(at < 0,
                 qPrintable(QStringLiteral("a secret appears in the output: ...%1...")
                                .arg(QString::fromUtf8(
                                    output.mid(std::max<qsizetype>(0, at - 200), 260)))));
    }
}

} // namespace reconscope::tests
