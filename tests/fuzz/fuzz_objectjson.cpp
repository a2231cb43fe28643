// libFuzzer target: the embedded cluster's own JSON reader and writer for stored objects
// (controller/cluster/objectjson: parseStored and dump), which take shortcuts past nlohmann's for
// compact, key-sorted objects and must stay indistinguishable from it.
//
// Invariants, for any input text: parseStored gives exactly the value nlohmann's parser gives
// (the same types and bits, or both refuse the text); dump writes exactly nlohmann's compact
// serialization (invalid UTF-8 replaced); parseStored reads what dump wrote as nlohmann does; the
// marked dump is the same text and its mark spans the marked member's own serialization; members()
// splits dump's text of an object into exactly its members' serializations, and refuses the
// text of anything else.

#include "controller/cluster/objectjson.h"

#include <nlohmann/json.hpp>

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace objectjson = reconscope::controller::cluster::objectjson;
using json = nlohmann::json;

namespace {

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "fuzz_objectjson: %s\n", what);
    std::abort();
}

QByteArray nlohmannDump(const json &value)
{
    const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    return QByteArray(text.data(), qsizetype(text.size()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArrayView text(reinterpret_cast<const char *>(data), qsizetype(size));
    const json expected = json::parse(text.begin(), text.end(), nullptr, false);
    const json actual = objectjson::parseStored(text);
    if (expected.is_discarded() != actual.is_discarded())
        fail("parseStored and nlohmann disagree on whether the text is JSON");
    if (expected.is_discarded())
        return 0;
    if (!objectjson::identical(expected, actual))
        fail("parseStored gives another value than nlohmann");

    const QByteArray written = objectjson::dump(expected);
    if (written != nlohmannDump(expected))
        fail("dump differs from nlohmann's compact serialization");
    // Compact, sorted text: parseStored's own ground, where its shortcuts run.
    if (!objectjson::identical(objectjson::parseStored(written),
                               json::parse(written.begin(), written.end(), nullptr, false)))
        fail("parseStored reads dump's text otherwise than nlohmann");

    // The marked dump: the first member of an object (or element of an array) as the mark.
    if ((expected.is_object() || expected.is_array()) && !expected.empty()) {
        const json &marked = *expected.begin();
        qsizetype at = -1;
        qsizetype length = 0;
        if (objectjson::dump(expected, &marked, &at, &length) != written)
            fail("the marked dump differs from the plain one");
        if (at < 0 || written.mid(at, length) != objectjson::dump(marked))
            fail("the mark does not span the marked member's serialization");
    }

    // members(): dump's text of an object is split into each member's key and value text.
    std::vector<objectjson::MemberSpan> spans;
    const bool split = objectjson::members(written, spans);
    if (split != expected.is_object())
        fail("members() accepts the text of a non-object or refuses an object's");
    if (split) {
        if (spans.size() != expected.size())
            fail("members() finds another number of members");
        std::size_t i = 0;
        for (auto it = expected.begin(); it != expected.end(); ++it, ++i) {
            const QByteArray key = objectjson::dump(json(it.key()));
            if (QByteArrayView(key).sliced(1, key.size() - 2) != spans[i].key)
                fail("members() gives another key text");
            if (QByteArrayView(written).sliced(spans[i].valueAt, spans[i].valueLength)
                != objectjson::dump(it.value()))
                fail("members() gives another value text");
        }
    }
    return 0;
}
