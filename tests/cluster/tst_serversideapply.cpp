// Server-side apply and managedFields on the embedded cluster's write path
// (docs/fieldownership.md).
//
// recordedSequences replays every sequence tools/fieldmanager/record.py recorded from
// kube-apiserver 1.36 (tests/fieldmanager/data: applies, merge patches, updates and creates by
// several managers, over a CRD with every list and map type and over the real CRDs of
// shared/fixtures/real-crds) through the cluster's HTTP API, the CRD installed as the recorder
// installed it, the clock at one second per step: every answer must be the server's, the object
// whole (uid, resourceVersion and creationTimestamp aside) with its managedFields, and every
// refusal the server's Status. The other tests hold what the recordings do not: the options and
// body of an apply, create-by-apply, dry runs, manager names, built-in kinds, writes that change
// nothing but times, the status fast path, /scale.
#include "apitestsupport.h"

#include "controller/cluster/yamldocuments.h"

#include <QDir>
#include <QFile>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using namespace reconscope::controller::cluster::testsupport;

namespace {

const QDateTime base = QDateTime::fromSecsSinceEpoch(1'800'000'000).toUTC();

json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    return json::parse(file.readAll().toStdString(), nullptr, false);
}

json readYaml(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    auto documents = yamlDocumentsToJson(file.readAll());
    return documents && !documents->isEmpty() ? documents->first() : json();
}

// The recorder's own CRD (tools/fieldmanager/record.py), with the sequence's schema.
json gadgetCrd(const json &schema)
{
    return json{ { "apiVersion", "apiextensions.k8s.io/v1" },
                 { "kind", "CustomResourceDefinition" },
                 { "metadata", { { "name", "gadgets.fields.reconscope.dev" } } },
                 { "spec",
                   { { "group", "fields.reconscope.dev" },
                     { "scope", "Namespaced" },
                     { "names",
                       { { "plural", "gadgets" },
                         { "singular", "gadget" },
                         { "kind", "Gadget" },
                         { "listKind", "GadgetList" } } },
                     { "versions",
                       json::array({ { { "name", "v1" },
                                       { "served", true },
                                       { "storage", true },
                                       { "subresources", { { "status", json::object() } } },
                                       { "schema", { { "openAPIV3Schema", schema } } } } }) } } } };
}

// What differs between two servers in an object: its uid, resourceVersion and creation time.
json comparable(json object)
{
    if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
        json &metadata = object["metadata"];
        for (const char *key : { "uid", "resourceVersion", "creationTimestamp" })
            metadata.erase(key);
    }
    return object;
}

// managedFields with each time replaced by the seconds since `base` (the recordings hold the
// index of the step that wrote it, one second per step here).
json normalizedTimes(json object)
{
    if (!object.is_object() || !object.contains("metadata"))
        return object;
    json &metadata = object["metadata"];
    if (!metadata.is_object() || !metadata.contains("managedFields"))
        return object;
    for (json &entry : metadata["managedFields"]) {
        if (entry.is_object() && entry.contains("time") && entry["time"].is_string()) {
            const QDateTime time = QDateTime::fromString(
                QString::fromStdString(entry["time"].get<std::string>()), Qt::ISODate);
            entry["time"] = base.secsTo(time);
        }
    }
    return object;
}

json sortedCauses(json status)
{
    if (status.is_object() && status.contains("details") && status["details"].contains("causes")) {
        json &causes = status["details"]["causes"];
        std::sort(causes.begin(), causes.end(), [](const json &a, const json &b) {
            return a.dump() < b.dump();
        });
    }
    return status;
}

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

QString text(const json &value, const char *key)
{
    return value.is_object() && value.contains(key) && value[key].is_string()
        ? QString::fromStdString(value[key].get<std::string>())
        : QString();
}

ApiRequest withUserAgent(ApiRequest r, const QByteArray &userAgent)
{
    r.headers.append({ "user-agent", userAgent });
    return r;
}

const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
const QString deployments = u"/apis/apps/v1/namespaces/default/deployments"_s;

json managedFieldsOf(const ApiResponse &response)
{
    const json object = parse(response.body);
    return object.is_object() && object["metadata"].contains("managedFields")
        ? object["metadata"]["managedFields"]
        : json();
}

} // namespace

