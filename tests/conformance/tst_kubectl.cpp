// Real kubectl against `reconscope serve`: the acceptance list of the embedded cluster, as an SRE
// would type it against kind.
#include "servefixture.h"
#include "tests/testkubectl.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSslConfiguration>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;

namespace {

const QByteArray webManifest = R"(apiVersion: infrastructure.internal.net/v1
kind: CustomApp
metadata:
  name: web
  namespace: default
  labels:
    app: web
spec:
  image: nginx:1.27
  replicas: 2
  configJSON: '{"logLevel":"info"}'
)";

QJsonObject parseObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QString sharedDir()
{
    return QStringLiteral(RECONSCOPE_SHARED_DIR);
}

} // namespace

class tst_Kubectl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void apiResourcesListsCustomApps();
    void applyCreatesAndGetShowsPrinterColumns();
    void applyDryRunServerStoresNothing();
    void getAsYamlAndRaw();
    void statusPatchLeavesSpecAndGeneration();
    void jsonPatchBumpsGeneration();
    void strategicMergePatchIs415();
    void watchSeesChange();
    void waitForCondition();
    void labelSelector();
    void replaceWithStaleResourceVersionConflicts();
    void deleteWithFinalizerTerminatesUntilRemoved();
    void viewerCannotWrite();
    void noCredentialsIs401();
    void tokenContextWorks();
    void realCrdsInstallAndServeTheirObjects();
    void reconscopeWatchPrintsTransitionWithinASecond();
    void typedCreateCommandsSendProtobuf();

private:
    ServeFixture::Output run(const QStringList &args, const QByteArray &in = {})
    {
        return m_serve->kubectl(args, in);
    }
    QJsonObject getJson(const QString &resource, const QString &name);

    std::unique_ptr<ServeFixture> m_serve;
};

void tst_Kubectl::initTestCase()
{
    REQUIRE_KUBECTL();
    m_serve = std::make_unique<ServeFixture>();
    QVERIFY2(m_serve->start({ u"--no-demo"_s }), "reconscope serve did not come up");
}

void tst_Kubectl::cleanupTestCase()
{
    m_serve.reset();
}

QJsonObject tst_Kubectl::getJson(const QString &resource, const QString &name)
{
    const auto result = run({ u"get"_s, resource, name, u"-o"_s, u"json"_s });
    if (result.exitCode != 0)
        qWarning().noquote() << result.err;
    return parseObject(result.out);
}

void tst_Kubectl::apiResourcesListsCustomApps()
{
    const auto result = run({ u"api-resources"_s });
    QCOMPARE(result.exitCode, 0);
    const QRegularExpression line(
        uR"(^customapps\s+ca\s+infrastructure\.internal\.net/v1\s+true\s+CustomApp\s*$)"_s,
        QRegularExpression::MultilineOption);
    QVERIFY2(line.match(result.out).hasMatch(), qPrintable(result.out));
    QVERIFY(result.out.contains(u"customresourcedefinitions"_s));
    QVERIFY(result.out.contains(u"deployments"_s));
}

