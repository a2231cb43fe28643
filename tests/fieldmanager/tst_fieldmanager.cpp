// The field manager (controller/fieldowner) replayed against kube-apiserver: each file of data/
// is a sequence of applies and updates by several managers that tools/fieldmanager/record.py
// sent to a real kube-apiserver 1.36, with its answers: over a CRD of its own with every list
// and map type, and (real-*) over the real CRDs and objects of shared/fixtures/real-crds, whose
// schema the test reads from there. Every step goes through FieldManager;
// managedFields must come out as the server's (times compared as the index of the step that
// wrote them), conflicts with the server's status code, message and causes, and an apply's
// object with the server's spec, status and metadata maps.

#include "controller/cluster/schema/structuralschema.h"
#include "controller/fieldowner/fieldmanager.h"
#include "controller/fieldowner/typeschema.h"
#include "models/yamljson.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>

using namespace reconscope::controller::fieldowner;
using json = nlohmann::json;

namespace {

const QDateTime base = QDateTime::fromSecsSinceEpoch(1'800'000'000).toUTC();

json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    return json::parse(file.readAll().toStdString(), nullptr, false);
}

// The openAPIV3Schema of the sequence's version: given, or read from the CRD file it names.
json schemaOf(const json &sequence)
{
    if (sequence.contains("schema"))
        return sequence["schema"];
    QFile file(QStringLiteral(RECONSCOPE_SHARED_DIR "/")
               + QString::fromStdString(sequence["crdFile"].get<std::string>()));
    if (!file.open(QIODevice::ReadOnly))
        return json();
    auto crd = reconscope::models::yamlToJson(file.readAll());
    if (!crd)
        return json();
    const std::string apiVersion = sequence["apiVersion"];
    const std::string version = apiVersion.substr(apiVersion.rfind('/') + 1);
    for (const json &v : (*crd)["spec"]["versions"]) {
        if (v["name"] == version)
            return v["schema"]["openAPIV3Schema"];
    }
    return json();
}

// managedFields with each time replaced by the index of the step that wrote it.
json normalizedManagedFields(const json &object)
{
    const json *fields = managedFieldsOf(object);
    if (!fields)
        return json::array();
    json out = *fields;
    for (json &entry : out) {
        if (entry.contains("time") && entry["time"].is_string()) {
            const QDateTime time = QDateTime::fromString(
                QString::fromStdString(entry["time"].get<std::string>()), Qt::ISODate);
            entry["time"] = base.secsTo(time);
        }
    }
    return out;
}

json expectedManagedFields(const json &answer)
{
    const json *fields = managedFieldsOf(answer);
    return fields ? *fields : json::array();
}

// What the comparison of objects looks at: the content and the metadata maps managers write.
json content(const json &object)
{
    json out = json::object();
    for (const char *key : { "spec", "status" }) {
        if (object.contains(key))
            out[key] = object[key];
    }
    if (object.contains("metadata")) {
        for (const char *key : { "labels", "annotations", "finalizers" }) {
            if (object["metadata"].contains(key))
                out["metadata"][key] = object["metadata"][key];
        }
    }
    return out;
}

// The custom resource strategy's resets, which the cluster applies after the field manager:
// the main resource keeps the stored status, /status keeps everything but status.
json resetLikeStrategy(json merged, const json &live, bool status)
{
    if (!status) {
        if (live.is_object() && live.contains("status"))
            merged["status"] = live["status"];
        else
            merged.erase("status");
        return merged;
    }
    json out = live;
    if (merged.contains("status"))
        out["status"] = merged["status"];
    else
        out.erase("status");
    out["metadata"]["managedFields"] = merged["metadata"]["managedFields"];
    return out;
}

json causesSorted(json causes)
{
    if (!causes.is_array())
        return json::array();
    std::sort(causes.begin(), causes.end(), [](const json &a, const json &b) {
        return a.dump() < b.dump();
    });
    return causes;
}

// Whether two JSON values are equal; prints both in full when not (QCOMPARE cuts them short).
bool sameJson(const json &actual, const json &expected, const QByteArray &where)
{
    if (actual == expected)
        return true;
    qWarning("%s\n  actual:   %s\n  expected: %s",
             where.constData(),
             actual.dump().c_str(),
             expected.dump().c_str());
    return false;
}

std::string optionalString(const json &step, const char *key)
{
    return step.contains(key) && step[key].is_string() ? step[key].get<std::string>()
                                                       : std::string();
}

} // namespace

