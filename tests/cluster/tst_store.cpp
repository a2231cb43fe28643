// The embedded cluster's Store and ControllerManager on their own: commits reach the observers
// before the subscribers, the history serves reads at older revisions and is trimmed to its window,
// and the controllers queue work on commit and act only when the loop runs.
#include "controller/cluster/builtintypes.h"
#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/registry/deletion.h"
#include "controller/cluster/registry/store.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using json = nlohmann::json;

namespace {

json configMap(const QString &name, const json &metadata = json::object())
{
    json object = { { "apiVersion", "v1" },
                    { "kind", "ConfigMap" },
                    { "metadata", metadata },
                    { "data", { { "key", "value" } } } };
    object["metadata"]["name"] = name.toStdString();
    object["metadata"]["namespace"] = "default";
    object["metadata"]["uid"] = (u"uid-"_s + name).toStdString();
    return object;
}

// Records the order in which the fan-out reaches it.
class RecordingObserver final : public StoreObserver
{
public:
    explicit RecordingObserver(QStringList &log)
        : m_log(log)
    { }
    void recordStored(const TypeEntry &, const RecordPtr &record, const RecordPtr &) override
    {
        m_log << u"stored "_s + record->name;
    }
    void recordDeleted(const TypeEntry &, const RecordPtr &last) override
    {
        m_log << u"deleted "_s + last->name;
    }

private:
    QStringList &m_log;
};

QStringList namesAt(const Store &store, const TypeEntry &type, qint64 rv)
{
    QStringList names;
    store.forEachAt(*store.findBucket(type.storageKey), rv, {}, [&](const RecordPtr &record) {
        names << record->name + u'@' + QString::number(record->resourceVersion);
        return true;
    });
    return names;
}

} // namespace

class tst_Store final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void observersHearCommitsBeforeSubscribers();
    void readsAtOlderRevisions();
    void historyKeepsItsWindow();
    void controllersActWhenTheLoopRuns();

private:
    std::unique_ptr<Store> m_store;
    TypePtr m_configMaps;
};

void tst_Store::init()
{
    m_store = std::make_unique<Store>(nullptr);
    for (const ResourceType &type : builtinResourceTypes())
        m_store->registerTypes({ type });
    m_configMaps = m_store->lookup({}, u"v1"_s, u"configmaps"_s);
    QVERIFY(m_configMaps);
}

void tst_Store::observersHearCommitsBeforeSubscribers()
{
    QStringList log;
    RecordingObserver observer(log);
    m_store->addObserver(&observer);
    const int id = m_store->subscribe(
        [&](const ClusterEvent &event) { log << u"event "_s + event.object->name; });
    RecordPtr record = m_store->commitPut(*m_configMaps, configMap(u"a"_s), {});
    m_store->commitDelete(*m_configMaps, record);
    m_store->unsubscribe(id);
    m_store->commitPut(*m_configMaps, configMap(u"b"_s), {});
    QCOMPARE(
        log,
        QStringList({ u"stored a"_s, u"event a"_s, u"deleted a"_s, u"event a"_s, u"stored b"_s }));
}

void tst_Store::readsAtOlderRevisions()
{
    RecordPtr a = m_store->commitPut(*m_configMaps, configMap(u"a"_s), {});
    RecordPtr b = m_store->commitPut(*m_configMaps, configMap(u"b"_s), {});
    json changed = m_store->parseRecord(*m_configMaps, a);
    changed["data"]["key"] = "other";
    RecordPtr a2 = m_store->commitPut(*m_configMaps, changed, a);
    m_store->commitDelete(*m_configMaps, b);
    QCOMPARE(m_store->revision(), b->resourceVersion + 2);
    QCOMPARE(namesAt(*m_store, *m_configMaps, b->resourceVersion),
             QStringList({ u"a@%1"_s.arg(a->resourceVersion), u"b@%1"_s.arg(b->resourceVersion) }));
    QCOMPARE(namesAt(*m_store, *m_configMaps, m_store->revision()),
             QStringList({ u"a@%1"_s.arg(a2->resourceVersion) }));
    QCOMPARE(m_store->find(*m_configMaps, u"default"_s, u"b"_s), RecordPtr());
    QCOMPARE(m_store->locate(u"uid-a"_s).second, a2);
}

void tst_Store::historyKeepsItsWindow()
{
    for (const QString &name : { u"a"_s, u"b"_s, u"c"_s })
        m_store->commitPut(*m_configMaps, configMap(name), {});
    QCOMPARE(m_store->compactedRevision(), 0);
    m_store->setHistoryWindow(1);
    QCOMPARE(qsizetype(m_store->history().size()), 1);
    QCOMPARE(m_store->compactedRevision(), m_store->revision() - 1);
    m_store->compact();
    QVERIFY(m_store->history().empty());
    QCOMPARE(m_store->compactedRevision(), m_store->revision());
}

void tst_Store::controllersActWhenTheLoopRuns()
{
    const ClusterClock clock = [] {
        return QDateTime::currentDateTimeUtc();
    };
    ControllerManager controllers(*m_store, clock);
    RecordPtr owner = m_store->commitPut(*m_configMaps, configMap(u"owner"_s), {});
    const json reference = {
        { "apiVersion", "v1" }, { "kind", "ConfigMap" }, { "name", "owner" }, { "uid", "uid-owner" }
    };
    m_store->commitPut(
        *m_configMaps,
        configMap(u"dependent"_s, { { "ownerReferences", json::array({ reference }) } }),
        {});
    QCOMPARE(m_store->dependents(u"uid-owner"_s), QStringList({ u"uid-dependent"_s }));

    // Deleting the owner in the background: the dependent goes once the loop runs.
    auto deleted = deleteRecord(*m_store, clock, m_configMaps, owner, u"Background"_s, false);
    QVERIFY(deleted.ok());
    QVERIFY(!m_store->find(*m_configMaps, u"default"_s, u"owner"_s));
    QVERIFY(m_store->find(*m_configMaps, u"default"_s, u"dependent"_s));
    controllers.run();
    QVERIFY(!m_store->find(*m_configMaps, u"default"_s, u"dependent"_s));
    QCOMPARE(m_store->objectCount(), 0);
}

QTEST_GUILESS_MAIN(tst_Store)
#include "tst_store.moc"
