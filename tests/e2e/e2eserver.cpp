#include "tests/e2e/e2eserver.h"

#include "controller/cluster/cluster.h"
#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/kube/kubeconfig.h"
#include "models/yamljson.h"
#include "tests/testkubectl.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
namespace kube = reconscope::controller::kube;

namespace reconscope::tests::e2e {

QString ProcessResult::describe() const
{
    // stderr first, and its end: a crash report or an error is what a failure must show.
    return u"exit %1%2\nstderr: %3\nstdout: %4"_s.arg(exitCode).arg(
        finished ? QString() : u" (did not finish)"_s,
        QString::fromUtf8(err.right(3000)),
        QString::fromUtf8(out.left(1000)));
}

ProcessResult runProcess(const QString &program,
                         const QStringList &arguments,
                         const QByteArray &input,
                         const QProcessEnvironment &environment,
                         int timeoutMs)
{
    ProcessResult result;
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForStarted(10000)) {
        result.err = "cannot start " + program.toUtf8() + ": " + process.errorString().toUtf8();
        return result;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    const QDeadlineTimer deadline(timeoutMs);
    while (!process.waitForFinished(20)) {
        if (process.state() == QProcess::NotRunning)
            break;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (deadline.hasExpired()) {
            process.kill();
            process.waitForFinished(5000);
            result.out = process.readAllStandardOutput();
            result.err = process.readAllStandardError();
            return result;
        }
    }
    result.finished = process.exitStatus() == QProcess::NormalExit;
    result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

namespace {

constexpr int WaitMs = 30000;

QString kubectlProgram()
{
    const QString fromEnvironment = qEnvironmentVariable("RECONSCOPE_KUBECTL");
    return fromEnvironment.isEmpty() ? testKubectlPath() : fromEnvironment;
}

// The embedded cluster on a thread of its own, as the console runs it.
class EmbeddedE2eServer final : public E2eServer
{
public:
    ~EmbeddedE2eServer() override
    {
        deleteNamespaces();
        if (m_server) {
            QMetaObject::invokeMethod(
                m_server, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        }
        m_thread.quit();
        m_thread.wait();
    }

    QString name() const override { return u"embedded"_s; }

    bool start(QString *error)
    {
        if (!m_dir.isValid()) {
            *error = u"no temporary directory"_s;
            return false;
        }
        cluster::EmbeddedServerOptions options;
        options.kubeconfigPath = m_dir.filePath(u"kubeconfig"_s);
        // No demo objects; the workload simulator stands in for the controllers and kubelets.
        m_server = new cluster::EmbeddedServer(
            cluster::embeddedClusterFactory(cluster::EmbeddedClusterOptions{ .demo = false }),
            options);
        m_server->moveToThread(&m_thread);
        m_thread.start();
        models::Status<> started;
        QMetaObject::invokeMethod(
            m_server, [&] { started = m_server->start(); }, Qt::BlockingQueuedConnection);
        if (!started) {
            *error = started.error().message;
            return false;
        }
        m_kubeconfig = options.kubeconfigPath;
        return findRoles(error);
    }

    bool restartApiServer(QString *error) override
    {
        QMetaObject::invokeMethod(
            m_server, [this] { m_server->stop(); }, Qt::BlockingQueuedConnection);
        // Down for a moment, as a real kube-apiserver is while it restarts (seconds): clients
        // see the cut and their first reconnect is refused.
        QTest::qWait(1500);
        models::Status<> started;
        QMetaObject::invokeMethod(
            m_server, [&] { started = m_server->start(); }, Qt::BlockingQueuedConnection);
        if (!started)
            *error = started.error().message;
        return started.ok();
    }

    bool compact(QString *) override
    {
        QMetaObject::invokeMethod(
            m_server,
            [this] { cluster::clusterOf(*m_server)->compact(); },
            Qt::BlockingQueuedConnection);
        return true;
    }

private:
    QTemporaryDir m_dir;
    QThread m_thread;
    cluster::EmbeddedServer *m_server = nullptr;
};

// The control plane the realcluster fixture started; cluster.py restarts and compacts it.
class RealE2eServer final : public E2eServer
{
public:
    ~RealE2eServer() override { deleteNamespaces(); }

    QString name() const override { return u"real"_s; }

    bool start(QString *error)
    {
        m_kubeconfig = qEnvironmentVariable("RECONSCOPE_E2E_KUBECONFIG");
        if (m_kubeconfig.isEmpty() || !QFile::exists(m_kubeconfig)) {
            *error = u"no kubeconfig at RECONSCOPE_E2E_KUBECONFIG='%1' (the realcluster fixture "
                     "starts the control plane)"_s.arg(m_kubeconfig);
            return false;
        }
        return findRoles(error);
    }

    bool restartApiServer(QString *error) override { return tool(u"restart-apiserver"_s, error); }
    bool compact(QString *error) override { return tool(u"compact"_s, error); }

private:
    bool tool(const QString &verb, QString *error)
    {
        const ProcessResult result
            = runProcess(u"/usr/bin/python3"_s,
                         { qEnvironmentVariable("RECONSCOPE_CLUSTER_TOOL"),
                           verb,
                           u"--state"_s,
                           qEnvironmentVariable("RECONSCOPE_CLUSTER_STATE") },
                         {},
                         QProcessEnvironment::systemEnvironment(),
                         120000);
        if (result.finished && result.exitCode == 0)
            return true;
        *error = u"cluster.py %1: %2"_s.arg(verb, result.describe());
        // Whole, to the test's log: QtTest cuts a failure message short.
        qWarning().noquote() << *error;
        return false;
    }
};

} // namespace

E2eServer::~E2eServer() = default;

std::unique_ptr<E2eServer> E2eServer::fromEnvironment(QString *error)
{
    const QString which = qEnvironmentVariable("RECONSCOPE_E2E_SERVER", u"embedded"_s);
    if (which == u"embedded") {
        auto server = std::make_unique<EmbeddedE2eServer>();
        if (!server->start(error))
            return nullptr;
        return server;
    }
    if (which == u"real") {
        auto server = std::make_unique<RealE2eServer>();
        if (!server->start(error))
            return nullptr;
        return server;
    }
    *error = u"RECONSCOPE_E2E_SERVER=%1: expected embedded or real"_s.arg(which);
    return nullptr;
}

kube::ClientConfig E2eServer::config(Role role) const
{
    const auto kubeconfig = kube::Kubeconfig::load(m_kubeconfig);
    if (!kubeconfig)
        return kube::ClientConfig();
    auto resolved = kubeconfig->resolve(context(role));
    return resolved ? resolved.value() : kube::ClientConfig();
}

bool E2eServer::findRoles(QString *error)
{
    const auto kubeconfig = kube::Kubeconfig::load(m_kubeconfig);
    if (!kubeconfig) {
        *error = kubeconfig.error().message;
        return false;
    }
    const json probe{ { "apiVersion", "v1" },
                      { "kind", "Namespace" },
                      { "metadata", { { "name", "e2e-role-probe" } } } };
    for (const QString &name : kubeconfig->contextNames()) {
        const auto config = kubeconfig->resolve(name);
        if (!config)
            continue;
        kube::RestClient client(config.value());
        std::optional<models::Result<kube::RawResponse, apimachinery::ApiError>> answer;
        QUrlQuery query;
        query.addQueryItem(u"dryRun"_s, u"All"_s);
        client.request("POST",
                       u"/api/v1/namespaces"_s,
                       query,
                       QByteArray::fromStdString(probe.dump()),
                       "application/json",
                       "application/json",
                       [&](auto result) { answer.emplace(std::move(result)); });
        if (!QTest::qWaitFor([&] { return answer.has_value(); }, WaitMs))
            continue;
        const bool writes = answer->ok();
        const bool denied = !answer->ok() && answer->error().isForbidden();
        const bool byToken = !config->token.isEmpty();
        if (writes && byToken && !m_contexts.contains(Role::Token))
            m_contexts.insert(Role::Token, name);
        else if (writes && !byToken && !m_contexts.contains(Role::Admin))
            m_contexts.insert(Role::Admin, name);
        else if (denied && !byToken && !m_contexts.contains(Role::Viewer))
            m_contexts.insert(Role::Viewer, name);
    }
    if (m_contexts.size() != 3) {
        *error = u"%1: expected an admin (certificate), a token and a viewer context, found %2"_s
                     .arg(m_kubeconfig)
                     .arg(m_contexts.size());
        return false;
    }
    return true;
}

QProcessEnvironment E2eServer::environment() const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"KUBECONFIG"_s, m_kubeconfig);
    return environment;
}

ProcessResult E2eServer::kubectl(const QStringList &arguments,
                                 Role role,
                                 const QByteArray &input,
                                 int timeoutMs) const
{
    const QString program = kubectlProgram();
    if (program.isEmpty()) {
        ProcessResult missing;
        missing.err = findTestKubectl().whyMissing.toUtf8();
        return missing;
    }
    // A discovery cache of the handle's own: CRDs come and go between tests.
    static const QTemporaryDir cache;
    return runProcess(program,
                      QStringList{ u"--kubeconfig"_s,
                                   m_kubeconfig,
                                   u"--context"_s,
                                   context(role),
                                   u"--cache-dir"_s,
                                   cache.path() }
                          + arguments,
                      input,
                      environment(),
                      timeoutMs);
}

ProcessResult E2eServer::reconscope(const QStringList &arguments, int timeoutMs) const
{
    return runProcess(
        qEnvironmentVariable("RECONSCOPE_EXECUTABLE"), arguments, {}, environment(), timeoutMs);
}

QString E2eServer::createNamespace(const QString &prefix)
{
    const QString name
        = prefix + u'-' + QString::number(QRandomGenerator::global()->generate() % 0xFFFFFF, 16);
    const auto created = sendJson("POST",
                                  u"/api/v1/namespaces"_s,
                                  { { "apiVersion", "v1" },
                                    { "kind", "Namespace" },
                                    { "metadata", { { "name", name.toStdString() } } } });
    if (!created) {
        qWarning("namespace %s: %s", qPrintable(name), qPrintable(created.error().toString()));
        return {};
    }
    m_namespaces << name;
    return name;
}

void E2eServer::deleteNamespaces()
{
    for (const QString &name : std::exchange(m_namespaces, {}))
        (void)sendJson("DELETE", u"/api/v1/namespaces/"_s + name, json::object());
}

bool E2eServer::apply(const QByteArray &manifest, QString *error)
{
    // Through the API, not kubectl, so that the embedded tier needs no kubectl. The kinds the
    // tests install: CRDs and ClusterRoles (cluster-scoped, at fixed paths).
    static const QMap<std::string, QString> collections{
        { "CustomResourceDefinition",
          u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s },
        { "ClusterRole", u"/apis/rbac.authorization.k8s.io/v1/clusterroles"_s },
    };
    const auto documents = models::yamlDocumentsToJson(manifest);
    if (!documents) {
        *error = u"not YAML: %1"_s.arg(documents.error().message);
        return false;
    }
    QStringList crds;
    for (const json &document : documents.value()) {
        if (!document.is_object())
            continue;
        const std::string kind = document.value("kind", "");
        const auto collection = collections.constFind(kind);
        if (collection == collections.cend()) {
            *error = u"apply: %1 is not a kind the e2e harness installs"_s.arg(
                QString::fromStdString(kind));
            return false;
        }
        const auto created = sendJson("POST", *collection, document);
        // One that exists already (another test installed it) is not an error.
        if (!created && !created.error().isAlreadyExists()) {
            *error
                = u"create %1: %2"_s.arg(QString::fromStdString(kind), created.error().toString());
            return false;
        }
        if (kind == "CustomResourceDefinition")
            crds << QString::fromStdString(document["metadata"].value("name", ""));
    }
    // Polled rather than `kubectl wait`, which fails while a new CRD has no conditions yet.
    for (const QString &crd : crds) {
        const QString path = u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"_s + crd;
        const bool established = QTest::qWaitFor(
            [&] {
                const auto got = getJson(path);
                if (got && got->contains("status") && (*got)["status"].contains("conditions")) {
                    for (const json &c : (*got)["status"]["conditions"]) {
                        if (c.value("type", "") == "Established" && c.value("status", "") == "True")
                            return true;
                    }
                }
                QTest::qWait(100);
                return false;
            },
            WaitMs * 2);
        if (!established) {
            *error = u"CRD %1 not Established within %2 s"_s.arg(crd).arg(WaitMs * 2 / 1000);
            return false;
        }
    }
    return true;
}

bool E2eServer::letViewerRead(const QString &group, QString *error)
{
    if (!isReal())
        return true;
    const json role{
        { "apiVersion", "rbac.authorization.k8s.io/v1" },
        { "kind", "ClusterRole" },
        { "metadata",
          { { "name", "e2e-view-" + group.toStdString() },
            { "labels", { { "rbac.authorization.k8s.io/aggregate-to-view", "true" } } } } },
        { "rules",
          json::array({ { { "apiGroups", { group.toStdString() } },
                          { "resources", { "*" } },
                          { "verbs", { "get", "list", "watch" } } } }) }
    };
    if (!apply(QByteArray::fromStdString(role.dump()), error))
        return false;
    // The aggregation controller copies the rules into `view`.
    const bool aggregated = QTest::qWaitFor(
        [&] {
            const auto view = getJson(u"/apis/rbac.authorization.k8s.io/v1/clusterroles/view"_s);
            if (view && view->contains("rules")) {
                for (const json &rule : (*view)["rules"]) {
                    if (rule.value("apiGroups", json::array()).dump().find(group.toStdString())
                        != std::string::npos)
                        return true;
                }
            }
            QTest::qWait(100);
            return false;
        },
        WaitMs);
    if (!aggregated)
        *error = u"the view ClusterRole did not take the rules for %1"_s.arg(group);
    return aggregated;
}

bool E2eServer::applyFile(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"%1: %2"_s.arg(path, file.errorString());
        return false;
    }
    return apply(file.readAll(), error);
}

