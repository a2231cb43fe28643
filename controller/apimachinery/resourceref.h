#pragma once

#include <QString>

// The API machinery types the client (controller/kube) and the embedded cluster
// (controller/cluster) share, as k8s.io/apimachinery serves client-go and kube-apiserver.
namespace reconscope::controller::apimachinery {

// Which resource a request is about (a GroupVersionResource and its scope); builds the URL paths
// of kube-api.md section 1.
struct ResourceRef
{
    QString group; // empty for the core group
    QString version;
    QString plural;
    bool namespaced = true;

    QString groupVersion() const { return group.isEmpty() ? version : group + u'/' + version; }
    // /apis/G/V[/namespaces/NS]/PLURAL (an empty namespace lists across all namespaces).
    QString collectionPath(const QString &namespace_ = {}) const;
    // .../PLURAL/NAME[/SUBRESOURCE]
    QString objectPath(const QString &namespace_,
                       const QString &name,
                       const QString &subresource = {}) const;
};

} // namespace reconscope::controller::apimachinery