class tst_FieldManager : public QObject
{
    Q_OBJECT

private slots:
    void recordedSequences_data();
    void recordedSequences();
    void conflictMessages();
    void applyRefusals();
    void schemaBecameAtomic();
    void timeOnlyChanges();
    void retimeSoleOwner();
    void retimedInRecordedSequences();

private:
    int m_retimed = 0; // status writes of the recorded sequences the shortcut answered
    // The object the next step starts from: the server's answer carrying the managedFields this
    // replay computed, so that a difference shows at the step that makes it.
    static json carryOver(const json &answer, const json &mine);
};

void tst_FieldManager::recordedSequences_data()
{
    QTest::addColumn<QString>("file");
    const QDir dir(QStringLiteral(RECONSCOPE_TEST_DATA));
    const QStringList files = dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 15, "the recorded sequences are missing");
    for (const QString &name : files)
        QTest::newRow(qPrintable(name.chopped(5))) << dir.filePath(name);
}

json tst_FieldManager::carryOver(const json &answer, const json &mine)
{
    json next = answer;
    if (const json *fields = managedFieldsOf(mine))
        next["metadata"]["managedFields"] = *fields;
    else
        next["metadata"].erase("managedFields");
    return next;
}

void tst_FieldManager::recordedSequences()
{
    QFETCH(QString, file);
    const json sequence = readJson(file);
    QVERIFY(sequence.is_object());
    const json openApi = schemaOf(sequence);
    QVERIFY2(openApi.is_object(), "no schema for the sequence");
    const TypeRef type = types::fromCrdSchema(openApi);
    const std::string apiVersion = sequence["apiVersion"];
    const std::string kind = sequence["kind"];
    const bool statusSubresource = sequence["statusSubresource"];
    auto structural = reconscope::controller::cluster::StructuralSchema::fromJson(openApi);
    QVERIFY(structural);
    const reconscope::controller::cluster::StructuralSchema schema = *structural;
    json live; // null: the object does not exist yet
    int index = 0;
    for (const json &step : sequence["steps"]) {
        const QByteArray where = QByteArray("step ") + QByteArray::number(index) + " ("
            + QByteArray::fromStdString(step["op"].get<std::string>()) + ")";
        const bool status = step["status"].get<bool>();
        const QDateTime at = base.addSecs(index);
        const FieldManager manager(
            type,
            apiVersion,
            kind,
            status ? "status" : "",
            customResourceResetFields(statusSubresource, status ? "status" : ""),
            [at] { return at; });
        const int code = step["code"];
        const json &answer = step["answer"];
        if (step["op"] == "apply") {
            auto result
                = manager.apply(live, step["body"], step["manager"], step["force"].get<bool>());
            if (code == 400 || code == 500 || code == 409) { // refused by the field manager
                QVERIFY2(!result, where.constData());
                // The whole Status; conflict causes in any order (upstream lists managers in
                // Go's map order).
                json status = result.error().toStatus(), expected = answer;
                if (code == 409) {
                    status["details"]["causes"] = causesSorted(status["details"]["causes"]);
                    expected["details"]["causes"] = causesSorted(expected["details"]["causes"]);
                }
                QVERIFY(sameJson(status, expected, where + " status"));
                ++index;
                continue;
            }
            QVERIFY2(result,
                     (where + ": "
                      + QByteArray::fromStdString(result ? std::string() : result.error().message))
                         .constData());
            if (code >= 300) {
                // Refused by validation after the merge: the field the server names is null in
                // the merged object too (a map or list the apply emptied), and nothing is stored.
                QCOMPARE(code, 422);
                json value = resetLikeStrategy(*result, live, status);
                for (const QString &part :
                     QString::fromStdString(answer["details"]["causes"][0]["field"])
                         .split(QLatin1Char('.')))
                    value = value.is_object() ? value.value(part.toStdString(), json("absent"))
                                              : json("absent");
                QVERIFY2(value.is_null(), where.constData());
                ++index;
                continue;
            }
            // The store after the strategy: a write that changes nothing but times keeps none.
            json stored = resetLikeStrategy(*result, live, status);
            // The custom resource's defaults and pruning, which the cluster applies after the
            // field manager (upstream defaults the merged object and prunes it on its way in).
            schema.applyDefaults(stored);
            schema.prune(stored);
            if (!live.is_null())
                stored = ignoreTimeOnlyChanges(live, std::move(stored));
            QVERIFY(sameJson(content(stored), content(answer), where + " object"));
            QVERIFY(sameJson(normalizedManagedFields(stored),
                             expectedManagedFields(answer),
                             where + " managedFields"));
            live = carryOver(answer, stored);
        } else {
            QVERIFY2(code < 300, where.constData());
            // The object the server stored, with the managedFields the request carried in.
            json updated = answer;
            updated["metadata"].erase("managedFields");
            const json &body = step["body"];
            if (step["op"] == "update" || step["op"] == "create") {
                // Decoding a custom resource's metadata drops an empty list (omitempty).
                if (body.contains("metadata") && body["metadata"].contains("managedFields")
                    && !body["metadata"]["managedFields"].empty())
                    updated["metadata"]["managedFields"] = body["metadata"]["managedFields"];
            } else if (const json *fields = managedFieldsOf(live)) {
                updated["metadata"]["managedFields"] = *fields;
            }
            // HTTP drops the spaces around a header's value before the server reads it.
            const QString userAgent
                = QString::fromStdString(optionalString(step, "userAgent")).trimmed();
            const std::string name
                = updateManagerName(optionalString(step, "manager"), userAgent.toStdString());
            json stored = manager.update(step["op"] == "create" ? json() : live, updated, name);
            // The status fast path's shortcut, where it answers, answers as update() does.
            if (status && step["op"] != "create" && managedFieldsOf(live)) {
                json retimed = *managedFieldsOf(live);
                if (manager.retimeSoleOwner(
                        retimed, "status", live.value("status", json()), answer["status"], name)) {
                    ++m_retimed;
                    QVERIFY(sameJson(retimed, *managedFieldsOf(stored), where + " retimed"));
                }
            }
            if (step["op"] != "create")
                stored = ignoreTimeOnlyChanges(live, std::move(stored));
            QVERIFY(sameJson(normalizedManagedFields(stored),
                             expectedManagedFields(answer),
                             where + " managedFields"));
            live = carryOver(answer, stored);
        }
        ++index;
    }
}

