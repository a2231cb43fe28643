#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

// The options of the list, watch and delete verbs and the patch types (metav1.ListOptions,
// metav1.DeleteOptions, types.PatchType), with upstream's defaults: what is not set is not sent.
namespace reconscope::controller::apimachinery {

struct ListOptions
{
    QString labelSelector;
    QString fieldSelector;
    QString resourceVersion; // "0": any (served from cache, no paging); "": latest
    QString resourceVersionMatch; // "", "Exact", "NotOlderThan"
    qint64 limit = 0; // page size; 0 for no limit
    QString continueToken;
};

struct WatchOptions
{
    QString labelSelector;
    QString fieldSelector;
    QString resourceVersion; // "" or "0": initial ADDED events first; N: changes after N only
    bool allowWatchBookmarks = false;
    std::optional<bool> sendInitialEvents;
    int timeoutSeconds = 0; // 0: let the server choose (kube-apiserver: 30-60 min)
};

struct DeleteOptions
{
    QString propagationPolicy; // "" (the kind's default), "Background", "Foreground", "Orphan"
    std::optional<qint64> gracePeriodSeconds;
    std::optional<bool> orphanDependents;
    QString preconditionUid;
    QString preconditionResourceVersion;
    bool dryRun = false;

    // The request body: {"kind":"DeleteOptions","apiVersion":"v1",...} with the members set.
    QByteArray toJson() const;
};

enum class PatchType {
    Merge, // application/merge-patch+json (RFC 7386)
    Json, // application/json-patch+json (RFC 6902)
    Strategic, // application/strategic-merge-patch+json (built-in kinds only)
    Apply, // application/apply-patch+yaml: server-side apply (needs a fieldManager)
};

// The Content-Type of a patch of this type.
QByteArray patchMediaType(PatchType type);

} // namespace reconscope::controller::apimachinery
