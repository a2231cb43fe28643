#pragma once

#include "controller/fieldowner/blame.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace reconscope::ui {

// The Fields tab: the object's YAML with a gutter naming, for every line, the field managers that
// own the field (controller/fieldowner/blame): manager, operation, how long ago it wrote. Fields
// several managers share are tinted; "^" marks owners of a whole atomic list or map. A filter
// keeps one manager's gutter; managedFields entries that cannot be read are named above the
// table and the rest is still shown.
class FieldsPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FieldsPanel)

public:
    explicit FieldsPanel(QWidget *parent = nullptr);

    // Shows the object (its JSON as the server returns it) as of `now` (the ages).
    void setObject(const nlohmann::json &object, const QDateTime &now);
    void clear();

    QTableWidget *table() const { return m_table; }
    QComboBox *managerFilter() const { return m_filter; }
    QLabel *problemsLabel() const { return m_problems; }
    const controller::fieldowner::Blame &blame() const { return m_blame; }

    enum Column { OwnersColumn, YamlColumn, ColumnCount };

private:
    void fill();
    void refillFilter();

    controller::fieldowner::Blame m_blame;
    QDateTime m_now;
    QComboBox *m_filter;
    QLabel *m_problems;
    QTableWidget *m_table;
};

} // namespace reconscope::ui
