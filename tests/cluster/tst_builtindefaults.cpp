// Built-in kinds' defaults (registry/builtindefaults): what kube-apiserver 1.36.3 returned for
// the same requests in the fidelity corpus (tools/fidelity/scenarios 20-core, 30-workloads) is
// the expectation, with the rules of k8s.io/kubernetes pkg/apis/core/v1 and apps/v1 defaults.go
// for the rows the corpus does not cover.
#include "apitestsupport.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/registry/builtindefaults.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

namespace {

ResourceType builtinType(const QString &plural)
{
    for (const ResourceType &type : builtinResourceTypes()) {
        if (type.plural == plural)
            return type;
    }
    return {};
}

json defaulted(const QString &plural, json object)
{
    applyBuiltinDefaults(builtinType(plural), object);
    return object;
}

std::string pullPolicyOf(const std::string &image)
{
    const json pod
        = defaulted(u"pods"_s, { { "spec", { { "containers", { { { "name", "c" } } } } } } });
    json withImage = pod;
    withImage["spec"]["containers"][0]["image"] = image;
    withImage["spec"]["containers"][0].erase("imagePullPolicy");
    return defaulted(u"pods"_s, withImage)["spec"]["containers"][0]["imagePullPolicy"];
}

} // namespace

class tst_BuiltinDefaults final : public ApiTestCase
{
    Q_OBJECT

private slots:
    void cleanup() { tearDown(); }

    void deploymentAsKubeApiserverDefaultsIt();
    void podSpecMembers();
    void imagePullPolicy_data();
    void imagePullPolicy();
    void secretStringDataAndType();
    void eventZeroMembers();
    void emptyMetadataMapsLeftOut();
    void defaultingTwiceIsDefaultingOnce();
    void podCreatedThroughTheApi();
    void qosClass_data();
    void qosClass();
};

void tst_BuiltinDefaults::deploymentAsKubeApiserverDefaultsIt()
{
    // deployments/create of the corpus: the body sent, and the spec the real server stored.
    const json sent = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web","labels":{"app":"web","tier":"front"}},
        "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
          "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}}})");
    const json real = json::parse(R"({"progressDeadlineSeconds":600,"replicas":2,
        "revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"web"}},
        "strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},
          "type":"RollingUpdate"},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
          {"image":"nginx:1.27","imagePullPolicy":"IfNotPresent","name":"web",
           "ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},
           "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
          "dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",
          "securityContext":{},"terminationGracePeriodSeconds":30}}})");
    const json object = defaulted(u"deployments"_s, sent);
    QVERIFY2(object["spec"] == real, object["spec"].dump().c_str());
    QVERIFY(object["status"] == json::object());
    // A Recreate strategy gets no rollingUpdate; replicas default to 1.
    json recreate = sent;
    recreate["spec"].erase("replicas");
    recreate["spec"]["strategy"] = { { "type", "Recreate" } };
    const json r = defaulted(u"deployments"_s, recreate);
    QVERIFY(r["spec"]["strategy"] == json({ { "type", "Recreate" } }));
    QCOMPARE(r["spec"]["replicas"].get<int>(), 1);
    // A ReplicaSet: replicas and its template, none of a Deployment's own.
    const json rs = defaulted(u"replicasets"_s, recreate);
    QCOMPARE(rs["spec"]["replicas"].get<int>(), 1);
    QVERIFY(!rs["spec"].contains("revisionHistoryLimit"));
    QVERIFY(rs["spec"]["template"]["spec"]["dnsPolicy"] == json("ClusterFirst"));
}