class tst_ServerSideApply final : public QObject
{
    Q_OBJECT

private slots:
    void recordedSequences_data();
    void recordedSequences();
    void applyOptionsAndBody();
    void createByApply();
    void dryRunApplyStoresNothing();
    void conflictsAnswer409();
    void updateManagersNamedAfterUserAgent();
    void builtinKindsKeepManagedFields();
    void timeOnlyChangesWriteNothing();
    void statusFastPathKeepsManagedFields();
    void scaleWritesNameTheSubresource();

private:
    struct Server
    {
        std::unique_ptr<Cluster> cluster;
        std::unique_ptr<ApiServer> api;
        int seconds = 0;
    };
    static void start(Server &server);
    static ApiResponse
    apply(Server &server, const QString &path, const json &config, const QString &query);
};

void tst_ServerSideApply::start(Server &server)
{
    server.cluster = std::make_unique<Cluster>();
    int *seconds = &server.seconds;
    server.cluster->setClock([seconds] { return base.addSecs(*seconds); });
    server.api = std::make_unique<ApiServer>(server.cluster.get());
}

ApiResponse tst_ServerSideApply::apply(Server &server,
                                       const QString &path,
                                       const json &config,
                                       const QString &query)
{
    return server.api->handle(
        request("PATCH", path + u'?' + query, dump(config), "application/apply-patch+yaml"));
}

void tst_ServerSideApply::recordedSequences_data()
{
    QTest::addColumn<QString>("file");
    const QDir dir(QStringLiteral(RECONSCOPE_SOURCE_DIR "/tests/fieldmanager/data"));
    const QStringList files = dir.entryList({ u"*.json"_s }, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 40, "the recorded sequences are missing");
    for (const QString &name : files)
        QTest::newRow(qPrintable(name.chopped(5))) << dir.filePath(name);
}

void tst_ServerSideApply::recordedSequences()
{
    QFETCH(QString, file);
    const json sequence = readJson(file);
    QVERIFY(sequence.is_object());
    Server server;
    start(server);

    // The CRD, as the recorder installed it.
    json crd = sequence.contains("schema")
        ? gadgetCrd(sequence["schema"])
        : readYaml(QStringLiteral(RECONSCOPE_SHARED_DIR "/")
                   + QString::fromStdString(sequence["crdFile"].get<std::string>()));
    QVERIFY(crd.is_object());
    const ApiResponse installed = server.api->handle(
        request("POST", u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s, dump(crd)));
    QVERIFY2(installed.status == 201, installed.body.constData());
    const QString apiVersion = QString::fromStdString(sequence["apiVersion"].get<std::string>());
    const QString plural = text(crd["spec"]["names"], "plural");
    const bool namespaced = text(crd["spec"], "scope") == u"Namespaced";
    const QString collection
        = u"/apis/"_s + apiVersion + (namespaced ? u"/namespaces/default/"_s : u"/"_s) + plural;
    const QString name = QString::fromStdString(sequence["name"].get<std::string>());

    int index = 0;
    for (const json &step : sequence["steps"]) {
        server.seconds = index;
        const std::string op = step["op"];
        const QByteArray where = "step " + QByteArray::number(index) + " (" + op.c_str() + ")";
        QString path = op == "create" ? collection : collection + u'/' + name;
        if (step["status"].get<bool>())
            path += u"/status"_s;
        QUrlQuery query;
        if (step.contains("manager") && step["manager"].is_string())
            query.addQueryItem(u"fieldManager"_s, text(step, "manager"));
        if (step.value("force", false))
            query.addQueryItem(u"force"_s, u"true"_s);
        json body = step["body"];
        if (op == "update") {
            const json current
                = parse(server.api->handle(request("GET", collection + u'/' + name)).body);
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"];
        }
        const QByteArray method = op == "apply" ? "PATCH"
            : op == "merge"                     ? "PATCH"
            : op == "update"                    ? "PUT"
                                                : "POST";
        const QByteArray contentType = op == "apply" ? "application/apply-patch+yaml"
            : op == "merge"                          ? "application/merge-patch+json"
                                                     : "application/json";
        ApiRequest r = request(method, path, dump(body), contentType);
        r.query = query;
        if (step.contains("userAgent") && step["userAgent"].is_string())
            r = withUserAgent(r, QByteArray::fromStdString(step["userAgent"]).trimmed());
        const ApiResponse response = server.api->handle(r);
        const int code = step["code"];
        const json answer = parse(response.body);
        QVERIFY2(
            response.status == code,
            (where + ": " + QByteArray::number(response.status) + " " + response.body).constData());
        if (code >= 300)
            QVERIFY(sameJson(sortedCauses(answer), sortedCauses(step["answer"]), where));
        else
            QVERIFY(
                sameJson(comparable(normalizedTimes(answer)), comparable(step["answer"]), where));
        ++index;
    }
}

