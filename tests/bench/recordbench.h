#pragma once

#include <QString>

#include <nlohmann/json.hpp>

class BenchServer;
class QNetworkAccessManager;

// The recorder (issue 24): `reconscope record customapps -A` as the command runs it
// (record::RecordSession), in a child process of its own, on a server holding the bench's objects,
// while the server's churn mutator writes `rate` status changes a second for `seconds`. Returns
// the figures: the list's capture time, the events a second achieved, the recorder's CPU share of
// one core over the churn (all its threads), and the file's size against the JSON it received.
nlohmann::json benchRecorder(BenchServer &server,
                             QNetworkAccessManager &nam,
                             int objects,
                             double rate,
                             double seconds,
                             int *failures);

// `reconscope_bench --record-child KUBECONFIG FILE`: records every CustomApp into FILE; answers
// each "mark" line on stdin with one JSON line (the process's CPU seconds, wall seconds since
// start, the recorder's counts so far) and "stop" with the final one once the file is closed.
int runRecordChild(const QString &kubeconfigPath, const QString &output);