void tst_Kubectl::applyCreatesAndGetShowsPrinterColumns()
{
    const auto applied = run({ u"apply"_s, u"-f"_s, u"-"_s }, webManifest);
    QCOMPARE(applied.exitCode, 0);
    QCOMPARE(applied.out.trimmed(), u"customapp.infrastructure.internal.net/web created"_s);

    const auto table = run({ u"get"_s, u"customapps"_s, u"-A"_s });
    QCOMPARE(table.exitCode, 0);
    const auto lines = table.out.split(u'\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 2, qPrintable(table.out));
    const QRegularExpression header(
        uR"(^NAMESPACE\s+NAME\s+IMAGE\s+REPLICAS\s+READY\s+REASON\s+AGE$)"_s);
    QVERIFY2(header.match(lines.first()).hasMatch(), qPrintable(lines.first()));
    QVERIFY2(QRegularExpression(uR"(^default\s+web\s+nginx:1\.27\s+2\s)"_s)
                 .match(lines.at(1))
                 .hasMatch(),
             qPrintable(lines.at(1)));

    // Applying the same manifest again changes nothing.
    const auto again = run({ u"apply"_s, u"-f"_s, u"-"_s }, webManifest);
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(again.out.trimmed(), u"customapp.infrastructure.internal.net/web unchanged"_s);
}

// `kubectl apply --dry-run=server`: a POST (new object) and a PATCH (existing one) with
// dryRun=All; kubectl reports what would happen, the server stores nothing.
void tst_Kubectl::applyDryRunServerStoresNothing()
{
    const QString rvBefore = getJson(u"customapp"_s, u"web"_s)
                                 .value(u"metadata"_s)
                                 .toObject()
                                 .value(u"resourceVersion"_s)
                                 .toString();
    QVERIFY(!rvBefore.isEmpty());
    QByteArray fresh = webManifest;
    fresh.replace("name: web", "name: dry-web");
    auto result = run({ u"apply"_s, u"--dry-run=server"_s, u"-f"_s, u"-"_s }, fresh);
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.out.trimmed(),
             u"customapp.infrastructure.internal.net/dry-web created (server dry run)"_s);
    result = run({ u"get"_s, u"customapp"_s, u"dry-web"_s });
    QVERIFY(result.exitCode != 0);
    QVERIFY2(result.err.contains(u"NotFound"_s), qPrintable(result.err));

    QByteArray changed = webManifest;
    changed.replace("image: nginx:1.27", "image: nginx:1.28");
    result = run({ u"apply"_s, u"--dry-run=server"_s, u"-f"_s, u"-"_s }, changed);
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.out.trimmed(),
             u"customapp.infrastructure.internal.net/web configured (server dry run)"_s);
    const QJsonObject web = getJson(u"customapp"_s, u"web"_s);
    QCOMPARE(web.value(u"spec"_s).toObject().value(u"image"_s).toString(), u"nginx:1.27"_s);
    QCOMPARE(web.value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString(), rvBefore);
}

