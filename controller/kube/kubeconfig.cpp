#include "controller/kube/kubeconfig.h"

#include "controller/kube/clientconfig.h"

#include <yaml-cpp/yaml.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

namespace {

using models::Result;
using models::Status;

QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

// Structure errors while reading one file: "clusters[2].cluster.server: expected a string".
struct ParseError
{
    QString message;
};

class Reader
{
public:
    explicit Reader(QString directory)
        : m_directory(std::move(directory))
    { }

    QString scalar(const YAML::Node &map, const char *key, const QString &where) const
    {
        const YAML::Node node = map[key];
        if (!node || node.IsNull())
            return {};
        if (!node.IsScalar())
            throw ParseError{ where + u'.' + QString::fromUtf8(key) + u": expected a string"_s };
        return QString::fromStdString(node.Scalar());
    }

    bool boolean(const YAML::Node &map, const char *key, const QString &where) const
    {
        const QString text = scalar(map, key, where).toLower();
        if (text.isEmpty() || text == u"false")
            return false;
        if (text == u"true")
            return true;
        throw ParseError{ where + u'.' + QString::fromUtf8(key) + u": expected true or false"_s };
    }

    // A file path: relative paths resolve against the kubeconfig's directory.
    QString path(const YAML::Node &map, const char *key, const QString &where) const
    {
        const QString value = scalar(map, key, where);
        if (value.isEmpty())
            return value;
        QString expanded = value;
        if (expanded.startsWith(u"~/"_s))
            expanded = QDir::homePath() + expanded.mid(1);
        return QDir::cleanPath(QDir(m_directory).absoluteFilePath(expanded));
    }

    QString directory() const { return m_directory; }

private:
    QString m_directory;
};

YAML::Node listNode(const YAML::Node &root, const char *key)
{
    const YAML::Node node = root[key];
    if (!node || node.IsNull())
        return {};
    if (!node.IsSequence())
        throw ParseError{ QString::fromUtf8(key) + u": expected a list"_s };
    return node;
}

// The named map entry of a clusters/users/contexts list item: { name: x, <field>: {...} }.
YAML::Node entryBody(const YAML::Node &item, const char *field, const QString &where, QString *name)
{
    if (!item.IsMap())
        throw ParseError{ where + u": expected a map with name and "_s + QString::fromUtf8(field) };
    const YAML::Node nameNode = item["name"];
    if (!nameNode || !nameNode.IsScalar() || nameNode.Scalar().empty())
        throw ParseError{ where + u": name: missing"_s };
    *name = QString::fromStdString(nameNode.Scalar());
    const YAML::Node body = item[field];
    if (!body || body.IsNull())
        return YAML::Node(YAML::NodeType::Map);
    if (!body.IsMap())
        throw ParseError{ where + u'.' + QString::fromUtf8(field) + u": expected a map"_s };
    return body;
}

ExecConfig readExec(const Reader &reader, const YAML::Node &node, const QString &where)
{
    if (!node.IsMap())
        throw ParseError{ where + u": expected a map"_s };
    ExecConfig exec;
    exec.apiVersion = reader.scalar(node, "apiVersion", where);
    exec.command = reader.scalar(node, "command", where);
    if (exec.command.contains(u'/') && QFileInfo(exec.command).isRelative())
        exec.command = QDir::cleanPath(QDir(reader.directory()).absoluteFilePath(exec.command));
    if (const YAML::Node args = node["args"]; args && !args.IsNull()) {
        if (!args.IsSequence())
            throw ParseError{ where + u".args: expected a list"_s };
        for (const auto &arg : args) {
            if (!arg.IsScalar())
                throw ParseError{ where + u".args: expected strings"_s };
            exec.args << QString::fromStdString(arg.Scalar());
        }
    }
    if (const YAML::Node env = node["env"]; env && !env.IsNull()) {
        if (!env.IsSequence())
            throw ParseError{ where + u".env: expected a list"_s };
        for (const auto &entry : env) {
            const QString name = reader.scalar(entry, "name", where + u".env"_s);
            if (name.isEmpty())
                throw ParseError{ where + u".env: name: missing"_s };
            exec.env.append({ name, reader.scalar(entry, "value", where + u".env"_s) });
        }
    }
    exec.installHint = reader.scalar(node, "installHint", where);
    exec.provideClusterInfo = reader.boolean(node, "provideClusterInfo", where);
    exec.interactiveMode = reader.scalar(node, "interactiveMode", where);
    return exec;
}

QString readFileError(const QString &path, QByteArray *contents)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return u"cannot read %1: %2"_s.arg(path, file.errorString());
    *contents = file.readAll();
    return {};
}