void tst_FieldManager::conflictMessages()
{
    const ManagerId gitops{ "gitops", Operation::Apply, {}, {} };
    const ManagerId hpa{ "hpa", Operation::Update, "apps/v1", {} };
    const ManagerId status{ "ctl", Operation::Update, "v1", "status" };
    const Path replicas{ PathElement::field("spec"), PathElement::field("replicas") };
    const Path image{ PathElement::field("spec"), PathElement::field("image") };
    const Path port{ PathElement::field("spec"),
                     PathElement::field("ports"),
                     PathElement::key({ { "name", "http" } }),
                     PathElement::field("port") };

    ApplyError one = conflictError({ { gitops, replicas } });
    QCOMPARE(
        QString::fromStdString(one.message),
        QStringLiteral("Apply failed with 1 conflict: conflict with \"gitops\": .spec.replicas"));
    QCOMPARE(one.code, 409);
    QCOMPARE(QString::fromStdString(one.toStatus()["details"]["causes"][0]["reason"]),
             QStringLiteral("FieldManagerConflict"));

    ApplyError several
        = conflictError({ { hpa, replicas }, { gitops, image }, { hpa, port }, { status, image } });
    QCOMPARE(QString::fromStdString(several.message),
             QStringLiteral("Apply failed with 4 conflicts: conflicts with \"ctl\" with "
                            "subresource \"status\" using v1:\n- .spec.image\n"
                            "conflicts with \"gitops\":\n- .spec.image\nconflicts with \"hpa\" "
                            "using apps/v1:\n- .spec.replicas\n"
                            "- .spec.ports[name=\"http\"].port"));
    QCOMPARE(several.causes.size(), std::size_t(4));
    QCOMPARE(QString::fromStdString(several.causes[0].message),
             QStringLiteral("conflict with \"hpa\" using apps/v1"));
}

