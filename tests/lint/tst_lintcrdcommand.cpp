// `reconscope lint-crd` as CI runs it: the exit codes (0 clean or warnings only, 1 an error-level
// finding or a failed live verdict, 2 usage and input errors with a message naming the input),
// the output formats, and --live against `reconscope serve` (the demo's CustomApps) reached through
// the kubeconfig it writes.
#include "../conformance/servefixture.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QtTest>

using namespace Qt::StringLiterals;

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run lintCrd(const QStringList &args, const QString &kubeconfig = {})
{
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    if (!kubeconfig.isEmpty())
        env.insert(u"KUBECONFIG"_s, kubeconfig);
    else
        env.insert(u"KUBECONFIG"_s, u"/nonexistent/kubeconfig"_s);
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE), QStringList{ u"lint-crd"_s } + args);
    Run run;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString own(const QString &file)
{
    return QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/crds/"_s + file;
}

QString real(const QString &file)
{
    return QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/crds/"_s + file;
}

} // namespace

class tst_LintCrdCommand : public QObject
{
    Q_OBJECT

private slots:
    void exitCodes_data();
    void exitCodes();
    void outputFormats();
    void liveAgainstServe();
};

void tst_LintCrdCommand::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrContains");

    QTest::newRow("clean") << QStringList{ own(u"customapps.infrastructure.internal.net.yaml"_s) }
                           << 0 << QString();
    QTest::newRow("clean redesign")
        << QStringList{ own(u"consumergroups.kafka.internal.net.yaml"_s) } << 0 << QString();
    QTest::newRow("mixed design has errors")
        << QStringList{ own(u"mixedconsumergroups.kafka.internal.net.yaml"_s) } << 1 << QString();
    QTest::newRow("argo cd: no status subresource")
        << QStringList{ real(u"argoproj.io_applications.yaml"_s) } << 1 << QString();
    QTest::newRow("warnings only")
        << QStringList{ real(u"keda.sh_scaledobjects.yaml"_s), u"-o"_s, u"json"_s } << 0
        << QString();
    QTest::newRow("missing file") << QStringList{ u"/nonexistent/crd.yaml"_s } << 2
                                  << u"/nonexistent/crd.yaml: no such file"_s;
    QTest::newRow("not a CRD") << QStringList{
        QStringLiteral(RECONSCOPE_SHARED_DIR)
        + u"/fixtures/real-crds/objects/certificate-ready.yaml"_s
    } << 2 << u"no CustomResourceDefinition"_s;
    QTest::newRow("a directory") << QStringList{ QStringLiteral(RECONSCOPE_SOURCE_DIR) } << 2
                                 << u"is a directory"_s;
    QTest::newRow("unknown format")
        << QStringList{ own(u"customapps.infrastructure.internal.net.yaml"_s), u"-o"_s, u"xml"_s }
        << 2 << u"unknown output format \"xml\""_s;
    QTest::newRow("unknown option") << QStringList{ u"--bogus"_s, u"x"_s } << 2 << u"usage:"_s;
    QTest::newRow("no argument") << QStringList{} << 2 << u"usage:"_s;
    QTest::newRow("object without live") << QStringList{
        own(u"customapps.infrastructure.internal.net.yaml"_s), u"--object"_s, u"default/web"_s
    } << 2 << u"--object needs --live"_s;
    QTest::newRow("a name but no kubeconfig")
        << QStringList{ u"customapps.infrastructure.internal.net"_s } << 2
        << u"reconscope lint-crd: "_s;
}

void tst_LintCrdCommand::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrContains);
    const Run run = lintCrd(args);
    QVERIFY2(run.exitCode == exitCode,
             qPrintable(u"exit %1\n%2\n%3"_s.arg(run.exitCode).arg(run.out, run.err)));
    if (!stderrContains.isEmpty())
        QVERIFY2(run.err.contains(stderrContains), qPrintable(run.err));
}

void tst_LintCrdCommand::outputFormats()
{
    const QString mixed = own(u"mixedconsumergroups.kafka.internal.net.yaml"_s);
    Run run = lintCrd({ mixed, u"-o"_s, u"json"_s });
    QCOMPARE(run.exitCode, 1);
    const auto json = nlohmann::json::parse(run.out.toStdString(), nullptr, false);
    QVERIFY(!json.is_discarded());
    QCOMPARE(json["crds"][0]["summary"]["error"].get<int>(), 4);
    QCOMPARE(json["crds"][0]["findings"][0]["severity"].get<std::string>(), std::string("error"));

    run = lintCrd({ mixed, u"-o"_s, u"markdown"_s });
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.startsWith(u"# API boundary report"));
    QVERIFY(run.out.contains(u"| error | no-status-subresource |"));

    run = lintCrd({ mixed });
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.contains(u"4 error(s), 2 warning(s)"));
}

void tst_LintCrdCommand::liveAgainstServe()
{
    ServeFixture serve;
    QVERIFY2(serve.start(), "reconscope serve did not come up");
    const QString crd = u"customapps.infrastructure.internal.net"_s;
    // The CRD by name from the cluster, linted: clean.
    Run run = lintCrd({ crd }, serve.kubeconfigPath());
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY(run.out.contains(u"(cluster): clean"));

    // Live on the first demo object: every verdict passes.
    run = lintCrd({ crd, u"--live"_s, u"-o"_s, u"markdown"_s }, serve.kubeconfigPath());
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY(run.out.contains(u"## Live boundary check: customapps "));
    QVERIFY(run.out.contains(u"All verdicts pass."));
    QCOMPARE(run.out.count(u"### PASS "), 7);
    QVERIFY(run.out.contains(u"?dryRun=All"));

    // A file's CRD checked live on the cluster.
    run = lintCrd({ own(u"customapps.infrastructure.internal.net.yaml"_s), u"--live"_s },
                  serve.kubeconfigPath());
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QCOMPARE(run.out.count(u"  pass  "), 7);

    // Input errors: a CRD the cluster does not have, an object that does not exist.
    run = lintCrd({ u"widgets.example.com"_s }, serve.kubeconfigPath());
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(u"widgets.example.com"), qPrintable(run.err));
    run = lintCrd({ crd, u"--live"_s, u"--object"_s, u"default/missing"_s },
                  serve.kubeconfigPath());
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(u"live check: customapps missing"), qPrintable(run.err));
}

QTEST_GUILESS_MAIN(tst_LintCrdCommand)
#include "tst_lintcrdcommand.moc"
