#include "controller/lint/boundarycheck.h"

#include "controller/fieldowner/fightdetector.h"
#include "controller/kube/discovery.h"
#include "controller/lint/crdlint.h"
#include "models/jsonfields.h"
#include "models/objectmetaview.h"
#include "models/objectsummary.h"

#include <QUrl>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::lint {

namespace {

const json &at(const json &object, const QStringList &path)
{
    static const json null;
    const json *current = &object;
    for (const QString &part : path) {
        const std::string key = part.toStdString();
        if (!current->is_object() || !current->contains(key))
            return null;
        current = &(*current)[key];
    }
    return *current;
}

// {"a":{"b":value}} for the path a.b.
json nested(const QStringList &path, const json &value)
{
    json result = value;
    for (qsizetype i = path.size() - 1; i >= 0; --i)
        result = json{ { path[i].toStdString(), result } };
    return result;
}

// A value for `schema` that differs from `current` and passes the usual value validations
// (type, enum, minimum/maximum, maxLength); nullopt when none can be made with confidence.
std::optional<json> probeValue(const json &schema, const json &current)
{
    const QString type = models::jsonString(schema, "type");
    const json &enumValues = models::jsonMember(schema, "enum");
    if (enumValues.is_array()) {
        for (const json &value : enumValues) {
            if (value != current && !value.is_null())
                return value;
        }
        return std::nullopt;
    }
    if (type == u"integer") {
        const qint64 value = current.is_number_integer() ? current.get<qint64>() : 0;
        const json &min = models::jsonMember(schema, "minimum");
        const json &max = models::jsonMember(schema, "maximum");
        for (const qint64 candidate : { value + 1, value - 1 }) {
            if (min.is_number() && candidate < min.get<double>())
                continue;
            if (max.is_number() && candidate > max.get<double>())
                continue;
            if (!current.is_null() && candidate == value)
                continue;
            return json(candidate);
        }
        return std::nullopt;
    }
    if (type == u"boolean")
        return json(!(current.is_boolean() && current.get<bool>()));
    if (type == u"string") {
        if (!models::jsonMember(schema, "pattern").is_null())
            return std::nullopt;
        const QString format = models::jsonString(schema, "format");
        if (format == u"date-time") {
            const std::string a = "2001-02-03T04:05:06Z";
            return json(current == a ? "2001-02-03T04:05:07Z" : a);
        }
        if (!format.isEmpty())
            return std::nullopt;
        std::string value = "reconscope-boundary-probe";
        const json &maxLength = models::jsonMember(schema, "maxLength");
        if (maxLength.is_number_integer() && qint64(value.size()) > maxLength.get<qint64>())
            value = "p";
        if (current == value)
            value += "2";
        return json(value);
    }
    return std::nullopt;
}

// The first field of `properties` (in the schema's order of preference) that can be probed.
std::optional<Probe> firstProbe(const json &properties,
                                const QString &parent,
                                const json &object,
                                const std::function<bool(const QString &)> &accept)
{
    if (!properties.is_object())
        return std::nullopt;
    // `replicas` first (the seed's story is about replica counts), then integers, booleans,
    // strings.
    if (properties.contains("replicas") && accept(u"replicas"_s)) {
        const QStringList path{ parent, u"replicas"_s };
        if (auto value = probeValue(properties["replicas"], at(object, path)))
            return Probe{ path, *value };
    }
    for (const char *type : { "integer", "boolean", "string" }) {
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            const QString field = QString::fromStdString(it.key());
            if (!accept(field) || models::jsonString(it.value(), "type") != QLatin1StringView(type))
                continue;
            const QStringList path{ parent, field };
            auto value = probeValue(it.value(), at(object, path));
            if (value)
                return Probe{ path, *value };
        }
    }
    return std::nullopt;
}

QString compact(const json &value)
{
    return value.is_null() ? u"(absent)"_s : QString::fromStdString(value.dump());
}

// A merge patch that writes the probe's value, guarded by resourceVersion.
QByteArray patchBody(const Probe &probe, const QString &resourceVersion)
{
    json body = nested(probe.path, probe.value);
    body["metadata"] = { { "resourceVersion", resourceVersion.toStdString() } };
    return QByteArray::fromStdString(body.dump());
}