models::Result<QByteArray, apimachinery::ApiError> E2eServer::getBytes(const QString &path,
                                                                       Role role)
{
    kube::RestClient client(config(role));
    std::optional<models::Result<kube::RawResponse, apimachinery::ApiError>> answer;
    client.request("GET",
                   path.section(u'?', 0, 0),
                   QUrlQuery(path.section(u'?', 1)),
                   {},
                   {},
                   "application/json",
                   [&](auto result) { answer.emplace(std::move(result)); });
    if (!QTest::qWaitFor([&] { return answer.has_value(); }, WaitMs)) {
        apimachinery::ApiError timedOut;
        timedOut.message = u"GET %1: no answer in %2 ms"_s.arg(path).arg(WaitMs);
        return timedOut;
    }
    if (!*answer)
        return answer->error();
    return answer->value().body;
}

kube::RestClient::JsonResult E2eServer::getJson(const QString &path, Role role)
{
    return sendJson("GET", path, nullptr, role);
}

kube::RestClient::JsonResult E2eServer::sendJson(const QByteArray &method,
                                                 const QString &path,
                                                 const json &body,
                                                 Role role,
                                                 const QByteArray &contentType)
{
    kube::RestClient client(config(role));
    std::optional<models::Result<kube::RawResponse, apimachinery::ApiError>> answer;
    const QString pathOnly = path.section(u'?', 0, 0);
    const QUrlQuery query(path.section(u'?', 1));
    client.request(method,
                   pathOnly,
                   query,
                   body.is_null() ? QByteArray() : QByteArray::fromStdString(body.dump()),
                   body.is_null() ? QByteArray() : contentType,
                   "application/json",
                   [&](auto result) { answer.emplace(std::move(result)); });
    if (!QTest::qWaitFor([&] { return answer.has_value(); }, WaitMs)) {
        apimachinery::ApiError timedOut;
        timedOut.message
            = u"%1 %2: no answer in %3 ms"_s.arg(QString::fromLatin1(method), path).arg(WaitMs);
        return timedOut;
    }
    if (!*answer)
        return answer->error();
    json parsed = json::parse(answer->value().body.toStdString(), nullptr, false);
    if (parsed.is_discarded())
        parsed = json::object();
    return parsed;
}