void tst_ServerSideApply::applyOptionsAndBody()
{
    Server server;
    start(server);
    const QString app = customApps + u"/web"_s;
    const json config = customApp("web");

    // fieldManager is required, force is for apply only: 422 PatchOptions, as upstream words it.
    ApiResponse response = apply(server, app, config, {});
    QCOMPARE(response.status, 422);
    JSON_COMPARE(parse(response.body)["message"],
                 "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is "
                 "required for apply patch");
    response = server.api->handle(request("PATCH",
                                          app + u"?fieldManager=m&force=false"_s,
                                          R"({"spec":{}})",
                                          "application/merge-patch+json"));
    QCOMPARE(response.status, 422);
    JSON_COMPARE(parse(response.body)["message"],
                 "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified "
                 "for non-apply patch");

    // The body: YAML or JSON, an object; nothing at all names no type.
    response = apply(server, app, json(), u"fieldManager=m"_s);
    response = server.api->handle(
        request("PATCH", app + u"?fieldManager=m"_s, "null", "application/apply-patch+yaml"));
    QCOMPARE(response.status, 400);
    JSON_COMPARE(parse(response.body)["message"], "invalid object type: /, Kind=");
    response = server.api->handle(
        request("PATCH", app + u"?fieldManager=m"_s, "- a", "application/apply-patch+yaml"));
    QCOMPARE(response.status, 400);
    JSON_COMPARE(parse(response.body)["message"],
                 "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
                 "unmarshal array into Go value of type map[string]interface {}");
    response = server.api->handle(
        request("PATCH", app + u"?fieldManager=m"_s, "a: [", "application/apply-patch+yaml"));
    QCOMPARE(response.status, 400);
    QVERIFY(str(parse(response.body)["message"])
                .startsWith(u"error decoding YAML: error converting YAML to JSON: yaml: "_s));

    const QByteArray yaml = "apiVersion: infrastructure.internal.net/v1\nkind: CustomApp\n"
                            "metadata:\n  name: web\nspec:\n  image: nginx:1.27\n  replicas: 2\n";
    response = server.api->handle(
        request("PATCH", app + u"?fieldManager=gitops"_s, yaml, "application/apply-patch+yaml"));
    QCOMPARE(response.status, 201);
    const json created = parse(response.body);
    JSON_COMPARE(created["spec"]["replicas"], 2);
    JSON_COMPARE(created["metadata"]["managedFields"],
                 json::parse(R"([{"apiVersion":"infrastructure.internal.net/v1",
                     "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:image":{},"f:replicas":{}}},
                     "manager":"gitops","operation":"Apply","time":"2027-01-15T08:00:00Z"}])"));

    // An unknown field fails the typed conversion (500, as upstream), and managedFields in the
    // body are refused.
    json unknown = config;
    unknown["spec"]["bogus"] = 1;
    response = apply(server, app, unknown, u"fieldManager=gitops"_s);
    QCOMPARE(response.status, 500);
    JSON_COMPARE(parse(response.body)["message"],
                 "failed to create typed patch object (/web; infrastructure.internal.net/v1, "
                 "Kind=CustomApp): .spec.bogus: field not declared in schema");
    json withFields = config;
    withFields["metadata"]["managedFields"] = json::array();
    response = apply(server, app, withFields, u"fieldManager=gitops"_s);
    QCOMPARE(response.status, 400);
    JSON_COMPARE(parse(response.body)["message"], "metadata.managedFields must be nil");
    // A resourceVersion in the configuration is a precondition.
    json stale = config;
    stale["metadata"]["resourceVersion"] = "1";
    response = apply(server, app, stale, u"fieldManager=gitops"_s);
    QCOMPARE(response.status, 409);
    QVERIFY(str(parse(response.body)["message"]).contains(u"the object has been modified"_s));
}