// Base64 as kubeconfig -data fields carry it (whitespace tolerated, as Go's decoder does not,
// but YAML folding can introduce it).
std::optional<QByteArray> decodeBase64(const QString &text)
{
    QByteArray compact = text.toLatin1();
    compact.replace(' ', QByteArray()).replace('\n', QByteArray()).replace('\r', QByteArray());
    auto decoded = QByteArray::fromBase64Encoding(compact, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || compact.isEmpty())
        return std::nullopt;
    return *decoded;
}

// Client certificate and key: each from data (preferred, as in client-go) or file. The error
// names the field but not the user; empty when the field is unset or was read into `out`.
QString readMaterial(const QString &data,
                     const QString &path,
                     const QString &dataField,
                     const QString &pathField,
                     QByteArray *out)
{
    if (!data.isEmpty()) {
        const auto decoded = decodeBase64(data);
        if (!decoded)
            return dataField + u": not valid base64"_s;
        *out = *decoded;
    } else if (!path.isEmpty()) {
        if (const QString error = readFileError(path, out); !error.isEmpty())
            return pathField + u": "_s + error;
    }
    return {};
}

// The cluster's CA bundle into config.caCertificates: certificate-authority-data when set, else
// the certificate-authority file, else none.
Status<> resolveCertificateAuthority(const KubeconfigCluster &cluster,
                                     const QString &clusterPrefix,
                                     ClientConfig &config)
{
    if (!cluster.certificateAuthorityData.isEmpty()) {
        const auto pemData = decodeBase64(cluster.certificateAuthorityData);
        if (!pemData) {
            return Status<>::failure(clusterPrefix
                                     + u"certificate-authority-data: not valid base64"_s);
        }
        auto certificates = pem::parseCertificates(*pemData);
        if (!certificates) {
            return Status<>::failure(clusterPrefix + u"certificate-authority-data: "_s
                                     + certificates.error().message);
        }
        config.caCertificates = *certificates;
    } else if (!cluster.certificateAuthority.isEmpty()) {
        QByteArray contents;
        if (const QString error = readFileError(cluster.certificateAuthority, &contents);
            !error.isEmpty()) {
            return Status<>::failure(clusterPrefix + u"certificate-authority: "_s + error);
        }
        auto certificates = pem::parseCertificates(contents);
        if (!certificates) {
            return Status<>::failure(clusterPrefix + u"certificate-authority: "_s
                                     + cluster.certificateAuthority + u": "_s
                                     + certificates.error().message);
        }
        config.caCertificates = *certificates;
    }
    return {};
}

// The cluster of context `contextName` into config: server, CA, TLS verification, proxy; the
// warnings for disabled verification and plain http.
Status<>
resolveCluster(const KubeconfigCluster &cluster, const QString &contextName, ClientConfig &config)
{
    const QString clusterPrefix = u"kubeconfig %1: context %2: cluster %3: "_s.arg(
        cluster.file, quoted(contextName), quoted(cluster.name));
    if (cluster.server.isEmpty())
        return Status<>::failure(clusterPrefix + u"server: missing"_s);
    config.server = QUrl(cluster.server, QUrl::StrictMode);
    if (!config.server.isValid() || config.server.host().isEmpty()
        || (config.server.scheme() != u"https" && config.server.scheme() != u"http")) {
        return Status<>::failure(clusterPrefix + u"server: not an http(s) URL: "_s
                                 + cluster.server);
    }
    if (auto resolved = resolveCertificateAuthority(cluster, clusterPrefix, config); !resolved)
        return resolved;
    config.insecureSkipTlsVerify = cluster.insecureSkipTlsVerify;
    if (config.insecureSkipTlsVerify) {
        config.warnings
            << u"TLS verification is disabled for cluster %1 (insecure-skip-tls-verify): "
               u"the server's identity is not checked"_s.arg(quoted(cluster.name));
    }
    if (config.server.scheme() == u"http") {
        config.warnings << u"cluster %1 is reached over plain http: nothing is encrypted"_s.arg(
            quoted(cluster.name));
    }
    if (config.insecureSkipTlsVerify && !config.caCertificates.isEmpty()) {
        // client-go refuses this combination as well.
        return Status<>::failure(
            clusterPrefix
            + u"insecure-skip-tls-verify: cannot be combined with a certificate authority"_s);
    }
    config.tlsServerName = cluster.tlsServerName;
    if (!cluster.proxyUrl.isEmpty()) {
        auto proxy = proxyFromUrl(cluster.proxyUrl);
        if (!proxy)
            return Status<>::failure(clusterPrefix + u"proxy-url: "_s + proxy.error().message);
        config.proxy = *proxy;
    }
    return {};
}

