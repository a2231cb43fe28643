// The conflict lab engine against the embedded cluster (its own thread, reached over mTLS through
// the kubeconfig it writes), plus the audit's definitions on hand-made histories.
#include "controller/kube/restclient.h"
#include "controller/labs/conflictaudit.h"
#include "controller/labs/conflictlab.h"
#include "controller/labs/labcluster.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;
namespace apimachinery = reconscope::controller::apimachinery;
namespace kube = reconscope::controller::kube;
namespace clabs = reconscope::controller::labs;

namespace {

clabs::ConflictVersion version(const char *rv,
                               std::int64_t generation,
                               std::optional<std::int64_t> desired,
                               std::optional<std::int64_t> observed)
{
    return clabs::ConflictVersion{
        u"ns/o"_s, QString::fromLatin1(rv), generation, desired, observed
    };
}

clabs::ConflictAck ack(const char *rv, clabs::ConflictWriter writer, std::int64_t value)
{
    return clabs::ConflictAck{ u"ns/o"_s, QString::fromLatin1(rv), writer, value };
}

constexpr auto GitOps = clabs::ConflictWriter::GitOps;
constexpr auto Reconciler = clabs::ConflictWriter::Reconciler;

} // namespace

class tst_ConflictLab : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void auditSeparatedWritersLoseNothing();
    void auditOverwriteByOtherWriterIsLost();
    void auditSupersededBySameWriterIsNotLost();
    void auditNoOpWriteConfirmsValue();
    void auditUnmatchedAcksAreReported();

    void designBHasNoConflictsAndNoLostUpdates();
    void designAConflictsOnStatusWritesWithoutLostUpdates();
    void designCChurnsGenerationsAndLosesUpdates();
    void designDAppliesWithoutConflictsOrFights();
    void designEWithForcePingPongsOwnership();
    void designEWithoutForceConflictsEveryTime();
    void cancelCleansUp();
    void plannedRequestsNameTheWrites();

private:
    clabs::ConflictLabResult run(clabs::ConflictDesign design,
                                 int durationMs,
                                 int objects = 2,
                                 bool reconcilerForces = true);
    int remainingObjects(const QString &plural);

    std::unique_ptr<clabs::LabCluster> m_cluster;
    kube::ClientConfig m_config;
};

void tst_ConflictLab::initTestCase()
{
    m_cluster = std::make_unique<clabs::LabCluster>();
    QSignalSpy ready(m_cluster.get(), &clabs::LabCluster::ready);
    QSignalSpy failed(m_cluster.get(), &clabs::LabCluster::failed);
    QVERIFY(m_cluster->start().ok());
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), 20000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    m_config = m_cluster->clientConfig();
}

void tst_ConflictLab::cleanupTestCase()
{
    m_cluster.reset();
}

clabs::ConflictLabResult tst_ConflictLab::run(clabs::ConflictDesign design,
                                              int durationMs,
                                              int objects,
                                              bool reconcilerForces)
{
    clabs::ConflictLabOptions options;
    options.design = design;
    options.reconcilerForces = reconcilerForces;
    options.durationMs = durationMs;
    options.objects = objects;
    clabs::ConflictLab lab(m_config, options);
    QSignalSpy finished(&lab, &clabs::ConflictLab::finished);
    QSignalSpy progress(&lab, &clabs::ConflictLab::progress);
    lab.start();
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), durationMs + 30000);
    }();
    if (finished.isEmpty())
        return {};
    [&] {
        QVERIFY(progress.size() > 3);
    }();
    const auto result = finished.first().first().value<clabs::ConflictLabResult>();
    qInfo().noquote() << QString::fromStdString(result.toJson().dump());
    return result;
}

int tst_ConflictLab::remainingObjects(const QString &plural)
{
    kube::RestClient client(m_config);
    int count = -1;
    apimachinery::ListOptions options;
    options.limit = kube::DefaultListPageSize;
    options.labelSelector = u"reconscope.io/conflict-lab"_s;
    client.list(apimachinery::ResourceRef{ u"kafka.internal.net"_s, u"v1"_s, plural, true },
                u"reconscope-conflict-lab"_s,
                options,
                [&count](reconscope::models::Result<kube::ListPage, apimachinery::ApiError> page) {
                    count = page.ok() ? int(page->items.size()) : -2;
                });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(count != -1, 10000);
    }();
    return count;
}

