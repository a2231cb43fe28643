// `kubectl apply --server-side` on both servers (tst_e2eserversideapply:embedded and :real): it
// creates and updates a CustomApp; a second manager's conflicting apply is refused with
// kube-apiserver's 409 and its words; --force-conflicts takes the field; and
// `kubectl get -o yaml --show-managed-fields` lists both managers, with the same managedFields
// (times aside) on both servers. A dry run stores nothing, and an Update by kubectl (scale
// through a merge patch) is an Update entry beside the appliers.
#include "tests/e2e/e2eserver.h"
#include "tests/testkubectl.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::tests::e2e::E2eServer;

namespace {

QByteArray manifest(const QString &ns, int replicas, const QString &image = u"nginx:1.27"_s)
{
    return u"apiVersion: infrastructure.internal.net/v1\n"
           "kind: CustomApp\n"
           "metadata:\n"
           "  name: web\n"
           "  namespace: %1\n"
           "spec:\n"
           "  image: %2\n"
           "  replicas: %3\n"_s.arg(ns, image)
               .arg(replicas)
               .toUtf8();
}

// Each entry without its time, which the two servers cannot share, in the order of their managers
// (upstream orders entries by time first, and writes a second apart or not depends on the pace).
json withoutTimes(json managedFields)
{
    for (json &entry : managedFields)
        entry.erase("time");
    std::sort(managedFields.begin(), managedFields.end(), [](const json &a, const json &b) {
        return a.value("manager", "") < b.value("manager", "");
    });
    return managedFields;
}

} // namespace

class tst_E2eServerSideApply : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void applyCreatesThenUpdates();
    void secondManagerConflicts();
    void forceConflictsTakesTheField();
    void managedFieldsListBothManagers();
    void dryRunStoresNothing();

private:
    json get();
    std::unique_ptr<E2eServer> m_server;
    QString m_ns;
};

void tst_E2eServerSideApply::initTestCase()
{
    REQUIRE_KUBECTL(); // every case runs kubectl
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    qInfo("server: %s", qPrintable(m_server->name()));
    QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
    m_ns = m_server->createNamespace(u"e2e-ssa"_s);
    QVERIFY(!m_ns.isEmpty());
}

void tst_E2eServerSideApply::cleanupTestCase()
{
    m_server.reset();
}

json tst_E2eServerSideApply::get()
{
    const auto result = m_server->kubectl({ u"get"_s,
                                            u"customapp"_s,
                                            u"web"_s,
                                            u"-n"_s,
                                            m_ns,
                                            u"-o"_s,
                                            u"json"_s,
                                            u"--show-managed-fields"_s });
    if (result.exitCode != 0)
        return json();
    return json::parse(result.out.toStdString(), nullptr, false);
}

void tst_E2eServerSideApply::applyCreatesThenUpdates()
{
    auto result = m_server->kubectl({ u"apply"_s, u"--server-side"_s, u"-f"_s, u"-"_s },
                                    reconscope::tests::e2e::Role::Admin,
                                    manifest(m_ns, 2));
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    QVERIFY2(result.out.contains("customapp.infrastructure.internal.net/web serverside-applied"),
             qPrintable(result.describe()));
    json object = get();
    QCOMPARE(object["spec"]["replicas"].get<int>(), 2);

    result = m_server->kubectl({ u"apply"_s, u"--server-side"_s, u"-f"_s, u"-"_s },
                               reconscope::tests::e2e::Role::Admin,
                               manifest(m_ns, 3));
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    object = get();
    QCOMPARE(object["spec"]["replicas"].get<int>(), 3);
    QCOMPARE(object["metadata"]["generation"].get<int>(), 2);
    const json expected = json::parse(R"([{"apiVersion":"infrastructure.internal.net/v1",
        "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:image":{},"f:replicas":{}}},
        "manager":"kubectl","operation":"Apply"}])");
    QVERIFY2(withoutTimes(object["metadata"]["managedFields"]) == expected,
             object["metadata"]["managedFields"].dump().c_str());
}