// What a verdict records of an answer: reason and message of a Status; else generation,
// resourceVersion and the probed fields' values.
json responseFields(const json &object, const QList<Probe> &probes)
{
    json out = json::object();
    if (models::jsonString(object, "kind") == u"Status"
        || !models::jsonMember(object, "reason").is_null()) {
        out["reason"] = models::jsonMember(object, "reason");
        out["message"] = models::jsonMember(object, "message");
        return out;
    }
    out["generation"] = models::ObjectMetaView(object).generation(-1);
    out["resourceVersion"]
        = models::jsonMember(models::jsonMember(object, "metadata"), "resourceVersion");
    for (const Probe &probe : probes)
        out[probe.dotted().mid(1).toStdString()] = at(object, probe.path);
    return out;
}

// A resourceVersion older than `rv`: rv - 1 when rv is a number above 1, else "1".
QString staleResourceVersion(const QString &rv)
{
    bool ok = false;
    const qint64 n = rv.toLongLong(&ok);
    return ok && n > 1 ? QString::number(n - 1) : u"1"_s;
}

} // namespace

bool BoundaryCheckResult::passed() const
{
    if (!error.isEmpty() || verdicts.isEmpty())
        return false;
    for (const Verdict &verdict : verdicts) {
        if (!verdict.pass)
            return false;
    }
    return true;
}

std::optional<Probe> chooseStatusProbe(const json &schema, const json &object)
{
    const json &properties = models::jsonMember(schema, "properties");
    const json &status = models::jsonMember(properties, "status");
    const json &statusProperties = models::jsonMember(status, "properties");
    if (statusProperties.is_object()) {
        if (models::jsonString(models::jsonMember(statusProperties, "observedGeneration"), "type")
            == u"integer") {
            const QStringList path{ u"status"_s, u"observedGeneration"_s };
            if (auto value = probeValue(statusProperties["observedGeneration"], at(object, path)))
                return Probe{ path, *value };
        }
        if (auto probe = firstProbe(
                statusProperties, u"status"_s, object, [](const QString &) { return true; }))
            return probe;
    }
    const json &preserve = models::jsonMember(status, "x-kubernetes-preserve-unknown-fields");
    if (preserve.is_boolean() && preserve.get<bool>())
        return Probe{ { u"status"_s, u"reconscopeBoundaryProbe"_s }, json("probe") };
    // No status: the observations, if any, are kept in spec (the seed's mixed design).
    return firstProbe(models::jsonMember(models::jsonMember(properties, "spec"), "properties"),
                      u"spec"_s,
                      object,
                      [](const QString &field) { return looksObserved(field); });
}

std::optional<Probe> chooseSpecProbe(const json &schema, const json &object)
{
    return firstProbe(
        models::jsonMember(models::jsonMember(models::jsonMember(schema, "properties"), "spec"),
                           "properties"),
        u"spec"_s,
        object,
        [](const QString &field) { return !looksObserved(field); });
}

BoundaryCheck::BoundaryCheck(kube::RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    qRegisterMetaType<BoundaryCheckResult>();
}

BoundaryCheck::~BoundaryCheck() = default;

void BoundaryCheck::start(const QString &crdName, const QString &ns, const QString &name)
{
    ++m_generationToken;
    m_running = true;
    m_result = BoundaryCheckResult();
    m_result.crdName = crdName;
    m_result.ns = ns;
    m_result.name = name;
    if (!m_client) {
        fail(u"no client"_s);
        return;
    }
    const int token = m_generationToken;
    QPointer<BoundaryCheck> self(this);
    m_client->get(kube::DiscoveryClient::CustomResourceDefinitions,
                  QString(),
                  crdName,
                  [self, token, ns, name](kube::RestClient::JsonResult crd) {
                      if (!self || token != self->m_generationToken)
                          return;
                      if (!crd) {
                          self->fail(u"CustomResourceDefinition %1: %2"_s.arg(
                              self->m_result.crdName, crd.error().toString()));
                          return;
                      }
                      self->start(crd.value(), ns, name);
                  });
}