void tst_Kubectl::getAsYamlAndRaw()
{
    const auto yaml = run({ u"get"_s, u"customapp"_s, u"web"_s, u"-o"_s, u"yaml"_s });
    QCOMPARE(yaml.exitCode, 0);
    QVERIFY(yaml.out.contains(u"kind: CustomApp"_s));
    QVERIFY(yaml.out.contains(u"generation: 1"_s));
    QVERIFY(yaml.out.contains(u"image: nginx:1.27"_s));

    const auto raw
        = run({ u"get"_s,
                u"--raw"_s,
                u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/web"_s });
    QCOMPARE(raw.exitCode, 0);
    const auto object = parseObject(raw.out);
    QCOMPARE(object.value(u"kind"_s).toString(), u"CustomApp"_s);
    QCOMPARE(object.value(u"metadata"_s).toObject().value(u"name"_s).toString(), u"web"_s);
    // Schema default applied on create: replicas was given, port has no default, so it is absent.
    QVERIFY(!object.value(u"spec"_s).toObject().contains(u"port"_s));
}

void tst_Kubectl::statusPatchLeavesSpecAndGeneration()
{
    const auto before = getJson(u"customapp"_s, u"web"_s);
    const auto patch
        = uR"({"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized","message":"2/2 replicas ready","lastTransitionTime":"2026-11-29T10:00:00Z","observedGeneration":1}]},"spec":{"replicas":9}})"_s;
    const auto result = run({ u"patch"_s,
                              u"customapp"_s,
                              u"web"_s,
                              u"--subresource=status"_s,
                              u"--type=merge"_s,
                              u"-p"_s,
                              patch });
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.out.trimmed(), u"customapp.infrastructure.internal.net/web patched"_s);
    const auto after = getJson(u"customapp"_s, u"web"_s);
    QCOMPARE(after[u"metadata"_s][u"generation"_s].toInt(),
             before[u"metadata"_s][u"generation"_s].toInt());
    QCOMPARE(after[u"spec"_s].toObject(), before[u"spec"_s].toObject());
    QCOMPARE(after[u"status"_s][u"observedGeneration"_s].toInt(), 1);
    QVERIFY(after[u"metadata"_s][u"resourceVersion"_s].toString()
            != before[u"metadata"_s][u"resourceVersion"_s].toString());
}

void tst_Kubectl::jsonPatchBumpsGeneration()
{
    const auto result = run({ u"patch"_s,
                              u"customapp"_s,
                              u"web"_s,
                              u"--type=json"_s,
                              u"-p"_s,
                              uR"([{"op":"replace","path":"/spec/replicas","value":3}])"_s });
    QCOMPARE(result.exitCode, 0);
    const auto after = getJson(u"customapp"_s, u"web"_s);
    QCOMPARE(after[u"spec"_s][u"replicas"_s].toInt(), 3);
    QCOMPARE(after[u"metadata"_s][u"generation"_s].toInt(), 2);

    const auto failing = run({ u"patch"_s,
                               u"customapp"_s,
                               u"web"_s,
                               u"--type=json"_s,
                               u"-p"_s,
                               uR"([{"op":"test","path":"/spec/replicas","value":42}])"_s });
    QVERIFY(failing.exitCode != 0);
    QVERIFY2(
        failing.err.contains(u"the server rejected our request due to an error in our request"_s),
        qPrintable(failing.err));

    // Put the object back to the Ready state the later tests expect (generation 2 observed).
    const auto status = run(
        { u"patch"_s,
          u"customapp"_s,
          u"web"_s,
          u"--subresource=status"_s,
          u"--type=merge"_s,
          u"-p"_s,
          uR"({"status":{"observedGeneration":2,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized","message":"3/3 replicas ready","lastTransitionTime":"2026-11-29T10:00:00Z","observedGeneration":2}]}})"_s });
    QCOMPARE(status.exitCode, 0);
}

void tst_Kubectl::strategicMergePatchIs415()
{
    const auto result
        = run({ u"patch"_s, u"customapp"_s, u"web"_s, u"-p"_s, uR"({"spec":{"replicas":4}})"_s });
    QVERIFY(result.exitCode != 0);
    QVERIFY2(result.err.contains(
                 u"the body of the request was in an unknown format - accepted media types "
                 u"include: application/json-patch+json, application/merge-patch+json, "
                 u"application/apply-patch+yaml"_s),
             qPrintable(result.err));
}

void tst_Kubectl::watchSeesChange()
{
    std::unique_ptr<QProcess> watcher(
        m_serve->startKubectl({ u"get"_s,
                                u"customapp"_s,
                                u"web"_s,
                                u"-w"_s,
                                u"-o"_s,
                                u"jsonpath={.spec.port}{\"\\n\"}"_s }));
    QByteArray seen;
    // The initial synthetic ADDED prints an empty port line first.
    QTRY_VERIFY_WITH_TIMEOUT((seen += watcher->readAllStandardOutput()).contains('\n'), 15000);
    const auto patched = run({ u"patch"_s,
                               u"customapp"_s,
                               u"web"_s,
                               u"--type=merge"_s,
                               u"-p"_s,
                               uR"({"spec":{"port":8081}})"_s });
    QCOMPARE(patched.exitCode, 0);
    QTRY_VERIFY_WITH_TIMEOUT((seen += watcher->readAllStandardOutput()).contains("8081"), 15000);
    watcher->kill();
    watcher->waitForFinished(5000);

    // Bring observedGeneration up to date again (the port change bumped generation to 3).
    const auto status = run(
        { u"patch"_s,
          u"customapp"_s,
          u"web"_s,
          u"--subresource=status"_s,
          u"--type=merge"_s,
          u"-p"_s,
          uR"({"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized","message":"3/3 replicas ready","lastTransitionTime":"2026-11-29T10:00:00Z","observedGeneration":3}]}})"_s });
    QCOMPARE(status.exitCode, 0);
}

