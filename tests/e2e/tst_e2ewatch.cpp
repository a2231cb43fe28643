// `reconscope watch` of the real CRDs and objects in shared/fixtures/real-crds, on both servers
// (and the census and the watch gap: tst_e2ecensus).
// The twelve CRDs are installed through the API (kubectl create, as a user would); each object is
// loaded by one loader for both servers (created without its status, which then goes through the
// /status subresource when the CRD has one), and `reconscope watch -o json` must print, as its
// first line for the object (its census entry: it was there when the watch connected), the state
// the lifecycle rules give for the object the server stored, and the state this table names: the
// same on both servers. Objects of versions no longer served, or of kinds whose CRD is not among
// the fixtures, must be refused by both servers with 404.
#include "models/lifecycle.h"
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "models/yamljson.h"
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace models = reconscope::models;
using reconscope::tests::e2e::E2eServer;

namespace {

constexpr int WaitMs = 30000;

QString fixtures(const QString &sub)
{
    return QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/"_s + sub;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// What a fixture CRD serves: its plural, the versions served, whether status is a subresource.
struct CrdInfo
{
    json crd;
    QString plural;
    QStringList served;
    QStringList withStatusSubresource;
    bool namespaced = true;
};

} // namespace

class tst_E2eWatch final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void realObjectsEnterTheirState_data();
    void realObjectsEnterTheirState();
    void deletionWithAFinalizerIsTerminating();

private:
    // Loads one object into `ns`; false with *error when the server refused it.
    bool load(json object, const QString &ns, QString *error, json *stored, int *status = nullptr);
    // The first line `reconscope watch` prints for the namespace, parsed.
    json firstWatchLine(const QString &resource, const QString &ns, QString *error);

    std::unique_ptr<E2eServer> m_server;
    QMap<QString, CrdInfo> m_crds; // by group/Kind
    QStringList m_clusterScoped; // paths of the cluster-scoped objects made, deleted at the end
};

void tst_E2eWatch::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    const QDir dir(fixtures(u"crds"_s));
    const QStringList files = dir.entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 12);
    for (const QString &file : files) {
        QVERIFY2(m_server->applyFile(dir.filePath(file), &error),
                 qPrintable(file + u": "_s + error));
        const auto documents = models::yamlDocumentsToJson(readFile(dir.filePath(file)));
        QVERIFY(documents && !documents->isEmpty());
        const json &crd = documents->first();
        CrdInfo info;
        info.crd = crd;
        info.plural = QString::fromStdString(crd["spec"]["names"]["plural"].get<std::string>());
        info.namespaced = crd["spec"].value("scope", "Namespaced") == "Namespaced";
        for (const json &version : crd["spec"]["versions"]) {
            const QString name = QString::fromStdString(version["name"].get<std::string>());
            if (version.value("served", false))
                info.served << name;
            if (version.contains("subresources") && version["subresources"].contains("status"))
                info.withStatusSubresource << name;
        }
        m_crds.insert(QString::fromStdString(crd["spec"]["group"].get<std::string>()) + u'/'
                          + QString::fromStdString(crd["spec"]["names"]["kind"].get<std::string>()),
                      info);
    }
}

void tst_E2eWatch::cleanupTestCase()
{
    for (const QString &path : std::as_const(m_clusterScoped))
        (void)m_server->sendJson("DELETE", path, json::object());
    m_server.reset();
}

