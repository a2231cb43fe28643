#pragma once

#include "controller/apimachinery/status.h"
#include "controller/kube/restclient.h"
#include "controller/labs/patchtemplate.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

class QTimer;

namespace reconscope::controller::labs {

// The patch lab: the seed's `kubectl patch --subresource=status` experiment made
// first-class. One experiment reads the object, sends one PATCH (merge or JSON patch, main resource
// or /status, optionally with a resourceVersion precondition), compares before and after, and then
// watches the object to see whether and when a writer (the reconciler) overwrote the result.

// Which object and how.
struct PatchRequest
{
    apimachinery::ResourceRef resource;
    QString qualifiedResource; // "customapps.infrastructure.internal.net" (kubectl's spelling)
    bool statusSubresource = true; // whether the CRD version has a status subresource
    QString namespace_;
    QString name;
    PatchTarget target = PatchTarget::Status;
    apimachinery::PatchType type = apimachinery::PatchType::Merge;
    nlohmann::json patch; // as edited, without the precondition
    Precondition precondition = Precondition::None;
    // The precondition's version when it was decided before sending (the confirmation showed
    // it); empty: decided from the object the experiment reads first.
    QString resourceVersion;

    QString subresource() const
    {
        return target == PatchTarget::Status ? QStringLiteral("status") : QString();
    }
    QString path() const { return resource.objectPath(namespace_, name, subresource()); }
};

// The equivalent kubectl command, quoted for a POSIX shell:
// kubectl patch customapps.infrastructure.internal.net my-app -n default --subresource=status
//   --type=merge -p '{"status":...}'
QString kubectlCommand(const PatchRequest &request, const QByteArray &body);
// A word quoted for a POSIX shell (single quotes; a quote inside becomes '\'').
QString shellQuote(const QString &word);

// Before/after of one experiment and what it means.
struct PatchComparison
{
    nlohmann::json specDiff = nlohmann::json::array(); // RFC 6902 (nlohmann::json::diff)
    nlohmann::json statusDiff = nlohmann::json::array();
    nlohmann::json metadataDiff = nlohmann::json::array(); // labels, annotations, ... (no RV)
    qint64 generationBefore = 0;
    qint64 generationAfter = 0;
    QString resourceVersionBefore;
    QString resourceVersionAfter;

    bool specChanged() const { return !specDiff.empty(); }
    bool statusChanged() const { return !statusDiff.empty(); }
    bool generationChanged() const { return generationBefore != generationAfter; }
    bool resourceVersionChanged() const { return resourceVersionBefore != resourceVersionAfter; }
};
PatchComparison compareObjects(const nlohmann::json &before, const nlohmann::json &after);
// "spec unchanged, generation unchanged, status changed", then lines that explain it (status
// ignored on the main resource of a CRD with a status subresource, spec ignored by /status, a
// no-op write, the precondition).
QStringList
verdictLines(const PatchRequest &request, const PatchComparison &comparison, bool succeeded);

// What happened to the object after the patch.
struct Reaction
{
    enum class Outcome {
        NotWatched, // the patch failed, or watching was off
        Watching,
        Overwritten, // the status changed again (the reconciler's write)
        Kept, // nothing changed it within the timeout
        Deleted,
        Failed, // the watch failed
    };
    Outcome outcome = Outcome::NotWatched;
    qint64 afterMs = -1; // from the patch's answer to the overwrite
    int timeoutMs = 0;
    nlohmann::json statusDiff = nlohmann::json::array(); // patched status -> overwritten status
    QString writer; // the resourceVersion of the overwriting write
    QString text() const;
    static QString outcomeName(Outcome outcome);
};

struct PatchExperiment
{
    int id = 0;
    QDateTime startedAt;
    PatchRequest request;
    QString method = QStringLiteral("PATCH");
    QString url; // server + path
    QByteArray body; // what was sent: the patch with the precondition
    QString kubectl;
    QString preconditionResourceVersion; // the version put in the patch, empty without
    bool finished = false; // the PATCH was answered (the reaction may still be watched)
    int httpCode = 0;
    std::optional<apimachinery::ApiError> error;
    nlohmann::json before;
    nlohmann::json after;
    PatchComparison comparison;
    QStringList verdicts;
    Reaction reaction;

    // The Status the server answered with (a failure), as JSON; null on success.
    nlohmann::json statusJson() const;
    nlohmann::json toJson() const;
};

// Runs experiments through the console's RestClient, one at a time; keeps their history.
class PatchLab final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PatchLab)

public:
    explicit PatchLab(kube::RestClient *client, QObject *parent = nullptr);
    ~PatchLab() override;

    void setClient(kube::RestClient *client);
    kube::RestClient *client() const { return m_client; }
    // How long to watch for the reconciler's reaction (0: do not watch). Default 30 s.
    void setReactionTimeout(int milliseconds) { m_reactionTimeoutMs = milliseconds; }
    int reactionTimeout() const { return m_reactionTimeoutMs; }

    // The request exactly as it would be sent now (method, URL, content type and body), before
    // the precondition's version is known (shown as "<current>" / "<stale>").
    QString describe(const PatchRequest &request) const;
    // The body exactly as run() will send it (compact JSON).
    static QByteArray bodyOf(const PatchRequest &request);

    bool isBusy() const { return m_busy; }
    // Starts an experiment; returns its id, or 0 when one is still running or there is no client.
    int run(const PatchRequest &request);
    // Stops watching for the reaction of the running experiment (its outcome stays Watching
    // -> Kept with the time watched so far).
    void stopWatching();

    const QList<PatchExperiment> &history() const { return m_history; }
    const PatchExperiment *experiment(int id) const;
    void clearHistory();
    // {"experiments":[...]} with every experiment's request, answer, diff, verdicts and reaction.
    QByteArray exportHistory() const;

signals:
    void experimentStarted(int id);
    // The PATCH was answered and compared (the reaction may still be watched).
    void experimentAnswered(int id);
    // The reaction is known (or not watched): the experiment is complete.
    void experimentFinished(int id);
    void historyChanged();

private:
    PatchExperiment *current();
    void handleBefore(kube::RestClient::JsonResult result);
    void sendPatch();
    void handlePatched(kube::RestClient::JsonResult result);
    void handleAfterFailure(kube::RestClient::JsonResult result);
    void answer();
    void startWatching();
    void handleWatchEvents(const QList<kube::WatchEvent> &events);
    void endReaction(Reaction::Outcome outcome, const QString &detail = {});
    void finish();

    QPointer<kube::RestClient> m_client;
    int m_reactionTimeoutMs = 30000;
    QList<PatchExperiment> m_history;
    int m_nextId = 1;
    int m_currentId = 0;
    bool m_busy = false;
    QElapsedTimer m_sinceAnswer;
    QPointer<kube::WatchConnection> m_watch;
    QTimer *m_reactionTimer;
};

} // namespace reconscope::controller::labs