// A fight between the lab's two writers over `field` (the managers in name order).
static bool hasFightOver(const clabs::ConflictLabResult &result, const char *field)
{
    return std::any_of(result.fights.cbegin(), result.fights.cend(), [field](const auto &fight) {
        return fight.field == QLatin1StringView(field)
            && fight.kind == reconscope::controller::fieldowner::Fight::Kind::Alternating
            && fight.managerA == QLatin1StringView(clabs::conflictReconcilerManager)
            && fight.managerB == QLatin1StringView(clabs::conflictGitOpsManager);
    });
}

// --- the audit's definitions ---------------------------------------------------------------------

void tst_ConflictLab::auditSeparatedWritersLoseNothing()
{
    clabs::ConflictAudit audit;
    audit.recordVersion(version("1", 1, 1, std::nullopt));
    audit.recordVersion(version("2", 2, 5, std::nullopt));
    audit.recordVersion(version("3", 2, 5, 5));
    audit.recordVersion(version("4", 3, 6, 5));
    audit.recordVersion(version("5", 3, 6, 6));
    audit.recordAck(ack("2", GitOps, 5));
    audit.recordAck(ack("3", Reconciler, 5));
    audit.recordAck(ack("4", GitOps, 6));
    audit.recordAck(ack("5", Reconciler, 6));
    const auto figures = audit.analyse();
    QCOMPARE(figures.lostUpdates[0], 0);
    QCOMPARE(figures.lostUpdates[1], 0);
    QCOMPARE(figures.generationBumps[0], 2); // spec writes
    QCOMPARE(figures.generationBumps[1], 0); // status writes
    QCOMPARE(figures.unmatchedAcks, 0);
    QCOMPARE(audit.versionCount(), 5);
}

void tst_ConflictLab::auditOverwriteByOtherWriterIsLost()
{
    // The mixed design: the reconciler writes currentReplicas into spec (generation +1), the
    // GitOps re-apply of the Git manifest drops it, the reconciler writes it again.
    clabs::ConflictAudit audit;
    audit.recordVersion(version("10", 1, 1, std::nullopt));
    audit.recordVersion(version("11", 2, 1, 1));
    audit.recordVersion(version("12", 3, 4, std::nullopt)); // loses the reconciler's 1
    audit.recordVersion(version("13", 4, 5, std::nullopt)); // still lost: counted once
    audit.recordVersion(version("14", 5, 5, 5));
    audit.recordVersion(version("14", 5, 5, 5)); // a relist repeats it: ignored
    audit.recordAck(ack("11", Reconciler, 1));
    audit.recordAck(ack("12", GitOps, 4));
    audit.recordAck(ack("13", GitOps, 5));
    audit.recordAck(ack("14", Reconciler, 5));
    const auto figures = audit.analyse();
    QCOMPARE(figures.lostUpdates[size_t(GitOps)], 0);
    QCOMPARE(figures.lostUpdates[size_t(Reconciler)], 1);
    QCOMPARE(figures.generationBumps[size_t(GitOps)], 2);
    QCOMPARE(figures.generationBumps[size_t(Reconciler)], 2);
    QCOMPARE(audit.versionCount(), 5);
}

void tst_ConflictLab::auditSupersededBySameWriterIsNotLost()
{
    clabs::ConflictAudit audit;
    audit.recordVersion(version("1", 1, 1, std::nullopt));
    audit.recordVersion(version("2", 2, 2, std::nullopt));
    audit.recordVersion(version("3", 3, 3, std::nullopt));
    audit.recordVersion(version("4", 3, 7, std::nullopt)); // a third party: GitOps's 3 is lost
    audit.recordAck(ack("2", GitOps, 2));
    audit.recordAck(ack("3", GitOps, 3));
    const auto figures = audit.analyse();
    QCOMPARE(figures.lostUpdates[size_t(GitOps)], 1);
    QCOMPARE(figures.generationBumps[size_t(GitOps)], 2);
}

