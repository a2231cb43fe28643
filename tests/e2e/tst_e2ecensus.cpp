// The census and the watch gap end to end (issue 23, part 1), on both servers: `reconscope watch
// -o json` connects to a namespace already holding an object in every state and prints them as
// the census (no transition, nothing off-design, time in state from the Ready condition's
// lastTransitionTime or unknown); a later real change is one live transition; changes made while
// the watch is cut (the process stopped, the API server restarted, the history compacted, so that
// the watch cannot resume and relists) are one transition each, across the gap, and the objects
// that did not change print nothing. The gap is made deterministic by stopping the watch process
// (SIGSTOP) until the changes and the compaction are done.
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QtTest>

#include <csignal>
#include <sys/types.h>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::tests::e2e::E2eServer;
using reconscope::tests::e2e::Role;
using reconscope::tests::e2e::UncachedWidgets;

namespace {

constexpr int WaitMs = 60000;
const char *const ReadySince = "2026-01-01T00:00:00Z";

json condition(const char *type, const char *status, const char *since = ReadySince)
{
    return { { "type", type },
             { "status", status },
             { "reason", std::string(type) + status },
             { "message", "" },
             { "lastTransitionTime", since } };
}

// A member's value as text ("null" when absent or null), for comparisons.
std::string text(const json &line, const char *member)
{
    const json value = line.value(member, json());
    return value.is_string() ? value.get<std::string>() : value.dump();
}

json readyStatus(const char *ready, const char *degraded = "False")
{
    return { { "observedGeneration", 1 },
             { "conditions",
               { condition("Ready", ready),
                 condition("Degraded", degraded, "2026-01-02T00:00:00Z") } } };
}

} // namespace

class tst_E2eCensus final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void censusThenLiveThenGap();

private:
    QString objectPath(const QString &name) const
    {
        return UncachedWidgets.collectionPath(m_ns) + u'/' + name;
    }
    // Creates the widget, then writes its status (none: left Pending).
    void make(const QString &name, const json &status, bool finalizer = false);
    void setStatus(const QString &name, const json &status);
    // The watch's JSON lines read so far, waiting until `until` holds of them.
    bool readUntil(const std::function<bool(const QList<json> &)> &until);

    std::unique_ptr<E2eServer> m_server;
    QString m_ns;
    QProcess m_watch;
    QByteArray m_out;
    QList<json> m_lines;
};

void tst_E2eCensus::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    QVERIFY2(
        m_server->apply(
            QByteArray::fromStdString(reconscope::tests::e2e::uncachedWidgetsCrd().dump()), &error),
        qPrintable(error));
    m_ns = m_server->createNamespace(u"e2e-census"_s);
    QVERIFY(!m_ns.isEmpty());
}

void tst_E2eCensus::cleanupTestCase()
{
    if (m_watch.state() != QProcess::NotRunning) {
        ::kill(pid_t(m_watch.processId()), SIGCONT);
        m_watch.kill();
        m_watch.waitForFinished(5000);
    }
    if (m_server && !m_ns.isEmpty()) // the finalizer would hold the namespace's deletion
        (void)m_server->sendJson("PATCH",
                                 objectPath(u"terminating"_s),
                                 { { "metadata", { { "finalizers", nullptr } } } },
                                 Role::Admin,
                                 "application/merge-patch+json");
    m_server.reset();
}

void tst_E2eCensus::make(const QString &name, const json &status, bool finalizer)
{
    json object{ { "apiVersion", "e2e.reconscope.dev/v1" },
                 { "kind", "UncachedWidget" },
                 { "metadata", { { "name", name.toStdString() } } },
                 { "spec", { { "size", 1 } } } };
    if (finalizer)
        object["metadata"]["finalizers"] = { "e2e.reconscope.dev/hold" };
    const auto created = m_server->sendJson("POST", UncachedWidgets.collectionPath(m_ns), object);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
    if (!status.is_null())
        setStatus(name, status);
}

void tst_E2eCensus::setStatus(const QString &name, const json &status)
{
    // As the widgets' controller, a manager of its own (the creator writing status too would be a
    // fight the watch prints).
    const auto patched
        = m_server->sendJson("PATCH",
                             objectPath(name) + u"/status?fieldManager=widget-controller"_s,
                             { { "status", status } },
                             Role::Admin,
                             "application/merge-patch+json");
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
}

bool tst_E2eCensus::readUntil(const std::function<bool(const QList<json> &)> &until)
{
    return QTest::qWaitFor(
        [&] {
            m_out += m_watch.readAllStandardOutput();
            for (qsizetype end = m_out.indexOf('\n'); end >= 0; end = m_out.indexOf('\n')) {
                m_lines << json::parse(m_out.left(end).toStdString(), nullptr, false);
                m_out.remove(0, end + 1);
            }
            return until(m_lines);
        },
        WaitMs);
}

