// `reconscope conflict-lab` as a script runs it: the binary, on an embedded cluster of its own.
#include "../conformance/servefixture.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

struct Output
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Output runLab(const QStringList &arguments, int timeoutMs = 60000)
{
    QProcess process;
    process.setProgram(QStringLiteral(RECONSCOPE_EXECUTABLE));
    process.setArguments(QStringList{ u"conflict-lab"_s } + arguments);
    process.start();
    Output output;
    if (!process.waitForStarted(10000) || !process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return output;
    }
    output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    output.out = process.readAllStandardOutput();
    output.err = process.readAllStandardError();
    return output;
}

} // namespace

class tst_ConflictLabCommand : public QObject
{
    Q_OBJECT

private slots:
    void jsonHasTheFiguresPerWriter();
    void plainTextTable();
    void againstKubeconfig();
    void missingKubeconfig();
    void help();
    void badArguments_data();
    void badArguments();
};

void tst_ConflictLabCommand::jsonHasTheFiguresPerWriter()
{
    const auto output = runLab({ u"--design"_s,
                                 u"b"_s,
                                 u"--seconds"_s,
                                 u"1.5"_s,
                                 u"--objects"_s,
                                 u"2"_s,
                                 u"-o"_s,
                                 u"json"_s });
    QVERIFY2(output.exitCode == 0, output.err.constData());
    const QList<QByteArray> lines = output.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 1); // one JSON object, nothing else on stdout
    const auto json = nlohmann::json::parse(lines.first().toStdString(), nullptr, false);
    QVERIFY(json.is_object());
    QCOMPARE(json.value("design", ""), "b");
    QCOMPARE(json.value("objects", 0), 2);
    QVERIFY(json.value("seconds", 0.0) >= 1.4);
    for (const char *writer : { "gitops", "reconciler" }) {
        QVERIFY2(json.contains(writer) && json[writer].is_object(), writer);
        for (const char *key :
             { "conflicts", "writes", "lostUpdates", "generationBumps", "reconciles" })
            QVERIFY2(json[writer].contains(key) && json[writer][key].is_number_integer(), key);
        QCOMPARE(json[writer]["conflicts"].get<int>(), 0);
        QCOMPARE(json[writer]["lostUpdates"].get<int>(), 0);
        QVERIFY(json[writer]["writes"].get<int>() > 0);
    }
}

void tst_ConflictLabCommand::plainTextTable()
{
    const auto output
        = runLab({ u"--design"_s, u"c"_s, u"--seconds"_s, u"1"_s, u"--objects"_s, u"1"_s });
    QVERIFY2(output.exitCode == 0, output.err.constData());
    const QString text = QString::fromUtf8(output.out);
    QVERIFY(text.contains(u"(c) mixed"_s));
    QVERIFY(text.contains(u"lostUpdates"_s));
    QVERIFY(text.contains(u"\ngitops "_s));
    QVERIFY(text.contains(u"\nreconciler "_s));
}

void tst_ConflictLabCommand::againstKubeconfig()
{
    // A cluster in another process, reached through its kubeconfig as kind would be.
    ServeFixture serve;
    QVERIFY(serve.start({ u"--no-demo"_s }));
    const auto output = runLab({ u"--design"_s,
                                 u"a"_s,
                                 u"--seconds"_s,
                                 u"1"_s,
                                 u"--objects"_s,
                                 u"2"_s,
                                 u"--kubeconfig"_s,
                                 serve.kubeconfigPath(),
                                 u"--context"_s,
                                 u"reconscope-admin"_s,
                                 u"-o"_s,
                                 u"json"_s });
    QVERIFY2(output.exitCode == 0, output.err.constData());
    const auto json = nlohmann::json::parse(output.out.trimmed().toStdString(), nullptr, false);
    QVERIFY(json.is_object());
    QCOMPARE(json.value("crdInstalled", false), true);
    QVERIFY(json["gitops"]["writes"].get<int>() > 0);
    QVERIFY(json["reconciler"]["writes"].get<int>() > 0);
    QCOMPARE(json["reconciler"]["lostUpdates"].get<int>(), 0);
    if (ServeFixture::kubectlPath().isEmpty())
        return;
    // The CRD stays installed, the lab's objects are gone.
    const auto crd = serve.kubectl({ u"get"_s, u"crd"_s, u"consumergroups.kafka.internal.net"_s });
    QVERIFY2(crd.exitCode == 0, qPrintable(crd.err));
    const auto objects = serve.kubectl({ u"get"_s,
                                         u"consumergroups"_s,
                                         u"-n"_s,
                                         u"reconscope-conflict-lab"_s,
                                         u"-o"_s,
                                         u"name"_s });
    QVERIFY2(objects.exitCode == 0, qPrintable(objects.err));
    QCOMPARE(objects.out.trimmed(), QString());
}

void tst_ConflictLabCommand::missingKubeconfig()
{
    const auto output = runLab({ u"--design"_s,
                                 u"a"_s,
                                 u"--seconds"_s,
                                 u"1"_s,
                                 u"--kubeconfig"_s,
                                 u"/nonexistent/kubeconfig"_s },
                               10000);
    QCOMPARE(output.exitCode, 1);
    QVERIFY(output.err.contains("reconscope conflict-lab:"));
    QVERIFY(output.out.isEmpty());
}

void tst_ConflictLabCommand::help()
{
    const auto output = runLab({ u"--help"_s }, 10000);
    QCOMPARE(output.exitCode, 0);
    QVERIFY(output.out.contains("--design"));
    QVERIFY(output.out.contains("--seconds"));
    QVERIFY(output.out.contains("--kubeconfig"));
}

void tst_ConflictLabCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("no design") << QStringList{ u"--seconds"_s, u"1"_s }
                               << u"--design is required"_s;
    QTest::newRow("unknown design") << QStringList{ u"--design"_s, u"f"_s, u"--seconds"_s, u"1"_s }
                                    << u"unknown design \"f\""_s;
    QTest::newRow("no seconds") << QStringList{ u"--design"_s, u"a"_s }
                                << u"--seconds is required"_s;
    QTest::newRow("bad seconds") << QStringList{ u"--design"_s, u"a"_s, u"--seconds"_s, u"x"_s }
                                 << u"--seconds needs"_s;
    QTest::newRow("bad objects") << QStringList{ u"--design"_s, u"a"_s,         u"--seconds"_s,
                                                 u"1"_s,        u"--objects"_s, u"0"_s }
                                 << u"--objects needs"_s;
    QTest::newRow("bad output") << QStringList{ u"--design"_s, u"a"_s,  u"--seconds"_s,
                                                u"1"_s,        u"-o"_s, u"yaml"_s }
                                << u"unknown output format"_s;
    QTest::newRow("unknown option") << QStringList{ u"--bogus"_s } << u"bogus"_s;
}

void tst_ConflictLabCommand::badArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const auto output = runLab(arguments, 10000);
    QCOMPARE(output.exitCode, 2);
    QVERIFY2(QString::fromLocal8Bit(output.err).contains(message), output.err.constData());
    QVERIFY(output.err.contains("usage: reconscope conflict-lab"));
    QVERIFY(output.out.isEmpty());
}

QTEST_GUILESS_MAIN(tst_ConflictLabCommand)
#include "tst_conflictlabcommand.moc"
