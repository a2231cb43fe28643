#include "kubeconfigwriter.h"

#include <QDir>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

QString systemError(const QString &what)
{
    return what + u": "_s + QString::fromLocal8Bit(std::strerror(errno));
}

bool writeAll(int fd, const QByteArray &data)
{
    qsizetype offset = 0;
    while (offset < data.size()) {
        const ssize_t written
            = ::write(fd, data.constData() + offset, static_cast<size_t>(data.size() - offset));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        offset += written;
    }
    return true;
}

} // namespace

QByteArray KubeconfigWriter::render(const KubeconfigContent &content)
{
    // Names are ours (no YAML specials); data fields are base64, the server a plain URL.
    const QByteArray cluster = content.clusterName.toUtf8();
    const QByteArray admin = cluster + "-admin";
    const QByteArray token = cluster + "-token";
    const QByteArray viewer = cluster + "-viewer";
    QByteArray yaml;
    yaml += "apiVersion: v1\n";
    yaml += "kind: Config\n";
    yaml += "clusters:\n";
    yaml += "- cluster:\n";
    yaml += "    certificate-authority-data: " + content.caCertificatePem.toBase64() + '\n';
    yaml += "    server: " + content.server.toString(QUrl::FullyEncoded).toUtf8() + '\n';
    yaml += "  name: " + cluster + '\n';
    yaml += "contexts:\n";
    for (const QByteArray &name : { admin, token, viewer }) {
        yaml += "- context:\n";
        yaml += "    cluster: " + cluster + '\n';
        yaml += "    user: " + name + '\n';
        yaml += "  name: " + name + '\n';
    }
    yaml += "current-context: " + admin + '\n';
    yaml += "preferences: {}\n";
    yaml += "users:\n";
    yaml += "- name: " + admin + '\n';
    yaml += "  user:\n";
    yaml += "    client-certificate-data: " + content.adminCertificatePem.toBase64() + '\n';
    yaml += "    client-key-data: " + content.adminKeyPem.toBase64() + '\n';
    yaml += "- name: " + token + '\n';
    yaml += "  user:\n";
    yaml += "    token: " + content.adminToken + '\n';
    yaml += "- name: " + viewer + '\n';
    yaml += "  user:\n";
    yaml += "    client-certificate-data: " + content.viewerCertificatePem.toBase64() + '\n';
    yaml += "    client-key-data: " + content.viewerKeyPem.toBase64() + '\n';
    return yaml;
}

models::Status<> KubeconfigWriter::write(const QString &path, const KubeconfigContent &content)
{
    const QFileInfo info(path);
    const QString folder = info.absolutePath();
    if (!QDir().mkpath(folder))
        return models::Status<>::failure(u"cannot create %1"_s.arg(folder));
    QByteArray temporary = QFile::encodeName(folder + u"/."_s + info.fileName() + u".XXXXXX"_s);
    const int fd = ::mkstemp(temporary.data()); // mode 0600
    if (fd < 0)
        return models::Status<>::failure(systemError(u"cannot create a file in %1"_s.arg(folder)));
    const QByteArray yaml = render(content);
    const bool ok = ::fchmod(fd, S_IRUSR | S_IWUSR) == 0 && writeAll(fd, yaml) && ::fsync(fd) == 0;
    const QString failure = ok ? QString() : systemError(u"cannot write %1"_s.arg(path));
    if (::close(fd) != 0 || !ok) {
        ::unlink(temporary.constData());
        return models::Status<>::failure(
            failure.isEmpty() ? systemError(u"cannot write %1"_s.arg(path)) : failure);
    }
    if (::rename(temporary.constData(), QFile::encodeName(info.absoluteFilePath()).constData())
        != 0) {
        const QString message = systemError(u"cannot rename to %1"_s.arg(path));
        ::unlink(temporary.constData());
        return models::Status<>::failure(message);
    }
    return {};
}

} // namespace reconscope::controller::cluster
