// The command log pane on a real SQLite log: live rows (also those another process writes),
// filters, the escaped detail view, a row's file changes and exports. Saves
// $SBW_SCREENSHOT_DIR/commandlogpane.png, commandlogpane-file-changes.png and
// commandlogpane-other-process.png when that variable is set.
//
// Run as `tst_commandlogpane --write-row DATABASE SANDBOX COMMAND` it is that other process: it
// opens the log at DATABASE (its own SQLite connection) and writes one finished exec row.

#include "CommandLogRows.h"
#include "log/CommandLogModel.h"
#include "log/CommandLogPane.h"

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QtTest>

#include <thread>

using namespace sbw;

class TestCommandLogPane : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<CommandLog> m_log;

    qint64 logExec(const QString& sandbox, const QString& command, Actor::Kind actor, const QByteArray& out,
                   int exitStatus)
    {
        ActionStart start;
        start.sandbox = sandbox;
        start.actor = {actor, actor == Actor::Kind::Agent ? QStringLiteral("demo-agent") : QString()};
        start.command = command;
        start.workdir = QStringLiteral("/root");
        return sbw::test::logExec(*m_log, start, OutputStream::Stdout, out, exitStatus);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("command-log.sqlite"))).value();
        logExec(QStringLiteral("alpha"), QStringLiteral("ls -la /root"), Actor::Kind::Person, "total 8\n", 0);
        logExec(QStringLiteral("beta"), QStringLiteral("python3 train.py\n--epochs 3"), Actor::Kind::Agent,
                "\x1b]52;c;aGk=\x07\x1b[31mred\x1b[0m\n", 1);
    }

    void rowsArriveLiveNewestFirst()
    {
        CommandLogPane pane(m_log);
        QCOMPARE(pane.model()->rowCount(), 0); // read off the GUI thread
        QTRY_COMPARE(pane.model()->rowCount(), 2);
        std::thread worker([this] {
            logExec(QStringLiteral("alpha"), QStringLiteral("pip install ./pkg.whl"), Actor::Kind::Cli, "ok\n", 0);
        });
        worker.join();
        QTRY_COMPARE(pane.model()->rowCount(), 3);
        const auto* model = pane.model();
        QCOMPARE(model->index(0, CommandLogModel::Command).data().toString(), QStringLiteral("pip install ./pkg.whl"));
        QCOMPARE(model->index(0, CommandLogModel::ActorColumn).data().toString(), QStringLiteral("cli"));
        // A second line is never hidden: its line break is shown, and how many lines follow.
        QCOMPARE(model->index(1, CommandLogModel::Command).data().toString(),
                 QStringLiteral("python3 train.py⏎--epochs 3 (+1 line)"));
        QCOMPARE(model->index(1, CommandLogModel::Command).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("python3 train.py\n--epochs 3"));
        QCOMPARE(model->index(1, CommandLogModel::ActorColumn).data().toString(), QStringLiteral("agent (demo-agent)"));
        QCOMPARE(model->index(1, CommandLogModel::Status).data().toString(), QStringLiteral("exit 1"));
        QCOMPARE(model->index(2, CommandLogModel::Status).data().toString(), QStringLiteral("exit 0"));
    }

    void rowOfAnotherProcessArrivesWithinASecond()
    {
        const QString path = m_dir.filePath(QStringLiteral("shared.sqlite"));
        auto log = CommandLog::open(path).value();
        CommandLogPane pane(log);
        pane.resize(1000, 400);
        QSignalSpy refreshed(pane.model(), &CommandLogModel::refreshed);
        QTRY_COMPARE(refreshed.size(), 1);
        QCOMPARE(pane.model()->rowCount(), 0);

        QProcess writer;
        writer.start(QCoreApplication::applicationFilePath(),
                     {QStringLiteral("--write-row"), path, QStringLiteral("gamma"),
                      QStringLiteral("make test")});
        QVERIFY(writer.waitForFinished(30000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
        // This process wrote nothing; only the poll of the database can bring the row.
        QTRY_COMPARE_WITH_TIMEOUT(pane.model()->rowCount(), 1, 1000);
        QCOMPARE(pane.model()->index(0, CommandLogModel::Sandbox).data().toString(),
                 QStringLiteral("gamma"));
        QCOMPARE(pane.model()->index(0, CommandLogModel::ActorColumn).data().toString(),
                 QStringLiteral("cli"));
        QCOMPARE(pane.model()->index(0, CommandLogModel::Command).data().toString(),
                 QStringLiteral("make test"));
        QCOMPARE(pane.model()->index(0, CommandLogModel::Status).data().toString(),
                 QStringLiteral("exit 0"));
        if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty()) {
            pane.show();
            QVERIFY(QTest::qWaitForWindowExposed(&pane));
            QVERIFY(pane.grab().save(dir + QStringLiteral("/commandlogpane-other-process.png")));
        }
    }

    void filtersNarrowTheRows()
    {
        CommandLogPane pane(m_log);
        QSignalSpy refreshed(pane.model(), &CommandLogModel::refreshed);
        pane.searchField()->setText(QStringLiteral("TRAIN"));
        QTRY_VERIFY(!refreshed.isEmpty() && pane.model()->rowCount() == 1);
        pane.searchField()->clear();
        auto* actor = pane.findChildren<QComboBox*>().at(1);
        actor->setCurrentIndex(actor->findData(QStringLiteral("person")));
        refreshed.clear(); // only the latest read is shown
        QTRY_VERIFY(!refreshed.isEmpty());
        QCOMPARE(pane.model()->rowCount(), 1);
        QCOMPARE(pane.model()->record(0).sandbox, QStringLiteral("alpha"));
    }

    void detailShowsEscapesLiterally()
    {
        CommandLogPane pane(m_log);
        pane.resize(1000, 600);
        pane.show();
        QTRY_COMPARE(pane.model()->rowCount(), 3);
        const int row = [&] {
            for (int i = 0; i < pane.model()->rowCount(); ++i) {
                if (pane.model()->record(i).sandbox == QStringLiteral("beta"))
                    return i;
            }
            return -1;
        }();
        QVERIFY(row >= 0);
        QSignalSpy shown(&pane, &CommandLogPane::detailShown);
        pane.table()->setCurrentIndex(pane.model()->index(row, 0));
        QTRY_COMPARE(shown.size(), 1);
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("python3 train.py\n--epochs 3")), qPrintable(detail));
        QVERIFY2(detail.contains(QStringLiteral("\\x1b]52;c;aGk=\\x07\\x1b[31mred\\x1b[0m")), qPrintable(detail));
        QVERIFY(!detail.contains(QChar(0x1b)));
        if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(pane.grab().save(dir + QStringLiteral("/commandlogpane.png")));
    }

    void approvalRowShowsTheWait()
    {
        auto log = CommandLog::open(m_dir.filePath(QStringLiteral("approvals.sqlite"))).value();
        // Asked 4.2 s before the decision.
        const qint64 id = sbw::test::logApproval(*log, QStringLiteral("alpha"),
                                                 {Actor::Kind::Agent, QStringLiteral("demo-agent")}, 4200);
        const qint64 waited = log->row(id).value().durationMs;
        QVERIFY(waited >= 4200 && waited < 4300);
        const QString text = QStringLiteral("approved by alice after %1 ms").arg(waited);

        CommandLogPane pane(log);
        QTRY_COMPARE(pane.model()->rowCount(), 1);
        QCOMPARE(pane.model()->index(0, CommandLogModel::ApprovalColumn).data().toString(), text);
        QCOMPARE(pane.model()->index(0, CommandLogModel::Duration).data().toLongLong(), waited);
        QSignalSpy shown(&pane, &CommandLogPane::detailShown);
        pane.table()->setCurrentIndex(pane.model()->index(0, 0));
        QTRY_COMPARE(shown.size(), 1);
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("status: succeeded; approval: ") + text + QLatin1Char('\n')),
                 qPrintable(detail));
    }

    void detailListsTheFilesACommandChanged()
    {
        auto log = CommandLog::open(m_dir.filePath(QStringLiteral("changes.sqlite"))).value();
        ActionStart start;
        start.sandbox = QStringLiteral("alpha");
        start.command = QStringLiteral("make");
        start.workdir = QStringLiteral("/root/p");
        const qint64 id = log->begin(start).value();
        ActionEnd end;
        end.exitStatus = 0;
        FileChanges& changes = end.fileChanges;
        changes.tracked = true;
        changes.folders = {QStringLiteral("/root")};
        changes.created = 1;
        changes.modified = 1206;
        changes.deleted = 1;
        FileChange made{QStringLiteral("/root/p/made\nfile\x1b[31m.txt"), ChangeKind::Created, 0, 'f', -1, 4,
                        "--- /dev/null\n+++ /root/p/made\n@@ -0,0 +1 @@\n+new \x1b[2J\n", true, {}};
        FileChange edit{QStringLiteral("/root/p/edit.txt"), ChangeKind::Modified, 'f', 'f', 8, 6,
                        "--- /root/p/edit.txt\n+++ /root/p/edit.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n", true, {}};
        FileChange big{QStringLiteral("/root/p/big.bin"), ChangeKind::Modified, 'f', 'f', 100000, 100001, {}, false,
                       QStringLiteral("larger than 64 KiB: no diff")};
        FileChange gone{QStringLiteral("/root/p/gone.txt"), ChangeKind::Deleted, 'f', 0, 4, -1, {}, false,
                        QStringLiteral("no diff: the content before the command was not kept")};
        changes.files = {big, edit, gone, made};
        QVERIFY(log->finish(id, end).ok());

        CommandLogPane pane(log);
        pane.resize(1000, 700);
        pane.show();
        QTRY_COMPARE(pane.model()->rowCount(), 1);
        QSignalSpy shown(&pane, &CommandLogPane::detailShown);
        pane.table()->setCurrentIndex(pane.model()->index(0, 0));
        QTRY_COMPARE(shown.size(), 1);
        const QString detail = pane.detail()->toPlainText();
        for (const char* line :
             {"── files: 1,208 files changed (1 created, 1,206 modified, 1 deleted) ──\n",
              "modified file       100,000 B → 100,001 B     /root/p/big.bin  (larger than 64 KiB: no diff)\n",
              "modified file             8 B → 6 B           /root/p/edit.txt\n",
              "deleted  file             4 B → —             /root/p/gone.txt  (no diff: the content before the command was not kept)\n",
              "created  file               — → 4 B           /root/p/made\\nfile\\x1b[31m.txt\n",
              "1,204 more files changed, not listed\n", "── diff of /root/p/edit.txt ──\n", "\n one\n-two\n+2\n",
              "+new \\x1b[2J\n"})
            QVERIFY2(detail.contains(QString::fromUtf8(line)), qPrintable(QStringLiteral("%1\n--- in ---\n%2").arg(QString::fromUtf8(line), detail)));
        QVERIFY(!detail.contains(QChar(0x1b)));
        if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(pane.grab().save(dir + QStringLiteral("/commandlogpane-file-changes.png")));
    }

    void exportWritesTheFilteredRows()
    {
        CommandLogPane pane(m_log);
        pane.searchField()->setText(QStringLiteral("ls -la"));
        const QString csv = m_dir.filePath(QStringLiteral("out.csv"));
        const QString jsonl = m_dir.filePath(QStringLiteral("out.jsonl"));
        QVERIFY(pane.exportTo(csv, CommandLogPane::Format::Csv).ok());
        QVERIFY(pane.exportTo(jsonl, CommandLogPane::Format::JsonLines).ok());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csvFile.readAll().split('\n');
        QCOMPARE(lines.size(), 3); // header, one row, empty after the last CRLF
        QVERIFY(lines[1].contains(",alpha,person,,exec,ls -la /root,/root,0,"));
        QFile jsonFile(jsonl);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        QCOMPARE(jsonFile.readAll().count('\n'), 1);
        const auto denied = pane.exportTo(QStringLiteral("/proc/nope/out.csv"), CommandLogPane::Format::Csv);
        QVERIFY(!denied.ok());
        QVERIFY(denied.error().message.contains(QStringLiteral("/proc/nope/out.csv")));
    }

    void selectionStaysOnItsRowWhenRowsArrive()
    {
        CommandLogPane pane(m_log);
        QTRY_VERIFY(pane.model()->rowCount() >= 2);
        const int rows = pane.model()->rowCount();
        pane.table()->selectRow(1);
        const qint64 selected = pane.model()->record(1).id;
        QTRY_VERIFY(pane.detail()->toPlainText().startsWith(QStringLiteral("#%1 ").arg(selected)));
        logExec(QStringLiteral("alpha"), QStringLiteral("echo newer"), Actor::Kind::Cli, "newer\n", 0);
        QTRY_COMPARE(pane.model()->rowCount(), rows + 1);
        // The same row, one further down, is still the selected one, and the detail still shows it.
        QCOMPARE(pane.table()->currentIndex().row(), 2);
        QCOMPARE(pane.table()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(pane.model()->record(pane.table()->selectionModel()->selectedRows().first().row()).id, selected);
        QVERIFY(pane.detail()->toPlainText().startsWith(QStringLiteral("#%1 ").arg(selected)));
    }

    // In a pane narrower than its columns, clicking a row's cell off to the right selects the
    // row and leaves the columns where they were; moving down to a row below the view still
    // scrolls to it.
    void clickingARowKeepsTheColumnsInPlace()
    {
        CommandLogPane pane(m_log);
        pane.resize(420, 260);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTRY_VERIFY(pane.model()->rowCount() >= 2);
        QTableView* table = pane.table();
        QScrollBar* sideways = table->horizontalScrollBar();
        QVERIFY2(sideways->maximum() > 0, "the columns fit: nothing to scroll sideways");
        // The command keeps 30 characters; the table scrolls sideways instead.
        QVERIFY(table->columnWidth(CommandLogModel::Command) >= pane.fontMetrics().averageCharWidth() * 30);
        sideways->setValue(0);
        const int lastColumn = table->horizontalHeader()->logicalIndexAt(table->viewport()->width() - 2);
        QVERIFY(lastColumn >= 0);
        const QRect cell = table->visualRect(pane.model()->index(1, lastColumn));
        QVERIFY(cell.right() > table->viewport()->width()); // partly out of view
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, QPoint(table->viewport()->width() - 2, cell.center().y()));
        QCOMPARE(table->currentIndex().row(), 1);
        QCOMPARE(sideways->value(), 0);

        for (int i = 0; i < 20; ++i)
            logExec(QStringLiteral("gamma"), QStringLiteral("echo %1").arg(i), Actor::Kind::Cli, "x\n", 0);
        QTRY_VERIFY(pane.model()->rowCount() >= 22);
        table->setFocus();
        QTest::keyClick(table, Qt::Key_End, Qt::ControlModifier);
        QCOMPARE(table->currentIndex().row(), pane.model()->rowCount() - 1);
        QVERIFY(table->verticalScrollBar()->value() > 0);
        QCOMPARE(sideways->value(), 0);
    }
};

namespace {

/// The other process of rowOfAnotherProcessArrivesWithinASecond(): a `sbw` command's finished
/// exec row in the log at `path`.
int writeRow(const QString& path, const QString& sandbox, const QString& command)
{
    auto log = CommandLog::open(path);
    if (!log)
        return 1;
    ActionStart start;
    start.sandbox = sandbox;
    start.actor = {Actor::Kind::Cli, QString()};
    start.command = command;
    sbw::test::logExec(*log.value(), start, OutputStream::Stdout, "ok\n", 0);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 5 && qstrcmp(argv[1], "--write-row") == 0) {
        QCoreApplication app(argc, argv);
        return writeRow(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]),
                        QString::fromLocal8Bit(argv[4]));
    }
    QApplication app(argc, argv);
    TestCommandLogPane test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_commandlogpane.moc"
