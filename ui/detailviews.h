#pragma once

// The pieces the object detail panes are built of (the console's DetailPane, the replay's
// ReplayDetailPane), so that both show an object alike.
#include <nlohmann/json_fwd.hpp>

#include <QString>

class QAbstractItemModel;
class QPlainTextEdit;
class QTableView;
class QWidget;

namespace reconscope::models {
struct LifecycleVerdict;
struct ObjectSummary;
} // namespace reconscope::models

namespace reconscope::ui {

// A read-only, unwrapped, fixed-font text view for JSON.
QPlainTextEdit *jsonView(QWidget *parent);
// The value indented by two, or nothing for null.
QString prettyJson(const nlohmann::json &value);
// The content under a bold title.
QWidget *titled(const QString &title, QWidget *content, QWidget *parent);
// A read-only row-selecting table over the model.
QTableView *tableView(QAbstractItemModel *model, QWidget *parent);
// Sets the text, keeping the scroll position, when it changed.
void keepText(QPlainTextEdit *view, const QString &text);
// The detail header: name, namespace and kind, the state chip, reason and message, generations,
// kstatus and resourceVersion.
QString objectHeaderHtml(const models::ObjectSummary &summary,
                         const models::LifecycleVerdict &verdict);

} // namespace reconscope::ui
