#pragma once

#include "models/result.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace reconscope::controller::cluster {

// What a kind-style kubeconfig for the embedded cluster holds (shared/spec/kube-api.md section 8):
// cluster "reconscope"; contexts "reconscope-admin" (current, admin client certificate),
// "reconscope-token" (bearer token) and "reconscope-viewer" (viewer client certificate).
struct KubeconfigContent
{
    QUrl server; // https://127.0.0.1:PORT
    QByteArray caCertificatePem;
    QByteArray adminCertificatePem;
    QByteArray adminKeyPem;
    QByteArray adminToken;
    QByteArray viewerCertificatePem;
    QByteArray viewerKeyPem;
    QString clusterName = QStringLiteral("reconscope");
};

class KubeconfigWriter
{
public:
    // The kubeconfig as YAML text.
    static QByteArray render(const KubeconfigContent &content);
    // Writes it atomically (a temporary file in the same folder, renamed over the target) with
    // mode 0600, creating the folder if needed.
    static models::Status<> write(const QString &path, const KubeconfigContent &content);
};

} // namespace reconscope::controller::cluster
