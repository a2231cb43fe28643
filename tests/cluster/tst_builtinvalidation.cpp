// Built-in kinds' validation (registry/builtinvalidation, podvalidation, metavalidation,
// builtindecode). data/builtinvalidation/answers.json holds what kube-apiserver 1.36.3 answered
// to requests of the fidelity corpus (tools/fidelity/scenarios 20-core, 30-workloads,
// 35-builtin-validation, 50-semantics, 60-errors), each with the requests before it that the real
// server accepted; tools/fidelity/answers.py writes it from a --results file.
#include "apitestsupport.h"

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/registry/builtindecode.h"
#include "models/unifieddiff.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <regex>
#include <set>

using namespace Qt::StringLiterals;
using namespace reconscope::controller;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

namespace {

const QString answersFile = QStringLiteral(RECONSCOPE_TEST_DATA "/builtinvalidation/answers.json");

// {"method", "path", "body", "contentType"}; a "rawSize" instead of a body stands for a
// ConfigMap of about that many bytes, as the harness's raw_size.
ApiRequest requestOf(const json &r)
{
    QByteArray body = QByteArray::fromStdString(r.value("body", ""));
    if (r.contains("rawSize")) {
        const json configMap
            = { { "apiVersion", "v1" },
                { "kind", "ConfigMap" },
                { "metadata", { { "name", "huge" } } },
                { "data", { { "x", std::string(r["rawSize"].get<std::size_t>(), 'x') } } } };
        body = dump(configMap);
    }
    return request(QByteArray::fromStdString(r["method"].get<std::string>()),
                   QString::fromStdString(r["path"].get<std::string>()),
                   body,
                   QByteArray::fromStdString(r.value("contentType", "application/json")));
}

// What must differ between two servers, in one form for both sides: the embedded cluster's uids,
// resourceVersions and server-set times as they are, the recorded answer's as the harness labelled
// them (normalize.py: "<uid:NS/NAME#k>", "<rv:NS/NAME#k>", "<time>"). The labels' counts depend on
// what the harness saw before, so both sides come down to "<uid>", "<rv>" and "<time>".
void genericIdentities(json &value, const std::string &key = {})
{
    static const std::regex label("<(uid|rv)(:[^>]*)?>");
    static const std::regex rvInMessage("([Rr]esource ?[Vv]ersion[\"': =]{0,4})[0-9]+");
    static const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    static const std::set<std::string> timeKeys{
        "creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime"
    };
    if (value.is_object()) {
        // The recorded answers predate managedFields (the harness dropped them then); they are
        // held to the real server by tst_serversideapply and the fidelity corpus.
        if (key == "metadata")
            value.erase("managedFields");
        for (auto it = value.begin(); it != value.end(); ++it)
            genericIdentities(it.value(), it.key());
    } else if (value.is_array()) {
        for (json &item : value)
            genericIdentities(item);
    } else if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (key == "uid")
            text = "<uid>";
        else if (key == "resourceVersion")
            text = "<rv>";
        else if (timeKeys.contains(key))
            text = "<time>";
        text = std::regex_replace(text, label, "<$1>");
        text = std::regex_replace(std::regex_replace(text, rvInMessage, "$1<rv>"), uuid, "<uid>");
        value = text;
    }
}

// What the fidelity harness compares (normalize.py): identities as above, the causes of a Status
// sorted, and the list of them its message holds in the same order.
json normalized(json answer)
{
    genericIdentities(answer);
    if (answer.value("kind", "") != "Status" || !answer.contains("details"))
        return answer;
    json &causes = answer["details"]["causes"];
    if (!causes.is_array() || causes.size() < 2)
        return answer;
    const auto listed = [](const json &items) {
        std::string text;
        for (const json &c : items)
            text += (text.empty() ? "" : ", ") + c.value("field", "") + ": "
                + c.value("message", "");
        return text;
    };
    json sorted = causes;
    std::sort(sorted.begin(), sorted.end(), [](const json &a, const json &b) {
        return a.dump() < b.dump();
    });
    std::string message = answer.value("message", "");
    const std::string before = listed(causes);
    if (const auto at = message.find(before); at != std::string::npos)
        message.replace(at, before.size(), listed(sorted));
    answer["message"] = message;
    causes = sorted;
    return answer;
}

} // namespace

class tst_BuiltinValidation final : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void asKubeApiserverAnswers_data();
    void asKubeApiserverAnswers();
    void dryRunIsValidated();
    void acceptedObjectsAsStored();
    void quantities_data();
    void quantities();
    void base64Errors_data();
    void base64Errors();
    void unifiedDiffOfLines();
};

void tst_BuiltinValidation::asKubeApiserverAnswers_data()
{
    QTest::addColumn<json>("answer");
    QFile file(answersFile);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(answersFile));
    const QByteArray text = file.readAll();
    const json answers = json::parse(text.constBegin(), text.constEnd(), nullptr, false);
    QVERIFY(answers.is_array() && !answers.empty());
    for (const json &answer : answers)
        QTest::newRow(answer["id"].get<std::string>().c_str()) << answer;
}

void tst_BuiltinValidation::asKubeApiserverAnswers()
{
    QFETCH(json, answer);
    for (const json &step : answer["setup"]) {
        const ApiResponse response = m_server->handle(requestOf(step));
        QVERIFY2(response.status < 300,
                 (step["method"].get<std::string>() + ' ' + step["path"].get<std::string>() + ": "
                  + response.body.toStdString())
                     .c_str());
    }
    const ApiResponse response = m_server->handle(requestOf(answer["request"]));
    QCOMPARE(response.status, answer["status"].get<int>());
    JSON_COMPARE(normalized(parse(response.body)), normalized(answer["expected"]));
}

