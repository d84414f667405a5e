#include "window/SessionListPane.h"

#include "window/SessionListModel.h"
#include "workspace/WorkspaceActions.h"

#include <QHeaderView>
#include <QMenu>
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
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    QHeaderView* header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(SessionListModel::NameColumn, QHeaderView::Stretch);

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
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { select(m_selected); });
    select({});
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
        menu.addSeparator();
        menu.addAction(m_actions->deleteAction());
        menu.addSeparator();
    }
    menu.addAction(m_actions->newAction());
    menu.exec(m_view->viewport()->mapToGlobal(position));
}

} // namespace sbw
