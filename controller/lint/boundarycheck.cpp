#include "controller/lint/boundarycheck.h"

#include "controller/kube/discovery.h"
#include "controller/lint/crdlint.h"
#include "models/jsonfields.h"

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
        [self, token](models::Result<kube::RawResponse, kube::ApiError> page) {
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
        [self, token, done = std::move(done)](models::Result<kube::RawResponse, kube::ApiError> r) {
            if (!self || token != self->m_generationToken)
                return;
            if (r) {
                done(r->status,
                     json::parse(r->body.constBegin(), r->body.constEnd(), nullptr, false));
                return;
            }
            const kube::ApiError &error = r.error();
            json status = { { "reason", error.reason.toStdString() },
                            { "message", error.message.toStdString() } };
            done(error.code, status);
        });
}

void BoundaryCheck::runChecks()
{
    const json &metadata = models::jsonMember(m_stored, "metadata");
    const QString rv = models::jsonString(metadata, "resourceVersion");
    const qint64 generation = models::jsonMember(metadata, "generation").is_number_integer()
        ? models::jsonMember(metadata, "generation").get<qint64>()
        : 0;
    m_result.statusProbe = chooseStatusProbe(m_schema, m_stored);
    m_result.specProbe = chooseSpecProbe(m_schema, m_stored);
    if (!m_result.statusProbe || !m_result.specProbe) {
        fail(u"the schema of %1 has no %2 field the check can write a valid value to"_s.arg(
            m_result.crdName, m_result.statusProbe ? u"spec"_s : u"status (or observed)"_s));
        return;
    }
    const Probe statusProbe = *m_result.statusProbe;
    const Probe specProbe = *m_result.specProbe;
    const QString mainPath = m_resource.objectPath(m_result.ns, m_result.name);
    const QString statusPath = m_resource.objectPath(m_result.ns, m_result.name, u"status"_s);
    auto patchBody = [](const Probe &probe, const QString &resourceVersion) {
        json body = nested(probe.path, probe.value);
        body["metadata"] = { { "resourceVersion", resourceVersion.toStdString() } };
        return QByteArray::fromStdString(body.dump());
    };
    const json storedStatusValue = at(m_stored, statusProbe.path);
    const json storedSpecValue = at(m_stored, specProbe.path);
    auto generationOf = [](const json &object) {
        const json &g = models::jsonMember(models::jsonMember(object, "metadata"), "generation");
        return g.is_number_integer() ? g.get<qint64>() : qint64(-1);
    };
    auto fields = [generationOf](const json &object, const QList<Probe> &probes) {
        json out = json::object();
        if (models::jsonString(object, "kind") == u"Status"
            || !models::jsonMember(object, "reason").is_null()) {
            out["reason"] = models::jsonMember(object, "reason");
            out["message"] = models::jsonMember(object, "message");
            return out;
        }
        out["generation"] = generationOf(object);
        out["resourceVersion"]
            = models::jsonMember(models::jsonMember(object, "metadata"), "resourceVersion");
        for (const Probe &probe : probes)
            out[probe.dotted().mid(1).toStdString()] = at(object, probe.path);
        return out;
    };
    const QString statusName = statusProbe.dotted();
    const QString specName = specProbe.dotted();
    const QString staleRv = [&rv] {
        bool ok = false;
        const qint64 n = rv.toLongLong(&ok);
        return ok && n > 1 ? QString::number(n - 1) : u"1"_s;
    }();

    // 1. A status write through the main resource is ignored.
    const QByteArray body1 = patchBody(statusProbe, rv);
    const int i1 = beginVerdict(
        u"status-write-through-main-ignored"_s,
        u"A status write through the main resource is ignored: the answer keeps %1 = %2 and "
        "generation %3 (only the controller writes status, through /status)."_s
            .arg(statusName, compact(storedStatusValue))
            .arg(generation),
        "PATCH",
        mainPath,
        body1);
    send("PATCH", mainPath, body1, [=, this](int code, const json &answer) {
        Verdict &v = m_result.verdicts[i1];
        v.response = { code, fields(answer, { statusProbe }) };
        const bool ok = code >= 200 && code < 300;
        const bool kept = at(answer, statusProbe.path) == storedStatusValue;
        const bool sameGeneration = generationOf(answer) == generation;
        v.pass = ok && kept && sameGeneration;
        v.observed = !ok ? u"the write was refused (%1)"_s.arg(code)
            : kept && sameGeneration
            ? u"ignored: %1 stayed %2, generation stayed %3"_s
                  .arg(statusName, compact(storedStatusValue))
                  .arg(generation)
            : u"applied: %1 became %2 and generation went %3 -> %4; the main resource takes "
              "observed state, so the controller and spec writers race on one object"_s
                  .arg(statusName, compact(at(answer, statusProbe.path)))
                  .arg(generation)
                  .arg(generationOf(answer));

        // 2. A spec write through /status is ignored.
        const QByteArray body2 = patchBody(specProbe, rv);
        const int i2
            = beginVerdict(u"spec-write-through-status-ignored"_s,
                           u"A spec write through /status is ignored: the answer keeps %1 = %2 and "
                           "generation %3 (spec belongs to users and GitOps)."_s
                               .arg(specName, compact(storedSpecValue))
                               .arg(generation),
                           "PATCH",
                           statusPath,
                           body2);
        send("PATCH", statusPath, body2, [=, this](int code2, const json &answer2) {
            Verdict &w = m_result.verdicts[i2];
            w.response = { code2, fields(answer2, { specProbe }) };
            const bool ok2 = code2 >= 200 && code2 < 300;
            const bool kept2 = at(answer2, specProbe.path) == storedSpecValue;
            const bool same2 = generationOf(answer2) == generation;
            w.pass = ok2 && kept2 && same2;
            w.observed = code2 == 404
                ? u"404: the /status subresource does not exist, so there is no separate "
                  "channel for observed state"_s
                : !ok2   ? u"the write was refused (%1)"_s.arg(code2)
                : w.pass ? u"ignored: %1 stayed %2, generation stayed %3"_s
                               .arg(specName, compact(storedSpecValue))
                               .arg(generation)
                         : u"applied through /status: %1 became %2"_s.arg(
                             specName, compact(at(answer2, specProbe.path)));

            // 3. A status write leaves generation unchanged.
            const QString path3 = m_result.statusSubresource ? statusPath : mainPath;
            const QByteArray body3 = patchBody(statusProbe, rv);
            const int i3 = beginVerdict(
                u"status-write-keeps-generation"_s,
                u"A status write (through %1) is applied and leaves generation at %2: reporting "
                "what was observed is not a new desired state."_s
                    .arg(m_result.statusSubresource ? u"/status"_s
                                                    : u"the main resource, the only way this CRD "
                                                      "offers"_s)
                    .arg(generation),
                "PATCH",
                path3,
                body3);
            send("PATCH", path3, body3, [=, this](int code3, const json &answer3) {
                Verdict &x = m_result.verdicts[i3];
                x.response = { code3, fields(answer3, { statusProbe }) };
                const bool ok3 = code3 >= 200 && code3 < 300;
                const bool applied = at(answer3, statusProbe.path) == statusProbe.value;
                const qint64 g3 = generationOf(answer3);
                x.pass = ok3 && applied && g3 == generation;
                x.observed = !ok3 ? u"the write was refused (%1)"_s.arg(code3)
                    : !applied    ? u"the status write was dropped: %1 is %2"_s.arg(
                          statusName, compact(at(answer3, statusProbe.path)))
                    : g3 == generation
                    ? u"applied (%1 = %2), generation stayed %3"_s
                          .arg(statusName, compact(statusProbe.value))
                          .arg(generation)
                    : u"applied, but generation went %1 -> %2: every status report looks like a "
                      "spec change, so observedGeneration can never catch up"_s.arg(generation)
                          .arg(g3);

                // 4. A spec write bumps generation.
                const QByteArray body4 = patchBody(specProbe, rv);
                const int i4 = beginVerdict(
                    u"spec-write-bumps-generation"_s,
                    u"A spec write through the main resource is applied and bumps "
                    "generation to %1, so the controller sees a new desired state."_s.arg(generation
                                                                                          + 1),
                    "PATCH",
                    mainPath,
                    body4);
                send("PATCH", mainPath, body4, [=, this](int code4, const json &answer4) {
                    Verdict &y = m_result.verdicts[i4];
                    y.response = { code4, fields(answer4, { specProbe }) };
                    const bool ok4 = code4 >= 200 && code4 < 300;
                    const bool applied4 = at(answer4, specProbe.path) == specProbe.value;
                    const qint64 g4 = generationOf(answer4);
                    y.pass = ok4 && applied4 && g4 == generation + 1;
                    y.observed = !ok4 ? u"the write was refused (%1)"_s.arg(code4)
                        : y.pass      ? u"applied (%1 = %2), generation %3 -> %4"_s
                                       .arg(specName, compact(specProbe.value))
                                       .arg(generation)
                                       .arg(g4)
                                 : u"%1 is %2, generation %3 -> %4"_s
                                       .arg(specName, compact(at(answer4, specProbe.path)))
                                       .arg(generation)
                                       .arg(g4);

                    // 5. A stale resourceVersion is refused with 409.
                    const QByteArray body5 = patchBody(specProbe, staleRv);
                    const int i5 = beginVerdict(
                        u"stale-resource-version-conflicts"_s,
                        u"A write carrying a stale metadata.resourceVersion (%1, stored "
                        "%2) is refused with 409 Conflict: optimistic locking keeps two "
                        "writers from overwriting each other."_s.arg(staleRv, rv),
                        "PATCH",
                        mainPath,
                        body5);
                    send("PATCH", mainPath, body5, [=, this](int code5, const json &answer5) {
                        Verdict &z = m_result.verdicts[i5];
                        z.response = { code5, fields(answer5, {}) };
                        z.pass = code5 == 409;
                        z.observed = z.pass ? u"409 %1"_s.arg(models::jsonString(answer5, "reason"))
                                            : u"answered %1 instead of 409"_s.arg(code5);

                        // 6. Nothing was stored.
                        const int i6
                            = beginVerdict(u"nothing-persisted"_s,
                                           u"After the dry-run writes the object is unchanged: "
                                           "resourceVersion %1, generation %2."_s.arg(rv)
                                               .arg(generation),
                                           "GET",
                                           mainPath,
                                           {});
                        send("GET", mainPath, {}, [=, this](int code6, const json &answer6) {
                            Verdict &n = m_result.verdicts[i6];
                            n.response = { code6, fields(answer6, { statusProbe, specProbe }) };
                            const QString nowRv = models::jsonString(
                                models::jsonMember(answer6, "metadata"), "resourceVersion");
                            n.pass = code6 == 200 && nowRv == rv
                                && generationOf(answer6) == generation;
                            n.observed = n.pass
                                ? u"unchanged (resourceVersion %1)"_s.arg(nowRv)
                                : u"answered %1 with resourceVersion %2, generation %3"_s.arg(code6)
                                      .arg(nowRv)
                                      .arg(generationOf(answer6));
                            finish();
                        });
                    });
                });
            });
        });
    });
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