// The user's client certificate and key into config: both or neither, parsed, the key matching
// the certificate; a warning when the certificate has expired or is not yet valid.
Status<> resolveClientCertificate(const KubeconfigUser &user,
                                  const QString &userPrefix,
                                  ClientConfig &config)
{
    QByteArray certificatePem;
    QByteArray keyPem;
    if (const QString error = readMaterial(user.clientCertificateData,
                                           user.clientCertificate,
                                           u"client-certificate-data"_s,
                                           u"client-certificate"_s,
                                           &certificatePem);
        !error.isEmpty()) {
        return Status<>::failure(userPrefix + error);
    }
    if (const QString error = readMaterial(
            user.clientKeyData, user.clientKey, u"client-key-data"_s, u"client-key"_s, &keyPem);
        !error.isEmpty()) {
        return Status<>::failure(userPrefix + error);
    }
    const QString certificateField = user.clientCertificateData.isEmpty()
        ? u"client-certificate"_s
        : u"client-certificate-data"_s;
    const QString keyField = user.clientKeyData.isEmpty() ? u"client-key"_s : u"client-key-data"_s;
    if (!certificatePem.isEmpty() || !keyPem.isEmpty()) {
        if (keyPem.isEmpty()) {
            return Status<>::failure(userPrefix + certificateField
                                     + u" is set but no client key"_s);
        }
        if (certificatePem.isEmpty()) {
            return Status<>::failure(userPrefix + keyField
                                     + u" is set but no client certificate"_s);
        }
        auto certificate = pem::parseCertificate(certificatePem);
        if (!certificate) {
            return Status<>::failure(userPrefix + certificateField + u": "_s
                                     + certificate.error().message);
        }
        auto key = pem::parsePrivateKey(keyPem);
        if (!key)
            return Status<>::failure(userPrefix + keyField + u": "_s + key.error().message);
        if (!pem::keyMatchesCertificate(keyPem, certificatePem)) {
            return Status<>::failure(userPrefix + keyField + u": the private key does not match "_s
                                     + certificateField + u" (subject "_s
                                     + certificate->subjectDisplayName() + u')');
        }
        config.clientCertificate = *certificate;
        config.clientKey = *key;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        if (certificate->expiryDate() < now) {
            config.warnings << u"the client certificate of user %1 expired on %2"_s.arg(
                quoted(user.name), certificate->expiryDate().toUTC().toString(Qt::ISODate));
        } else if (certificate->effectiveDate() > now) {
            config.warnings << u"the client certificate of user %1 is not valid before %2"_s.arg(
                quoted(user.name), certificate->effectiveDate().toUTC().toString(Qt::ISODate));
        }
    }
    return {};
}

// An exec plugin this program can run: a command, a supported apiVersion, and an interactiveMode
// that needs no terminal.
Status<> checkExec(const ExecConfig &exec, const QString &userPrefix)
{
    if (exec.command.isEmpty())
        return Status<>::failure(userPrefix + u"exec.command: missing"_s);
    if (exec.apiVersion != u"client.authentication.k8s.io/v1"
        && exec.apiVersion != u"client.authentication.k8s.io/v1beta1") {
        return Status<>::failure(userPrefix + u"exec.apiVersion: unsupported: "_s
                                 + (exec.apiVersion.isEmpty() ? u"(missing)"_s : exec.apiVersion));
    }
    if (exec.apiVersion == u"client.authentication.k8s.io/v1" && exec.interactiveMode.isEmpty())
        return Status<>::failure(userPrefix + u"exec.interactiveMode: missing (required in v1)"_s);
    if (!exec.interactiveMode.isEmpty() && exec.interactiveMode != u"Never"
        && exec.interactiveMode != u"IfAvailable" && exec.interactiveMode != u"Always") {
        return Status<>::failure(userPrefix + u"exec.interactiveMode: invalid: "_s
                                 + exec.interactiveMode);
    }
    if (exec.interactiveMode == u"Always") {
        return Status<>::failure(userPrefix
                                 + u"exec: interactiveMode Always needs a terminal, which this "
                                   u"program does not have"_s);
    }
    return {};
}