void tst_Kubectl::waitForCondition()
{
    const auto result
        = run({ u"wait"_s, u"--for=condition=Ready"_s, u"customapp/web"_s, u"--timeout=20s"_s });
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.out.trimmed(), u"customapp.infrastructure.internal.net/web condition met"_s);

    // A condition observed for an older generation does not count: bump the spec, then wait
    // briefly.
    QCOMPARE(run({ u"patch"_s,
                   u"customapp"_s,
                   u"web"_s,
                   u"--type=merge"_s,
                   u"-p"_s,
                   uR"({"spec":{"port":8082}})"_s })
                 .exitCode,
             0);
    const auto stale
        = run({ u"wait"_s, u"--for=condition=Ready"_s, u"customapp/web"_s, u"--timeout=2s"_s });
    QVERIFY2(stale.exitCode != 0, qPrintable(stale.out));
}

void tst_Kubectl::labelSelector()
{
    const QByteArray other = R"(apiVersion: infrastructure.internal.net/v1
kind: CustomApp
metadata:
  name: api
  labels: {app: api}
spec:
  image: api:1
)";
    QCOMPARE(run({ u"create"_s, u"-f"_s, u"-"_s }, other).exitCode, 0);
    const auto web = run({ u"get"_s, u"customapps"_s, u"-l"_s, u"app=web"_s, u"-o"_s, u"name"_s });
    QCOMPARE(web.exitCode, 0);
    QCOMPARE(web.out.trimmed(), u"customapp.infrastructure.internal.net/web"_s);
    const auto notWeb
        = run({ u"get"_s, u"customapps"_s, u"-l"_s, u"app notin (web)"_s, u"-o"_s, u"name"_s });
    QCOMPARE(notWeb.out.trimmed(), u"customapp.infrastructure.internal.net/api"_s);
    // Defaults from the schema: replicas defaults to 1.
    QCOMPARE(getJson(u"customapp"_s, u"api"_s)[u"spec"_s][u"replicas"_s].toInt(), 1);
}

