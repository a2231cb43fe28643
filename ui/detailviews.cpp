#include "ui/detailviews.h"

#include "models/lifecycle.h"
#include "models/objectsummary.h"
#include "ui/statepalette.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

QPlainTextEdit *jsonView(QWidget *parent)
{
    auto *view = new QPlainTextEdit(parent);
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

QString prettyJson(const nlohmann::json &value)
{
    if (value.is_null())
        return QString();
    return QString::fromStdString(
        value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *label = new QLabel(u"<b>%1</b>"_s.arg(title.toHtmlEscaped()), box);
    label->setContentsMargins(6, 4, 0, 0);
    layout->addWidget(label);
    content->setParent(box);
    layout->addWidget(content, 1);
    return box;
}

QTableView *tableView(QAbstractItemModel *model, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return view;
}

void keepText(QPlainTextEdit *view, const QString &text)
{
    if (view->toPlainText() == text)
        return;
    const int scroll = view->verticalScrollBar() ? view->verticalScrollBar()->value() : 0;
    view->setPlainText(text);
    if (view->verticalScrollBar())
        view->verticalScrollBar()->setValue(scroll);
}

QString objectHeaderHtml(const models::ObjectSummary &summary,
                         const models::LifecycleVerdict &verdict)
{
    const StateColors colors = stateColors(verdict.state);
    QString header
        = u"<span style='font-size:13pt'><b>%1</b></span>"
          u" <span style='color:#616161'>%2 · %3</span>"
          u"&nbsp;&nbsp;<span style='background:%4;color:%5'>&nbsp;<b>%6</b>&nbsp;</span>"_s.arg(
              summary.name.toHtmlEscaped(),
              summary.namespaceName.toHtmlEscaped(),
              summary.kind.toHtmlEscaped(),
              colors.accent.name(),
              colors.chipText.name(),
              models::lifecycleStateName(verdict.state));
    header += u"<br>%1"_s.arg(verdict.reason.toHtmlEscaped());
    if (!verdict.message.isEmpty())
        header += u" — <i>%1</i>"_s.arg(verdict.message.toHtmlEscaped());
    const auto number = [](std::optional<qint64> value) {
        return value ? QString::number(*value) : u"–"_s;
    };
    header += QCoreApplication::translate(
                  "DetailPane",
                  "<br>generation %1 · observedGeneration %2 · kstatus %3 · resourceVersion %4")
                  .arg(number(summary.generation),
                       number(summary.observedGeneration),
                       models::kstatusName(verdict.kstatus),
                       summary.resourceVersion.toHtmlEscaped());
    return header;
}

} // namespace reconscope::ui