void tst_ServerSideApply::createByApply()
{
    Server server;
    start(server);
    json config = customApp("made");
    config["metadata"].erase("name");
    ApiResponse response = apply(server, customApps + u"/made"_s, config, u"fieldManager=m"_s);
    QCOMPARE(response.status, 400);
    JSON_COMPARE(parse(response.body)["message"],
                 "the name of the object (made based on URL) was undeterminable: name must be "
                 "provided");
    response = apply(server, customApps + u"/other"_s, customApp("made"), u"fieldManager=m"_s);
    QCOMPARE(response.status, 400);
    JSON_COMPARE(parse(response.body)["message"],
                 "the name of the object (made) does not match the name on the URL (other)");
    json elsewhere = customApp("made");
    elsewhere["metadata"]["namespace"] = "kube-system";
    response = apply(server, customApps + u"/made"_s, elsewhere, u"fieldManager=m"_s);
    QCOMPARE(response.status, 400);
    // Through /status an apply never creates.
    response
        = apply(server, customApps + u"/made/status"_s, customApp("made"), u"fieldManager=m"_s);
    QCOMPARE(response.status, 404);

    response = apply(server, customApps + u"/made"_s, customApp("made"), u"fieldManager=m"_s);
    QCOMPARE(response.status, 201);
    const json created = parse(response.body);
    JSON_COMPARE(created["metadata"]["generation"], 1);
    QVERIFY(!str(created["metadata"]["uid"]).isEmpty());
    // Applied again unchanged: 200, nothing written.
    response = apply(server, customApps + u"/made"_s, customApp("made"), u"fieldManager=m"_s);
    QCOMPARE(response.status, 200);
    JSON_COMPARE(parse(response.body)["metadata"]["resourceVersion"],
                 created["metadata"]["resourceVersion"]);
}

void tst_ServerSideApply::dryRunApplyStoresNothing()
{
    Server server;
    start(server);
    const QString app = customApps + u"/dry"_s;
    ApiResponse response
        = apply(server, app, customApp("dry"), u"fieldManager=gitops&dryRun=All"_s);
    QCOMPARE(response.status, 201);
    JSON_COMPARE(managedFieldsOf(response)[0]["manager"], "gitops");
    QCOMPARE(server.api->handle(request("GET", app)).status, 404);

    QCOMPARE(apply(server, app, customApp("dry"), u"fieldManager=gitops"_s).status, 201);
    const qint64 rv = server.cluster->currentResourceVersion();
    json scaled = customApp("dry");
    scaled["spec"] = { { "replicas", 5 } };
    response = apply(server, app, scaled, u"fieldManager=scaler&force=true&dryRun=All"_s);
    QCOMPARE(response.status, 200);
    const json fields = managedFieldsOf(response);
    QCOMPARE(fields.size(), std::size_t(2));
    QCOMPARE(server.cluster->currentResourceVersion(), rv);
    JSON_COMPARE(parse(server.api->handle(request("GET", app)).body)["spec"]["replicas"], 2);
}

void tst_ServerSideApply::conflictsAnswer409()
{
    Server server;
    start(server);
    const QString app = customApps + u"/web"_s;
    QCOMPARE(apply(server, app, customApp("web"), u"fieldManager=gitops"_s).status, 201);
    json mine = customApp("web");
    mine["spec"] = { { "replicas", 3 }, { "image", "httpd" } };
    ApiResponse response = apply(server, app, mine, u"fieldManager=reconciler"_s);
    QCOMPARE(response.status, 409);
    const json status = parse(response.body);
    JSON_COMPARE(status["reason"], "Conflict");
    JSON_COMPARE(status["message"],
                 "Apply failed with 2 conflicts: conflicts with \"gitops\":\n- .spec.image\n"
                 "- .spec.replicas");
    JSON_COMPARE(status["details"], json::parse(R"({"causes":[
        {"reason":"FieldManagerConflict","message":"conflict with \"gitops\"","field":".spec.image"},
        {"reason":"FieldManagerConflict","message":"conflict with \"gitops\"","field":".spec.replicas"}]})"));
    // An update's manager is named with its apiVersion.
    server.api->handle(request("PATCH",
                               app + u"?fieldManager=hpa"_s,
                               R"({"spec":{"replicas":7}})",
                               "application/merge-patch+json"));
    json replicas = customApp("web");
    replicas["spec"] = { { "replicas", 2 }, { "image", "nginx:1.27" } };
    response = apply(server, app, replicas, u"fieldManager=gitops"_s);
    QCOMPARE(response.status, 409);
    JSON_COMPARE(parse(response.body)["message"],
                 "Apply failed with 1 conflict: conflict with \"hpa\" using "
                 "infrastructure.internal.net/v1: .spec.replicas");
    response = apply(server, app, replicas, u"fieldManager=gitops&force=true"_s);
    QCOMPARE(response.status, 200);
    const json fields = managedFieldsOf(response);
    QCOMPARE(fields.size(), std::size_t(1)); // hpa owned nothing else
    JSON_COMPARE(fields[0]["manager"], "gitops");
}

