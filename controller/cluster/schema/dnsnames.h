#pragma once

#include <QStringList>

// apimachinery's name validations (k8s.io/apimachinery/pkg/util/validation), with upstream's
// messages. Internal to reconscope_schema.
namespace reconscope::controller::cluster {

// IsDNS1035Label: the length message first, then the format message; empty when valid.
QStringList dns1035LabelErrors(const QString &value);
// IsDNS1123Subdomain: the length message first, then the format message; empty when valid.
QStringList dns1123SubdomainErrors(const QString &value);

} // namespace reconscope::controller::cluster
