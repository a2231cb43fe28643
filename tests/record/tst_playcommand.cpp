// `reconscope play`: a kubectl capture taken from the real control plane (data/kubectl/) played
// into a fresh `reconscope serve --no-demo`, while `reconscope watch` watches there. The watch sees
// the transitions `reconscope replay` prints for the same capture (the states the lifecycle rules
// give; times and generation numbers are the cluster's own). Played again into the same cluster,
// whose objects are then there already, it leaves every object as last recorded. Bad input gives
// a clear error and no write.

#include "../conformance/servefixture.h"
#include "tests/testkubectl.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace Qt::StringLiterals;

namespace {

QString dataFile(const QString &name)
{
    return QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/tests/record/data/kubectl/"_s + name;
}

const QStringList Capture{ dataFile(u"events-epoch.jsonl"_s), dataFile(u"crd.json"_s) };

// "key from → to" of each transition of the demo namespace's objects.
QStringList moves(const QByteArray &output)
{
    QStringList out;
    for (const QByteArray &line : output.split('\n')) {
        const QJsonObject transition = QJsonDocument::fromJson(line).object();
        const QString key = transition.value(u"key"_s).toString();
        if (key.startsWith(u"demo/"_s))
            out << u"%1 %2 → %3"_s.arg(
                key, transition.value(u"from"_s).toString(), transition.value(u"to"_s).toString());
    }
    return out;
}

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QString err;
};

Run runReconscope(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE), arguments);
    Run run;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        run.err = u"did not finish in 60 s"_s;
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// The conditions of an object as "type=status/reason", in order.
QStringList conditionsOf(const QJsonObject &object)
{
    QStringList out;
    const QJsonArray conditions
        = object.value(u"status"_s).toObject().value(u"conditions"_s).toArray();
    for (const QJsonValue &condition : conditions) {
        const QJsonObject c = condition.toObject();
        out << u"%1=%2/%3"_s.arg(c.value(u"type"_s).toString(),
                                 c.value(u"status"_s).toString(),
                                 c.value(u"reason"_s).toString());
    }
    return out;
}

} // namespace

class tst_PlayCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void watchSeesWhatReplayPrints();
    void playedAgainLeavesObjectsAsLastRecorded();
    void refusesBadInput_data();
    void refusesBadInput();

private:
    ServeFixture m_serve;
};

void tst_PlayCommand::initTestCase()
{
    REQUIRE_KUBECTL(); // the cases write and read through kubectl
    QVERIFY(m_serve.start({ u"--no-demo"_s }));
}

void tst_PlayCommand::cleanupTestCase()
{
    m_serve.stop();
}

void tst_PlayCommand::watchSeesWhatReplayPrints()
{
    QProcess watch;
    watch.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                { u"watch"_s,
                  u"customapps"_s,
                  u"-A"_s,
                  u"-o"_s,
                  u"json"_s,
                  u"--kubeconfig"_s,
                  m_serve.kubeconfigPath() });
    // A sentinel in another namespace: once the watch prints it, it is watching.
    const auto created = m_serve.kubectl(
        { u"create"_s, u"-f"_s, u"-"_s },
        "{\"apiVersion\":\"infrastructure.internal.net/v1\",\"kind\":\"CustomApp\","
        "\"metadata\":{\"name\":\"sentinel\",\"namespace\":\"default\"},"
        "\"spec\":{\"image\":\"nginx\",\"replicas\":1}}");
    QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    QByteArray seen;
    QTRY_VERIFY_WITH_TIMEOUT((seen += watch.readAllStandardOutput()).contains("default/sentinel"),
                             20000);

    const Run play = runReconscope(
        QStringList{ u"play"_s } + Capture
        + QStringList{ u"--kubeconfig"_s, m_serve.kubeconfigPath(), u"--speed"_s, u"max"_s });
    QVERIFY2(play.exitCode == 0, qPrintable(play.err));
    QVERIFY2(play.err.contains(u"8 changes made"_s), qPrintable(play.err));

    const Run replay = runReconscope(QStringList{ u"replay"_s } + Capture
                                     + QStringList{ u"--speed"_s, u"max"_s, u"-o"_s, u"json"_s });
    QCOMPARE(replay.exitCode, 0);
    const QStringList expected = moves(replay.out);
    QCOMPARE(expected.size(), 7); // four created, web and worker moved on, reports deleted
    QTRY_COMPARE_WITH_TIMEOUT(moves(seen += watch.readAllStandardOutput()), expected, 20000);
    watch.terminate();
    watch.waitForFinished(5000);
}

