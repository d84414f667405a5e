#include "run/InputFilesList.h"

#include "run/RunArtifacts.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace sbw {

InputFilesList::InputFilesList(QWidget* parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_add(new QPushButton(tr("Add files…"), this)),
      m_remove(new QPushButton(tr("Remove"), this))
{
    m_list->setObjectName(QStringLiteral("inputFiles"));
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setMaximumHeight(3 * m_list->fontMetrics().height() + 8);
    m_list->setToolTip(tr("Copied into the script's working folder /root/run before it starts; "
                          "drop files on the run pane to add them"));
    m_add->setObjectName(QStringLiteral("addInputFiles"));
    m_remove->setObjectName(QStringLiteral("removeInputFiles"));
    connect(m_add, &QPushButton::clicked, this, [this] {
        addFiles(QFileDialog::getOpenFileNames(this, tr("Input files for the run")));
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        for (QListWidgetItem* item : m_list->selectedItems())
            m_files.removeAll(item->data(Qt::UserRole).toString());
        refresh();
    });
    connect(m_list, &QListWidget::itemSelectionChanged, this,
            [this] { m_remove->setEnabled(!m_list->selectedItems().isEmpty()); });

    auto* buttons = new QVBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    auto* label = new QLabel(tr("Input files:"), this);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(label, 0, Qt::AlignTop);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    refresh();
}

int InputFilesList::addFiles(const QStringList& paths)
{
    int added = 0;
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (!info.isFile() || m_files.contains(info.absoluteFilePath()))
            continue;
        m_files << info.absoluteFilePath();
        ++added;
    }
    if (added > 0)
        refresh();
    return added;
}

void InputFilesList::removeFile(const QString& path)
{
    if (m_files.removeAll(path) > 0)
        refresh();
}

void InputFilesList::clearFiles()
{
    m_files.clear();
    refresh();
}

void InputFilesList::refresh()
{
    m_list->clear();
    for (const QString& path : m_files) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(tr("%1 · %2").arg(info.fileName(), byteSizeText(info.size())), m_list);
        item->setToolTip(path);
        item->setData(Qt::UserRole, path);
    }
    m_remove->setEnabled(false);
    Q_EMIT filesChanged();
}

} // namespace sbw