void BoundaryCheck::start(const json &crd, const QString &ns, const QString &name)
{
    ++m_generationToken;
    m_running = true;
    m_result = BoundaryCheckResult();
    m_result.crdName = models::jsonString(models::jsonMember(crd, "metadata"), "name");
    m_result.ns = ns;
    m_result.name = name;
    m_crd = crd;
    const json &spec = models::jsonMember(crd, "spec");
    const json &versions = models::jsonMember(spec, "versions");
    const json *chosen = nullptr;
    if (versions.is_array()) {
        // The storage version when it is served, else the first served one.
        for (const json &version : versions) {
            const json &served = models::jsonMember(version, "served");
            if (!served.is_boolean() || !served.get<bool>())
                continue;
            const json &storage = models::jsonMember(version, "storage");
            if (!chosen || (storage.is_boolean() && storage.get<bool>()))
                chosen = &version;
        }
    }
    if (!chosen) {
        fail(u"CustomResourceDefinition %1 serves no version"_s.arg(m_result.crdName));
        return;
    }
    m_resource.group = models::jsonString(spec, "group");
    m_resource.version = models::jsonString(*chosen, "name");
    m_resource.plural = models::jsonString(models::jsonMember(spec, "names"), "plural");
    m_resource.namespaced = models::jsonString(spec, "scope") != u"Cluster";
    m_schema = models::jsonMember(models::jsonMember(*chosen, "schema"), "openAPIV3Schema");
    m_result.apiVersion = m_resource.groupVersion();
    m_result.plural = m_resource.plural;
    m_result.statusSubresource
        = models::jsonMember(models::jsonMember(*chosen, "subresources"), "status").is_object();
    if (!m_resource.namespaced)
        m_result.ns.clear();
    resolveObject();
}

void BoundaryCheck::resolveObject()
{
    const int token = m_generationToken;
    QPointer<BoundaryCheck> self(this);
    if (!m_result.name.isEmpty()) {
        m_client->get(m_resource,
                      m_result.ns,
                      m_result.name,
                      [self, token](kube::RestClient::JsonResult object) {
                          if (!self || token != self->m_generationToken)
                              return;
                          if (!object) {
                              self->fail(u"%1 %2: %3"_s.arg(self->m_result.plural,
                                                            self->m_result.name,
                                                            object.error().toString()));
                              return;
                          }
                          self->m_stored = object.value();
                          self->runChecks();
                      });
        return;
    }
    // One object is enough: a single page of one (RestClient::list would follow every page).
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, u"1"_s);
    m_client->request(
        "GET",
        m_resource.collectionPath(m_result.ns),
        query,
        {},
        {},
        "application/json",
        [self, token](models::Result<kube::RawResponse, apimachinery::ApiError> page) {
            if (!self || token != self->m_generationToken)
                return;
            if (!page) {
                self->fail(u"listing %1: %2"_s.arg(self->m_result.plural, page.error().toString()));
                return;
            }
            const json list
                = json::parse(page->body.constBegin(), page->body.constEnd(), nullptr, false);
            const json &items = models::jsonMember(list, "items");
            if (!items.is_array() || items.empty()) {
                self->fail(u"no %1 object to check%2: create one (or name one with --object)"_s.arg(
                    self->m_result.plural,
                    self->m_result.ns.isEmpty() ? QString()
                                                : u" in namespace "_s + self->m_result.ns));
                return;
            }
            self->m_stored = items[0];
            const json &metadata = models::jsonMember(self->m_stored, "metadata");
            self->m_result.name = models::jsonString(metadata, "name");
            self->m_result.ns = models::jsonString(metadata, "namespace");
            self->runChecks();
        });
}

int BoundaryCheck::beginVerdict(QString id,
                                QString expectation,
                                const QByteArray &method,
                                const QString &path,
                                const QByteArray &body)
{
    Verdict verdict;
    verdict.id = std::move(id);
    verdict.expectation = std::move(expectation);
    verdict.request.method = QString::fromLatin1(method);
    verdict.request.url = m_client->config().server.toString(QUrl::StripTrailingSlash) + path
        + (method == "GET" ? QString() : u"?dryRun=All"_s);
    verdict.request.contentType = body.isEmpty() ? QString() : u"application/merge-patch+json"_s;
    verdict.request.body = QString::fromUtf8(body);
    m_result.verdicts.append(std::move(verdict));
    return int(m_result.verdicts.size() - 1);
}

void BoundaryCheck::send(const QByteArray &method,
                         const QString &path,
                         const QByteArray &body,
                         std::function<void(int, const json &)> done)
{
    QUrlQuery query;
    if (method != "GET")
        query.addQueryItem(u"dryRun"_s, u"All"_s);
    const int token = m_generationToken;
    QPointer<BoundaryCheck> self(this);
    m_client->request(
        method,
        path,
        query,
        body,
        body.isEmpty() ? QByteArray() : QByteArray("application/merge-patch+json"),
        "application/json",
        [self, token, done = std::move(done)](
            models::Result<kube::RawResponse, apimachinery::ApiError> r) {
            if (!self || token != self->m_generationToken)
                return;
            if (r) {
                done(r->status,
                     json::parse(r->body.constBegin(), r->body.constEnd(), nullptr, false));
                return;
            }
            const apimachinery::ApiError &error = r.error();
            json status = { { "reason", error.reason.toStdString() },
                            { "message", error.message.toStdString() } };
            done(error.code, status);
        });
}