void tst_Kubectl::replaceWithStaleResourceVersionConflicts()
{
    const auto stale = getJson(u"customapp"_s, u"api"_s);
    QVERIFY(!stale.isEmpty());
    QCOMPARE(run({ u"label"_s, u"customapp"_s, u"api"_s, u"tier=backend"_s }).exitCode, 0);
    QFile file(m_serve->path(u"stale.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(stale).toJson());
    file.close();
    const auto result = run({ u"replace"_s, u"-f"_s, file.fileName() });
    QVERIFY(result.exitCode != 0);
    QVERIFY2(
        result.err.contains(
            u"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"api\": the "
            u"object has been modified; please apply your changes to the latest version and try again"_s),
        qPrintable(result.err));
    QVERIFY(result.err.contains(u"(Conflict)"_s));
}

void tst_Kubectl::deleteWithFinalizerTerminatesUntilRemoved()
{
    const QByteArray held = R"(apiVersion: infrastructure.internal.net/v1
kind: CustomApp
metadata:
  name: held
  finalizers: [example.com/hold]
spec:
  image: held:1
)";
    QCOMPARE(run({ u"create"_s, u"-f"_s, u"-"_s }, held).exitCode, 0);
    const auto deleted = run({ u"delete"_s, u"customapp"_s, u"held"_s, u"--wait=false"_s });
    QCOMPARE(deleted.exitCode, 0);
    // kubectl 1.36's words (the pinned release), which name the namespace.
    QCOMPARE(deleted.out.trimmed(),
             u"customapp.infrastructure.internal.net \"held\" deleted from default namespace"_s);
    const auto terminating = getJson(u"customapp"_s, u"held"_s);
    QVERIFY(!terminating[u"metadata"_s][u"deletionTimestamp"_s].toString().isEmpty());
    QCOMPARE(terminating[u"metadata"_s][u"generation"_s].toInt(), 2);

    const auto adding
        = run({ u"patch"_s,
                u"customapp"_s,
                u"held"_s,
                u"--type=merge"_s,
                u"-p"_s,
                uR"({"metadata":{"finalizers":["example.com/hold","example.com/more"]}})"_s });
    QVERIFY(adding.exitCode != 0);
    QVERIFY2(
        adding.err.contains(u"no new finalizers can be added if the object is being deleted"_s),
        qPrintable(adding.err));

    QCOMPARE(run({ u"patch"_s,
                   u"customapp"_s,
                   u"held"_s,
                   u"--type=json"_s,
                   u"-p"_s,
                   uR"([{"op":"remove","path":"/metadata/finalizers"}])"_s })
                 .exitCode,
             0);
    const auto gone = run({ u"get"_s, u"customapp"_s, u"held"_s });
    QVERIFY(gone.exitCode != 0);
    QVERIFY2(
        gone.err.contains(
            u"Error from server (NotFound): customapps.infrastructure.internal.net \"held\" not found"_s),
        qPrintable(gone.err));
}

void tst_Kubectl::viewerCannotWrite()
{
    const QStringList viewer{ u"--context"_s, u"reconscope-viewer"_s };
    const auto list = run(viewer + QStringList{ u"get"_s, u"customapps"_s, u"-o"_s, u"name"_s });
    QCOMPARE(list.exitCode, 0);
    QVERIFY(list.out.contains(u"customapp.infrastructure.internal.net/web"_s));

    const auto before = getJson(u"customapp"_s, u"web"_s);
    const auto patch = run(viewer
                           + QStringList{ u"patch"_s,
                                          u"customapp"_s,
                                          u"web"_s,
                                          u"--type=merge"_s,
                                          u"-p"_s,
                                          uR"({"spec":{"replicas":5}})"_s });
    QVERIFY(patch.exitCode != 0);
    QVERIFY2(patch.err.contains(u"Error from server (Forbidden)"_s), qPrintable(patch.err));
    QVERIFY2(
        patch.err.contains(u"User \"viewer\" cannot patch resource \"customapps\" in API group "
                           u"\"infrastructure.internal.net\" in the namespace \"default\""_s),
        qPrintable(patch.err));
    const auto del = run(viewer + QStringList{ u"delete"_s, u"customapp"_s, u"web"_s });
    QVERIFY(del.exitCode != 0);
    QVERIFY(del.err.contains(u"(Forbidden)"_s));
    const auto after = getJson(u"customapp"_s, u"web"_s);
    QCOMPARE(after[u"metadata"_s][u"resourceVersion"_s],
             before[u"metadata"_s][u"resourceVersion"_s]);
}

void tst_Kubectl::noCredentialsIs401()
{
    // No credentials at all: a plain HTTPS GET without client certificate or token.
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(m_serve->url() + u"/apis"_s));
    auto ssl = QSslConfiguration::defaultConfiguration();
    ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    request.setSslConfiguration(ssl);
    std::unique_ptr<QNetworkReply> reply(nam.get(request));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 15000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 401);
    const auto status = QJsonDocument::fromJson(reply->readAll()).object();
    QCOMPARE(status[u"kind"_s].toString(), u"Status"_s);
    QCOMPARE(status[u"reason"_s].toString(), u"Unauthorized"_s);

    // A wrong token through kubectl.
    const auto result = run({ u"--kubeconfig"_s,
                              u"/dev/null"_s,
                              u"--server"_s,
                              m_serve->url(),
                              u"--insecure-skip-tls-verify"_s,
                              u"--token"_s,
                              u"not-a-token"_s,
                              u"get"_s,
                              u"--raw"_s,
                              u"/apis"_s });
    QVERIFY(result.exitCode != 0);
    QVERIFY2(result.err.contains(u"Unauthorized"_s), qPrintable(result.err));
}

