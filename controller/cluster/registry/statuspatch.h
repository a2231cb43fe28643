#pragma once

#include "controller/cluster/registry/store.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace reconscope::controller::cluster {

// The status write fast path, the one place that edits stored bytes instead of a parsed object:
// a status patch (JSON patch operations on paths under /status/ only, or a merge patch of
// {"status":{...}} only) applied to the stored status alone — its members parsed, patched,
// pruned, defaulted and validated, the other members' stored text kept, the new resourceVersion
// spliced in.
//
// Taken only when that provably gives what patchObject's general way commits: the type allows it
// (TypeEntry::statusInPlace), the stored members other than the status were pruned and defaulted
// by this schema (ObjectRecord::schemaStamp), and the patch gives no warnings, no errors, is no
// no-op and no dry run. Otherwise apply() returns nullopt and the caller goes the general way,
// which then answers errors and warnings as always. tst_writepath and fuzz_statuspatch hold the
// two ways equal, switching this one off with setEnabled(false).
class StatusPatchInPlace final
{
    Q_DISABLE_COPY_MOVE(StatusPatchInPlace)

public:
    StatusPatchInPlace() = default;

    void setEnabled(bool enabled) { m_enabled = enabled; }
    // Status patches committed here so far.
    qint64 count() const { return m_count; }

    // Commits the patch and returns the write's result (objectJson, and object unless
    // options.returnObject is false), or nullopt with nothing changed. Runs no controller.
    // `patch`: a merge patch object, or a JSON patch array of objects (strategic merge patches,
    // of built-in kinds only, always go the general way).
    std::optional<WriteResult> apply(Store &store,
                                     const TypeEntry &type,
                                     const RecordPtr &existing,
                                     apimachinery::PatchType patchType,
                                     const nlohmann::json &patch,
                                     const WriteOptions &options);

private:
    bool m_enabled = true;
    qint64 m_count = 0;
};

} // namespace reconscope::controller::cluster