void tst_ConflictLab::auditNoOpWriteConfirmsValue()
{
    // The reconciler's PUT of an unchanged object keeps the resourceVersion GitOps produced.
    clabs::ConflictAudit audit;
    audit.recordVersion(version("1", 1, 1, 1));
    audit.recordVersion(version("2", 2, 3, 1));
    audit.recordAck(ack("1", Reconciler, 1));
    audit.recordAck(ack("2", Reconciler, 1));
    audit.recordAck(ack("2", GitOps, 3));
    const auto figures = audit.analyse();
    QCOMPARE(figures.lostUpdates[0], 0);
    QCOMPARE(figures.lostUpdates[1], 0);
    QCOMPARE(figures.generationBumps[size_t(GitOps)], 1);
    QCOMPARE(figures.generationBumps[size_t(Reconciler)], 0);
}

void tst_ConflictLab::auditUnmatchedAcksAreReported()
{
    clabs::ConflictAudit audit;
    audit.recordVersion(version("1", 1, 1, std::nullopt));
    audit.recordAck(ack("9", GitOps, 4));
    QCOMPARE(audit.analyse().unmatchedAcks, 1);
}

// --- against the embedded cluster ----------------------------------------------------------------

void tst_ConflictLab::designBHasNoConflictsAndNoLostUpdates()
{
    const auto result = run(clabs::ConflictDesign::SeparatedMergePatch, 2000);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.design, clabs::ConflictDesign::SeparatedMergePatch);
    QVERIFY(result.gitops().writes > 5);
    QVERIFY(result.reconciler().writes > 0);
    QVERIFY(result.reconciler().reconciles >= result.reconciler().writes);
    QCOMPARE(result.gitops().conflicts, 0);
    QCOMPARE(result.reconciler().conflicts, 0);
    QCOMPARE(result.gitops().lostUpdates, 0);
    QCOMPARE(result.reconciler().lostUpdates, 0);
    QCOMPARE(result.gitops().errors, 0);
    QCOMPARE(result.reconciler().errors, 0);
    // Spec writes bump generation, /status writes never do.
    QVERIFY(result.gitops().generationBumps > 0);
    QCOMPARE(result.reconciler().generationBumps, 0);
    QCOMPARE(result.unmatchedAcks, 0);
    // Spec and status have one writer each: no field-manager fight.
    QVERIFY2(result.fights.isEmpty(), result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"consumergroups"_s), 0);
}

void tst_ConflictLab::designAConflictsOnStatusWritesWithoutLostUpdates()
{
    const auto result = run(clabs::ConflictDesign::SeparatedPut, 2500);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(result.reconciler().conflicts > 0);
    QCOMPARE(result.gitops().conflicts, 0); // its merge patches carry no resourceVersion
    QCOMPARE(result.gitops().lostUpdates, 0);
    QCOMPARE(result.reconciler().lostUpdates, 0);
    QVERIFY(result.reconciler().writes > 0);
    QCOMPARE(result.reconciler().generationBumps, 0);
    QCOMPARE(result.reconciler().errors, 0);
    QCOMPARE(result.unmatchedAcks, 0);
    QVERIFY2(result.fights.isEmpty(), result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"consumergroups"_s), 0);
}

void tst_ConflictLab::designCChurnsGenerationsAndLosesUpdates()
{
    const auto result = run(clabs::ConflictDesign::Mixed, 2500);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    // Every write of the observed count into spec is a new generation.
    QVERIFY(result.reconciler().generationBumps > 0);
    QCOMPARE(result.reconciler().generationBumps, result.reconciler().writes);
    QVERIFY(result.gitops().conflicts + result.reconciler().conflicts > 0);
    // GitOps re-applies the Git manifest's spec, which has no currentReplicas.
    QVERIFY(result.reconciler().lostUpdates > 0);
    QCOMPARE(result.gitops().lostUpdates, 0); // both PUT at a resourceVersion
    QCOMPARE(result.unmatchedAcks, 0);
    // The reconciler sets spec.currentReplicas, the Git manifest's PUT removes it: a fight over
    // that field between the two writers' managers.
    QVERIFY2(hasFightOver(result, ".spec.currentReplicas"),
             result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"mixedconsumergroups"_s), 0);
}