void tst_Kubectl::tokenContextWorks()
{
    const auto result = run(
        { u"--context"_s, u"reconscope-token"_s, u"get"_s, u"customapps"_s, u"-o"_s, u"name"_s });
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.out.contains(u"customapp.infrastructure.internal.net/web"_s));
}

void tst_Kubectl::realCrdsInstallAndServeTheirObjects()
{
    const QDir crds(sharedDir() + u"/fixtures/real-crds/crds"_s);
    const auto crdFiles = crds.entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name);
    QCOMPARE(crdFiles.size(), 12);
    for (const auto &name : crdFiles) {
        const auto result = run({ u"create"_s, u"-f"_s, crds.filePath(name) });
        QVERIFY2(result.exitCode == 0, qPrintable(name + u": "_s + result.err));
    }
    const auto resources = run({ u"api-resources"_s });
    for (const auto &plural : { u"certificates"_s,
                                u"kustomizations"_s,
                                u"helmreleases"_s,
                                u"helmrepositories"_s,
                                u"applications"_s,
                                u"clusters"_s,
                                u"machines"_s,
                                u"machinepools"_s,
                                u"compositions"_s,
                                u"providers"_s,
                                u"servicemonitors"_s,
                                u"scaledobjects"_s })
        QVERIFY2(resources.out.contains(plural), qPrintable(plural));

    // Every example object of a served version is accepted; where the CRD has a status subresource
    // the status is written through /status, as a controller would.
    const QDir objects(sharedDir() + u"/fixtures/real-crds/objects"_s);
    int accepted = 0;
    for (const auto &name : objects.entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name)) {
        const auto local = run({ u"create"_s,
                                 u"--dry-run=client"_s,
                                 u"-o"_s,
                                 u"json"_s,
                                 u"--validate=false"_s,
                                 u"-f"_s,
                                 objects.filePath(name) });
        auto object = parseObject(local.out);
        if (local.exitCode != 0 || object[u"apiVersion"_s].toString().isEmpty())
            continue; // a kind kubectl cannot map: none of these CRDs defines it
        // Several fixtures share a name (podinfo, keda): give each a name of its own.
        auto metadata = object[u"metadata"_s].toObject();
        metadata[u"name"_s] = metadata[u"name"_s].toString() + u"-"_s + QString::number(accepted);
        object[u"metadata"_s] = metadata;
        const auto apiVersion = object[u"apiVersion"_s].toString();
        const auto group = apiVersion.section(u'/', 0, 0);
        const auto version = apiVersion.section(u'/', 1, 1);
        const auto discovered = run({ u"get"_s, u"--raw"_s, u"/apis/"_s + group + u'/' + version });
        if (discovered.exitCode != 0)
            continue; // a version (or kind) this set of CRDs does not serve
        const auto ns = object[u"metadata"_s][u"namespace"_s].toString();
        if (!ns.isEmpty()) // a manifest: `kubectl create namespace` speaks protobuf
            run({ u"apply"_s, u"-f"_s, u"-"_s },
                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                    + ns.toUtf8() + "\"}}");
        const auto created = run({ u"create"_s, u"-f"_s, u"-"_s },
                                 QJsonDocument(object).toJson(QJsonDocument::Compact));
        QVERIFY2(created.exitCode == 0, qPrintable(name + u": "_s + created.err));
        ++accepted;
        if (!object.contains(u"status"_s))
            continue;
        // The plural and whether /status exists, from the version's APIResourceList.
        QString plural;
        QStringList names;
        for (const auto &resource : parseObject(discovered.out)[u"resources"_s].toArray()) {
            const auto entry = resource.toObject();
            names += entry[u"name"_s].toString();
            if (entry[u"kind"_s] == object[u"kind"_s]
                && !entry[u"name"_s].toString().contains(u'/'))
                plural = entry[u"name"_s].toString();
        }
        QVERIFY2(!plural.isEmpty(), qPrintable(name));
        if (!names.contains(plural + u"/status"_s))
            continue; // no status subresource (Argo CD Application, Crossplane Composition)
        const auto statusPatch = QJsonDocument(QJsonObject{ { u"status"_s, object[u"status"_s] } })
                                     .toJson(QJsonDocument::Compact);
        QStringList patchArgs{ u"patch"_s,
                               plural + u'.' + version + u'.' + group, // the object's own version
                               object[u"metadata"_s][u"name"_s].toString(),
                               u"--subresource=status"_s,
                               u"--type=merge"_s,
                               u"-p"_s,
                               QString::fromUtf8(statusPatch) };
        if (!ns.isEmpty())
            patchArgs += { u"-n"_s, ns };
        const auto patched = run(patchArgs);
        QVERIFY2(patched.exitCode == 0, qPrintable(name + u": "_s + patched.err));
    }
    QVERIFY2(accepted >= 15, qPrintable(QString::number(accepted)));

    // Printer columns of a real CRD in kubectl get.
    const auto certificates = run({ u"get"_s, u"certificates"_s, u"-A"_s });
    QCOMPARE(certificates.exitCode, 0);
    QVERIFY2(QRegularExpression(uR"(^NAMESPACE\s+NAME\s+READY\s+SECRET\s+AGE$)"_s,
                                QRegularExpression::MultilineOption)
                 .match(certificates.out)
                 .hasMatch(),
             qPrintable(certificates.out));

    // Flux's status default: an object created without status reads back observedGeneration -1.
    const auto empty = run(
        { u"get"_s,
          u"kustomization"_s,
          u"-A"_s,
          u"-o"_s,
          u"jsonpath={range .items[?(@.status.observedGeneration==-1)]}{.metadata.name}{\"\\n\"}{end}"_s });
    QCOMPARE(empty.exitCode, 0);
    QVERIFY2(!empty.out.trimmed().isEmpty(), qPrintable(empty.out + empty.err));
}

