#pragma once

#include <QStringList>

// The name checks of k8s.io/apimachinery/pkg/util/validation (DNS names, qualified names, keys),
// with its messages word for word, for the form that checks a name before sending it and for the
// embedded cluster that refuses it as kube-apiserver does. Each returns what is wrong, the length
// message before the format message, and nothing when the value is valid. Lengths count UTF-8
// bytes, as Go's len does.
namespace reconscope::models {

// IsDNS1123Label: a namespace's name; a valid subdomain with dots reads "must not contain dots".
QStringList isDNS1123Label(const QString &value);
// IsDNS1123Subdomain: most objects' names, a CRD's group, a label key's prefix.
QStringList isDNS1123Subdomain(const QString &value);
// IsDNS1035Label: a CRD's plural, singular, short names and (lowercased) kinds, a version name.
QStringList isDNS1035Label(const QString &value);
// IsValidLabelValue (k8s.io/apimachinery/pkg/api/validate/content, whose length message counts
// "bytes"): a label's value, such as the kubernetes.io/metadata.name label of a namespace.
QStringList isValidLabelValue(const QString &value);
// IsQualifiedName (content.IsLabelKey): a label or annotation key, a finalizer, a resource name;
// an optional DNS subdomain prefix and '/', then a name part of at most 63 bytes.
QStringList isQualifiedName(const QString &value);
// IsConfigMapKey: a key of a ConfigMap's or Secret's data.
QStringList isConfigMapKey(const QString &value);
// IsValidPortName: a container port's or service port's name (IANA_SVC_NAME).
QStringList isValidPortName(const QString &value);

} // namespace reconscope::models