void tst_PlayCommand::playedAgainLeavesObjectsAsLastRecorded()
{
    // Every object but reports (deleted at the end) is there from the test before.
    const Run play = runReconscope(
        QStringList{ u"play"_s } + Capture
        + QStringList{ u"--kubeconfig"_s, m_serve.kubeconfigPath(), u"--speed"_s, u"max"_s });
    QVERIFY2(play.exitCode == 0, qPrintable(play.err));

    // The last recorded object of each key.
    QHash<QString, QJsonObject> recorded;
    QFile capture(Capture.first());
    QVERIFY(capture.open(QIODevice::ReadOnly));
    for (const QByteArray &line : capture.readAll().split('\n')) {
        const qsizetype json = line.indexOf('{');
        if (json < 0)
            continue;
        const QJsonObject event = QJsonDocument::fromJson(line.mid(json)).object();
        const QJsonObject object = event.value(u"object"_s).toObject();
        const QString name = object.value(u"metadata"_s).toObject().value(u"name"_s).toString();
        if (event.value(u"type"_s).toString() == u"DELETED"_s)
            recorded.remove(name);
        else
            recorded.insert(name, object);
    }
    const auto got
        = m_serve.kubectl({ u"get"_s, u"customapps"_s, u"-n"_s, u"demo"_s, u"-o"_s, u"json"_s });
    QCOMPARE(got.exitCode, 0);
    const QJsonArray items
        = QJsonDocument::fromJson(got.out.toUtf8()).object().value(u"items"_s).toArray();
    QStringList names;
    for (const QJsonValue &item : items) {
        const QJsonObject object = item.toObject();
        const QString name = object.value(u"metadata"_s).toObject().value(u"name"_s).toString();
        names << name;
        QVERIFY2(recorded.contains(name), qPrintable(name));
        QCOMPARE(object.value(u"spec"_s), recorded[name].value(u"spec"_s));
        QCOMPARE(conditionsOf(object), conditionsOf(recorded[name]));
    }
    QStringList expected = recorded.keys();
    expected.sort();
    names.sort();
    QCOMPARE(names, expected);
}

void tst_PlayCommand::refusesBadInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("said");
    QTest::newRow("no kubeconfig") << QStringList{ u"play"_s, Capture.first() } << 2
                                   << u"--kubeconfig names the cluster to play into"_s;
    QTest::newRow("no file") << QStringList{ u"play"_s, u"--kubeconfig"_s, u"KC"_s } << 2
                             << u"name the recording to play"_s;
    QTest::newRow("bad speed") << QStringList{ u"play"_s, Capture.first(), u"--kubeconfig"_s,
                                               u"KC"_s,   u"--speed"_s,    u"fast"_s }
                               << 2 << u"--speed \"fast\" is not a positive number or max"_s;
    QTest::newRow("missing file") << QStringList{
        u"play"_s, u"/nonexistent/capture.jsonl"_s, u"--kubeconfig"_s, u"KC"_s
    } << 1 << u"/nonexistent/capture.jsonl"_s;
}

void tst_PlayCommand::refusesBadInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, said);
    arguments.replaceInStrings(QRegularExpression(u"^KC$"_s), m_serve.kubeconfigPath());
    const Run run = runReconscope(arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(said), qPrintable(run.err));
}

QTEST_GUILESS_MAIN(tst_PlayCommand)
#include "tst_playcommand.moc"