void tst_ServerSideApply::updateManagersNamedAfterUserAgent()
{
    Server server;
    start(server);
    json cm = { { "apiVersion", "v1" },
                { "kind", "ConfigMap" },
                { "metadata", { { "name", "c" } } },
                { "data", { { "a", "1" } } } };
    ApiResponse response = server.api->handle(
        withUserAgent(request("POST", configMaps, dump(cm)), "kubectl/v1.36.3 (linux/amd64)"));
    QCOMPARE(response.status, 201);
    JSON_COMPARE(managedFieldsOf(response),
                 json::parse(R"([{"apiVersion":"v1","fieldsType":"FieldsV1",
                     "fieldsV1":{"f:data":{".":{},"f:a":{}}},"manager":"kubectl",
                     "operation":"Update","time":"2027-01-15T08:00:00Z"}])"));
    server.seconds = 5;
    response = server.api->handle(withUserAgent(request("PATCH",
                                                        configMaps + u"/c?fieldManager=editor"_s,
                                                        R"({"data":{"b":"2"}})",
                                                        "application/merge-patch+json"),
                                                "kubectl/v1.36.3"));
    JSON_COMPARE(managedFieldsOf(response)[1]["manager"], "editor");
    JSON_COMPARE(managedFieldsOf(response)[1]["time"], "2027-01-15T08:00:05Z");
    // No fieldManager and no User-Agent: "unknown".
    response = server.api->handle(request(
        "PATCH", configMaps + u"/c"_s, R"({"data":{"c":"3"}})", "application/merge-patch+json"));
    JSON_COMPARE(managedFieldsOf(response)[2]["manager"], "unknown");
}

void tst_ServerSideApply::builtinKindsKeepManagedFields()
{
    Server server;
    start(server);
    const json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"web","image":"nginx","ports":[{"containerPort":80}]}]}}}})");
    ApiResponse response = server.api->handle(
        request("POST", deployments + u"?fieldManager=kubectl-create"_s, dump(deployment)));
    QCOMPARE(response.status, 201);
    const json fields = managedFieldsOf(response)[0]["fieldsV1"];
    // The selector is atomic, containers a map keyed by name, their ports by port and protocol.
    JSON_COMPARE(fields["f:spec"]["f:selector"], json::object());
    const json &container = fields["f:spec"]["f:template"]["f:spec"]["f:containers"];
    QVERIFY2(container.contains(R"(k:{"name":"web"})"), container.dump().c_str());
    QVERIFY(container[R"(k:{"name":"web"})"]["f:ports"].contains(
        R"(k:{"containerPort":80,"protocol":"TCP"})"));
    // Applied: a second manager takes the image, the first keeps the rest.
    json image = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[
            {"name":"web","image":"nginx:2"}]}}}})");
    response = server.api->handle(request("PATCH",
                                          deployments + u"/web?fieldManager=rollout&force=true"_s,
                                          dump(image),
                                          "application/apply-patch+yaml"));
    QCOMPARE(response.status, 200);
    JSON_COMPARE(parse(response.body)["spec"]["template"]["spec"]["containers"][0]["image"],
                 "nginx:2");
    JSON_COMPARE(parse(response.body)["spec"]["replicas"], 1);
    QCOMPARE(managedFieldsOf(response).size(), std::size_t(2));
}

void tst_ServerSideApply::timeOnlyChangesWriteNothing()
{
    Server server;
    start(server);
    json cm = { { "apiVersion", "v1" },
                { "kind", "ConfigMap" },
                { "metadata", { { "name", "c" } } },
                { "data", { { "a", "1" } } } };
    ApiResponse response
        = server.api->handle(request("POST", configMaps + u"?fieldManager=tool"_s, dump(cm)));
    QCOMPARE(response.status, 201);
    const json created = parse(response.body);
    server.seconds = 30;
    const qint64 rv = server.cluster->currentResourceVersion();
    // The same content again by the same manager: no new version, the old time kept.
    json again = created;
    response
        = server.api->handle(request("PUT", configMaps + u"/c?fieldManager=tool"_s, dump(again)));
    QCOMPARE(response.status, 200);
    QCOMPARE(server.cluster->currentResourceVersion(), rv);
    JSON_COMPARE(managedFieldsOf(response), created["metadata"]["managedFields"]);
    json config = { { "apiVersion", "v1" },
                    { "kind", "ConfigMap" },
                    { "metadata", { { "name", "c" } } },
                    { "data", { { "a", "1" } } } };
    // An apply of what is there: ownership changes (shared), times do not.
    response = server.api->handle(request("PATCH",
                                          configMaps + u"/c?fieldManager=applier"_s,
                                          dump(config),
                                          "application/apply-patch+yaml"));
    QCOMPARE(response.status, 200);
    const json fields = managedFieldsOf(response);
    QCOMPARE(fields.size(), std::size_t(2));
    JSON_COMPARE(fields[0]["manager"], "applier");
    QVERIFY(!fields[0].contains("time"));
}

