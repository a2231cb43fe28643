#include "models/condition.h"
#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

QDateTime at(const char *text)
{
    return *parseRfc3339(QString::fromLatin1(text));
}

Condition valid()
{
    Condition condition;
    condition.type = u"Ready"_s;
    condition.status = u"True"_s;
    condition.reason = u"Synchronized"_s;
    condition.message = u"3/3 replicas ready"_s;
    condition.lastTransitionTime = at("2026-01-01T00:00:00Z");
    condition.observedGeneration = 4;
    return condition;
}

} // namespace

class tst_Condition : public QObject
{
    Q_OBJECT

private slots:
    void validation_data();
    void validation();
    void validateConditionsRejectsDuplicates();
    void setAppendsWithNow();
    void setAppendsWithGivenTime();
    void setKeepsTransitionTimeWhenStatusUnchanged();
    void setMovesTransitionTimeWhenStatusChanges();
    void setReportsNoChangeWhenIdentical();
    void setUpdatesObservedGeneration();
    void removeAndFind();
    void jsonRoundTrip();
    void fromJsonRejectsWrongTypes_data();
    void fromJsonRejectsWrongTypes();
    void fromJsonLenient();
    void rfc3339_data();
    void rfc3339();
};

void tst_Condition::validation_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("messagePart");

    QTest::newRow("valid") << u"none"_s << QString() << true << QString();
    QTest::newRow("type prefixed") << u"type"_s << u"example.com/Ready"_s << true << QString();
    QTest::newRow("type with dots and dashes")
        << u"type"_s << u"Pod.Scheduled-ok_1"_s << true << QString();
    QTest::newRow("type empty") << u"type"_s << QString() << false << u"type: Required value"_s;
    QTest::newRow("type with space")
        << u"type"_s << u"Not Ready"_s << false << u"type: Invalid value: \"Not Ready\""_s;
    QTest::newRow("type two slashes")
        << u"type"_s << u"a.com/b/c"_s << false << u"at most one '/'"_s;
    QTest::newRow("type upper-case prefix")
        << u"type"_s << u"Example.com/Ready"_s << false << u"lower-case DNS subdomain"_s;
    QTest::newRow("type name 64") << u"type"_s << QString(64, u'a') << false
                                  << u"no more than 63 characters"_s;
    QTest::newRow("type 317") << u"type"_s << QString(253, u'a') + u"/"_s + QString(63, u'b')
                              << false << u"no more than 316 characters"_s;
    QTest::newRow("type ends with dash")
        << u"type"_s << u"Ready-"_s << false << u"start and end with an alphanumeric"_s;
    QTest::newRow("status true lower-case")
        << u"status"_s << u"true"_s << false << u"status: Unsupported value: \"true\""_s;
    QTest::newRow("status empty") << u"status"_s << QString() << false
                                  << u"status: Unsupported value"_s;
    QTest::newRow("status Unknown") << u"status"_s << u"Unknown"_s << true << QString();
    QTest::newRow("reason empty") << u"reason"_s << QString() << false
                                  << u"reason: Required value"_s;
    QTest::newRow("reason with space") << u"reason"_s << u"Transient Error"_s << false
                                       << u"reason: Invalid value: \"Transient Error\""_s;
    QTest::newRow("reason starts with digit")
        << u"reason"_s << u"1Error"_s << false << u"must start with a letter"_s;
    QTest::newRow("reason ends with colon")
        << u"reason"_s << u"Error:"_s << false << u"reason: Invalid value"_s;
    QTest::newRow("reason with comma colon underscore")
        << u"reason"_s << u"A,b:c_D_"_s << true << QString();
    QTest::newRow("reason single letter") << u"reason"_s << u"X"_s << true << QString();
    QTest::newRow("reason 1024") << u"reason"_s << QString(1024, u'R') << true << QString();
    QTest::newRow("reason 1025") << u"reason"_s << QString(1025, u'R') << false
                                 << u"no more than 1024 characters"_s;
    QTest::newRow("message 32768") << u"message"_s << QString(32768, u'm') << true << QString();
    QTest::newRow("message 32769")
        << u"message"_s << QString(32769, u'm') << false
        << u"message: Too long: may not be more than 32768 bytes (got 32769)"_s;
    QTest::newRow("message multibyte")
        << u"message"_s << QString(16385, QChar(0xe9)) << false << u"(got 32770)"_s;
    QTest::newRow("ltt missing") << u"lastTransitionTime"_s << QString() << false
                                 << u"lastTransitionTime: Required value"_s;
    QTest::newRow("observedGeneration -1") << u"observedGeneration"_s << u"-1"_s << false
                                           << u"observedGeneration: Invalid value: \"-1\""_s;
    QTest::newRow("observedGeneration 0") << u"observedGeneration"_s << u"0"_s << true << QString();
}