bool E2eServer::installCustomAppCrd(QString *error)
{
    return applyFile(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                         + u"/resources/crds/customapps.infrastructure.internal.net.yaml"_s,
                     error);
}

json customAppManifest(const QString &name,
                       const QString &image,
                       int replicas,
                       const QString &namespace_)
{
    json object{ { "apiVersion", "infrastructure.internal.net/v1" },
                 { "kind", "CustomApp" },
                 { "metadata", { { "name", name.toStdString() } } },
                 { "spec", { { "image", image.toStdString() }, { "replicas", replicas } } } };
    if (!namespace_.isEmpty())
        object["metadata"]["namespace"] = namespace_.toStdString();
    return object;
}

json uncachedWidgetsCrd()
{
    return json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition",
      "metadata": {"name": "uncachedwidgets.e2e.reconscope.dev"},
      "spec": {
        "group": "e2e.reconscope.dev",
        "scope": "Namespaced",
        "names": {"plural": "uncachedwidgets", "singular": "uncachedwidget",
                  "kind": "UncachedWidget", "listKind": "UncachedWidgetList"},
        "versions": [{
          "name": "v1", "served": true, "storage": true,
          "subresources": {"status": {}},
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
        }]
      }
    })");
}

} // namespace reconscope::tests::e2e
