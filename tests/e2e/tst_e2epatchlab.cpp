// The patch lab's verdicts on both servers: the seed's status override through /status (status
// changed, generation not), the same sent to the main resource (ignored: the CRD has a status
// subresource, and a no-op write stores nothing), a spec change (generation bumped), and a stale
// resourceVersion precondition (409 Conflict). Run through the lab as the console runs it.
#include "controller/kube/restclient.h"
#include "controller/labs/patchlab.h"
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace kube = reconscope::controller::kube;
namespace lab = reconscope::controller::labs;
using reconscope::tests::e2e::E2eServer;

namespace {
const apimachinery::ResourceRef CustomApps{ u"infrastructure.internal.net"_s,
                                            u"v1"_s,
                                            u"customapps"_s };
}

class tst_E2ePatchLab final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QString error;
        m_server = E2eServer::fromEnvironment(&error);
        QVERIFY2(m_server, qPrintable(error));
        QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
        m_ns = m_server->createNamespace(u"e2e-patchlab"_s);
        QVERIFY(!m_ns.isEmpty());
        QVERIFY(m_server->sendJson(
            "POST",
            CustomApps.collectionPath(m_ns),
            reconscope::tests::e2e::customAppManifest(u"web"_s, u"nginx:1.27"_s, 2)));
        m_client = std::make_unique<kube::RestClient>(m_server->config());
        m_lab = std::make_unique<lab::PatchLab>(m_client.get());
        m_lab->setReactionTimeout(0); // no reconciler runs here
    }
    void cleanupTestCase()
    {
        m_lab.reset();
        m_client.reset();
        m_server.reset();
    }

    void statusOverrideThroughStatus()
    {
        const auto *e
            = runToEnd(request(lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride));
        QVERIFY(e);
        QCOMPARE(e->httpCode, 200);
        QVERIFY(e->comparison.statusChanged());
        QVERIFY(!e->comparison.generationChanged());
        QCOMPARE(e->verdicts.value(0), u"spec unchanged, generation unchanged, status changed"_s);
    }

    void statusOnTheMainResourceIsIgnored()
    {
        const auto *e = runToEnd(request(lab::PatchTarget::Main, lab::PatchTemplate::SetDegraded));
        QVERIFY(e);
        QCOMPARE(e->httpCode, 200);
        QVERIFY(!e->comparison.statusChanged());
        QCOMPARE(e->verdicts.value(0), u"spec unchanged, generation unchanged, status unchanged"_s);
        QVERIFY2(e->verdicts.contains(
                     u"status in the patch was ignored: the CRD has a status subresource, so the "
                     "main resource keeps the stored status (write it through /status)"_s),
                 qPrintable(e->verdicts.join(u'\n')));
        // Nothing changed, so nothing was stored.
        QVERIFY(!e->comparison.resourceVersionChanged());
    }

    void specChangeBumpsTheGeneration()
    {
        const auto *e
            = runToEnd(request(lab::PatchTarget::Main, lab::PatchTemplate::BumpSpecField));
        QVERIFY(e);
        QCOMPARE(e->httpCode, 200);
        QVERIFY(e->comparison.specChanged());
        QCOMPARE(e->comparison.generationAfter, e->comparison.generationBefore + 1);
        QVERIFY(!e->comparison.statusChanged());
    }

    void staleResourceVersionConflicts()
    {
        lab::PatchRequest r
            = request(lab::PatchTarget::Status, lab::PatchTemplate::ClearConditions);
        r.precondition = lab::Precondition::Stale;
        const auto *e = runToEnd(r);
        QVERIFY(e);
        QCOMPARE(e->httpCode, 409);
        QVERIFY(e->error && e->error->isConflict());
        QVERIFY(!e->comparison.resourceVersionChanged());
    }

private:
    lab::PatchRequest request(lab::PatchTarget target, lab::PatchTemplate t) const
    {
        lab::PatchRequest r;
        r.resource = CustomApps;
        r.qualifiedResource = u"customapps.infrastructure.internal.net"_s;
        r.statusSubresource = true;
        r.namespace_ = m_ns;
        r.name = u"web"_s;
        r.target = target;
        r.type = apimachinery::PatchType::Merge;
        const auto object = m_server->getJson(CustomApps.objectPath(m_ns, u"web"_s));
        r.patch = lab::makeTemplate(
            t, r.type, object ? *object : json::object(), QDateTime::currentDateTimeUtc());
        return r;
    }
    const lab::PatchExperiment *runToEnd(const lab::PatchRequest &r)
    {
        QSignalSpy finished(m_lab.get(), &lab::PatchLab::experimentFinished);
        const int id = m_lab->run(r);
        if (id == 0 || !finished.wait(30000))
            return nullptr;
        return m_lab->experiment(id);
    }

    std::unique_ptr<E2eServer> m_server;
    std::unique_ptr<kube::RestClient> m_client;
    std::unique_ptr<lab::PatchLab> m_lab;
    QString m_ns;
};

QTEST_GUILESS_MAIN(tst_E2ePatchLab)
#include "tst_e2epatchlab.moc"