void tst_BuiltinValidation::dryRunIsValidated()
{
    // Validation runs before the dry run stops short of storage.
    const ApiResponse response
        = call("POST",
               u"/apis/apps/v1/namespaces/default/deployments?dryRun=All"_s,
               R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"empty"},
                   "spec":{"selector":{"matchLabels":{"app":"e"}},
                   "template":{"metadata":{"labels":{"app":"e"}},"spec":{"containers":[]}}}})");
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"Deployment.apps \"empty\" is invalid: spec.template.spec.containers: Required value"_s);
}

void tst_BuiltinValidation::acceptedObjectsAsStored()
{
    // Quantities are stored as resource.Quantity re-encodes them (the corpus's
    // quota-validation/canonical answer).
    const ApiResponse response
        = call("POST",
               u"/api/v1/namespaces/default/resourcequotas"_s,
               R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"ok"},
            "spec":{"hard":{"cpu":"1000m","memory":"1024Mi","requests.storage":"0.5Gi",
            "pods":"10","limits.cpu":1.5,"services":"2e3"}}})");
    QCOMPARE(response.status, 201);
    JSON_COMPARE(parse(response.body)["spec"]["hard"],
                 json::parse(R"({"cpu":"1","limits.cpu":"1500m","memory":"1Gi","pods":"10",
                                 "requests.storage":"512Mi","services":"2e3"})"));
}

void tst_BuiltinValidation::quantities_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("printed"); // empty: refused
    QTest::addColumn<QString>("error");
    QTest::newRow("canonical kept") << u"100m"_s << u"100m"_s << QString();
    QTest::newRow("whole milli") << u"1000m"_s << u"1"_s << QString();
    QTest::newRow("fraction") << u"0.5"_s << u"500m"_s << QString();
    QTest::newRow("binary power") << u"1024Mi"_s << u"1Gi"_s << QString();
    QTest::newRow("binary fraction") << u"1.5Gi"_s << u"1536Mi"_s << QString();
    QTest::newRow("small binary") << u"0.5Ki"_s << u"512"_s << QString();
    QTest::newRow("exponent kept") << u"2e3"_s << u"2e3"_s << QString();
    QTest::newRow("below nano rounds up") << u"0.5n"_s << u"1n"_s << QString();
    QTest::newRow("sign kept") << u"+1"_s << u"+1"_s << QString();
    QTest::newRow("negative") << u"-0.5Gi"_s << u"-512Mi"_s << QString();
    QTest::newRow("zero") << u"0.0"_s << u"0"_s << QString();
    QTest::newRow("words") << u"two"_s << QString()
                           << u"quantities must match the regular expression "
                              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"_s;
    QTest::newRow("unknown suffix") << u"1Qi"_s << QString()
                                    << u"quantities must match the regular expression "
                                       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"_s;
    QTest::newRow("suffix letters")
        << u"1mi"_s << QString() << u"unable to parse quantity's suffix"_s;
}

void tst_BuiltinValidation::quantities()
{
    QFETCH(QString, input);
    QFETCH(QString, printed);
    QFETCH(QString, error);
    QString message;
    const auto quantity = apimachinery::Quantity::parse(input, &message);
    QCOMPARE(quantity.has_value(), !printed.isEmpty());
    if (quantity)
        QCOMPARE(quantity->toString(), printed);
    else
        QCOMPARE(message, error);
}

void tst_BuiltinValidation::base64Errors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("valid") << u"aGVsbG8="_s << QString();
    QTest::newRow("newlines skipped") << u"aGVs\nbG8="_s << QString();
    QTest::newRow("space") << u"not base64!"_s << u"illegal base64 data at input byte 3"_s;
    QTest::newRow("short") << u"YQ"_s << u"illegal base64 data at input byte 0"_s;
    QTest::newRow("one padding") << u"YQ="_s << u"illegal base64 data at input byte 3"_s;
    QTest::newRow("trailing") << u"YQ==YQ=="_s << u"illegal base64 data at input byte 4"_s;
    QTest::newRow("percent") << u"a%b"_s << u"illegal base64 data at input byte 1"_s;
}

void tst_BuiltinValidation::base64Errors()
{
    QFETCH(QString, text);
    QFETCH(QString, error);
    const auto message = goBase64Error(text.toStdString());
    QCOMPARE(message.value_or(QString()), error);
}

void tst_BuiltinValidation::unifiedDiffOfLines()
{
    // What Python's difflib.unified_diff (which go-difflib ports) writes for the same lines.
    const std::string a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj";
    const std::string b = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk";
    QCOMPARE(QString::fromStdString(reconscope::models::unifiedDiff(a, b)),
             u"@@ -2,9 +2,10 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n j\n+k\n"_s);
    const std::string c = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np";
    const std::string d = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\nO\np";
    QCOMPARE(
        QString::fromStdString(reconscope::models::unifiedDiff(c, d)),
        u"@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -12,5 +12,5 @@\n l\n m\n n\n-o\n+O\n p\n"_s);
    QCOMPARE(QString::fromStdString(reconscope::models::unifiedDiff(a, a)), QString());
}

QTEST_MAIN(tst_BuiltinValidation)
#include "tst_builtinvalidation.moc"