void tst_Kubectl::reconscopeWatchPrintsTransitionWithinASecond()
{
    QProcess watch;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"KUBECONFIG"_s, m_serve->kubeconfigPath());
    watch.setProcessEnvironment(env);
    watch.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                { u"watch"_s, u"customapps"_s, u"-A"_s, u"-o"_s, u"json"_s });
    QVERIFY(watch.waitForStarted(10000));
    QByteArray seen;
    // It starts with the census: the current state of each object, no transition.
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += watch.readAllStandardOutput()).contains("\"key\":\"default/api\""), 15000);
    QVERIFY(seen.contains("\"type\":\"census\""));
    QVERIFY(!seen.contains("\"from\":\"[*]\""));

    const auto patch
        = uR"({"status":{"observedGeneration":1,"conditions":[{"type":"Degraded","status":"True","reason":"QuotaExceeded","message":"exceeded quota","lastTransitionTime":"2026-11-29T10:00:00Z","observedGeneration":1}]}})"_s;
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(run({ u"patch"_s,
                   u"customapp"_s,
                   u"api"_s,
                   u"--subresource=status"_s,
                   u"--type=merge"_s,
                   u"-p"_s,
                   patch })
                 .exitCode,
             0);
    const qint64 patchedAfter = timer.elapsed();
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += watch.readAllStandardOutput()).contains("\"to\":\"Degraded\""), 5000);
    const qint64 printedAfter = timer.elapsed();
    // Within a second of kubectl returning.
    QVERIFY2(
        printedAfter - patchedAfter < 1000,
        qPrintable(u"printed %1 ms after the patch returned"_s.arg(printedAfter - patchedAfter)));
    for (const auto &line : seen.split('\n')) {
        if (!line.contains("\"to\":\"Degraded\""))
            continue;
        const auto transition = QJsonDocument::fromJson(line).object();
        QCOMPARE(transition[u"key"_s].toString(), u"default/api"_s);
        QCOMPARE(transition[u"type"_s].toString(), u"transition"_s);
        QCOMPARE(transition[u"from"_s].toString(), u"Pending"_s);
        QCOMPARE(transition[u"reason"_s].toString(), u"QuotaExceeded"_s);
        QCOMPARE(transition[u"onDesign"_s].toBool(), false);
        QCOMPARE(transition[u"acrossGap"_s].toBool(), false);
    }
    watch.terminate();
    watch.waitForFinished(5000);
}

