// File changes per command on a real guest: a workspace command that creates, changes and
// deletes files lists exactly those, with sizes and a diff, in its result and its command-log
// row; a folder outside /root is watched when it is the working folder; an ephemeral run lists
// what its script wrote in /root/run.
#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "run/EphemeralRun.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"

#include <QTemporaryDir>
#include <QTest>

using namespace std::chrono_literals;

namespace {

const QString kName = QStringLiteral("test-file-changes");

/// "PATH KIND BEFORE>AFTER" per listed file, for one comparison.
QStringList listed(const sbw::FileChanges& changes)
{
    QStringList lines;
    for (const sbw::FileChange& c : changes.files)
        lines << QStringLiteral("%1 %2 %3>%4")
                     .arg(c.path, sbw::changeKindName(c.kind))
                     .arg(c.sizeBefore)
                     .arg(c.sizeAfter);
    return lines;
}

} // namespace

class TestFileChangesGuest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workspace> m_workspace;
    std::shared_ptr<sbw::CommandLog> m_log;
    QList<sbw::WorkspaceCommandResult> m_ended; ///< the last command's onEnded calls

    sbw::WorkspaceCommandResult command(const QString& line, const QString& workdir = QStringLiteral("/root"))
    {
        sbw::WorkspaceCommandOptions options;
        options.command = line;
        options.shellCommand = "cd '" + workdir.toUtf8() + "' && " + line.toUtf8();
        options.workdir = workdir;
        options.timeout = 60s;
        options.readyDeadline = std::chrono::steady_clock::now() + 180s;
        options.log = m_log;
        options.onEnded = [this](const sbw::WorkspaceCommandResult& ended) { m_ended << ended; };
        m_ended.clear();
        const sbw::WorkspaceCommandResult result = sbw::runWorkspaceCommand(*m_workspace, options);
        qInfo() << line << "->" << result.summary() << result.wallMs << "ms;" << result.fileChanges.summary();
        return result;
    }

    void removeLeftover()
    {
        if (auto old = sbw::Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8()); // own records and key
        m_log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("log.sqlite"))).value();
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeLeftover();
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = sbw::Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
        QVERIFY(m_workspace->start().ok());
    }

    void cleanupTestCase()
    {
        m_workspace.reset();
        if (m_connection)
            removeLeftover();
    }

    void aCommandListsWhatItCreatedChangedAndDeleted()
    {
        const auto setup = command(QStringLiteral("mkdir -p p && printf 'one\\ntwo\\n' >p/edit.txt && "
                                                  "printf 'bye\\n' >p/gone.txt && head -c 100000 /dev/zero >p/big.bin"));
        QCOMPARE(setup.status.exitStatus, 0);
        QVERIFY2(setup.fileChanges.unknown.isEmpty(), qPrintable(setup.fileChanges.unknown));
        QCOMPARE(listed(setup.fileChanges), QStringList({"/root/p created -1>0", "/root/p/big.bin created -1>100000",
                                                         "/root/p/edit.txt created -1>8", "/root/p/gone.txt created -1>4"}));

        const auto result = command(QStringLiteral("printf 'new\\n' >p/made.txt && printf 'one\\n2\\n' >p/edit.txt && "
                                                   "rm p/gone.txt && echo >>p/big.bin"));
        QCOMPARE(result.status.exitStatus, 0);
        const sbw::FileChanges& changes = result.fileChanges;
        QVERIFY2(changes.unknown.isEmpty(), qPrintable(changes.unknown));
        QCOMPARE(listed(changes), QStringList({"/root/p/big.bin modified 100000>100001", "/root/p/edit.txt modified 8>6",
                                               "/root/p/gone.txt deleted 4>-1", "/root/p/made.txt created -1>4"}));
        QCOMPARE(changes.files[0].diffNote, QStringLiteral("larger than 64 KiB: no diff"));
        QVERIFY2(changes.files[1].diff.contains("-two\n+2\n"), qPrintable(changes.files[1].diffNote));
        QVERIFY(changes.files[2].diff.contains("-bye\n"));
        QVERIFY(changes.files[3].diff.contains("+new\n"));

        // The row says the same, with the diffs.
        sbw::LogFilter filter;
        filter.sandbox = kName;
        const sbw::ActionRecord row = m_log->row(m_log->rows(filter, 1).value().first().id).value();
        QCOMPARE(listed(row.fileChanges), listed(changes));
        QCOMPARE(row.fileChanges.files[1].diff, changes.files[1].diff);
        QCOMPARE(row.fileChanges.summary(), QStringLiteral("4 files changed (1 created, 2 modified, 1 deleted)"));
    }

    void aCommandThatChangesNothingListsNothing()
    {
        const auto result = command(QStringLiteral("cat /etc/hostname >/dev/null"));
        QCOMPARE(result.fileChanges.summary(), QStringLiteral("no files changed"));
    }

    void theEndIsToldBeforeTheFilesAreScanned()
    {
        const auto result = command(QStringLiteral("echo x >told.txt; exit 3"));
        QCOMPARE(m_ended.size(), 1);
        QCOMPARE(m_ended.first().status.exitStatus, std::optional<int>(3));
        QCOMPARE(m_ended.first().wallMs, result.wallMs);
        QVERIFY(!m_ended.first().fileChanges.tracked);
        QCOMPARE(listed(result.fileChanges), QStringList({"/root/told.txt created -1>2"}));
    }

    void theWorkingFolderIsWatchedOutsideRoot()
    {
        QCOMPARE(command(QStringLiteral("mkdir -p /srv/app")).status.exitStatus, 0);
        const auto result = command(QStringLiteral("printf 'x' >built"), QStringLiteral("/srv/app"));
        QCOMPARE(result.fileChanges.folders, QStringList({"/root", "/srv/app"}));
        QCOMPARE(listed(result.fileChanges), QStringList{"/srv/app/built created -1>1"});
    }

    void anEphemeralRunListsWhatItsScriptWrote()
    {
        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = "printf 'hello\\n' >out/result.txt; printf 'tmp' >scratch";
        const sbw::RunResult run = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QVERIFY2(run.fileChanges.unknown.isEmpty(), qPrintable(run.fileChanges.unknown));
        QCOMPARE(listed(run.fileChanges),
                 QStringList({"/root/run/out/result.txt created -1>6", "/root/run/scratch created -1>3"}));
        QVERIFY(run.fileChanges.files[0].diff.contains("+hello\n"));
    }
};

QTEST_GUILESS_MAIN(TestFileChangesGuest)
#include "tst_filechangesguest.moc"