// What every step of the live check needs, fixed before the first write: the probes, the paths
// written to, and the stored object's resourceVersion, generation and probed values.
struct BoundaryCheck::Plan
{
    Probe statusProbe;
    Probe specProbe;
    QString statusName; // the probes' dotted paths, as the verdicts name them
    QString specName;
    QString mainPath;
    QString statusPath;
    QString rv;
    QString staleRv;
    qint64 generation = 0;
    json storedStatusValue;
    json storedSpecValue;
};

void BoundaryCheck::runChecks()
{
    const json &metadata = models::jsonMember(m_stored, "metadata");
    const QString rv = models::jsonString(metadata, "resourceVersion");
    const qint64 generation = models::jsonInteger(metadata, "generation");
    m_result.statusProbe = chooseStatusProbe(m_schema, m_stored);
    m_result.specProbe = chooseSpecProbe(m_schema, m_stored);
    if (!m_result.statusProbe || !m_result.specProbe) {
        fail(u"the schema of %1 has no %2 field the check can write a valid value to"_s.arg(
            m_result.crdName, m_result.statusProbe ? u"spec"_s : u"status (or observed)"_s));
        return;
    }
    Plan plan;
    plan.statusProbe = *m_result.statusProbe;
    plan.specProbe = *m_result.specProbe;
    plan.statusName = plan.statusProbe.dotted();
    plan.specName = plan.specProbe.dotted();
    plan.mainPath = m_resource.objectPath(m_result.ns, m_result.name);
    plan.statusPath = m_resource.objectPath(m_result.ns, m_result.name, u"status"_s);
    plan.rv = rv;
    plan.staleRv = staleResourceVersion(rv);
    plan.generation = generation;
    plan.storedStatusValue = at(m_stored, plan.statusProbe.path);
    plan.storedSpecValue = at(m_stored, plan.specProbe.path);
    checkStatusWriteThroughMainIgnored(plan);
}

// 1. A status write through the main resource is ignored.
void BoundaryCheck::checkStatusWriteThroughMainIgnored(const Plan &plan)
{
    const QByteArray body = patchBody(plan.statusProbe, plan.rv);
    const int index = beginVerdict(
        u"status-write-through-main-ignored"_s,
        u"A status write through the main resource is ignored: the answer keeps %1 = %2 and "
        "generation %3 (only the controller writes status, through /status)."_s
            .arg(plan.statusName, compact(plan.storedStatusValue))
            .arg(plan.generation),
        "PATCH",
        plan.mainPath,
        body);
    send("PATCH", plan.mainPath, body, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, { plan.statusProbe }) };
        const bool ok = code >= 200 && code < 300;
        const bool kept = at(answer, plan.statusProbe.path) == plan.storedStatusValue;
        const bool sameGeneration
            = models::ObjectMetaView(answer).generation(-1) == plan.generation;
        verdict.pass = ok && kept && sameGeneration;
        verdict.observed = !ok ? u"the write was refused (%1)"_s.arg(code)
            : kept && sameGeneration
            ? u"ignored: %1 stayed %2, generation stayed %3"_s
                  .arg(plan.statusName, compact(plan.storedStatusValue))
                  .arg(plan.generation)
            : u"applied: %1 became %2 and generation went %3 -> %4; the main resource takes "
              "observed state, so the controller and spec writers race on one object"_s
                  .arg(plan.statusName, compact(at(answer, plan.statusProbe.path)))
                  .arg(plan.generation)
                  .arg(models::ObjectMetaView(answer).generation(-1));
        checkSpecWriteThroughStatusIgnored(plan);
    });
}