void tst_ServerSideApply::statusFastPathKeepsManagedFields()
{
    // Two clusters, the status fast path on in one: the same status writes keep the same
    // managedFields, with the clock moving between writes and managers changing.
    Server servers[2];
    for (int i = 0; i < 2; ++i) {
        start(servers[i]);
        servers[i].cluster->setWriteShortcuts(i == 0);
        QCOMPARE(
            apply(servers[i], customApps + u"/twin"_s, customApp("twin"), u"fieldManager=gitops"_s)
                .status,
            201);
    }
    const QString status = customApps + u"/twin/status"_s;
    struct Write
    {
        QString query;
        QByteArray body;
        QByteArray contentType;
    };
    const QList<Write> writes = {
        { u"fieldManager=reconciler"_s,
          R"({"status":{"observedGeneration":1,"replicas":2}})",
          "application/merge-patch+json" },
        { u"fieldManager=reconciler"_s,
          R"({"status":{"readyReplicas":1}})",
          "application/merge-patch+json" },
        { u"fieldManager=kubelet"_s,
          R"({"status":{"readyReplicas":2}})",
          "application/merge-patch+json" },
        { u"fieldManager=kubelet"_s,
          R"([{"op":"replace","path":"/status/replicas","value":3}])",
          "application/json-patch+json" },
        { {}, R"({"status":{"replicas":4}})", "application/merge-patch+json" },
    };
    int second = 0;
    for (const Write &write : writes) {
        second += 7;
        QByteArray bodies[2];
        for (Server &server : servers) {
            server.seconds = second;
            const ApiResponse response = server.api->handle(
                request("PATCH", status + u'?' + write.query, write.body, write.contentType));
            QCOMPARE(response.status, 200);
            bodies[&server - servers] = dump(comparable(parse(response.body)));
        }
        QCOMPARE(bodies[0], bodies[1]);
    }
    QCOMPARE(servers[1].cluster->statusPatchesInPlace(), 0);
    QVERIFY(servers[0].cluster->statusPatchesInPlace() >= 3);
    const json fields
        = managedFieldsOf(servers[0].api->handle(request("GET", customApps + u"/twin"_s)));
    QCOMPARE(fields.size(), std::size_t(4)); // gitops, reconciler, kubelet, unknown
}

void tst_ServerSideApply::scaleWritesNameTheSubresource()
{
    Server server;
    start(server);
    const json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"web","image":"nginx"}]}}}})");
    QCOMPARE(server.api->handle(request("POST", deployments, dump(deployment))).status, 201);
    const ApiResponse response
        = server.api->handle(request("PATCH",
                                     deployments + u"/web/scale?fieldManager=hpa"_s,
                                     R"({"spec":{"replicas":4}})",
                                     "application/merge-patch+json"));
    QCOMPARE(response.status, 200);
    const json fields
        = managedFieldsOf(server.api->handle(request("GET", deployments + u"/web"_s)));
    bool found = false;
    for (const json &entry : fields) {
        if (entry["manager"] == "hpa") {
            found = true;
            JSON_COMPARE(entry["subresource"], "scale");
            JSON_COMPARE(entry["fieldsV1"], json::parse(R"({"f:spec":{"f:replicas":{}}})"));
        }
    }
    QVERIFY2(found, fields.dump().c_str());
    // Apply through /scale is refused as before (a stated divergence).
    QCOMPARE(server.api
                 ->handle(request("PATCH",
                                  deployments + u"/web/scale?fieldManager=hpa"_s,
                                  R"({"spec":{"replicas":4}})",
                                  "application/apply-patch+yaml"))
                 .status,
             415);
}

QTEST_GUILESS_MAIN(tst_ServerSideApply)
#include "tst_serversideapply.moc"
