#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

// What the benchmark loads into a server and how: the CustomApps of namespace "bench".

// The CustomApps of namespace %1.
inline const QString collection
    = QStringLiteral("/apis/infrastructure.internal.net/v1/namespaces/%1/customapps");

// The Python peer: the `kubernetes` client lists every CustomApp in pages of 500 (as its users
// page) and prints the count; argv[1] is the kubeconfig.
inline const QString pythonListScript = QStringLiteral(
    "import sys\nfrom kubernetes import client, config\n"
    "api = client.CustomObjectsApi(config.new_client_from_config(config_file=sys.argv[1]))\n"
    "n, token = 0, None\n"
    "while True:\n"
    "    page = api.list_cluster_custom_object('infrastructure.internal.net', 'v1', "
    "'customapps', limit=500, _continue=token)\n"
    "    n += len(page['items'])\n"
    "    token = page['metadata'].get('continue')\n"
    "    if not token: break\n"
    "print(n)\n");

// A realistic CustomApp of about 3.4 KB: labels, annotations (a last-applied configuration as
// kubectl apply leaves it), spec. Named app-INDEX, in namespace "bench".
nlohmann::json makeObject(int index);

// The status the reconciler would write: three conditions, `counter` in their messages.
nlohmann::json makeStatus(int generation, int counter);

// Keeps `inFlight` requests going until `count` have completed; returns seconds. `issue` starts
// request i on the manager (or on one of its own); failures (non-2xx) are counted, the first
// three printed.
double runConcurrent(QNetworkAccessManager &nam,
                     int count,
                     int inFlight,
                     const std::function<QNetworkReply *(QNetworkAccessManager &, int)> &issue,
                     int *failures);