// 2. A spec write through /status is ignored.
void BoundaryCheck::checkSpecWriteThroughStatusIgnored(const Plan &plan)
{
    const QByteArray body = patchBody(plan.specProbe, plan.rv);
    const int index
        = beginVerdict(u"spec-write-through-status-ignored"_s,
                       u"A spec write through /status is ignored: the answer keeps %1 = %2 and "
                       "generation %3 (spec belongs to users and GitOps)."_s
                           .arg(plan.specName, compact(plan.storedSpecValue))
                           .arg(plan.generation),
                       "PATCH",
                       plan.statusPath,
                       body);
    send("PATCH", plan.statusPath, body, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, { plan.specProbe }) };
        const bool ok = code >= 200 && code < 300;
        const bool kept = at(answer, plan.specProbe.path) == plan.storedSpecValue;
        const bool sameGeneration
            = models::ObjectMetaView(answer).generation(-1) == plan.generation;
        verdict.pass = ok && kept && sameGeneration;
        verdict.observed = code == 404
            ? u"404: the /status subresource does not exist, so there is no separate "
              "channel for observed state"_s
            : !ok          ? u"the write was refused (%1)"_s.arg(code)
            : verdict.pass ? u"ignored: %1 stayed %2, generation stayed %3"_s
                                 .arg(plan.specName, compact(plan.storedSpecValue))
                                 .arg(plan.generation)
                           : u"applied through /status: %1 became %2"_s.arg(
                               plan.specName, compact(at(answer, plan.specProbe.path)));
        checkStatusWriteKeepsGeneration(plan);
    });
}

// 3. A status write leaves generation unchanged.
void BoundaryCheck::checkStatusWriteKeepsGeneration(const Plan &plan)
{
    const QString path = m_result.statusSubresource ? plan.statusPath : plan.mainPath;
    const QByteArray body = patchBody(plan.statusProbe, plan.rv);
    const int index = beginVerdict(
        u"status-write-keeps-generation"_s,
        u"A status write (through %1) is applied and leaves generation at %2: reporting "
        "what was observed is not a new desired state."_s
            .arg(m_result.statusSubresource ? u"/status"_s
                                            : u"the main resource, the only way this CRD "
                                              "offers"_s)
            .arg(plan.generation),
        "PATCH",
        path,
        body);
    send("PATCH", path, body, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, { plan.statusProbe }) };
        const bool ok = code >= 200 && code < 300;
        const bool applied = at(answer, plan.statusProbe.path) == plan.statusProbe.value;
        const qint64 answerGeneration = models::ObjectMetaView(answer).generation(-1);
        verdict.pass = ok && applied && answerGeneration == plan.generation;
        verdict.observed = !ok ? u"the write was refused (%1)"_s.arg(code)
            : !applied         ? u"the status write was dropped: %1 is %2"_s.arg(
                  plan.statusName, compact(at(answer, plan.statusProbe.path)))
            : answerGeneration == plan.generation
            ? u"applied (%1 = %2), generation stayed %3"_s
                  .arg(plan.statusName, compact(plan.statusProbe.value))
                  .arg(plan.generation)
            : u"applied, but generation went %1 -> %2: every status report looks like a "
              "spec change, so observedGeneration can never catch up"_s.arg(plan.generation)
                  .arg(answerGeneration);
        checkSpecWriteBumpsGeneration(plan);
    });
}

// 4. A spec write bumps generation.
void BoundaryCheck::checkSpecWriteBumpsGeneration(const Plan &plan)
{
    const QByteArray body = patchBody(plan.specProbe, plan.rv);
    const int index = beginVerdict(
        u"spec-write-bumps-generation"_s,
        u"A spec write through the main resource is applied and bumps "
        "generation to %1, so the controller sees a new desired state."_s.arg(plan.generation + 1),
        "PATCH",
        plan.mainPath,
        body);
    send("PATCH", plan.mainPath, body, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, { plan.specProbe }) };
        const bool ok = code >= 200 && code < 300;
        const bool applied = at(answer, plan.specProbe.path) == plan.specProbe.value;
        const qint64 answerGeneration = models::ObjectMetaView(answer).generation(-1);
        verdict.pass = ok && applied && answerGeneration == plan.generation + 1;
        verdict.observed = !ok ? u"the write was refused (%1)"_s.arg(code)
            : verdict.pass     ? u"applied (%1 = %2), generation %3 -> %4"_s
                                 .arg(plan.specName, compact(plan.specProbe.value))
                                 .arg(plan.generation)
                                 .arg(answerGeneration)
                           : u"%1 is %2, generation %3 -> %4"_s
                                 .arg(plan.specName, compact(at(answer, plan.specProbe.path)))
                                 .arg(plan.generation)
                                 .arg(answerGeneration);
        checkStaleResourceVersionConflicts(plan);
    });
}