bool tst_E2eWatch::load(json object, const QString &ns, QString *error, json *stored, int *status)
{
    const QString apiVersion = QString::fromStdString(object.value("apiVersion", ""));
    const QString group = apiVersion.section(u'/', 0, 0);
    const QString version = apiVersion.section(u'/', 1, 1);
    const QString kind = QString::fromStdString(object.value("kind", ""));
    const auto crd = m_crds.constFind(group + u'/' + kind);
    // Without the CRD, the path is a guess (lower-case kind + s): the server answers 404 either
    // way.
    const QString plural = crd != m_crds.cend() ? crd->plural : kind.toLower() + u's';
    const bool namespaced = crd == m_crds.cend() || crd->namespaced;
    const QString collection = namespaced
        ? u"/apis/%1/%2/namespaces/%3/%4"_s.arg(group, version, ns, plural)
        : u"/apis/%1/%2/%3"_s.arg(group, version, plural);
    // What a user's manifest would not carry: the server's own metadata.
    json &meta = object["metadata"];
    for (const char *field : { "namespace",
                               "resourceVersion",
                               "uid",
                               "creationTimestamp",
                               "generation",
                               "managedFields",
                               "deletionTimestamp",
                               "deletionGracePeriodSeconds",
                               "selfLink" })
        meta.erase(field);
    const json statusPart = object.contains("status") ? object["status"] : json();
    const bool statusSubresource
        = crd != m_crds.cend() && crd->withStatusSubresource.contains(version);
    if (statusSubresource)
        object.erase("status");
    if (!namespaced) {
        // Cluster-scoped: one name for every run, so the last run's object goes first.
        const QString path = collection + u'/' + QString::fromStdString(meta["name"]);
        (void)m_server->sendJson("DELETE", path, json::object());
        (void)QTest::qWaitFor([&] { return !m_server->getJson(path); }, WaitMs);
        m_clusterScoped << path;
    }
    auto created = m_server->sendJson("POST", collection, object);
    if (!created) {
        if (status)
            *status = created.error().code;
        *error = created.error().toString();
        return false;
    }
    *stored = *created;
    if (statusSubresource && statusPart.is_object()) {
        const QString name = QString::fromStdString(meta["name"].get<std::string>());
        auto patchStatus = [&] {
            return m_server->sendJson("PATCH",
                                      collection + u'/' + name + u"/status"_s,
                                      { { "status", statusPart } },
                                      reconscope::tests::e2e::Role::Admin,
                                      "application/merge-patch+json");
        };
        auto updated = patchStatus();
        // kube-apiserver may answer a new CRD's /status with 404 for a moment after the CRD is
        // Established and its main resource serves (seen once in 23 objects): asked again.
        for (int attempt = 0; !updated && updated.error().isNotFound() && attempt < 50; ++attempt) {
            QTest::qWait(100);
            updated = patchStatus();
        }
        if (!updated) {
            *error = u"status: "_s + updated.error().toString();
            return false;
        }
        *stored = *updated;
    }
    // As a client would read it back (defaults applied on read included).
    auto read = m_server->getJson(collection + u'/'
                                  + QString::fromStdString(meta["name"].get<std::string>()));
    if (read)
        *stored = *read;
    return true;
}

json tst_E2eWatch::firstWatchLine(const QString &resource, const QString &ns, QString *error)
{
    QProcess watch;
    watch.setProcessEnvironment(m_server->environment());
    watch.start(qEnvironmentVariable("RECONSCOPE_EXECUTABLE"),
                { u"watch"_s,
                  resource,
                  u"-n"_s,
                  ns,
                  u"-o"_s,
                  u"json"_s,
                  u"--context"_s,
                  m_server->context(reconscope::tests::e2e::Role::Admin) });
    QByteArray out;
    const bool gotLine = QTest::qWaitFor(
        [&] {
            out += watch.readAllStandardOutput();
            return out.contains('\n') || watch.state() == QProcess::NotRunning;
        },
        WaitMs);
    const QByteArray err = watch.readAllStandardError();
    watch.terminate();
    if (!watch.waitForFinished(5000))
        watch.kill();
    if (!gotLine || !out.contains('\n')) {
        *error = u"no line from reconscope watch; stderr: "_s + QString::fromUtf8(err);
        return nullptr;
    }
    return json::parse(out.left(out.indexOf('\n')).toStdString(), nullptr, false);
}

void tst_E2eWatch::realObjectsEnterTheirState_data()
{
    QTest::addColumn<QString>("file");
    // A state, or "refused" (404 on both servers). The state is that of the object as the server
    // stores it, not as its file name says: the server sets metadata.generation to 1 and applies
    // the CRD's status defaults (Flux: observedGeneration -1, so a Ready Kustomization without an
    // observedGeneration reads as a stale status, Reconciling).
    QTest::addColumn<QString>("expected");
    // clang-format off
    const QList<QPair<const char *, const char *>> table{
        { "application-healthy-synced.yaml", "Ready" },
        { "awsmanagedcontrolplane-stale-generation.yaml", "refused" },
        { "certificate-issuing-ready-false.yaml", "Reconciling" },
        { "certificate-ready.yaml", "Ready" },
        { "certificate-v1alpha2-ready-false-configerror.yaml", "refused" },
        { "cluster-v1alpha3-ready-false-provisioningfailed.yaml", "refused" },
        { "composition-nostatus.yaml", "NoLifecycle" },
        { "helmrelease-stalled.yaml", "Reconciling" },
        { "helmrepository-stalled.yaml", "Degraded" },
        { "kafkabridge-terminating-ready-stale.yaml", "refused" },
        { "kustomization-nostatus-status-defaults.yaml", "Pending" },
        { "kustomization-ready-false-artifactfailed.yaml", "Reconciling" },
        { "kustomization-ready.yaml", "Reconciling" },
        { "kustomization-reconciling-stale-generation.yaml", "Reconciling" },
        { "kustomization-reconciling.yaml", "Reconciling" },
        { "machinepool-ready-false-waitingforinfrastructure.yaml", "Reconciling" },
        { "machinepool-ready.yaml", "Ready" },
        { "provider-healthy-false.yaml", "Reconciling" },
        { "resticvolumebackup-terminating-failed.yaml", "refused" },
        { "scaledobject-ready-false-checkfailed.yaml", "Reconciling" },
        { "scaledobject-ready.yaml", "Ready" },
        { "servicemonitor-bindings-mixed.yaml", "Unknown" },
        { "servicemonitor-nostatus.yaml", "Pending" },
    };
    // clang-format on
    const QStringList files = QDir(fixtures(u"objects"_s)).entryList({ u"*.yaml"_s }, QDir::Files);
    QCOMPARE(files.size(), table.size()); // a new fixture needs its row
    for (const auto &[file, expected] : table)
        QTest::newRow(file) << QString::fromLatin1(file) << QString::fromLatin1(expected);
}

