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
      m_status(new QLabel(this)), m_connect(new QPushButton(tr("Connect"), this))
{
    m_connect->setObjectName(QStringLiteral("connectButton"));
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
    if (m_tree || m_connecting)
        return;
    m_connecting = true;
    const quint64 attempt = ++m_attempt;
    m_connect->setEnabled(false);
    m_connect->show();
    m_status->setText(tr("Connecting to the guest's file system…"));
    m_status->show();
    runThen(this, m_provider, [this, attempt](const Expected<std::shared_ptr<SftpClient>>& sftp) {
        if (attempt != m_attempt)
            return;
        m_connecting = false;
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

QString WorkspaceFilesPage::statusText() const
{
    return m_status->isVisibleTo(this) ? m_status->text() : QString();
}

void WorkspaceFilesPage::showGuestDown(const QString& why)
{
    ++m_attempt;
    m_connecting = false;
    if (m_tree) {
        m_tree->hide();
        m_tree->deleteLater();
        m_tree = nullptr;
    }
    m_status->setText(why);
    m_status->show();
    m_connect->hide(); // nothing to connect to until the guest runs again
}

void WorkspaceFilesPage::setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox)
{
    m_log = std::move(log);
    m_sandbox = sandbox;
    if (m_tree)
        m_tree->setCommandLog(m_log, m_sandbox);
}

} // namespace sbw
