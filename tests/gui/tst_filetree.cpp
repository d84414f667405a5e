// FileTreeModel and FileTreePane over SFTP on one real microVM, booted once for all cases.

#include "TestEnvironment.h"
#include "files/FilePreview.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "sandbox/Sandbox.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QFile>
#include <QBuffer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace std::chrono_literals;

class TestFileTree : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    std::shared_ptr<sbw::SftpClient> m_sftp;
    QTemporaryDir m_host;

    QByteArray run(const QByteArray& command)
    {
        QByteArray out;
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = 120s;
        request.onStdout = [&](QByteArrayView bytes) { out.append(bytes); };
        auto status = m_sandbox->session().exec(request);
        return status ? out : QByteArray("exec failed: ") + status.error().message.toUtf8();
    }

    static bool waitLoaded(sbw::FileTreeModel& model, const QByteArray& path)
    {
        QSignalSpy loaded(&model, &sbw::FileTreeModel::folderLoaded);
        return QTest::qWaitFor(
            [&] {
                for (const auto& args : loaded) {
                    if (args.at(0).toByteArray() == path)
                        return true;
                }
                return false;
            },
            60000);
    }

    static QStringList names(const sbw::FileTreeModel& model, const QModelIndex& parent = {})
    {
        QStringList result;
        for (int row = 0; row < model.rowCount(parent); ++row)
            result.append(model.index(row, 0, parent).data().toString());
        result.sort();
        return result;
    }

    static QModelIndex find(const sbw::FileTreeModel& model, const QString& name,
                            const QModelIndex& parent = {})
    {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            if (model.index(row, 0, parent).data().toString() == name)
                return model.index(row, 0, parent);
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_host.isValid());
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        auto sandbox = sbw::Sandbox::start(*m_connection, {});
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        auto ready = m_sandbox->waitReady(nullptr);
        QVERIFY2(ready.ok(), ready ? "" : qPrintable(ready.error().message));
        auto sftp = m_sandbox->session().openSftp();
        QVERIFY2(sftp.ok(), sftp ? "" : qPrintable(sftp.error().message));
        m_sftp = std::move(sftp.value());
        QCOMPARE(run("mkdir -p /tmp/ft/dir /tmp/ft/many && cd /tmp/ft && printf hello > a.txt && "
                     "chmod 644 a.txt"
                     " && printf x > dir/inner && touch \"$(printf "
                     "'bad\\nname\\033[2J\\342\\200\\256evil')\""
                     " && cd many && seq -f 'f%05g' 1 10000 | xargs touch && echo ok"),
                 QByteArray("ok\n"));
    }

    void foldersLoadOnlyWhenAsked()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/ft");
        QVERIFY(model.canFetchMore({}));
        QCOMPARE(model.rowCount(), 0);
        model.fetchMore({});
        QVERIFY(waitLoaded(model, "/tmp/ft"));
        QCOMPARE(names(model), (QStringList{QStringLiteral("a.txt"),
                                            QStringLiteral("bad\\nname\\x1b[2J<U+202E>evil"),
                                            QStringLiteral("dir"), QStringLiteral("many")}));
        const QModelIndex dir = find(model, QStringLiteral("dir"));
        QVERIFY(model.hasChildren(dir));
        QVERIFY(model.canFetchMore(dir));
        QCOMPARE(model.rowCount(dir), 0);
        model.fetchMore(dir);
        QVERIFY(waitLoaded(model, "/tmp/ft/dir"));
        QCOMPARE(names(model, dir), QStringList{QStringLiteral("inner")});
        QCOMPARE(model.index(0, 0, dir).data(sbw::FileTreeModel::PathRole).toByteArray(),
                 QByteArray("/tmp/ft/dir/inner"));
        QVERIFY(!model.hasChildren(model.index(0, 0, dir)));
        QVERIFY(!model.canFetchMore(model.index(0, 0, dir)));
    }

    void modelPassesTheTester()
    {
        // The tester fetches every folder it meets, so the whole tree loads under its checks.
        sbw::FileTreeModel model(m_sftp, "/tmp/ft");
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.fetchMore({});
        QVERIFY(
            QTest::qWaitFor([&] { return model.rowCount() == 4 && !model.isLoading(); }, 120000));
        const QModelIndex dir = find(model, QStringLiteral("dir"));
        model.fetchMore(dir);
        QVERIFY(
            QTest::qWaitFor([&] { return model.rowCount(dir) == 1 && !model.isLoading(); }, 60000));
        QCOMPARE(names(model, dir), QStringList{QStringLiteral("inner")});
    }

    void columnsShowAttributes()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/ft");
        model.fetchMore({});
        QVERIFY(waitLoaded(model, "/tmp/ft"));
        const QModelIndex file = find(model, QStringLiteral("a.txt"));
        QVERIFY(file.isValid());
        QCOMPARE(file.siblingAtColumn(sbw::FileTreeModel::SizeColumn).data().toString(),
                 QStringLiteral("5 bytes"));
        QCOMPARE(file.siblingAtColumn(sbw::FileTreeModel::ModeColumn).data().toString(),
                 QStringLiteral("-rw-r--r--"));
        QCOMPARE(file.siblingAtColumn(sbw::FileTreeModel::OwnerColumn).data().toString(),
                 QStringLiteral("root:root"));
        QVERIFY(
            !file.siblingAtColumn(sbw::FileTreeModel::ModifiedColumn).data().toString().isEmpty());
        const QModelIndex dir = find(model, QStringLiteral("dir"));
        QCOMPARE(dir.siblingAtColumn(sbw::FileTreeModel::ModeColumn).data().toString(),
                 QStringLiteral("drwxr-xr-x"));
        QCOMPARE(dir.siblingAtColumn(sbw::FileTreeModel::SizeColumn).data().toString(), QString());
    }

    void oddNamesAreEscapedButKeepTheirBytes()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/ft");
        model.fetchMore({});
        QVERIFY(waitLoaded(model, "/tmp/ft"));
        const QModelIndex odd = find(model, QStringLiteral("bad\\nname\\x1b[2J<U+202E>evil"));
        QVERIFY(odd.isValid());
        const QString shown = odd.data().toString();
        QVERIFY(!shown.contains(QLatin1Char('\n')));
        QVERIFY(!shown.contains(QChar(0x1b)));
        QVERIFY(!shown.contains(QChar(0x202e)));
        QCOMPARE(odd.data(sbw::FileTreeModel::PathRole).toByteArray(),
                 QByteArray("/tmp/ft/bad\nname\x1b[2J\xe2\x80\xae"
                            "evil"));
    }

    void tenThousandEntriesArriveInBatches()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/ft/many");
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy loaded(&model, &sbw::FileTreeModel::folderLoaded);
        model.fetchMore({});
        // The first rows are visible while the listing goes on.
        QVERIFY(QTest::qWaitFor([&] { return model.rowCount() > 0; }, 60000));
        QVERIFY(loaded.isEmpty());
        QVERIFY(model.rowCount() < 10000);
        QVERIFY(waitLoaded(model, "/tmp/ft/many"));
        QCOMPARE(model.rowCount(), 10000);
        QVERIFY(inserted.size() >= 20);
        QCOMPARE(
            find(model, QStringLiteral("f09999")).data(sbw::FileTreeModel::PathRole).toByteArray(),
            QByteArray("/tmp/ft/many/f09999"));
        // ext4 lists a folder in hash order; the loaded folder is sorted by name.
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("f00001"));
        QCOMPARE(model.index(4999, 0).data().toString(), QStringLiteral("f05000"));
        QCOMPARE(model.index(9999, 0).data().toString(), QStringLiteral("f10000"));
    }

    void listsFoldersFirstThenNamesIgnoringCase()
    {
        QCOMPARE(run("mkdir -p /tmp/ft-order/Zeta /tmp/ft-order/alpha && cd /tmp/ft-order"
                     " && touch b.txt A.txt .hidden C && echo ok"),
                 QByteArray("ok\n"));
        sbw::FileTreeModel model(m_sftp, "/tmp/ft-order");
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.fetchMore({});
        QVERIFY(waitLoaded(model, "/tmp/ft-order"));
        QStringList rows;
        for (int row = 0; row < model.rowCount(); ++row)
            rows.append(model.index(row, 0).data().toString());
        QCOMPARE(rows, (QStringList{QStringLiteral("alpha"), QStringLiteral("Zeta"),
                                    QStringLiteral(".hidden"), QStringLiteral("A.txt"),
                                    QStringLiteral("b.txt"), QStringLiteral("C")}));
        QCOMPARE(model.index(1, 0).data(sbw::FileTreeModel::PathRole).toByteArray(),
                 QByteArray("/tmp/ft-order/Zeta"));
    }

    void refreshShowsNewEntries()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/ft/dir");
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.fetchMore({});
        QVERIFY(waitLoaded(model, "/tmp/ft/dir"));
        QCOMPARE(names(model), QStringList{QStringLiteral("inner")});
        QCOMPARE(run("touch /tmp/ft/dir/later && echo ok"), QByteArray("ok\n"));
        model.refresh();
        QVERIFY(waitLoaded(model, "/tmp/ft/dir"));
        QCOMPARE(names(model), (QStringList{QStringLiteral("inner"), QStringLiteral("later")}));
    }

    void missingFolderReportsASentence()
    {
        sbw::FileTreeModel model(m_sftp, "/tmp/nothing-here");
        QSignalSpy failed(&model, &sbw::FileTreeModel::loadFailed);
        model.fetchMore({});
        QVERIFY(failed.wait(60000));
        QCOMPARE(
            failed.first().at(1).toString(),
            QStringLiteral(
                "cannot list /tmp/nothing-here: there is no such file or folder in the guest"));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.canFetchMore({}));
    }

    void paneUploadsAndDownloads()
    {
        sbw::FileTreePane pane(m_sftp, "/tmp/ft");
        auto log = sbw::CommandLog::open(m_host.filePath(QStringLiteral("log.sqlite")));
        QVERIFY(log.ok());
        pane.setCommandLog(log.value(), QStringLiteral("ws-files"));
        pane.resize(720, 420);
        pane.show();
        QVERIFY(waitLoaded(*pane.model(), "/tmp/ft"));
        pane.view()->expand(find(*pane.model(), QStringLiteral("dir")));
        QVERIFY(waitLoaded(*pane.model(), "/tmp/ft/dir"));

        QByteArray bytes;
        for (int i = 0; i < 300000; ++i)
            bytes.append(char(i * 7 + (i >> 8)));
        const QString source = m_host.filePath(QStringLiteral("up.bin"));
        {
            QFile file(source);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        }
        QSignalSpy finished(&pane, &sbw::FileTreePane::transferFinished);
        pane.uploadFiles({source}, "/tmp/ft/dir");
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.first().at(0).value<sbw::Expected<void>>().ok());
        QCOMPARE(run("sha256sum < /tmp/ft/dir/up.bin").left(64),
                 QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
        const QModelIndex dir = find(*pane.model(), QStringLiteral("dir"));
        QVERIFY(QTest::qWaitFor(
            [&] { return find(*pane.model(), QStringLiteral("up.bin"), dir).isValid(); }, 60000));

        pane.view()->setCurrentIndex(find(*pane.model(), QStringLiteral("a.txt")));
        pane.downloadSelected(m_host.path());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(1).at(0).toString(), QString());
        QFile back(m_host.filePath(QStringLiteral("a.txt")));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), QByteArray("hello"));

        const QString shot = QStringLiteral(SBW_SCREENSHOT_DIR "/filetreepane.png");
        QVERIFY(pane.grab().save(shot));

        // Delete removes the file in the guest; a missing one is an error.
        pane.view()->setCurrentIndex(find(*pane.model(), QStringLiteral("up.bin"), dir));
        pane.deleteSelected();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(2).at(0).toString(), QString());
        QCOMPARE(run("test -e /tmp/ft/dir/up.bin || echo gone"), QByteArray("gone\n"));

        // Each one is a person's row of the command log, newest first.
        sbw::LogFilter filter;
        filter.sandbox = QStringLiteral("ws-files");
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QCOMPARE(rows.value().size(), 3);
        const sbw::ActionRecord removed = rows.value().at(0);
        const sbw::ActionRecord downloaded = rows.value().at(1);
        const sbw::ActionRecord uploaded = rows.value().at(2);
        QCOMPARE(removed.kind, sbw::ActionKind::FileDelete);
        QCOMPARE(removed.command, QStringLiteral("/tmp/ft/dir/up.bin"));
        QCOMPARE(downloaded.kind, sbw::ActionKind::Download);
        QCOMPARE(downloaded.command,
                 QStringLiteral("/tmp/ft/a.txt → ") + m_host.filePath(QStringLiteral("a.txt")));
        QCOMPARE(uploaded.kind, sbw::ActionKind::Upload);
        QCOMPARE(uploaded.command, QStringLiteral("/tmp/ft/dir/up.bin ← ") + source);
        for (const sbw::ActionRecord& row : rows.value()) {
            QCOMPARE(row.actor.kind, sbw::Actor::Kind::Person);
            QCOMPARE(row.outcome, sbw::Outcome::Succeeded);
        }
    }

    void openShowsPreviews()
    {
        QImage image(24, 12, QImage::Format_RGB32);
        image.fill(Qt::red);
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
        QCOMPARE(run("echo " + png.toBase64() + " | base64 -d > /tmp/ft/pic.png && "
                     "printf 'hi\\033[31mred\\n' > /tmp/ft/esc.txt && echo ok"),
                 QByteArray("ok\n"));
        sbw::FileTreePane pane(m_sftp, "/tmp/ft");
        pane.resize(720, 420);
        pane.show();
        QVERIFY(waitLoaded(*pane.model(), "/tmp/ft"));
        QSignalSpy opened(&pane, &sbw::FileTreePane::previewOpened);

        pane.view()->setCurrentIndex(find(*pane.model(), QStringLiteral("pic.png")));
        pane.openSelected();
        QVERIFY(opened.wait(60000));
        auto* picture = opened.last().at(0).value<sbw::FilePreview*>();
        QCOMPARE(picture->kind(), sbw::FilePreview::Kind::Image);
        QCOMPARE(picture->findChild<QLabel*>(QStringLiteral("imagePreview"))->pixmap().size(), QSize(24, 12));
        QVERIFY(picture->grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/filepreview-image.png")));

        pane.view()->setCurrentIndex(find(*pane.model(), QStringLiteral("esc.txt")));
        pane.openSelected();
        QVERIFY(opened.wait(60000));
        auto* text = opened.last().at(0).value<sbw::FilePreview*>();
        QCOMPARE(text->kind(), sbw::FilePreview::Kind::Text);
        QCOMPARE(text->findChild<QPlainTextEdit*>(QStringLiteral("textPreview"))->toPlainText(),
                 QStringLiteral("hi\\x1b[31mred\n"));
    }

    void cleanupTestCase()
    {
        m_sftp.reset();
        m_sandbox.reset();
    }
};

QTEST_MAIN(TestFileTree)
#include "tst_filetree.moc"
