#pragma once

#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

// What kube-apiserver's typed decoding adds to a built-in object that the embedded cluster,
// which keeps built-in objects as JSON, must add itself: the defaulting functions of k8s.io/api
// v1.36 (pkg/apis/core/v1 and apps/v1 defaults.go: SetDefaults_Pod, _PodSpec, _Container,
// _Probe, _Volume, _Secret, _Deployment, _ReplicaSet, ...) and the members the typed JSON encoder
// writes for fields without omitempty (an Event's null eventTime, a Deployment's empty status,
// a container's empty resources) or leaves out for empty ones with omitempty (empty labels).
namespace reconscope::controller::cluster {

// Defaults `object` of built-in `type` in place; objects of other kinds are left as they are.
// A Secret's stringData is merged into its data (base64) and dropped, as the conversion of a v1
// Secret does; quantities are written as resource.Quantity encodes them ("1000m" as "1").
// Idempotent: kube-apiserver defaults a request's object when it decodes it and the stored one when
// it reads it back, and so may the callers.
void applyBuiltinDefaults(const ResourceType &type, nlohmann::json &object);

// The create strategy and admission plugins of a Pod that the embedded cluster runs: the status
// a new Pod starts with (phase Pending and its QoS class), the Priority plugin's priority 0 and
// preemption policy, and DefaultTolerationSeconds' tolerations of not-ready and unreachable
// nodes for 300 s.
void preparePodForCreate(nlohmann::json &pod);

} // namespace reconscope::controller::cluster
