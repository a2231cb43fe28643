#include "models/customappview.h"

#include <QTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
using namespace reconscope::models;

// The CustomApp spec and status views: typed readings with their fallbacks, the stored members
// as they are, and no exception for absent or mistyped parts.
class tst_CustomAppView : public QObject
{
    Q_OBJECT

private slots:
    void specReadsTypedFields();
    void specToleratesMissingAndMistypedFields();
    void statusReadsCounts();
    void statusToleratesMissingAndMistypedFields();
};

void tst_CustomAppView::specReadsTypedFields()
{
    const json app = json::parse(R"({"spec": {"image": "nginx:1.27", "replicas": 3, "port": 8080,
        "configJSON": "{}", "secretRef": {"name": "creds"}, "paused": true}})");
    const CustomAppSpecView spec(app);
    QVERIFY(spec.isObject());
    QCOMPARE(spec.image(), u"nginx:1.27"_s);
    QCOMPARE(spec.replicas(1), qint64(3));
    QCOMPARE(spec.secretName(), u"creds"_s);
    QVERIFY(spec.paused());
    QVERIFY(spec.imageValue() == json("nginx:1.27"));
    QVERIFY(spec.replicasValue() == json(3));
    QVERIFY(spec.portValue() == json(8080));
    QVERIFY(spec.configJSONValue() == json("{}"));
    QVERIFY(spec.secretRef() == json({ { "name", "creds" } }));
    QCOMPARE(&spec.json(), &app["spec"]);
}

void tst_CustomAppView::specToleratesMissingAndMistypedFields()
{
    for (const char *text : { R"({})",
                              R"({"spec": null})",
                              R"({"spec": []})",
                              R"("not an object")",
                              R"({"spec": {"image": 5, "replicas": "3", "secretRef": "creds",
                                   "paused": "true"}})" }) {
        const json app = json::parse(text);
        const CustomAppSpecView spec(app);
        QCOMPARE(spec.image(), QString());
        QCOMPARE(spec.replicas(1), qint64(1));
        QCOMPARE(spec.secretName(), QString());
        QVERIFY(!spec.paused());
        QVERIFY(spec.portValue().is_null());
        QVERIFY(spec.configJSONValue().is_null());
    }
    const json mistyped = json::parse(R"({"spec": {"image": 5, "replicas": "3"}})");
    const CustomAppSpecView spec(mistyped);
    QVERIFY(spec.isObject());
    QVERIFY(spec.imageValue() == json(5)); // a check can still tell it from an absent image
    QVERIFY(spec.replicasValue() == json("3"));
    QVERIFY(!CustomAppSpecView(json::parse(R"({"spec": []})")).isObject());
}

void tst_CustomAppView::statusReadsCounts()
{
    const json app = json::parse(R"({"status": {"observedGeneration": 4, "replicas": 3,
        "readyReplicas": 2, "conditions": [{"type": "Ready", "status": "False"}]}})");
    const CustomAppStatusView status(app);
    QVERIFY(status.isObject());
    QCOMPARE(status.observedGeneration(-1), qint64(4));
    QCOMPARE(status.replicas(), qint64(3));
    QCOMPARE(status.readyReplicas(), qint64(2));
    QVERIFY(status.conditions().is_array());
    QCOMPARE(status.conditions().size(), std::size_t(1));
}

void tst_CustomAppView::statusToleratesMissingAndMistypedFields()
{
    for (const char *text :
         { R"({})", R"({"status": 7})", R"({"status": {"observedGeneration": "4"}})" }) {
        const json app = json::parse(text);
        const CustomAppStatusView status(app);
        QCOMPARE(status.observedGeneration(-1), qint64(-1));
        QCOMPARE(status.replicas(), qint64(0));
        QCOMPARE(status.readyReplicas(5), qint64(5));
        QVERIFY(status.conditions().is_null());
    }
    QVERIFY(!CustomAppStatusView(json::parse(R"({"status": 7})")).isObject());
}

QTEST_GUILESS_MAIN(tst_CustomAppView)
#include "tst_customappview.moc"
