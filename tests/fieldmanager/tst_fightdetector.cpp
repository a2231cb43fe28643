// The fight detector over sequences of managedFields, time injected: two managers taking a field
// from each other, changes too far apart, shared ownership, fields set for the first time, the
// status writer owning a spec field, and entries it cannot read.
#include "controller/fieldowner/fightdetector.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Qt::StringLiterals;
using reconscope::controller::fieldowner::Fight;
using reconscope::controller::fieldowner::FightDetector;
using reconscope::controller::fieldowner::FightSettings;
using reconscope::models::ManagedFieldsEntry;

namespace {

const QDateTime Start = QDateTime(QDate(2026, 12, 5), QTime(1, 0), Qt::UTC);

QDateTime at(int seconds)
{
    return Start.addSecs(seconds);
}

ManagedFieldsEntry entry(const QString &manager,
                         const char *fieldsV1,
                         const QString &operation = u"Update"_s,
                         const QString &subresource = {})
{
    ManagedFieldsEntry out;
    out.manager = manager;
    out.operation = operation;
    out.apiVersion = u"infrastructure.internal.net/v1"_s;
    out.subresource = subresource;
    out.fieldsType = u"FieldsV1"_s;
    out.fieldsV1 = QString::fromLatin1(fieldsV1);
    return out;
}

const char *const Replicas = R"({"f:spec":{"f:replicas":{}}})";
const char *const Image = R"({"f:spec":{"f:image":{}}})";
const char *const ReplicasAndImage = R"({"f:spec":{"f:image":{},"f:replicas":{}}})";
const char *const Status = R"({"f:status":{"f:readyReplicas":{}}})";

// The versions an Update fight over .spec.replicas writes: gitops and the reconciler each set it
// in turn; the one that loses it keeps its other fields.
QList<ManagedFieldsEntry> replicasOwnedBy(const QString &owner)
{
    if (owner == u"gitops"_s)
        return { entry(u"gitops"_s, ReplicasAndImage) };
    return { entry(u"gitops"_s, Image), entry(u"reconciler"_s, Replicas) };
}

} // namespace

class tst_FightDetector : public QObject
{
    Q_OBJECT

private slots:
    void alternatingOwnersAreAFight();
    void changesTooFarApartAreNone();
    void sharedAndNewFieldsAreNoChange();
    void statusWriterOwningSpec();
    void removedAndSetAgainIsAFight();
    void unreadableEntriesOwnNothing();
    void settingsAreHonoured();
    void statusWritersByTheirFields();
};

void tst_FightDetector::alternatingOwnersAreAFight()
{
    FightDetector detector;
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"gitops"_s), at(0)).isEmpty());
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"reconciler"_s), at(5)).isEmpty());
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"gitops"_s), at(10)).isEmpty());
    const QList<Fight> started
        = detector.observe(u"ns/a"_s, replicasOwnedBy(u"reconciler"_s), at(15));
    QCOMPARE(started.size(), 1);
    const Fight &fight = started.front();
    QCOMPARE(fight.kind, Fight::Kind::Alternating);
    QCOMPARE(fight.object, u"ns/a"_s);
    QCOMPARE(fight.field, u".spec.replicas"_s);
    QCOMPARE(fight.managerA, u"gitops"_s);
    QCOMPARE(fight.managerB, u"reconciler"_s);
    QCOMPARE(fight.changes, 3);
    QCOMPARE(fight.first, at(5));
    QCOMPARE(fight.last, at(15));
    QCOMPARE(fight.perMinute(), 18.0);
    QCOMPARE(fight.describe(),
             u".spec.replicas: \"gitops\" and \"reconciler\" took it from each other 3 times in "
             "10 s (18.0/min)"_s);
    const auto json = fight.toJson();
    QVERIFY(json.at("type") == "fight");
    QVERIFY(json.at("kind") == "alternating-owners");
    QVERIFY(json.at("managers") == nlohmann::json::parse(R"(["gitops","reconciler"])"));
    QVERIFY(json.at("first") == "2026-12-05T01:00:05Z");

    // Going on: reported once, counted in current().
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"gitops"_s), at(20)).isEmpty());
    QList<Fight> current = detector.current(at(20));
    QCOMPARE(current.size(), 1);
    QCOMPARE(current.front().changes, 4);
    QCOMPARE(detector.currentFor(u"ns/a"_s, at(20)).size(), 1);
    QVERIFY(detector.currentFor(u"ns/b"_s, at(20)).isEmpty());
    // A minute later without changes it is over; a new round is reported again.
    QVERIFY(detector.current(at(80)).isEmpty());
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"reconciler"_s), at(100)).isEmpty());
    QVERIFY(detector.observe(u"ns/a"_s, replicasOwnedBy(u"gitops"_s), at(101)).isEmpty());
    QCOMPARE(detector.observe(u"ns/a"_s, replicasOwnedBy(u"reconciler"_s), at(102)).size(), 1);
    detector.remove(u"ns/a"_s);
    QVERIFY(detector.current(at(102)).isEmpty());
}