void tst_BuiltinDefaults::podSpecMembers()
{
    const json pod = defaulted(u"pods"_s, json::parse(R"({"spec":{
        "containers":[{"name":"c","image":"app:1",
          "resources":{"limits":{"cpu":"1"},"requests":{"memory":"1Gi"}},
          "env":[{"name":"N","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
          "livenessProbe":{"httpGet":{"port":8080}},
          "readinessProbe":{"exec":{"command":["true"]},"periodSeconds":5}}],
        "volumes":[{"name":"scratch"},{"name":"s","secret":{"secretName":"x"}},
          {"name":"h","hostPath":{"path":"/tmp"}},{"name":"cm","configMap":{"name":"c","defaultMode":256}}]}})"));
    const json &c = pod["spec"]["containers"][0];
    // Requests default to the limits (SetDefaults_Pod), without overriding those given.
    QVERIFY(c["resources"]["requests"] == json({ { "cpu", "1" }, { "memory", "1Gi" } }));
    QVERIFY(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == json("v1"));
    QVERIFY(c["livenessProbe"]
            == json::parse(R"({"httpGet":{"port":8080,"path":"/","scheme":"HTTP"},
        "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3})"));
    QCOMPARE(c["readinessProbe"]["periodSeconds"].get<int>(), 5);
    const json &volumes = pod["spec"]["volumes"];
    QVERIFY(volumes[0]["emptyDir"] == json::object());
    QCOMPARE(volumes[1]["secret"]["defaultMode"].get<int>(), 420);
    QVERIFY(volumes[2]["hostPath"]["type"] == json(""));
    QCOMPARE(volumes[3]["configMap"]["defaultMode"].get<int>(), 256);
    QVERIFY(pod["spec"]["enableServiceLinks"] == json(true));
}

void tst_BuiltinDefaults::imagePullPolicy_data()
{
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("policy");
    QTest::newRow("tag") << u"nginx:1.27"_s << u"IfNotPresent"_s;
    QTest::newRow("latest") << u"nginx:latest"_s << u"Always"_s;
    QTest::newRow("no tag") << u"nginx"_s << u"Always"_s;
    QTest::newRow("digest only") << u"nginx@sha256:0123456789abcdef"_s << u"IfNotPresent"_s;
    QTest::newRow("registry port, no tag") << u"registry:5000/team/app"_s << u"Always"_s;
    QTest::newRow("registry port, tag") << u"registry:5000/team/app:2"_s << u"IfNotPresent"_s;
    QTest::newRow("upper-case registry") << u"Registry.example.com/app"_s << u"Always"_s;
    QTest::newRow("upper-case repository") << u"Team/App"_s << u"IfNotPresent"_s;
    QTest::newRow("empty") << QString() << u"IfNotPresent"_s;
}

void tst_BuiltinDefaults::imagePullPolicy()
{
    QFETCH(QString, image);
    QFETCH(QString, policy);
    QCOMPARE(QString::fromStdString(pullPolicyOf(image.toStdString())), policy);
}

void tst_BuiltinDefaults::secretStringDataAndType()
{
    // secrets/create-opaque of the corpus.
    const json secret = defaulted(
        u"secrets"_s, json::parse(R"({"metadata":{"name":"creds"},"data":{"user":"YWRtaW4="},
            "stringData":{"password":"s3cret"}})"));
    QVERIFY2(secret == json::parse(R"({"metadata":{"name":"creds"},"type":"Opaque",
                     "data":{"user":"YWRtaW4=","password":"czNjcmV0"}})"),
             secret.dump().c_str());
    const json tls = defaulted(u"secrets"_s, { { "type", "kubernetes.io/tls" } });
    QVERIFY(tls["type"] == json("kubernetes.io/tls"));
}

void tst_BuiltinDefaults::eventZeroMembers()
{
    // events/create-warning of the corpus: no times given.
    const json event = defaulted(u"events"_s, json::parse(R"({"metadata":{"name":"web.2"},
        "involvedObject":{"kind":"CustomApp","name":"web"},"reason":"InvalidSpec","count":2,
        "source":{"component":"reconscope"},"type":"Warning"})"));
    for (const char *key : { "eventTime", "firstTimestamp", "lastTimestamp" })
        QVERIFY2(event.contains(key) && event[key].is_null(), key);
    QVERIFY(event["reportingComponent"] == json(""));
    QVERIFY(event["reportingInstance"] == json(""));
    QVERIFY(event["source"]["component"] == json("reconscope"));
    const json bare = defaulted(u"events"_s, { { "metadata", { { "name", "e" } } } });
    QVERIFY(bare["source"] == json::object());
    QVERIFY(bare["involvedObject"] == json::object());
}

