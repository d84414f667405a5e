#include "files/WorkspaceFilesPage.h"

#include "base/Async.h"
#include "files/FileTreePane.h"
#include "guest/SftpClient.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace sbw {

WorkspaceFilesPage::WorkspaceFilesPage(SftpProvider provider, const QByteArray& rootPath,
                                       QWidget* parent)
    : QWidget(parent), m_provider(std::move(provider)), m_rootPath(rootPath),
      m_status(new QLabel(this)),
      m_connect(new QPushButton(tr("Connect"), this))
{
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_connect, 0, Qt::AlignLeft);
    layout->addStretch();
    connect(m_connect, &QPushButton::clicked, this, &WorkspaceFilesPage::connectToGuest);
    connectToGuest();
}

void WorkspaceFilesPage::connectToGuest()
{
    if (m_tree)
        return;
    m_connect->setEnabled(false);
    m_status->setText(tr("Connecting to the guest's file system…"));
    runThen(this, m_provider, [this](const Expected<std::shared_ptr<SftpClient>>& sftp) {
        m_connect->setEnabled(true);
        if (!sftp) {
            m_status->setText(tr("Cannot show the files: %1").arg(sftp.error().message));
            return;
        }
        m_status->hide();
        m_connect->hide();
        m_tree = new FileTreePane(sftp.value(), m_rootPath, this);
        m_tree->setCommandLog(m_log, m_sandbox);
        static_cast<QVBoxLayout*>(layout())->insertWidget(0, m_tree, 1);
        Q_EMIT treeReady(m_tree);
    });
}

void WorkspaceFilesPage::setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox)
{
    m_log = std::move(log);
    m_sandbox = sandbox;
    if (m_tree)
        m_tree->setCommandLog(m_log, m_sandbox);
}

} // namespace sbw
