#pragma once

// The server an end-to-end test runs against, behind one small interface, so that the same test
// runs unchanged on both servers (ctest names each run `<test>:embedded` and `<test>:real`):
//
//   embedded  the embedded cluster (EmbeddedServer + the workload simulator, no demo objects), on
//             a thread of its own in the test process, reached only through the kubeconfig it
//             writes;
//   real      kube-apiserver + etcd + kube-controller-manager + kube-scheduler + kwok, started
//             for the tier by the realcluster fixture (tools/kubefixture/cluster.py).
//
// RECONSCOPE_E2E_SERVER picks one (default embedded). Tests use only the API, kubectl and the
// reconscope binary; the two disruptions both servers offer (an API server restart and a storage
// compaction) go through this interface. Contexts are picked by role, found by asking the server
// which identity may write, never by name. Every namespace a test makes is deleted at the end.
#include "controller/kube/clientconfig.h"
#include "controller/kube/restclient.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace reconscope::tests::e2e {

enum class Role {
    Admin, // client certificate, may do anything
    Token, // bearer token, may do anything
    Viewer, // client certificate bound to the `view` ClusterRole: reads, never writes
};

struct ProcessResult
{
    bool finished = false;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QString describe() const; // exit code and both outputs, for failure messages
};

// Runs a program to its end (or timeoutMs), spinning the event loop meanwhile.
ProcessResult runProcess(const QString &program,
                         const QStringList &arguments,
                         const QByteArray &input = {},
                         const QProcessEnvironment &environment
                         = QProcessEnvironment::systemEnvironment(),
                         int timeoutMs = 60000);

class E2eServer
{
public:
    virtual ~E2eServer();

    // The server RECONSCOPE_E2E_SERVER names, ready (roles found); null with `error` set if not.
    static std::unique_ptr<E2eServer> fromEnvironment(QString *error);

    virtual QString name() const = 0; // "embedded" or "real"
    bool isReal() const { return name() == QStringLiteral("real"); }
    QString kubeconfigPath() const { return m_kubeconfig; }
    QString context(Role role) const { return m_contexts.value(role); }
    controller::kube::ClientConfig config(Role role = Role::Admin) const;

    // The API server goes away and comes back with the same storage: every connection and watch
    // is cut. Blocks until it answers again.
    virtual bool restartApiServer(QString *error) = 0;
    // Compacts the storage's history at its current revision: watches and lists from older
    // resource versions are answered 410 Gone (on the real server only for resources served
    // without the watch cache, such as UncachedWidgets below).
    virtual bool compact(QString *error) = 0;

    // kubectl with this server's kubeconfig and the context of `role`.
    ProcessResult kubectl(const QStringList &arguments,
                          Role role = Role::Admin,
                          const QByteArray &input = {},
                          int timeoutMs = 60000) const;
    // The reconscope binary, with KUBECONFIG set to this server's.
    ProcessResult reconscope(const QStringList &arguments, int timeoutMs = 60000) const;
    QProcessEnvironment environment() const;

    // A new namespace named PREFIX-<random>, deleted when the server handle goes.
    QString createNamespace(const QString &prefix);
    // Creates the objects of a YAML or JSON manifest (CRDs and ClusterRoles) through the API; one
    // that exists already is kept. CRDs are waited for until Established.
    bool apply(const QByteArray &manifest, QString *error);
    bool applyFile(const QString &path, QString *error);
    // The project's CustomApp CRD (resources/crds), which the embedded cluster has already.
    bool installCustomAppCrd(QString *error);

    // Lets the viewer read the custom resources of `group`, as an operator's install does: a
    // ClusterRole aggregated into `view` (kube-apiserver's view role covers no custom resource).
    // The embedded cluster serves no RBAC and lets the viewer read everything: nothing to do there.
    bool letViewerRead(const QString &group, QString *error);

    // A request through the project's REST client, waited for (the event loop runs meanwhile).
    controller::kube::RestClient::JsonResult getJson(const QString &path, Role role = Role::Admin);
    // A GET's body as it came (a watch with timeoutSeconds: every event line).
    models::Result<QByteArray, controller::apimachinery::ApiError>
    getBytes(const QString &path, Role role = Role::Admin);
    controller::kube::RestClient::JsonResult sendJson(const QByteArray &method,
                                                      const QString &path,
                                                      const nlohmann::json &body,
                                                      Role role = Role::Admin,
                                                      const QByteArray &contentType
                                                      = "application/json");

protected:
    E2eServer() = default;
    // Reads the kubeconfig and finds each role's context by a dry-run namespace create.
    bool findRoles(QString *error);
    void deleteNamespaces();

    QString m_kubeconfig;
    QMap<Role, QString> m_contexts;
    QStringList m_namespaces;
};

// A CustomApp manifest: spec.image and spec.replicas set (and NAMESPACE when given).
nlohmann::json customAppManifest(const QString &name,
                                 const QString &image,
                                 int replicas,
                                 const QString &namespace_ = {});

// The test CRD whose watch cache the real server keeps off (cluster.py), so that a compaction
// reaches watchers as 410 Gone there too: group e2e.reconscope.dev, kind UncachedWidget.
nlohmann::json uncachedWidgetsCrd();
inline const controller::apimachinery::ResourceRef UncachedWidgets{
    QStringLiteral("e2e.reconscope.dev"), QStringLiteral("v1"), QStringLiteral("uncachedwidgets")
};

} // namespace reconscope::tests::e2e
