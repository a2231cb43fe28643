#pragma once

// The kubectl the tests run: the one ./dev builds with the control plane from the same pinned
// release (RECONSCOPE_KUBECTL, set by CMake when the real-cluster tier is built), else a kubectl on
// PATH of client version 1.30 or later. Older ones (Debian 12's 1.20) lack --subresource and
// --show-managed-fields and are outside a 1.36 server's version skew, so they are not used.
//
// REQUIRE_KUBECTL() skips a test that needs kubectl when there is none, saying why, and fails it
// under CI (CI=true), where the real-cluster tier must run.
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QtTest>

namespace reconscope::tests {

struct TestKubectl
{
    QString path;
    QString whyMissing;
};

inline TestKubectl findTestKubectl()
{
    static const TestKubectl found = [] {
        TestKubectl result;
#ifdef RECONSCOPE_KUBECTL
        if (QFileInfo(QStringLiteral(RECONSCOPE_KUBECTL)).isExecutable()) {
            result.path = QStringLiteral(RECONSCOPE_KUBECTL);
            return result;
        }
#endif
        const QString onPath = QStandardPaths::findExecutable(QStringLiteral("kubectl"));
        if (onPath.isEmpty()) {
            result.whyMissing = QStringLiteral(
                "no kubectl: ./dev builds it with the control plane when Go >= 1.25 is installed");
            return result;
        }
        QProcess process;
        process.start(onPath,
                      { QStringLiteral("version"),
                        QStringLiteral("--client"),
                        QStringLiteral("-o"),
                        QStringLiteral("json") });
        process.waitForFinished(15000);
        const QJsonObject client = QJsonDocument::fromJson(process.readAllStandardOutput())
                                       .object()
                                       .value(QStringLiteral("clientVersion"))
                                       .toObject();
        const int major = client.value(QStringLiteral("major")).toString().toInt();
        const int minor = client.value(QStringLiteral("minor")).toString().remove(u'+').toInt();
        if (major > 1 || (major == 1 && minor >= 30)) {
            result.path = onPath;
            return result;
        }
        result.whyMissing
            = QStringLiteral("%1 is kubectl %2.%3, older than 1.30 (./dev builds a current one "
                             "when Go >= 1.25 is installed)")
                  .arg(onPath)
                  .arg(major)
                  .arg(minor);
        return result;
    }();
    return found;
}

inline QString testKubectlPath()
{
    return findTestKubectl().path;
}

} // namespace reconscope::tests

#define REQUIRE_KUBECTL() \
    do { \
        const auto kubectlFound = ::reconscope::tests::findTestKubectl(); \
        if (kubectlFound.path.isEmpty()) { \
            if (qEnvironmentVariable("CI") == QLatin1String("true")) \
                QFAIL(qPrintable(kubectlFound.whyMissing)); \
            QSKIP(qPrintable(kubectlFound.whyMissing)); \
        } \
    } while (false)