void tst_Condition::validation()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(bool, ok);
    QFETCH(QString, messagePart);

    Condition condition = valid();
    if (field == u"type")
        condition.type = value;
    else if (field == u"status")
        condition.status = value;
    else if (field == u"reason")
        condition.reason = value;
    else if (field == u"message")
        condition.message = value;
    else if (field == u"lastTransitionTime")
        condition.lastTransitionTime = QDateTime();
    else if (field == u"observedGeneration")
        condition.observedGeneration = value.toLongLong();

    const Status<> status = validateCondition(condition);
    QCOMPARE(status.ok(), ok);
    QCOMPARE(conditionProblems(condition).isEmpty(), ok);
    if (!ok)
        QVERIFY2(status.error().message.contains(messagePart), qPrintable(status.error().message));
}

void tst_Condition::validateConditionsRejectsDuplicates()
{
    ConditionList conditions{ valid(), valid() };
    const Status<> status = validateConditions(conditions);
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.contains(u"conditions[1].type: Duplicate value: \"Ready\""_s),
             qPrintable(status.error().message));
    conditions[1].type = u"Degraded"_s;
    QVERIFY(validateConditions(conditions).ok());
    conditions[1].reason = u"bad reason"_s;
    QVERIFY(validateConditions(conditions).error().message.startsWith(u"conditions[1].reason"_s));
}

void tst_Condition::setAppendsWithNow()
{
    ConditionList conditions;
    Condition condition = valid();
    condition.lastTransitionTime = QDateTime();
    // Sub-second parts are dropped: metav1.Time keeps whole seconds.
    const QDateTime now = at("2026-03-01T12:00:00.750Z");
    QVERIFY(setStatusCondition(conditions, condition, now));
    QCOMPARE(conditions.size(), 1);
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-03-01T12:00:00Z"));
    QCOMPARE(formatRfc3339(conditions.front().lastTransitionTime), u"2026-03-01T12:00:00Z"_s);
}

void tst_Condition::setAppendsWithGivenTime()
{
    ConditionList conditions;
    QVERIFY(setStatusCondition(conditions, valid(), at("2026-03-01T12:00:00Z")));
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-01-01T00:00:00Z"));
}

void tst_Condition::setKeepsTransitionTimeWhenStatusUnchanged()
{
    ConditionList conditions{ valid() };
    Condition update = valid();
    update.reason = u"StillFine"_s;
    update.message = u"other words"_s;
    update.lastTransitionTime = QDateTime();
    QVERIFY(setStatusCondition(conditions, update, at("2026-05-05T05:05:05Z")));
    QCOMPARE(conditions.size(), 1);
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-01-01T00:00:00Z"));
    QCOMPARE(conditions.front().reason, u"StillFine"_s);
    QCOMPARE(conditions.front().message, u"other words"_s);
    // A given lastTransitionTime is ignored too when the status does not change.
    update.lastTransitionTime = at("2030-01-01T00:00:00Z");
    QVERIFY(!setStatusCondition(conditions, update, at("2026-05-05T05:05:05Z")));
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-01-01T00:00:00Z"));
}

void tst_Condition::setMovesTransitionTimeWhenStatusChanges()
{
    ConditionList conditions{ valid() };
    Condition update = valid();
    update.status = u"False"_s;
    update.reason = u"TransientError"_s;
    update.lastTransitionTime = QDateTime();
    QVERIFY(setStatusCondition(conditions, update, at("2026-05-05T05:05:05Z")));
    QCOMPARE(conditions.front().status, u"False"_s);
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-05-05T05:05:05Z"));
    QCOMPARE(conditions.front().reason, u"TransientError"_s);
}

void tst_Condition::setReportsNoChangeWhenIdentical()
{
    ConditionList conditions{ valid(), valid() };
    conditions[1].type = u"Degraded"_s;
    conditions[1].status = u"False"_s;
    const ConditionList before = conditions;
    Condition same = valid();
    same.lastTransitionTime = QDateTime();
    QVERIFY(!setStatusCondition(conditions, same, at("2026-09-09T09:09:09Z")));
    QCOMPARE(conditions, before);
}

void tst_Condition::setUpdatesObservedGeneration()
{
    ConditionList conditions{ valid() };
    Condition update = valid();
    update.observedGeneration = 5;
    QVERIFY(setStatusCondition(conditions, update, at("2026-05-05T05:05:05Z")));
    QCOMPARE(conditions.front().observedGeneration, 5);
    QCOMPARE(conditions.front().lastTransitionTime, at("2026-01-01T00:00:00Z"));
}

void tst_Condition::removeAndFind()
{
    ConditionList conditions{ valid() };
    Condition degraded = valid();
    degraded.type = u"Degraded"_s;
    degraded.status = u"False"_s;
    conditions << degraded;
    QVERIFY(findStatusCondition(conditions, u"Degraded"));
    QVERIFY(!isStatusConditionTrue(conditions, u"Degraded"));
    QVERIFY(isStatusConditionTrue(conditions, u"Ready"));
    QVERIFY(!findStatusCondition(conditions, u"Stalled"));
    QVERIFY(removeStatusCondition(conditions, u"Ready"));
    QVERIFY(!removeStatusCondition(conditions, u"Ready"));
    QCOMPARE(conditions.size(), 1);
    QCOMPARE(conditions.front().type, u"Degraded"_s);
}