void tst_FieldManager::applyRefusals()
{
    const FieldManager manager(
        types::fromCrdSchema(json::parse(
            R"({"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"},"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"}}}}}}}})")),
        "example.com/v1",
        "Thing");
    const json good = json::parse(
        R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"replicas":1}})");

    json wrongKind = good;
    wrongKind["kind"] = "Other";
    auto refused = manager.apply(json(), wrongKind, "m", false);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, 400);
    QCOMPARE(QString::fromStdString(refused.error().message),
             QStringLiteral("invalid object type: example.com/v1, Kind=Other"));

    json withFields = good;
    withFields["metadata"]["managedFields"] = json::array();
    refused = manager.apply(json(), withFields, "m", false);
    QVERIFY(!refused);
    QCOMPARE(QString::fromStdString(refused.error().message),
             QStringLiteral("metadata.managedFields must be nil"));

    json duplicate = good;
    duplicate["spec"]["ports"] = json::parse(R"([{"name":"a"},{"name":"a"}])");
    refused = manager.apply(json(), duplicate, "m", false);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, 500);
    QVERIFY(refused.error().message.find("duplicate entries for key [name=\"a\"]")
            != std::string::npos);

    json undeclared = good;
    undeclared["spec"]["nope"] = 1;
    QVERIFY(!manager.apply(json(), undeclared, "m", false));

    json brokenLive = good;
    brokenLive["metadata"]["managedFields"] = json::parse(
        R"([{"manager":"x","operation":"Apply","apiVersion":"example.com/v1","fieldsType":"FieldsV2","fieldsV1":{}}])");
    refused = manager.apply(brokenLive, good, "m", false);
    QVERIFY(!refused);
    QCOMPARE(QString::fromStdString(refused.error().message),
             QStringLiteral("failed to decode managed fields: invalid fieldsType \"FieldsV2\" in "
                            "managed fields entry 0"));

    // An update over broken managedFields starts them afresh rather than failing.
    json changed = good;
    changed["spec"]["replicas"] = 2;
    const json updated = manager.update(brokenLive, changed, "kubectl-edit");
    QVERIFY(managedFieldsOf(updated));
}

void tst_FieldManager::schemaBecameAtomic()
{
    // Entries recorded while spec.limits and spec.args were granular keep paths below them; once
    // the schema makes them atomic, those collapse into the node itself.
    const TypeRef type = types::fromCrdSchema(json::parse(R"({"type":"object","properties":{"spec":{
        "type":"object","properties":{"replicas":{"type":"integer"},
        "limits":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"cpu":{"type":"string"}}},
        "args":{"type":"array","items":{"type":"string"}}}}}})"));
    const FieldManager manager(type, "example.com/v1", "Thing");
    json live
        = json::parse(R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},
        "spec":{"replicas":1,"limits":{"cpu":"1"},"args":["x"]}})");
    live["metadata"]["managedFields"] = json::parse(R"([{"manager":"old","operation":"Update",
        "apiVersion":"example.com/v1","fieldsType":"FieldsV1","time":"2026-01-01T00:00:00Z",
        "fieldsV1":{"f:spec":{"f:limits":{".":{},"f:cpu":{}},"f:args":{"v:\"x\"":{}},"f:replicas":{}}}}])");
    json updated = live;
    updated["spec"]["replicas"] = 2;
    const json stored = manager.update(live, updated, "scaler");
    QVERIFY(sameJson(stored["metadata"]["managedFields"][0]["fieldsV1"],
                     json::parse(R"({"f:spec":{"f:args":{},"f:limits":{}}})"),
                     "collapsed"));
}

void tst_FieldManager::timeOnlyChanges()
{
    const json stored = json::parse(R"({"metadata":{"name":"a","managedFields":[{"manager":"m",
        "operation":"Apply","time":"2026-01-01T00:00:00Z"}]},"spec":{"x":1}})");
    json later = stored;
    later["metadata"]["managedFields"][0]["time"] = "2026-01-01T00:00:09Z";
    QVERIFY(sameJson(ignoreTimeOnlyChanges(stored, later), stored, "times only"));
    later["spec"]["x"] = 2;
    QVERIFY(sameJson(ignoreTimeOnlyChanges(stored, later), later, "content changed"));
    later = stored;
    later["metadata"]["managedFields"][0]["manager"] = "n";
    QVERIFY(sameJson(ignoreTimeOnlyChanges(stored, later), later, "owner changed"));
}

