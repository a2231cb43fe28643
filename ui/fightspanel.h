#pragma once

#include "controller/fieldowner/fightdetector.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace reconscope::ui {

// The fights going on among the watched objects: a field two managers keep taking from each other,
// or a spec field owned by a manager that writes status; each with the object, the field, the
// managers, how many changes and how fast. Activating one names its object (to select it).
class FightsPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FightsPanel)

public:
    explicit FightsPanel(QWidget *parent = nullptr);

    void setFights(const QList<controller::fieldowner::Fight> &fights);
    QTableWidget *table() const { return m_table; }
    QLabel *summaryLabel() const { return m_summary; }

    enum Column {
        ObjectColumn,
        FieldColumn,
        ManagersColumn,
        ChangesColumn,
        RateColumn,
        KindColumn
    };

signals:
    void objectActivated(const QString &key);

private:
    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace reconscope::ui