void tst_E2eServerSideApply::secondManagerConflicts()
{
    const auto result = m_server->kubectl(
        { u"apply"_s, u"--server-side"_s, u"--field-manager=gitops"_s, u"-f"_s, u"-"_s },
        reconscope::tests::e2e::Role::Admin,
        manifest(m_ns, 5));
    QVERIFY2(result.exitCode != 0, qPrintable(result.describe()));
    // kube-apiserver's 409, as kubectl prints it.
    QVERIFY2(result.err.contains(
                 "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas"),
             qPrintable(result.describe()));
    QVERIFY2(result.err.contains("Please review the fields above--they currently have other "
                                 "managers"),
             qPrintable(result.describe()));
    QCOMPARE(get()["spec"]["replicas"].get<int>(), 3);
}

void tst_E2eServerSideApply::forceConflictsTakesTheField()
{
    const auto result = m_server->kubectl({ u"apply"_s,
                                            u"--server-side"_s,
                                            u"--field-manager=gitops"_s,
                                            u"--force-conflicts"_s,
                                            u"-f"_s,
                                            u"-"_s },
                                          reconscope::tests::e2e::Role::Admin,
                                          manifest(m_ns, 5));
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    QCOMPARE(get()["spec"]["replicas"].get<int>(), 5);
}

void tst_E2eServerSideApply::managedFieldsListBothManagers()
{
    // An Update by kubectl beside the two appliers: a label through a merge patch.
    auto result = m_server->kubectl(
        { u"label"_s, u"customapp"_s, u"web"_s, u"-n"_s, m_ns, u"tier=front"_s });
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));

    result = m_server->kubectl({ u"get"_s,
                                 u"customapp"_s,
                                 u"web"_s,
                                 u"-n"_s,
                                 m_ns,
                                 u"-o"_s,
                                 u"yaml"_s,
                                 u"--show-managed-fields"_s });
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    QVERIFY2(result.out.contains("managedFields:"), qPrintable(result.describe()));
    QVERIFY2(result.out.contains("manager: kubectl\n"), qPrintable(result.describe()));
    QVERIFY2(result.out.contains("manager: gitops\n"), qPrintable(result.describe()));
    QVERIFY2(result.out.contains("manager: kubectl-label\n"), qPrintable(result.describe()));
    // Without --show-managed-fields kubectl hides them.
    result = m_server->kubectl(
        { u"get"_s, u"customapp"_s, u"web"_s, u"-n"_s, m_ns, u"-o"_s, u"yaml"_s });
    QVERIFY2(!result.out.contains("managedFields:"), qPrintable(result.describe()));

    // The same entries on both servers: kubectl keeps the image it still applies (shared with
    // gitops, which applied the same value), gitops took the replicas, kubectl-label its label.
    const json object = get();
    const json expected = json::parse(R"([
        {"apiVersion":"infrastructure.internal.net/v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:spec":{"f:image":{},"f:replicas":{}}},"manager":"gitops","operation":"Apply"},
        {"apiVersion":"infrastructure.internal.net/v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:spec":{"f:image":{}}},"manager":"kubectl","operation":"Apply"},
        {"apiVersion":"infrastructure.internal.net/v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:tier":{}}}},"manager":"kubectl-label",
         "operation":"Update"}])");
    QVERIFY2(withoutTimes(object["metadata"]["managedFields"]) == expected,
             object["metadata"]["managedFields"].dump().c_str());
}

void tst_E2eServerSideApply::dryRunStoresNothing()
{
    const json before = get();
    const auto result = m_server->kubectl({ u"apply"_s,
                                            u"--server-side"_s,
                                            u"--field-manager=scaler"_s,
                                            u"--force-conflicts"_s,
                                            u"--dry-run=server"_s,
                                            u"-o"_s,
                                            u"json"_s,
                                            u"--show-managed-fields"_s,
                                            u"-f"_s,
                                            u"-"_s },
                                          reconscope::tests::e2e::Role::Admin,
                                          manifest(m_ns, 9));
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    const json answered = json::parse(result.out.toStdString(), nullptr, false);
    QCOMPARE(answered["spec"]["replicas"].get<int>(), 9);
    bool scaler = false;
    for (const json &entry : answered["metadata"]["managedFields"])
        scaler = scaler || entry["manager"] == "scaler";
    QVERIFY2(scaler, answered["metadata"].dump().c_str());
    const json after = get();
    QVERIFY(after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]);
    QCOMPARE(after["spec"]["replicas"].get<int>(), 5);
}

QTEST_GUILESS_MAIN(tst_E2eServerSideApply)
#include "tst_e2eserversideapply.moc"
