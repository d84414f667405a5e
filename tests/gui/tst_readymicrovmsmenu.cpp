// Run ▸ Ready MicroVMs: the choices, the setting it keeps (and the on/off one it replaces), and
// the pool size it sets. The pool is never refilled here, so nothing boots.

#include "TemporarySettings.h"
#include "hypervisor/HypervisorConnection.h"
#include "run/ReadyMicroVmsMenu.h"
#include "sandbox/SandboxPool.h"

#include <QAction>
#include <QSettings>
#include <QTest>

class TestReadyMicroVmsMenu : public QObject
{
    Q_OBJECT

    sbw::test::TemporarySettings m_settings;
    sbw::HypervisorConnection m_connection{QStringLiteral("qemu:///system")};

    QAction* choice(sbw::ReadyMicroVmsMenu& menu, const QString& text)
    {
        for (QAction* action : menu.actions())
            if (action->text() == text)
                return action;
        return nullptr;
    }

private Q_SLOTS:
    void init() { m_settings.clear(); }

    void offersNoneOneTwoFourAndDefaultsToOne()
    {
        sbw::SandboxPool pool(m_connection);
        sbw::ReadyMicroVmsMenu menu(&pool);
        QStringList texts;
        for (QAction* action : menu.actions())
            texts << action->text();
        QCOMPARE(texts, (QStringList{QStringLiteral("&None"), QStringLiteral("&1"), QStringLiteral("&2"),
                                     QStringLiteral("&4")}));
        QCOMPARE(menu.size(), 1);
        QCOMPARE(pool.size(), 1);
    }

    void pickingSetsThePoolAndIsKept()
    {
        {
            sbw::SandboxPool pool(m_connection);
            sbw::ReadyMicroVmsMenu menu(&pool);
            choice(menu, QStringLiteral("&4"))->trigger();
            QCOMPARE(pool.size(), 4);
            QCOMPARE(menu.size(), 4);
            choice(menu, QStringLiteral("&None"))->trigger();
            QCOMPARE(pool.size(), 0);
            choice(menu, QStringLiteral("&2"))->trigger();
        }
        sbw::SandboxPool pool(m_connection);
        sbw::ReadyMicroVmsMenu menu(&pool);
        QCOMPARE(menu.size(), 2);
        QCOMPARE(pool.size(), 2);
    }

    void theOldOffSettingMeansNone()
    {
        QSettings().setValue(QStringLiteral("run/keepMicroVmReady"), false);
        sbw::SandboxPool pool(m_connection);
        sbw::ReadyMicroVmsMenu menu(&pool);
        QCOMPARE(menu.size(), 0);
        QCOMPARE(pool.size(), 0);
    }
};

QTEST_MAIN(TestReadyMicroVmsMenu)
#include "tst_readymicrovmsmenu.moc"
