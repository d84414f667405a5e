// A workspace's SSH connection closed and opened again at once, as the window does after a
// checkpoint and as `sbw ws exec` commands do one after another. The guest's virtio-serial
// port is one byte stream with no connection boundaries, so bytes of the closed connection
// that are still on their way can reach the next connection's sshd and break its handshake
// (ARCHITECTURE.md, "Known problems"); the workspace must connect anyway, every time.

#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "hypervisor/HypervisorConnection.h"
#include "workspace/Workspace.h"

#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kName = QStringLiteral("test-reconnect");


} // namespace

class TestGuestReconnect : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workspace> m_workspace;

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        if (auto old = sbw::Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = sbw::Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
        QVERIFY(m_workspace->start().ok());
        QCOMPARE(sbw::test::shellOutput(*m_workspace, QStringLiteral("echo ready")), QByteArray("ready\n"));
    }

    void everyReconnectRightAfterAClose()
    {
        for (int i = 0; i < 8; ++i) {
            m_workspace->closeSession();
            QCOMPARE(sbw::test::shellOutput(*m_workspace, QStringLiteral("echo %1").arg(i)),
                     QByteArray::number(i) + '\n');
        }
    }

    void cleanupTestCase()
    {
        if (m_workspace)
            QVERIFY(m_workspace->remove().ok());
    }
};

QTEST_GUILESS_MAIN(TestGuestReconnect)
#include "tst_guestreconnect.moc"