void tst_ConflictLab::designDAppliesWithoutConflictsOrFights()
{
    const auto result = run(clabs::ConflictDesign::SeparatedApply, 2500);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(result.gitops().writes > 5);
    QVERIFY(result.reconciler().writes > 0);
    for (const auto &writer : result.writers) {
        QCOMPARE(writer.conflicts, 0);
        QCOMPARE(writer.applyConflicts, 0);
        QCOMPARE(writer.ownershipChanges, 0);
        QCOMPARE(writer.lostUpdates, 0);
        QCOMPARE(writer.errors, 0);
    }
    QVERIFY(result.gitops().generationBumps > 0);
    QCOMPARE(result.reconciler().generationBumps, 0); // /status
    QCOMPARE(result.unmatchedAcks, 0);
    QVERIFY2(result.fights.isEmpty(), result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"consumergroups"_s), 0);
}

void tst_ConflictLab::designEWithForcePingPongsOwnership()
{
    const auto result = run(clabs::ConflictDesign::MixedApply, 2500);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    // The reconciler's apply of spec.currentReplicas conflicts with gitops, which owns it from
    // the manifest; forced, it takes the field, and GitOps' next forced apply takes it back.
    QVERIFY(result.reconciler().applyConflicts > 0);
    QCOMPARE(result.reconciler().applyConflicts, result.reconciler().conflicts);
    QCOMPARE(result.gitops().applyConflicts, 0); // GitOps always forces
    QVERIFY(result.reconciler().ownershipChanges > 0);
    QVERIFY(result.gitops().ownershipChanges > 0);
    QVERIFY(result.reconciler().writes > 0);
    QVERIFY(result.reconciler().generationBumps > 0); // spec
    QCOMPARE(result.unmatchedAcks, 0);
    QVERIFY2(hasFightOver(result, ".spec.currentReplicas"),
             result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"mixedconsumergroups"_s), 0);
}

void tst_ConflictLab::designEWithoutForceConflictsEveryTime()
{
    const auto result = run(clabs::ConflictDesign::MixedApply, 2000, 2, false);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(result.reconciler().applyConflicts > 0);
    // Without force the field stays GitOps': nobody takes it from anybody.
    QCOMPARE(result.reconciler().ownershipChanges, 0);
    QCOMPARE(result.gitops().ownershipChanges, 0);
    QVERIFY2(result.fights.isEmpty(), result.toJson()["fights"].dump().c_str());
    QCOMPARE(remainingObjects(u"mixedconsumergroups"_s), 0);
}

void tst_ConflictLab::cancelCleansUp()
{
    clabs::ConflictLabOptions options;
    options.design = clabs::ConflictDesign::SeparatedMergePatch;
    options.durationMs = 60000;
    options.objects = 2;
    clabs::ConflictLab lab(m_config, options);
    QSignalSpy finished(&lab, &clabs::ConflictLab::finished);
    QSignalSpy figures(&lab, &clabs::ConflictLab::figuresChanged);
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(figures.size() >= 2, 20000);
    QVERIFY(lab.isRunning());
    lab.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
    const auto result = finished.first().first().value<clabs::ConflictLabResult>();
    QVERIFY(result.cancelled);
    QVERIFY(result.error.isEmpty());
    QVERIFY(result.durationMs < 30000);
    QVERIFY(!lab.isRunning());
    QCOMPARE(remainingObjects(u"consumergroups"_s), 0);
}

void tst_ConflictLab::plannedRequestsNameTheWrites()
{
    clabs::ConflictLabOptions options;
    options.design = clabs::ConflictDesign::SeparatedPut;
    const QString a = clabs::ConflictLab::plannedRequests(options).join(u'\n');
    QVERIFY(a.contains(
        u"PUT /apis/kafka.internal.net/v1/namespaces/reconscope-conflict-lab/consumergroups/NAME/status"_s));
    options.design = clabs::ConflictDesign::Mixed;
    const QString c = clabs::ConflictLab::plannedRequests(options).join(u'\n');
    QVERIFY(c.contains(u"mixedconsumergroups"_s));
    QVERIFY(!c.contains(u"/status"_s));
}

QTEST_GUILESS_MAIN(tst_ConflictLab)
#include "tst_conflictlab.moc"