void tst_FightDetector::changesTooFarApartAreNone()
{
    FightDetector detector;
    const char *owners[] = { "gitops", "reconciler", "gitops", "reconciler", "gitops" };
    for (int i = 0; i < 5; ++i) {
        QVERIFY(
            detector.observe(u"ns/a"_s, replicasOwnedBy(QString::fromLatin1(owners[i])), at(i * 31))
                .isEmpty());
    }
    QVERIFY(detector.current(at(4 * 31)).isEmpty());
}

void tst_FightDetector::sharedAndNewFieldsAreNoChange()
{
    FightDetector detector;
    // Two appliers of the same value share it; a third manager sets a field nobody had.
    const QList<ManagedFieldsEntry> shared
        = { entry(u"gitops"_s, Replicas, u"Apply"_s), entry(u"argocd"_s, Replicas, u"Apply"_s) };
    const QList<ManagedFieldsEntry> gitopsAlone = { entry(u"gitops"_s, Replicas, u"Apply"_s) };
    for (int i = 0; i < 10; ++i) {
        QVERIFY(detector.observe(u"a"_s, i % 2 ? shared : gitopsAlone, at(i)).isEmpty());
        QList<ManagedFieldsEntry> more = i % 2 ? shared : gitopsAlone;
        if (i >= 3)
            more.append(entry(u"kubectl-label"_s, R"({"f:metadata":{"f:labels":{"f:x":{}}}})"));
        QVERIFY(detector.observe(u"b"_s, more, at(i)).isEmpty());
    }
    QVERIFY(detector.current(at(10)).isEmpty());
}

// The seed's mixed design written with Updates: the reconciler sets spec.currentReplicas, GitOps
// writes the Git manifest, which lacks it, and so removes it; each turn is a change between them.
void tst_FightDetector::removedAndSetAgainIsAFight()
{
    const char *const ReplicasAndCurrent = R"({"f:spec":{"f:currentReplicas":{}}})";
    auto gitopsWrote = [](int second) {
        ManagedFieldsEntry gitops = entry(u"gitops"_s, Replicas);
        gitops.time = at(second);
        return gitops;
    };
    auto reconcilerSet = [&](int gitopsSecond) {
        return QList<ManagedFieldsEntry>{ gitopsWrote(gitopsSecond),
                                          entry(u"reconciler"_s, ReplicasAndCurrent) };
    };
    FightDetector detector;
    QVERIFY(detector.observe(u"ns/m"_s, reconcilerSet(0), at(0)).isEmpty());
    // GitOps wrote (its entry's time moved) and the field is nobody's: taken by GitOps.
    QVERIFY(detector.observe(u"ns/m"_s, { gitopsWrote(2) }, at(2)).isEmpty());
    QVERIFY(detector.observe(u"ns/m"_s, reconcilerSet(2), at(3)).isEmpty()); // taken back
    const QList<Fight> started = detector.observe(u"ns/m"_s, { gitopsWrote(4) }, at(4));
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.first().field, u".spec.currentReplicas"_s);
    QCOMPARE(started.first().managerA, u"gitops"_s);
    QCOMPARE(started.first().managerB, u"reconciler"_s);
    QCOMPARE(started.first().changes, 3);

    // A removal in a version two other managers wrote is nobody's doing in particular: no change.
    FightDetector unclear;
    for (int i = 0; i < 8; ++i) {
        QList<ManagedFieldsEntry> version;
        if (i % 2 == 0) {
            version = reconcilerSet(i);
        } else {
            ManagedFieldsEntry other = entry(u"argocd"_s, Image);
            other.time = at(i);
            version = { gitopsWrote(i), other };
        }
        QVERIFY(unclear.observe(u"ns/m"_s, version, at(i)).isEmpty());
    }
    // Nor does the owner removing its own field count.
    FightDetector own;
    for (int i = 0; i < 8; ++i) {
        ManagedFieldsEntry reconciler = entry(u"reconciler"_s, i % 2 ? Image : ReplicasAndCurrent);
        reconciler.time = at(i);
        QVERIFY(own.observe(u"ns/m"_s, { gitopsWrote(0), reconciler }, at(i)).isEmpty());
    }
}

