// libFuzzer target: the fieldsV1 reader and the managedFields decoder (controller/fieldowner),
// which read what any client may put in an object's metadata.
//
// Input: JSON text. As fieldsV1: a refused value gives a message; an accepted one encodes to a
// fieldsV1 that reads back as the same set. As a managedFields list of a stored object: an apply
// over it either fails with a Status (500 for what cannot be read) or succeeds, never crashes.

#include "controller/fieldowner/fieldmanager.h"
#include "controller/fieldowner/fieldsv1.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>

using namespace reconscope::controller::fieldowner;
using json = nlohmann::json;

namespace {

const FieldManager &manager()
{
    static const FieldManager *m = new FieldManager(
        types::fromCrdSchema(
            json::parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
            "replicas":{"type":"integer"},
            "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
            "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                     "items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}}}}}}})")),
        "example.com/v1",
        "Thing");
    return *m;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const json value = json::parse(data, data + size, nullptr, false);
    if (value.is_discarded())
        return 0;
    auto set = decodeFieldsV1(value);
    if (!set) {
        if (set.error().message.isEmpty())
            std::abort();
    } else {
        auto again = decodeFieldsV1(encodeFieldsV1(*set));
        if (!again || !(*again == *set))
            std::abort(); // what the writer writes, the reader reads back
    }
    json live
        = json::parse(R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},
        "spec":{"replicas":1,"tags":["a"],"ports":[{"name":"http","port":80}]}})");
    live["metadata"]["managedFields"] = value;
    const json config
        = json::parse(R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},
        "spec":{"replicas":2,"tags":["b"],"ports":[{"name":"http","port":81}]}})");
    auto applied = manager().apply(live, config, "fuzz", false);
    if (!applied && (applied.error().code < 400 || applied.error().message.empty()))
        std::abort();
    const json updated = manager().update(live, config, "fuzz-update");
    if (!updated.is_object())
        std::abort();
    return 0;
}
