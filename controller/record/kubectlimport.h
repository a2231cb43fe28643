#pragma once

#include "controller/record/recordingset.h"

#include <QByteArrayView>
#include <QDateTime>
#include <QString>

namespace reconscope::controller::record {

struct KubectlImportOptions
{
    // When nothing in the capture says when it was made: its file's modification time.
    QDateTime fileTime;
};

// Reads what kubectl printed as a recording:
//   `kubectl get R -w --output-watch-events -o json`: one {"type", "object"} event a line;
//   `kubectl get R -w -o json`: the objects pretty-printed, without event types (the first of a
//   key is ADDED, the rest MODIFIED; a deletion cannot be told from a change);
//   `kubectl get R -o json`: a List, its items ADDED; a CustomResourceDefinition (or a List of
//   them) gives the recording its CRD.
// Lines may carry a `ts` prefix (timestampprefix.h), which gives the times; otherwise each event's
// time is estimated from the object's own times (conditions' lastTransitionTime, managedFields'
// time, creation and deletion timestamps), never earlier than the event before it, and marked
// estimated. Lines that are no JSON (kubectl's warnings) are skipped and counted. A capture cut
// short (kubectl stopped with Ctrl-C) reads up to its last whole value and says where it stopped;
// text that is no JSON inside a value is refused naming the line and byte.
models::Result<Recording, RecordingError> importKubectlCapture(QByteArrayView text,
                                                               const KubectlImportOptions &options);
models::Result<Recording, RecordingError> importKubectlCapture(const QString &path);

// kubectl's guess of a kind's plural (UnsafeGuessKindToResource): "CustomApp" -> "customapps",
// "Ingress" -> "ingresses", "NetworkPolicy" -> "networkpolicies".
QString guessPlural(const QString &kind);

} // namespace reconscope::controller::record
