#pragma once

#include "controller/kube/restclient.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace reconscope::controller::lint {

// A request of the live check, as sent.
struct RecordedRequest
{
    QString method;
    QString url; // server + path + "?dryRun=All"
    QString contentType;
    QString body;
};

// The answer, reduced to what proves the verdict.
struct RecordedResponse
{
    int code = 0; // HTTP status; 0 when none was received
    // generation, resourceVersion and the probed field's value; reason and message of a Status.
    nlohmann::json fields = nlohmann::json::object();
};

struct Verdict
{
    QString id;
    bool pass = false;
    QString expectation; // what the Spec/Status contract requires
    QString observed; // what the server did
    RecordedRequest request;
    RecordedResponse response;
};

// A field the live check writes: its path in the object and the value written (valid for the
// schema, different from the stored value).
struct Probe
{
    QStringList path; // {"status", "observedGeneration"}
    nlohmann::json value;
    QString dotted() const { return u'.' + path.join(u'.'); }
};

struct BoundaryCheckResult
{
    QString crdName;
    QString apiVersion; // group/version checked
    QString plural;
    QString ns;
    QString name;
    bool statusSubresource = false;
    std::optional<Probe> statusProbe;
    std::optional<Probe> specProbe;
    QString error; // set when the check could not run (CRD or object missing, no probe field)
    QList<Verdict> verdicts;

    bool passed() const;
};

// The probes for a CRD version's schema and a stored object: the status probe writes an observed
// field (status.observedGeneration, another status scalar, or, where the CRD keeps its
// observations in spec, such a spec field); the spec probe writes a desired spec field.
std::optional<Probe> chooseStatusProbe(const nlohmann::json &openApiV3Schema,
                                       const nlohmann::json &object);
std::optional<Probe> chooseSpecProbe(const nlohmann::json &openApiV3Schema,
                                     const nlohmann::json &object);

// The live boundary check: proves on the API server, with server-side dry-run (`?dryRun=All`, so
// nothing is stored and no watch event is sent), that a CRD keeps the Spec/Status contract for one
// object. In order, each a Verdict with the request and answer that prove it:
//   status-write-through-main-ignored  PATCH main with a status change: the answer keeps the stored
//                                       status and generation (the status subresource is on);
//   spec-write-through-status-ignored  PATCH /status with a spec change: spec and generation kept
//                                       (no subresource: 404, fail);
//   status-write-keeps-generation      the status change through /status (else through the main
//                                       resource, the only way) is applied, generation unchanged;
//   spec-write-bumps-generation        PATCH main with a spec change: applied, generation + 1;
//   stale-resource-version-conflicts   the same with a stale metadata.resourceVersion: 409;
//   nothing-persisted                  a GET afterwards: the resourceVersion is the one before;
//   spec-not-owned-by-status-writer    from the stored object's managedFields, no request: no
//                                       manager that writes status owns a spec field.
// Asynchronous, through the project's RestClient; on a real cluster these are (dry-run) writes and
// need the context's write permission (the console asks for it).
class BoundaryCheck final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BoundaryCheck)

public:
    explicit BoundaryCheck(kube::RestClient *client, QObject *parent = nullptr);
    ~BoundaryCheck() override;

    // Fetches the CRD by name, then runs on the object (the first one listed when `name` is empty,
    // in `ns`, or in any namespace when `ns` is empty too).
    void start(const QString &crdName, const QString &ns, const QString &name);
    // The same with the CRD at hand.
    void start(const nlohmann::json &crd, const QString &ns, const QString &name);
    bool isRunning() const { return m_running; }

signals:
    void finished(const reconscope::controller::lint::BoundaryCheckResult &result);

private:
    struct Plan; // what the steps of runChecks share; defined with them

    void resolveObject();
    // Chooses the probes and runs the seven verdicts in the class comment's order: each step sends
    // its request and, once answered, records its verdict and starts the next; the last finishes.
    void runChecks();
    void checkStatusWriteThroughMainIgnored(const Plan &plan);
    void checkSpecWriteThroughStatusIgnored(const Plan &plan);
    void checkStatusWriteKeepsGeneration(const Plan &plan);
    void checkSpecWriteBumpsGeneration(const Plan &plan);
    void checkStaleResourceVersionConflicts(const Plan &plan);
    void checkNothingPersisted(const Plan &plan);
    void checkStatusWritersOwnNoSpec(const Plan &plan);
    void send(const QByteArray &method,
              const QString &path,
              const QByteArray &body,
              std::function<void(int, const nlohmann::json &)> done);
    void finish();
    void fail(QString message);
    // Appends a verdict with its request; returns its index.
    int beginVerdict(QString id,
                     QString expectation,
                     const QByteArray &method,
                     const QString &path,
                     const QByteArray &body);

    QPointer<kube::RestClient> m_client;
    bool m_running = false;
    int m_generationToken = 0; // drops callbacks of an earlier run
    nlohmann::json m_crd;
    nlohmann::json m_schema;
    nlohmann::json m_stored;
    apimachinery::ResourceRef m_resource;
    BoundaryCheckResult m_result;
};

} // namespace reconscope::controller::lint

Q_DECLARE_METATYPE(reconscope::controller::lint::BoundaryCheckResult)