void tst_BuiltinDefaults::emptyMetadataMapsLeftOut()
{
    // watch-configmaps/unlabel of the corpus: the last label removed leaves no labels member.
    const json cm = defaulted(u"configmaps"_s, json::parse(R"({"metadata":{"name":"w1",
        "labels":{},"annotations":{},"finalizers":[]},"data":{"a":"b"}})"));
    QVERIFY2(cm == json::parse(R"({"metadata":{"name":"w1"},"data":{"a":"b"}})"),
             cm.dump().c_str());
}

void tst_BuiltinDefaults::defaultingTwiceIsDefaultingOnce()
{
    for (const QString &plural :
         { u"pods"_s, u"deployments"_s, u"secrets"_s, u"events"_s, u"resourcequotas"_s }) {
        const json once
            = defaulted(plural, json::parse(R"({"metadata":{"name":"x"},"stringData":{"a":"b"},
                "spec":{"containers":[{"name":"c","image":"i"}],"template":{"spec":{}}}})"));
        QVERIFY2(defaulted(plural, once) == once, qPrintable(plural));
    }
}

void tst_BuiltinDefaults::podCreatedThroughTheApi()
{
    setUp();
    const QString pods = u"/api/v1/namespaces/default/pods"_s;
    QCOMPARE(call("POST",
                  pods,
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},
                      "spec":{"containers":[{"name":"c","image":"nginx:1.27"}]},
                      "status":{"phase":"Running"}})")
                 .status,
             201);
    // pods/create of the corpus, as the real server answered it.
    json pod = parse(call("GET", pods + u"/p1"_s).body);
    QCOMPARE(pod["metadata"]["generation"].get<int>(), 1);
    QVERIFY(pod["status"] == json::parse(R"({"phase":"Pending","qosClass":"BestEffort"})"));
    const json expected = json::parse(R"({"containers":[{"image":"nginx:1.27",
        "imagePullPolicy":"IfNotPresent","name":"c","resources":{},
        "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
        "dnsPolicy":"ClusterFirst","enableServiceLinks":true,
        "preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always",
        "schedulerName":"default-scheduler","securityContext":{},
        "terminationGracePeriodSeconds":30,"tolerations":[
          {"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists",
           "tolerationSeconds":300},
          {"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists",
           "tolerationSeconds":300}]})");
    QVERIFY2(pod["spec"] == expected, pod["spec"].dump().c_str());
    // A spec change bumps the generation (pods track it since 1.34).
    QCOMPARE(call("PATCH",
                  pods + u"/p1"_s,
                  R"({"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}})",
                  "application/strategic-merge-patch+json")
                 .status,
             200);
    pod = parse(call("GET", pods + u"/p1"_s).body);
    QCOMPARE(pod["metadata"]["generation"].get<int>(), 2);
    QCOMPARE(pod["spec"]["tolerations"].size(), std::size_t(2));
}

void tst_BuiltinDefaults::qosClass_data()
{
    QTest::addColumn<QByteArray>("resources");
    QTest::addColumn<QString>("qos");
    QTest::newRow("none") << QByteArray("{}") << u"BestEffort"_s;
    QTest::newRow("limits only") << QByteArray(R"({"limits":{"cpu":"1","memory":"1Gi"}})")
                                 << u"Guaranteed"_s;
    QTest::newRow("equal") << QByteArray(
        R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"1","memory":"1Gi"}})")
                           << u"Guaranteed"_s;
    QTest::newRow("requests below limits") << QByteArray(
        R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m","memory":"1Gi"}})")
                                           << u"Burstable"_s;
    QTest::newRow("cpu limit only") << QByteArray(R"({"limits":{"cpu":"1"}})") << u"Burstable"_s;
    QTest::newRow("requests only")
        << QByteArray(R"({"requests":{"memory":"1Gi"}})") << u"Burstable"_s;
}

void tst_BuiltinDefaults::qosClass()
{
    QFETCH(QByteArray, resources);
    QFETCH(QString, qos);
    json pod = defaulted(u"pods"_s,
                         { { "spec",
                             { { "containers",
                                 { { { "name", "c" },
                                     { "image", "i:1" },
                                     { "resources", parse(resources) } } } } } } });
    preparePodForCreate(pod);
    QCOMPARE(QString::fromStdString(pod["status"]["qosClass"].get<std::string>()), qos);
}

QTEST_GUILESS_MAIN(tst_BuiltinDefaults)
#include "tst_builtindefaults.moc"
