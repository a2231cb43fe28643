#include "models/transitiontimelinemodel.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace reconscope::models {

TransitionTimelineModel::TransitionTimelineModel(int limit, QObject *parent)
    : QAbstractTableModel(parent)
    , m_limit(std::max(1, limit))
{ }

TransitionTimelineModel::~TransitionTimelineModel() = default;

void TransitionTimelineModel::setTransitions(const QList<Transition> &transitions)
{
    beginResetModel();
    m_transitions = transitions.size() > m_limit ? transitions.mid(transitions.size() - m_limit)
                                                 : transitions;
    endResetModel();
}

void TransitionTimelineModel::append(const QList<Transition> &transitions)
{
    if (transitions.isEmpty())
        return;
    const QList<Transition> incoming = transitions.size() > m_limit
        ? transitions.mid(transitions.size() - m_limit)
        : transitions;
    const qsizetype overflow = m_transitions.size() + incoming.size() - m_limit;
    if (overflow > 0) {
        beginRemoveRows({}, 0, int(overflow) - 1);
        m_transitions.remove(0, overflow);
        endRemoveRows();
    }
    const int first = int(m_transitions.size());
    beginInsertRows({}, first, first + int(incoming.size()) - 1);
    m_transitions.append(incoming);
    endInsertRows();
}

int TransitionTimelineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_transitions.size());
}

int TransitionTimelineModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TransitionTimelineModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Transition &transition = m_transitions[index.row()];
    switch (role) {
    case OnDesignRole:
        return transition.onDesign;
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return transition.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s);
        case KeyColumn:
            return transition.key;
        case FromColumn:
            // The census is no move: the object was there when the watch connected.
            return transition.observed == Observed::AtConnect ? tr("(at connect)")
                                                              : stateNodeName(transition.from);
        case ToColumn:
            return stateNodeName(transition.to);
        case ReasonColumn:
            return reasonText(transition);
        case GenerationColumn: {
            auto text = [](std::optional<qint64> value) {
                return value ? QString::number(*value) : u"–"_s;
            };
            return u"%1 / %2"_s.arg(text(transition.generation),
                                    text(transition.observedGeneration));
        }
        }
        break;
    case Qt::ToolTipRole:
        if (transition.observed == Observed::AtConnect)
            return transition.since.isValid()
                ? tr("Observed at connect, in %1 since %2 (its condition's lastTransitionTime)")
                      .arg(stateNodeName(transition.to),
                           transition.since.toString(Qt::ISODateWithMs))
                : tr("Observed at connect, in %1 since a time it does not give")
                      .arg(stateNodeName(transition.to));
        if (transition.observed == Observed::AcrossGap && transition.onDesign)
            return tr("Moved while the watch was cut (found by a relist): the states between "
                      "were not seen");
        if (!transition.onDesign)
            return tr("%1 → %2 is not an edge of the designed state graph")
                .arg(stateNodeName(transition.from), stateNodeName(transition.to));
        return transition.time.toString(Qt::ISODateWithMs);
    case Qt::ForegroundRole:
        if (!transition.onDesign)
            return QBrush(QColor(0xb3, 0x26, 0x1e));
        break;
    }
    return {};
}

QString TransitionTimelineModel::reasonText(const Transition &transition)
{
    QString text = transition.reason;
    if (!transition.onDesign)
        text = tr("off-design: %1").arg(text);
    switch (transition.observed) {
    case Observed::AtConnect:
        return tr("observed at connect: %1").arg(text);
    case Observed::AcrossGap:
        return tr("across a gap: %1").arg(text);
    case Observed::Live:
        break;
    }
    return text;
}

QVariant
TransitionTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case KeyColumn:
        return tr("Object");
    case FromColumn:
        return tr("From");
    case ToColumn:
        return tr("To");
    case ReasonColumn:
        return tr("Reason");
    case GenerationColumn:
        return tr("Gen / Observed");
    }
    return {};
}

} // namespace reconscope::models