void tst_E2eWatch::realObjectsEnterTheirState()
{
    QFETCH(QString, file);
    QFETCH(QString, expected);
    const auto documents = models::yamlDocumentsToJson(readFile(fixtures(u"objects/"_s + file)));
    QVERIFY2(documents && !documents->isEmpty(), qPrintable(file));
    const json object = documents->first();
    const QString ns = m_server->createNamespace(u"e2e-watch"_s);
    QVERIFY(!ns.isEmpty());
    QString error;
    json stored;
    int status = 0;
    const bool loaded = load(object, ns, &error, &stored, &status);
    if (expected == u"refused") {
        QVERIFY2(!loaded, "the server accepted an object of a version or kind it does not serve");
        QVERIFY2(status == 404, qPrintable(error));
        return;
    }
    QVERIFY2(loaded, qPrintable(error));

    const QString group = QString::fromStdString(object["apiVersion"]).section(u'/', 0, 0);
    const CrdInfo crd = m_crds.value(group + u'/' + QString::fromStdString(object["kind"]));
    const models::LifecycleMapping mapping = models::LifecycleMapping::forCrd(crd.crd);
    const auto summary = models::ObjectSummary::fromJson(stored, mapping);
    QVERIFY(summary);
    const models::LifecycleVerdict verdict = models::deriveLifecycle(summary.value(), mapping);
    QCOMPARE(models::lifecycleStateName(verdict.state), expected);

    const json line = firstWatchLine(crd.plural + u'.' + group, ns, &error);
    QVERIFY2(line.is_object(), qPrintable(error));
    // Already there when the watch connects: the census, not a transition.
    QCOMPARE(QString::fromStdString(line.value("type", "")), u"census"_s);
    QCOMPARE(QString::fromStdString(line.value("state", "")), expected);
    const QString name = QString::fromStdString(stored["metadata"]["name"]);
    QCOMPARE(QString::fromStdString(line.value("key", "")),
             crd.namespaced ? ns + u'/' + name : name);
}

void tst_E2eWatch::deletionWithAFinalizerIsTerminating()
{
    const auto documents
        = models::yamlDocumentsToJson(readFile(fixtures(u"objects/kustomization-ready.yaml"_s)));
    QVERIFY(documents && !documents->isEmpty());
    json object = documents->first();
    object["metadata"]["finalizers"] = { "finalizers.fluxcd.io" };
    const QString ns = m_server->createNamespace(u"e2e-watch"_s);
    QString error;
    json stored;
    QVERIFY2(load(object, ns, &error, &stored), qPrintable(error));
    const QString path
        = u"/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/%1/kustomizations/podinfo"_s.arg(ns);
    QVERIFY(m_server->sendJson("DELETE", path, json::object()));
    const json line = firstWatchLine(u"kustomizations.kustomize.toolkit.fluxcd.io"_s, ns, &error);
    QVERIFY2(line.is_object(), qPrintable(error));
    QCOMPARE(QString::fromStdString(line.value("state", "")), u"Terminating"_s);
    // The finalizer removed: the object goes.
    QVERIFY(m_server->sendJson("PATCH",
                               path,
                               { { "metadata", { { "finalizers", nullptr } } } },
                               reconscope::tests::e2e::Role::Admin,
                               "application/merge-patch+json"));
    QVERIFY(QTest::qWaitFor([&] { return !m_server->getJson(path); }, WaitMs));
}

QTEST_GUILESS_MAIN(tst_E2eWatch)
#include "tst_e2ewatch.moc"