void tst_FieldManager::retimeSoleOwner()
{
    const json schema = json::parse(R"({"type":"object","properties":{
        "spec":{"type":"object","properties":{"replicas":{"type":"integer"}}},
        "status":{"type":"object","properties":{
            "replicas":{"type":"integer"},"phase":{"type":"string"},
            "conditions":{"type":"array","x-kubernetes-list-type":"map",
                "x-kubernetes-list-map-keys":["type"],
                "items":{"type":"object","properties":{"type":{"type":"string"},
                    "message":{"type":"string"}}}}}}}})");
    const TypeRef type = types::fromCrdSchema(schema);
    const QDateTime now = base.addSecs(100);
    const FieldManager manager(type,
                               "example.com/v1",
                               "Thing",
                               "status",
                               customResourceResetFields(true, "status"),
                               [now] { return now; });
    // "ctl" owns .status.replicas and the Ready condition, "probe" (newer) the Live condition,
    // "gitops" applied the spec.
    const json stored = json::parse(R"({"apiVersion":"example.com/v1","kind":"Thing",
        "metadata":{"name":"t","managedFields":[
        {"manager":"gitops","operation":"Apply","apiVersion":"example.com/v1",
         "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},
         "time":"2027-01-15T08:00:00Z"},
        {"manager":"ctl","operation":"Update","apiVersion":"example.com/v1",
         "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{
           "k:{\"type\":\"Ready\"}":{".":{},"f:message":{},"f:type":{}}},"f:replicas":{}}},
         "subresource":"status","time":"2027-01-15T08:00:01Z"},
        {"manager":"probe","operation":"Update","apiVersion":"example.com/v1",
         "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{
           "k:{\"type\":\"Live\"}":{".":{},"f:message":{},"f:type":{}}}}},
         "subresource":"status","time":"2027-01-15T08:00:02Z"}]},
        "spec":{"replicas":1},
        "status":{"replicas":1,"conditions":[{"type":"Ready","message":"a"},
                                             {"type":"Live","message":"b"}]}})");
    const auto check = [&](const json &newStatus, const std::string &writer, bool answers) {
        json updated = stored;
        updated["status"] = newStatus;
        json retimed = *managedFieldsOf(stored);
        const bool answered
            = manager.retimeSoleOwner(retimed, "status", stored["status"], newStatus, writer);
        if (answered != answers)
            return false;
        if (!answered)
            return retimed == *managedFieldsOf(stored); // untouched
        return sameJson(
            retimed, *managedFieldsOf(manager.update(stored, updated, writer)), "retimed");
    };
    json status = stored["status"];
    status["replicas"] = 2;
    status["conditions"][0]["message"] = "c";
    // ctl changes what it alone owns: its time moves to now, and its entry after probe's.
    QVERIFY(check(status, "ctl", true));
    json retimed = *managedFieldsOf(stored);
    QVERIFY(manager.retimeSoleOwner(retimed, "status", stored["status"], status, "ctl"));
    QCOMPARE(QString::fromStdString(retimed[2]["manager"]), QStringLiteral("ctl"));
    QCOMPARE(QString::fromStdString(retimed[2]["time"]), QStringLiteral("2027-01-15T08:01:40Z"));
    // Someone else's field, a field nobody owns yet, an added or a removed one: update() answers.
    QVERIFY(check(status, "probe", false));
    status = stored["status"];
    status["conditions"][1]["message"] = "d";
    QVERIFY(check(status, "ctl", false));
    status = stored["status"];
    status["phase"] = "Running";
    QVERIFY(check(status, "ctl", false));
    status = stored["status"];
    status["conditions"][0].erase("message");
    QVERIFY(check(status, "ctl", false));
    // Nothing changed: update() records no time.
    QVERIFY(check(stored["status"], "ctl", false));
}

void tst_FieldManager::retimedInRecordedSequences()
{
    // Runs after recordedSequences (slots run in declaration order): the shortcut must have
    // answered some of the recorded status writes, or that comparison proved nothing.
    QVERIFY2(m_retimed > 0, "no recorded status write took the shortcut");
}

QTEST_GUILESS_MAIN(tst_FieldManager)
#include "tst_fieldmanager.moc"
