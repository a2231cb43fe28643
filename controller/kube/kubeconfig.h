#pragma once

#include "models/result.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace reconscope::controller::kube {

struct ClientConfig;

// users[].user.exec (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig
{
    QString apiVersion;
    QString command; // a relative command containing '/' is resolved against the kubeconfig's dir
    QStringList args;
    QList<QPair<QString, QString>> env;
    QString installHint;
    bool provideClusterInfo = false;
    QString interactiveMode; // Never, IfAvailable, Always
};

// One clusters[] entry as written in the file (paths already absolute, -data still base64).
struct KubeconfigCluster
{
    QString name;
    QString file; // the kubeconfig file that defined it
    QString server;
    QString certificateAuthority;
    QString certificateAuthorityData;
    bool insecureSkipTlsVerify = false;
    QString tlsServerName;
    QString proxyUrl;
};

struct KubeconfigUser
{
    QString name;
    QString file;
    QString clientCertificate;
    QString clientCertificateData;
    QString clientKey;
    QString clientKeyData;
    QString token;
    QString tokenFile;
    QString username;
    QString password;
    std::optional<ExecConfig> exec;
};

struct KubeconfigContext
{
    QString name;
    QString file;
    QString cluster;
    QString user;
    QString namespace_;
};

// A kubeconfig as kubectl loads it: one file, or several merged (the first file to set a map key or
// current-context wins; entries are never merged field by field). Parsing checks structure only;
// resolve() checks and decodes everything the chosen context uses, and every error names the file,
// the context and the field.
class Kubeconfig
{
public:
    // kubectl's precedence: explicitPath when given (must exist), else $KUBECONFIG (':'-separated,
    // missing files skipped), else ~/.kube/config.
    static models::Result<Kubeconfig> load(const QString &explicitPath = {});
    // Several files merged, earlier files winning. Missing files are skipped when ignoreMissing.
    static models::Result<Kubeconfig> loadFiles(const QStringList &paths, bool ignoreMissing);
    // One file's text; relative paths are resolved against filePath's directory.
    static models::Result<Kubeconfig> parse(const QByteArray &yaml, const QString &filePath);

    // Adds what `other` sets and this does not (this wins).
    void mergeFrom(const Kubeconfig &other);

    // The context's cluster and user, decoded and checked: certificates, keys (and that they
    // match), token file, proxy URL. An empty name means current-context.
    models::Result<ClientConfig> resolve(const QString &contextName = {}) const;

    QString currentContext() const { return m_currentContext; }
    QStringList files() const { return m_files; }
    QStringList contextNames() const { return m_contexts.keys(); }
    const QMap<QString, KubeconfigCluster> &clusters() const { return m_clusters; }
    const QMap<QString, KubeconfigUser> &users() const { return m_users; }
    const QMap<QString, KubeconfigContext> &contexts() const { return m_contexts; }

private:
    QStringList m_files;
    QString m_currentContext;
    QString m_currentContextFile;
    QMap<QString, KubeconfigCluster> m_clusters;
    QMap<QString, KubeconfigUser> m_users;
    QMap<QString, KubeconfigContext> m_contexts;
};

} // namespace reconscope::controller::kube
