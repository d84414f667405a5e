#include "window/SessionListPane.h"

#include "window/SessionListModel.h"
#include "window/SessionNameDelegate.h"
#include "workspace/WorkspaceActions.h"

#include <QEvent>
#include <QHeaderView>
#include <QMenu>
#include <QStyle>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace sbw {

SessionListPane::SessionListPane(SessionListModel* model, WorkspaceActions* actions, QWidget* parent)
    : QWidget(parent), m_model(model), m_actions(actions), m_view(new QTreeView(this))
{
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setAllColumnsShowFocus(true);
    // A fork's row is two lines high: its origin under its name.
    m_view->setItemDelegateForColumn(SessionListModel::NameColumn, new SessionNameDelegate(m_view));
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->viewport()->installEventFilter(this);
    QHeaderView* header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Fixed);

    auto* newButton = new QToolButton(this);
    newButton->setDefaultAction(m_actions->newAction());
    newButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(newButton, 0, Qt::AlignLeft);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SessionListPane::onCurrentChanged);
    connect(m_view, &QTreeView::customContextMenuRequested, this, &SessionListPane::showContextMenu);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        select(m_selected);
        fitColumns();
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& topLeft) {
        if (topLeft.column() != SessionListModel::UptimeColumn)
            fitColumns();
    });
    select({});
    fitColumns();
}

bool SessionListPane::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

int SessionListPane::columnWidth(int column) const
{
    // Measured from the texts, not from the view, whose hints change as columns hide.
    const QStyle* style = m_view->style();
    const int cellMargin =
        2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1) + 2;
    const QFontMetrics metrics(m_view->font());
    const QString label = m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    int width = m_view->header()->fontMetrics().horizontalAdvance(label) +
                2 * style->pixelMetric(QStyle::PM_HeaderMargin, nullptr, m_view->header()) + 2;
    // Uptime is as wide as its widest text, so that the columns never move as it grows.
    QStringList texts = column == SessionListModel::UptimeColumn
                            ? SessionListModel::uptimeTextWidthSamples()
                            : QStringList();
    int decoration = 0;
    for (int row = 0; row < m_model->rowCount() && column != SessionListModel::UptimeColumn;
         ++row) {
        const QModelIndex index = m_model->index(row, column);
        texts << index.data().toString();
        const QString origin = index.data(SessionListModel::kOriginRole).toString();
        if (!origin.isEmpty()) {
            const QFontMetrics small(SessionNameDelegate::originFont(m_view->font()));
            width = std::max(width, small.horizontalAdvance(origin) + cellMargin);
        }
        if (!index.data(Qt::DecorationRole).isNull())
            decoration = m_view->iconSize().isValid()
                             ? m_view->iconSize().width() + 4
                             : style->pixelMetric(QStyle::PM_SmallIconSize) + 4;
    }
    for (const QString& text : std::as_const(texts))
        width = std::max(width, metrics.horizontalAdvance(text) + decoration + cellMargin);
    return width;
}

void SessionListPane::fitColumns()
{
    using Model = SessionListModel;
    const int available = m_view->viewport()->width();
    // A name wider than the longest a workspace can have (40 characters) is elided anyway.
    const int nameCap = m_view->fontMetrics().horizontalAdvance(QString(40, QLatin1Char('m')));
    const int name = std::min(columnWidth(Model::NameColumn), nameCap);
    // The name keeps its width; the others give way, the least telling first.
    QList<int> shown = {Model::StateColumn, Model::UptimeColumn, Model::KindColumn};
    const auto othersWidth = [&] {
        int sum = 0;
        for (int column : shown)
            sum += columnWidth(column);
        return sum;
    };
    while (!shown.isEmpty() && name + othersWidth() > available)
        shown.removeLast();
    for (int column : {Model::KindColumn, Model::StateColumn, Model::UptimeColumn}) {
        m_view->setColumnHidden(column, !shown.contains(column));
        if (shown.contains(column))
            m_view->header()->resizeSection(column, columnWidth(column));
    }
    // The name takes what is left: at least its width unless the list is narrower than it.
    m_view->header()->resizeSection(
        Model::NameColumn,
        std::max(m_view->header()->minimumSectionSize(), available - othersWidth()));
}

void SessionListPane::select(const QString& name)
{
    const int row = name.isEmpty() ? SessionListModel::kRunRow : m_model->rowOf(name);
    m_view->setCurrentIndex(m_model->index(row < 0 ? SessionListModel::kRunRow : row, 0));
}

void SessionListPane::onCurrentChanged()
{
    const int row = m_view->currentIndex().row();
    const QString name = m_model->workspaceName(row);
    m_selected = name;
    if (name.isEmpty())
        Q_EMIT runSelected();
    else
        Q_EMIT workspaceSelected(name);
}

void SessionListPane::showContextMenu(const QPoint& position)
{
    const QModelIndex index = m_view->indexAt(position);
    QMenu menu(this);
    if (index.isValid() && !m_model->workspaceName(index.row()).isEmpty()) {
        m_view->setCurrentIndex(index);
        menu.addActions(m_actions->lifecycleActions());
        menu.addAction(m_actions->forkAction());
        menu.addSeparator();
        menu.addAction(m_actions->deleteAction());
        menu.addSeparator();
    }
    menu.addAction(m_actions->newAction());
    menu.exec(m_view->viewport()->mapToGlobal(position));
}

} // namespace sbw