void tst_FightDetector::statusWriterOwningSpec()
{
    FightDetector detector;
    // The reconciler writes /status and sets a spec field as well (seen in the first version).
    QList<ManagedFieldsEntry> mixed = { entry(u"gitops"_s, Image),
                                        entry(u"reconciler"_s, Replicas),
                                        entry(u"reconciler"_s, Status, u"Update"_s, u"status"_s) };
    QList<Fight> started = detector.observe(u"ns/m"_s, mixed, at(0));
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.front().kind, Fight::Kind::StatusWriterOwnsSpec);
    QCOMPARE(started.front().field, u".spec.replicas"_s);
    QCOMPARE(started.front().managerA, u"reconciler"_s);
    QVERIFY(started.front().toJson().at("managers") == nlohmann::json::parse(R"(["reconciler"])"));
    mixed[2].time = at(3); // a status write changes no ownership
    QVERIFY(detector.observe(u"ns/m"_s, mixed, at(3)).isEmpty());
    QCOMPARE(detector.current(at(3)).size(), 1);
    // The spec field handed back: over.
    const QList<ManagedFieldsEntry> clean
        = { entry(u"gitops"_s, ReplicasAndImage),
            entry(u"reconciler"_s, Status, u"Update"_s, u"status"_s) };
    QVERIFY(detector.observe(u"ns/m"_s, clean, at(4)).isEmpty());
    QVERIFY(detector.current(at(4)).isEmpty());
    // A controller writing only /status, and a spec owner that writes no status: none.
    QVERIFY(detector.observe(u"ns/d"_s, clean, at(5)).isEmpty());
}

void tst_FightDetector::unreadableEntriesOwnNothing()
{
    FightDetector detector;
    QList<ManagedFieldsEntry> odd = { entry(u"a"_s, R"({"x:y":{}})"),
                                      entry(u"b"_s, R"({"f:spec":[]})"),
                                      entry(u"c"_s, "not json"),
                                      entry(u"d"_s, Replicas) };
    odd[3].fieldsType = u"FieldsV2"_s;
    for (int i = 0; i < 5; ++i) {
        std::rotate(odd.begin(), odd.begin() + 1, odd.end());
        QVERIFY(detector.observe(u"o"_s, odd, at(i)).isEmpty());
    }
    QVERIFY(detector.current(at(5)).isEmpty());
}

void tst_FightDetector::settingsAreHonoured()
{
    FightDetector detector(FightSettings{ 5, 10'000 });
    int reported = 0;
    for (int i = 0; i < 8; ++i)
        reported += int(
            detector
                .observe(u"a"_s, replicasOwnedBy(i % 2 ? u"reconciler"_s : u"gitops"_s), at(i * 2))
                .size());
    QCOMPARE(reported, 1); // at the fifth change, 2 s apart, all within 10 s
    QCOMPARE(detector.current(at(14)).front().changes, 6); // changes at 4..14 s
}

// Who writes status, for the boundary rule: a /status entry, fields below .status (a CRD without
// the subresource), or an observation the CRD keeps in spec.
void tst_FightDetector::statusWritersByTheirFields()
{
    using reconscope::controller::fieldowner::fieldOwnersOf;
    using reconscope::controller::fieldowner::specFieldsOfStatusWriters;
    const QList<ManagedFieldsEntry> throughMain
        = { entry(u"gitops"_s, Image),
            entry(u"ctl"_s, R"({"f:spec":{"f:replicas":{}},"f:status":{"f:ready":{}}})") };
    auto found = specFieldsOfStatusWriters(throughMain, fieldOwnersOf(throughMain));
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.front().manager, u"ctl"_s);
    QCOMPARE(found.front().field, u".spec.replicas"_s);

    const QList<ManagedFieldsEntry> inSpec
        = { entry(u"gitops"_s, Image),
            entry(u"ctl"_s, R"({"f:spec":{"f:currentReplicas":{},"f:phase":{}}})") };
    QVERIFY(specFieldsOfStatusWriters(inSpec, fieldOwnersOf(inSpec)).isEmpty());
    found
        = specFieldsOfStatusWriters(inSpec, fieldOwnersOf(inSpec), { u".spec.currentReplicas"_s });
    QCOMPARE(found.size(), 2);
    QCOMPARE(found[0].field, u".spec.currentReplicas"_s);
    QCOMPARE(found[1].field, u".spec.phase"_s);

    const QList<ManagedFieldsEntry> clean = { entry(u"gitops"_s, ReplicasAndImage),
                                              entry(u"ctl"_s, Status, u"Update"_s, u"status"_s) };
    QVERIFY(specFieldsOfStatusWriters(clean, fieldOwnersOf(clean)).isEmpty());
}

QTEST_GUILESS_MAIN(tst_FightDetector)
#include "tst_fightdetector.moc"