// 5. A stale resourceVersion is refused with 409.
void BoundaryCheck::checkStaleResourceVersionConflicts(const Plan &plan)
{
    const QByteArray body = patchBody(plan.specProbe, plan.staleRv);
    const int index
        = beginVerdict(u"stale-resource-version-conflicts"_s,
                       u"A write carrying a stale metadata.resourceVersion (%1, stored "
                       "%2) is refused with 409 Conflict: optimistic locking keeps two "
                       "writers from overwriting each other."_s.arg(plan.staleRv, plan.rv),
                       "PATCH",
                       plan.mainPath,
                       body);
    send("PATCH", plan.mainPath, body, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, {}) };
        verdict.pass = code == 409;
        verdict.observed = verdict.pass ? u"409 %1"_s.arg(models::jsonString(answer, "reason"))
                                        : u"answered %1 instead of 409"_s.arg(code);
        checkNothingPersisted(plan);
    });
}

// 6. Nothing was stored.
void BoundaryCheck::checkNothingPersisted(const Plan &plan)
{
    const int index = beginVerdict(u"nothing-persisted"_s,
                                   u"After the dry-run writes the object is unchanged: "
                                   "resourceVersion %1, generation %2."_s.arg(plan.rv)
                                       .arg(plan.generation),
                                   "GET",
                                   plan.mainPath,
                                   {});
    send("GET", plan.mainPath, {}, [this, plan, index](int code, const json &answer) {
        Verdict &verdict = m_result.verdicts[index];
        verdict.response = { code, responseFields(answer, { plan.statusProbe, plan.specProbe }) };
        const QString nowRv
            = models::jsonString(models::jsonMember(answer, "metadata"), "resourceVersion");
        verdict.pass = code == 200 && nowRv == plan.rv
            && models::ObjectMetaView(answer).generation(-1) == plan.generation;
        verdict.observed = verdict.pass
            ? u"unchanged (resourceVersion %1)"_s.arg(nowRv)
            : u"answered %1 with resourceVersion %2, generation %3"_s.arg(code).arg(nowRv).arg(
                models::ObjectMetaView(answer).generation(-1));
        checkStatusWritersOwnNoSpec(plan);
        finish();
    });
}

// 7. From ownership, no request: the stored object's managedFields show no manager that writes
// status owning a spec field (the controller writing desired state).
void BoundaryCheck::checkStatusWritersOwnNoSpec(const Plan &plan)
{
    const int index = beginVerdict(
        u"spec-not-owned-by-status-writer"_s,
        u"No field manager that writes status (through /status, below .status, or %1) owns a "
        "spec field (metadata.managedFields of the stored object)."_s.arg(
            plan.statusProbe.path.value(0) == u"spec"_s
                ? plan.statusName + u", the observation kept in spec"_s
                : u"an observation kept in spec"_s),
        "GET",
        plan.mainPath,
        {});
    Verdict &verdict = m_result.verdicts[index];
    const json &metadata = models::jsonMember(m_stored, "metadata");
    const json &managed = models::jsonMember(metadata, "managedFields");
    verdict.response = { 200, { { "managedFields", managed } } };
    const auto summary = models::ObjectSummary::fromJson(m_stored, {});
    const QList<models::ManagedFieldsEntry> entries
        = summary ? summary->managedFields : QList<models::ManagedFieldsEntry>();
    const QStringList observations = plan.statusProbe.path.value(0) == u"spec"_s
        ? QStringList{ plan.statusName }
        : QStringList();
    const auto owned = fieldowner::specFieldsOfStatusWriters(
        entries, fieldowner::fieldOwnersOf(entries), observations);
    verdict.pass = owned.isEmpty();
    if (entries.isEmpty()) {
        verdict.observed = u"the server keeps no managedFields for the object: nothing to check"_s;
        return;
    }
    QStringList found;
    for (const auto &[manager, field] : owned)
        found << u"\"%1\" writes status and owns %2"_s.arg(manager, field);
    QStringList managers;
    for (const auto &entry : entries)
        managers << entry.manager
                + (entry.subresource.isEmpty() ? QString() : u" /"_s + entry.subresource);
    verdict.observed = verdict.pass
        ? u"managers %1: none that writes status owns a spec field"_s.arg(managers.join(u", "_s))
        : found.join(u"; "_s);
}

void BoundaryCheck::fail(QString message)
{
    m_result.error = std::move(message);
    finish();
}

void BoundaryCheck::finish()
{
    m_running = false;
    emit finished(m_result);
}

} // namespace reconscope::controller::lint