// The user of context `contextName` into config: client certificate, token or token file, basic
// auth (not together with a token), exec plugin.
Status<> resolveUser(const KubeconfigUser &user, const QString &contextName, ClientConfig &config)
{
    const QString userPrefix = u"kubeconfig %1: context %2: user %3: "_s.arg(
        user.file, quoted(contextName), quoted(user.name));
    config.execWorkingDirectory = QFileInfo(user.file).absolutePath();
    if (auto resolved = resolveClientCertificate(user, userPrefix, config); !resolved)
        return resolved;
    config.token = user.token;
    if (!user.tokenFile.isEmpty()) {
        QByteArray contents;
        if (const QString error = readFileError(user.tokenFile, &contents); !error.isEmpty())
            return Status<>::failure(userPrefix + u"tokenFile: "_s + error);
        config.tokenFile = user.tokenFile;
    }
    if (!user.username.isEmpty() || !user.password.isEmpty()) {
        if (!config.token.isEmpty() || !config.tokenFile.isEmpty()) {
            return Status<>::failure(userPrefix
                                     + u"username/password cannot be combined with a token"_s);
        }
        config.username = user.username;
        config.password = user.password;
    }
    if (user.exec) {
        if (auto checked = checkExec(*user.exec, userPrefix); !checked)
            return checked;
        config.exec = *user.exec;
    }
    return {};
}

} // namespace

Result<Kubeconfig> Kubeconfig::parse(const QByteArray &yaml, const QString &filePath)
{
    const QString prefix = u"kubeconfig "_s + filePath + u": "_s;
    Kubeconfig config;
    config.m_files << filePath;
    try {
        const YAML::Node root = YAML::Load(yaml.toStdString());
        if (!root || root.IsNull())
            return config; // an empty file is an empty config, as for kubectl
        if (!root.IsMap())
            return Result<Kubeconfig>::failure(prefix + u"expected a map at the top level"_s);
        const Reader reader(QFileInfo(filePath).absolutePath());

        const QString kind = reader.scalar(root, "kind", u"kind"_s);
        if (!kind.isEmpty() && kind != u"Config")
            return Result<Kubeconfig>::failure(prefix + u"kind: expected Config, got "_s + kind);

        config.m_currentContext = reader.scalar(root, "current-context", u"current-context"_s);
        config.m_currentContextFile = filePath;

        int index = 0;
        for (const auto &item : listNode(root, "clusters")) {
            const QString where = u"clusters[%1]"_s.arg(index++);
            KubeconfigCluster cluster;
            const YAML::Node body = entryBody(item, "cluster", where, &cluster.name);
            const QString at = where + u".cluster"_s;
            cluster.file = filePath;
            cluster.server = reader.scalar(body, "server", at);
            cluster.certificateAuthority = reader.path(body, "certificate-authority", at);
            cluster.certificateAuthorityData
                = reader.scalar(body, "certificate-authority-data", at);
            cluster.insecureSkipTlsVerify = reader.boolean(body, "insecure-skip-tls-verify", at);
            cluster.tlsServerName = reader.scalar(body, "tls-server-name", at);
            cluster.proxyUrl = reader.scalar(body, "proxy-url", at);
            if (!config.m_clusters.contains(cluster.name))
                config.m_clusters.insert(cluster.name, cluster);
        }
        index = 0;
        for (const auto &item : listNode(root, "users")) {
            const QString where = u"users[%1]"_s.arg(index++);
            KubeconfigUser user;
            const YAML::Node body = entryBody(item, "user", where, &user.name);
            const QString at = where + u".user"_s;
            user.file = filePath;
            user.clientCertificate = reader.path(body, "client-certificate", at);
            user.clientCertificateData = reader.scalar(body, "client-certificate-data", at);
            user.clientKey = reader.path(body, "client-key", at);
            user.clientKeyData = reader.scalar(body, "client-key-data", at);
            user.token = reader.scalar(body, "token", at);
            user.tokenFile = reader.path(body, "tokenFile", at);
            user.username = reader.scalar(body, "username", at);
            user.password = reader.scalar(body, "password", at);
            if (const YAML::Node exec = body["exec"]; exec && !exec.IsNull())
                user.exec = readExec(reader, exec, at + u".exec"_s);
            if (!config.m_users.contains(user.name))
                config.m_users.insert(user.name, user);
        }
        index = 0;
        for (const auto &item : listNode(root, "contexts")) {
            const QString where = u"contexts[%1]"_s.arg(index++);
            KubeconfigContext context;
            const YAML::Node body = entryBody(item, "context", where, &context.name);
            const QString at = where + u".context"_s;
            context.file = filePath;
            context.cluster = reader.scalar(body, "cluster", at);
            context.user = reader.scalar(body, "user", at);
            context.namespace_ = reader.scalar(body, "namespace", at);
            if (!config.m_contexts.contains(context.name))
                config.m_contexts.insert(context.name, context);
        }
    } catch (const ParseError &error) {
        return Result<Kubeconfig>::failure(prefix + error.message);
    } catch (const YAML::Exception &error) {
        return Result<Kubeconfig>::failure(
            prefix
            + u"line %1: %2"_s.arg(error.mark.line + 1).arg(QString::fromStdString(error.msg)));
    }
    return config;
}