void tst_E2eCensus::censusThenLiveThenGap()
{
    // An object in every state before the watch connects.
    make(u"pending"_s, json());
    make(u"reconciling"_s, readyStatus("False"));
    make(u"ready"_s, readyStatus("True"));
    make(u"degraded"_s, readyStatus("False", "True"));
    make(u"terminating"_s, readyStatus("True"), true);
    QVERIFY(m_server->sendJson("DELETE", objectPath(u"terminating"_s), json::object()));
    const QMap<QString, QString> states{
        { u"pending"_s, u"Pending"_s },
        { u"reconciling"_s, u"Reconciling"_s },
        { u"ready"_s, u"Ready"_s },
        { u"degraded"_s, u"Degraded"_s },
        { u"terminating"_s, u"Terminating"_s },
    };

    m_watch.setProcessEnvironment(m_server->environment());
    m_watch.start(qEnvironmentVariable("RECONSCOPE_EXECUTABLE"),
                  { u"watch"_s,
                    u"uncachedwidgets.e2e.reconscope.dev"_s,
                    u"-n"_s,
                    m_ns,
                    u"-o"_s,
                    u"json"_s,
                    u"--context"_s,
                    m_server->context(Role::Admin) });
    QVERIFY(m_watch.waitForStarted(10000));
    const auto key = [this](const QString &name) {
        return (m_ns + u'/' + name).toStdString();
    };

    // 1. The census: one entry per object in its state, no transition, nothing off-design.
    QVERIFY2(readUntil([&](const QList<json> &lines) { return lines.size() >= states.size(); }),
             m_watch.readAllStandardError().constData());
    QCOMPARE(m_lines.size(), states.size());
    for (const json &line : std::as_const(m_lines)) {
        QCOMPARE(line.value("type", ""), "census");
        const QString name = QString::fromStdString(line.value("key", "")).section(u'/', 1);
        QCOMPARE(QString::fromStdString(line.value("state", "")), states.value(name));
        QVERIFY(!line.contains("onDesign"));
        // Time in state: the deciding condition's lastTransitionTime, else unknown.
        if (name == u"ready" || name == u"reconciling") {
            QCOMPARE(text(line, "since"), std::string(ReadySince));
            QCOMPARE(text(line, "sinceFrom"), "Ready.lastTransitionTime");
        } else if (name == u"degraded") {
            QCOMPARE(text(line, "sinceFrom"), "Degraded.lastTransitionTime");
        } else {
            QCOMPARE(text(line, "since"), "null");
        }
    }

    // 2. A real change: one live transition, on design.
    setStatus(u"reconciling"_s, readyStatus("True"));
    QVERIFY(readUntil([&](const QList<json> &lines) { return lines.size() > states.size(); }));
    const json live = m_lines.at(states.size());
    QCOMPARE(live.value("type", ""), "transition");
    QCOMPARE(live.value("key", ""), key(u"reconciling"_s));
    QCOMPARE(live.value("from", ""), "Reconciling");
    QCOMPARE(live.value("to", ""), "Ready");
    QCOMPARE(live.value("onDesign", false), true);
    QCOMPARE(live.value("acrossGap", true), false);
    const qsizetype beforeGap = m_lines.size();

    // 3. The watch cut: the process stopped, the API server restarted under it; meanwhile `ready`
    // goes Degraded and `pending` is deleted, and the history is compacted so that the watch
    // cannot resume (410 Gone) and relists.
    QCOMPARE(::kill(pid_t(m_watch.processId()), SIGSTOP), 0);
    QString error;
    QVERIFY2(m_server->restartApiServer(&error), qPrintable(error));
    setStatus(u"ready"_s, readyStatus("False", "True"));
    QVERIFY(m_server->sendJson("DELETE", objectPath(u"pending"_s), json::object()));
    QVERIFY2(m_server->compact(&error), qPrintable(error));
    QCOMPARE(::kill(pid_t(m_watch.processId()), SIGCONT), 0);
    QVERIFY2(readUntil([&](const QList<json> &lines) { return lines.size() >= beforeGap + 2; }),
             m_watch.readAllStandardError().constData());
    // Settled: nothing else comes (the unchanged objects print nothing).
    QTest::qWait(2000);
    readUntil([](const QList<json> &) { return true; });
    const QList<json> gap = m_lines.mid(beforeGap);
    QCOMPARE(gap.size(), 2);
    const json &degraded = gap[0].value("key", "") == key(u"ready"_s) ? gap[0] : gap[1];
    const json &deleted = gap[0].value("key", "") == key(u"ready"_s) ? gap[1] : gap[0];
    QCOMPARE(degraded.value("type", ""), "transition");
    QCOMPARE(degraded.value("from", ""), "Ready");
    QCOMPARE(degraded.value("to", ""), "Degraded");
    QCOMPARE(degraded.value("acrossGap", false), true);
    QCOMPARE(degraded.value("onDesign", false), true); // Ready -> Reconciling -> Degraded
    QCOMPARE(text(degraded, "sinceFrom"), "Degraded.lastTransitionTime");
    QCOMPARE(deleted.value("key", ""), key(u"pending"_s));
    QCOMPARE(deleted.value("to", ""), "[*]");
    QCOMPARE(deleted.value("acrossGap", false), true);
    m_watch.terminate();
    QVERIFY(m_watch.waitForFinished(10000));
}

QTEST_GUILESS_MAIN(tst_E2eCensus)
#include "tst_e2ecensus.moc"