void tst_Condition::jsonRoundTrip()
{
    Condition condition = valid();
    condition.observedGeneration = 9007199254740993; // 2^53 + 1: not representable as a double
    const nlohmann::json json = condition.toJson();
    QCOMPARE(json["lastTransitionTime"].get<std::string>(), std::string("2026-01-01T00:00:00Z"));
    QVERIFY(json["observedGeneration"].is_number_integer());
    const std::string text = json.dump();
    QVERIFY(text.find("9007199254740993") != std::string::npos);
    auto back = Condition::fromJson(nlohmann::json::parse(text));
    QVERIFY(back.ok());
    QCOMPARE(*back, condition);

    condition.observedGeneration = 0;
    QVERIFY(!condition.toJson().contains("observedGeneration"));
    const ConditionList list{ valid(), condition };
    QCOMPARE(conditionsFromJsonLenient(conditionsToJson(list)), list);
}

void tst_Condition::fromJsonRejectsWrongTypes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("not an object") << QByteArray("[1]") << u"expected an object, got array"_s;
    QTest::newRow("status bool") << QByteArray(R"({"type":"Ready","status":true})")
                                 << u"condition.status: expected a string, got boolean"_s;
    QTest::newRow("og string") << QByteArray(R"({"type":"Ready","observedGeneration":"3"})")
                               << u"condition.observedGeneration: expected a 64-bit integer"_s;
    QTest::newRow("og float") << QByteArray(R"({"type":"Ready","observedGeneration":3.5})")
                              << u"expected a 64-bit integer, got 3.5"_s;
    QTest::newRow("og too big") << QByteArray(
        R"({"type":"Ready","observedGeneration":18446744073709551615})")
                                << u"expected a 64-bit integer"_s;
    QTest::newRow("ltt not rfc3339")
        << QByteArray(R"({"type":"Ready","lastTransitionTime":"yesterday"})")
        << u"lastTransitionTime: Invalid value: \"yesterday\""_s;
}

void tst_Condition::fromJsonRejectsWrongTypes()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, messagePart);
    auto result = Condition::fromJson(nlohmann::json::parse(json.toStdString()));
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(messagePart), qPrintable(result.error().message));
}

void tst_Condition::fromJsonLenient()
{
    const auto json = nlohmann::json::parse(
        R"({"type":"Ready","status":true,"severity":"Info","observedGeneration":-1,
                "lastTransitionTime":"2024-05-15T09:34:44.930056634Z"})");
    const Condition condition = Condition::fromJsonLenient(json);
    QCOMPARE(condition.type, u"Ready"_s);
    QVERIFY(condition.status.isEmpty());
    QCOMPARE(condition.observedGeneration, -1);
    QCOMPARE(condition.lastTransitionTime.toMSecsSinceEpoch(),
             at("2024-05-15T09:34:44Z").toMSecsSinceEpoch() + 930);
    QVERIFY(!validateCondition(condition).ok());
}

void tst_Condition::rfc3339_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("utc");
    QTest::newRow("zulu") << u"2024-01-12T17:47:04Z"_s << true << u"2024-01-12T17:47:04Z"_s;
    QTest::newRow("lower case") << u"2024-01-12t17:47:04z"_s << true << u"2024-01-12T17:47:04Z"_s;
    QTest::newRow("fraction") << u"2024-01-12T17:47:04.999999Z"_s << true
                              << u"2024-01-12T17:47:04Z"_s;
    QTest::newRow("offset") << u"2024-01-12T19:47:04+02:00"_s << true << u"2024-01-12T17:47:04Z"_s;
    QTest::newRow("negative offset")
        << u"2024-01-12T12:47:04-05:00"_s << true << u"2024-01-12T17:47:04Z"_s;
    QTest::newRow("no zone") << u"2024-01-12T17:47:04"_s << false << QString();
    QTest::newRow("space") << u"2024-01-12 17:47:04Z"_s << false << QString();
    QTest::newRow("bad month") << u"2024-13-12T17:47:04Z"_s << false << QString();
    QTest::newRow("trailing") << u"2024-01-12T17:47:04Zx"_s << false << QString();
    QTest::newRow("empty fraction") << u"2024-01-12T17:47:04.Z"_s << false << QString();
    QTest::newRow("empty") << QString() << false << QString();
}

void tst_Condition::rfc3339()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, utc);
    const auto parsed = parseRfc3339(text);
    QCOMPARE(parsed.has_value(), ok);
    if (ok)
        QCOMPARE(formatRfc3339(*parsed), utc);
}

QTEST_APPLESS_MAIN(tst_Condition)
#include "tst_condition.moc"
