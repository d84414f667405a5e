#include "workspace/WorkspaceState.h"

#include <QTest>
#include <libvirt/libvirt.h>

using sbw::WorkspaceState;

// The state mapping from libvirt's answers (through DomainState) and the predicates that enable each action.
class TestWorkspaceState : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromLibvirt_data()
    {
        QTest::addColumn<int>("state");
        QTest::addColumn<int>("reason");
        QTest::addColumn<bool>("managedSave");
        QTest::addColumn<bool>("agent");
        QTest::addColumn<WorkspaceState>("expected");
        QTest::newRow("shut off") << int(VIR_DOMAIN_SHUTOFF) << int(VIR_DOMAIN_SHUTOFF_SHUTDOWN)
                                  << false << false << WorkspaceState::Stopped;
        QTest::newRow("destroyed") << int(VIR_DOMAIN_SHUTOFF) << int(VIR_DOMAIN_SHUTOFF_DESTROYED)
                                   << false << false << WorkspaceState::Stopped;
        QTest::newRow("managed save") << int(VIR_DOMAIN_SHUTOFF) << int(VIR_DOMAIN_SHUTOFF_SAVED)
                                      << true << false << WorkspaceState::Hibernated;
        QTest::newRow("shut off, crashed")
            << int(VIR_DOMAIN_SHUTOFF) << int(VIR_DOMAIN_SHUTOFF_CRASHED) << false << false
            << WorkspaceState::Crashed;
        QTest::newRow("crashed") << int(VIR_DOMAIN_CRASHED) << int(VIR_DOMAIN_CRASHED_PANICKED)
                                 << false << false << WorkspaceState::Crashed;
        QTest::newRow("booting") << int(VIR_DOMAIN_RUNNING) << int(VIR_DOMAIN_RUNNING_BOOTED)
                                 << false << false << WorkspaceState::Starting;
        QTest::newRow("running") << int(VIR_DOMAIN_RUNNING) << int(VIR_DOMAIN_RUNNING_BOOTED)
                                 << false << true << WorkspaceState::Running;
        QTest::newRow("restored") << int(VIR_DOMAIN_RUNNING) << int(VIR_DOMAIN_RUNNING_RESTORED)
                                  << false << true << WorkspaceState::Running;
        QTest::newRow("paused by user") << int(VIR_DOMAIN_PAUSED) << int(VIR_DOMAIN_PAUSED_USER)
                                        << false << true << WorkspaceState::Paused;
        QTest::newRow("paused checkpoint")
            << int(VIR_DOMAIN_PAUSED) << int(VIR_DOMAIN_PAUSED_FROM_SNAPSHOT) << false << true
            << WorkspaceState::Paused;
        QTest::newRow("starting up") << int(VIR_DOMAIN_PAUSED) << int(VIR_DOMAIN_PAUSED_STARTING_UP)
                                   << false << false << WorkspaceState::Starting;
        QTest::newRow("no state") << int(VIR_DOMAIN_NOSTATE) << 0 << false << false
                                  << WorkspaceState::Unknown;
    }

    void fromLibvirt()
    {
        QFETCH(int, state);
        QFETCH(int, reason);
        QFETCH(bool, managedSave);
        QFETCH(bool, agent);
        QFETCH(WorkspaceState, expected);
        QCOMPARE(sbw::workspaceStateFrom(sbw::domainStateFrom(state, reason, managedSave), agent),
                 expected);
    }

    void names()
    {
        QCOMPARE(sbw::workspaceStateName(WorkspaceState::Hibernated), QStringLiteral("hibernated"));
        QCOMPARE(sbw::workspaceStateName(WorkspaceState::Starting), QStringLiteral("starting"));
        QCOMPARE(sbw::workspaceStateName(WorkspaceState::Unknown), QStringLiteral("unknown"));
    }

    /// One row per state: which actions are enabled, in the order start stop pause resume
    /// hibernate wake checkpoint revert fork delete exec.
    void predicates_data()
    {
        QTest::addColumn<WorkspaceState>("state");
        QTest::addColumn<QString>("enabled");
        QTest::newRow("stopped") << WorkspaceState::Stopped
                                 << QStringLiteral("start revert fork delete");
        QTest::newRow("starting") << WorkspaceState::Starting << QStringLiteral("stop delete exec");
        QTest::newRow("running") << WorkspaceState::Running
                                 << QStringLiteral(
                                        "stop pause hibernate checkpoint revert fork delete exec");
        QTest::newRow("paused") << WorkspaceState::Paused
                                << QStringLiteral("stop resume hibernate checkpoint revert fork delete");
        QTest::newRow("hibernated") << WorkspaceState::Hibernated << QStringLiteral("wake fork delete");
        QTest::newRow("crashed") << WorkspaceState::Crashed
                                 << QStringLiteral("start revert fork delete");
        QTest::newRow("unknown") << WorkspaceState::Unknown << QString();
    }

    void predicates()
    {
        QFETCH(WorkspaceState, state);
        QFETCH(QString, enabled);
        const std::pair<const char*, bool (*)(WorkspaceState)> all[] = {
            {"start", sbw::canStart},           {"stop", sbw::canStop},
            {"pause", sbw::canPause},           {"resume", sbw::canResume},
            {"hibernate", sbw::canHibernate},   {"wake", sbw::canWake},
            {"checkpoint", sbw::canCheckpoint}, {"revert", sbw::canRevert},
            {"fork", sbw::canFork},             {"delete", sbw::canDelete},
            {"exec", sbw::canExec}};
        QStringList actual;
        for (const auto& [name, predicate] : all)
            if (predicate(state))
                actual << QLatin1String(name);
        QCOMPARE(actual.join(QLatin1Char(' ')), enabled);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceState)
#include "tst_workspacestate.moc"
