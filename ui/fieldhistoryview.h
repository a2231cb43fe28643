#pragma once

#include "controller/fieldowner/fieldhistory.h"

#include <QTableWidget>

namespace reconscope::ui {

// An object's field history beside its transitions: each change (newest first) with its time, the
// field, the value before and after, and the manager that wrote it.
class FieldHistoryView final : public QTableWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FieldHistoryView)

public:
    explicit FieldHistoryView(QWidget *parent = nullptr);

    // Shows `history` (nothing when null).
    void setHistory(const controller::fieldowner::FieldHistory *history);

    enum Column { TimeColumn, FieldColumn, BeforeColumn, AfterColumn, WriterColumn, ColumnCount };
};

} // namespace reconscope::ui