// kubectl's typed create commands send protobuf bodies (application/vnd.kubernetes.protobuf);
// each must create the object it names, as kind's apiserver does.
void tst_Kubectl::typedCreateCommandsSendProtobuf()
{
    const QList<QStringList> commands = {
        { u"create"_s, u"namespace"_s, u"team-a"_s },
        { u"create"_s, u"configmap"_s, u"c"_s, u"-n"_s, u"team-a"_s, u"--from-literal=a=b"_s },
        { u"create"_s,
          u"secret"_s,
          u"generic"_s,
          u"s"_s,
          u"-n"_s,
          u"team-a"_s,
          u"--from-literal=p=x"_s },
        { u"create"_s,
          u"deployment"_s,
          u"web"_s,
          u"-n"_s,
          u"team-a"_s,
          u"--image=nginx:1.27"_s,
          u"--replicas=2"_s,
          u"--port=80"_s },
    };
    for (const QStringList &command : commands) {
        const auto result = run(command);
        QVERIFY2(result.exitCode == 0, qPrintable(command.join(u' ') + u": "_s + result.err));
    }
    const QJsonObject ns = getJson(u"namespace"_s, u"team-a"_s);
    QCOMPARE(ns.value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Active"_s);
    const auto inTeamA = [this](const QString &resource, const QString &name) {
        const auto result
            = run({ u"get"_s, resource, name, u"-n"_s, u"team-a"_s, u"-o"_s, u"json"_s });
        if (result.exitCode != 0)
            qWarning().noquote() << result.err;
        return parseObject(result.out);
    };
    QCOMPARE(inTeamA(u"configmap"_s, u"c"_s).value(u"data"_s).toObject(),
             QJsonObject({ { u"a"_s, u"b"_s } }));
    const QJsonObject secret = inTeamA(u"secret"_s, u"s"_s);
    QCOMPARE(secret.value(u"type"_s).toString(), u"Opaque"_s);
    QCOMPARE(secret.value(u"data"_s).toObject(), QJsonObject({ { u"p"_s, u"eA=="_s } }));

    const QJsonObject deployment = inTeamA(u"deployment"_s, u"web"_s);
    const QJsonObject labels({ { u"app"_s, u"web"_s } });
    QCOMPARE(deployment.value(u"metadata"_s).toObject().value(u"labels"_s).toObject(), labels);
    const QJsonObject spec = deployment.value(u"spec"_s).toObject();
    QCOMPARE(spec.value(u"replicas"_s).toInt(), 2);
    QCOMPARE(spec.value(u"selector"_s).toObject().value(u"matchLabels"_s).toObject(), labels);
    const QJsonObject podTemplate = spec.value(u"template"_s).toObject();
    QCOMPARE(podTemplate.value(u"metadata"_s).toObject().value(u"labels"_s).toObject(), labels);
    const QJsonArray containers
        = podTemplate.value(u"spec"_s).toObject().value(u"containers"_s).toArray();
    QCOMPARE(containers.size(), 1);
    const QJsonObject container = containers.first().toObject();
    QCOMPARE(container.value(u"name"_s).toString(), u"nginx"_s);
    QCOMPARE(container.value(u"image"_s).toString(), u"nginx:1.27"_s);
    QCOMPARE(
        container.value(u"ports"_s).toArray().first().toObject().value(u"containerPort"_s).toInt(),
        80);
}

QTEST_GUILESS_MAIN(tst_Kubectl)
#include "tst_kubectl.moc"