void Kubeconfig::mergeFrom(const Kubeconfig &other)
{
    for (const auto &file : other.m_files) {
        if (!m_files.contains(file))
            m_files << file;
    }
    if (m_currentContext.isEmpty() && !other.m_currentContext.isEmpty()) {
        m_currentContext = other.m_currentContext;
        m_currentContextFile = other.m_currentContextFile;
    }
    for (const auto &cluster : other.m_clusters) {
        if (!m_clusters.contains(cluster.name))
            m_clusters.insert(cluster.name, cluster);
    }
    for (const auto &user : other.m_users) {
        if (!m_users.contains(user.name))
            m_users.insert(user.name, user);
    }
    for (const auto &context : other.m_contexts) {
        if (!m_contexts.contains(context.name))
            m_contexts.insert(context.name, context);
    }
}

Result<Kubeconfig> Kubeconfig::loadFiles(const QStringList &paths, bool ignoreMissing)
{
    Kubeconfig merged;
    bool any = false;
    for (const QString &path : paths) {
        if (path.isEmpty())
            continue;
        const QString absolute = QFileInfo(path).absoluteFilePath();
        if (ignoreMissing && !QFileInfo::exists(absolute))
            continue;
        QByteArray contents;
        if (const QString error = readFileError(absolute, &contents); !error.isEmpty())
            return Result<Kubeconfig>::failure(u"kubeconfig "_s + error);
        auto parsed = parse(contents, absolute);
        if (!parsed)
            return parsed;
        if (!any)
            merged = std::move(parsed.value());
        else
            merged.mergeFrom(*parsed);
        any = true;
    }
    if (!any) {
        return Result<Kubeconfig>::failure(
            u"no kubeconfig found (looked for %1)"_s.arg(paths.join(u", "_s)));
    }
    return merged;
}

Result<Kubeconfig> Kubeconfig::load(const QString &explicitPath)
{
    if (!explicitPath.isEmpty())
        return loadFiles({ explicitPath }, false);
    const QString env = qEnvironmentVariable("KUBECONFIG");
    if (!env.isEmpty())
        return loadFiles(env.split(QDir::listSeparator(), Qt::SkipEmptyParts), true);
    return loadFiles({ QDir::homePath() + u"/.kube/config"_s }, false);
}

Result<ClientConfig> Kubeconfig::resolve(const QString &contextName) const
{
    const QString filesText = m_files.join(u':');
    const QString name = contextName.isEmpty() ? m_currentContext : contextName;
    if (name.isEmpty()) {
        return Result<ClientConfig>::failure(
            u"kubeconfig %1: current-context is not set and no context was given"_s.arg(filesText));
    }
    const auto contextIt = m_contexts.find(name);
    if (contextIt == m_contexts.end()) {
        const QString file = contextName.isEmpty() ? m_currentContextFile : filesText;
        return Result<ClientConfig>::failure(
            u"kubeconfig %1: context %2 not found"_s.arg(file, quoted(name)));
    }
    const KubeconfigContext &context = *contextIt;
    const QString contextPrefix
        = u"kubeconfig %1: context %2"_s.arg(context.file, quoted(context.name));
    auto fail = [](const QString &message) {
        return Result<ClientConfig>::failure(message);
    };

    if (context.cluster.isEmpty())
        return fail(contextPrefix + u": cluster: missing"_s);
    const auto clusterIt = m_clusters.find(context.cluster);
    if (clusterIt == m_clusters.end())
        return fail(contextPrefix + u": cluster %1 not found"_s.arg(quoted(context.cluster)));

    ClientConfig config;
    config.contextName = context.name;
    config.clusterName = context.cluster;
    config.userName = context.user;
    config.origin = contextPrefix;
    if (!context.namespace_.isEmpty())
        config.namespace_ = context.namespace_;
    if (auto resolved = resolveCluster(*clusterIt, context.name, config); !resolved)
        return fail(resolved.error().message);

    // User (optional: a context without a user talks anonymously).
    if (context.user.isEmpty())
        return config;
    const auto userIt = m_users.find(context.user);
    if (userIt == m_users.end())
        return fail(contextPrefix + u": user %1 not found"_s.arg(quoted(context.user)));
    if (auto resolved = resolveUser(*userIt, context.name, config); !resolved)
        return fail(resolved.error().message);
    return config;
}

} // namespace reconscope::controller::kube
