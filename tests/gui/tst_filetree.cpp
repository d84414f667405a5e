// FileTreeModel and FileTreePane over SFTP on one real microVM, booted once for all cases.

#include "TestEnvironment.h"
#include "files/FilePreview.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "files/WorkspaceFilesPage.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "sandbox/Sandbox.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
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

    static QByteArray readHost(const QString& path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(cannot read)");
    }

    static void select(sbw::FileTreePane& pane, const QList<QModelIndex>& rows)
    {
        pane.view()->selectionModel()->clearSelection();
        for (const QModelIndex& row : rows)
            pane.view()->selectionModel()->select(row, QItemSelectionModel::Select |
                                                           QItemSelectionModel::Rows);
    }

    /// A pane on guest folder `root`, shown, its root listed.
    static std::unique_ptr<sbw::FileTreePane> shownPane(std::shared_ptr<sbw::SftpClient> sftp,
                                                        const QByteArray& root)
    {
        auto pane = std::make_unique<sbw::FileTreePane>(sftp, root);
        pane->resize(900, 420);
        pane->show();
        return pane;
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

    /// Downloads the pane's selection into the host folder `folder` (made first) and waits for
    /// the transfer's result; an error when it did not finish within a minute.
    static sbw::Expected<void> downloadInto(sbw::FileTreePane& pane, const QString& folder)
    {
        QDir().mkpath(folder);
        QSignalSpy finished(&pane, &sbw::FileTreePane::transferFinished);
        pane.downloadSelected(folder);
        if (!finished.wait(60000))
            return sbw::makeError(QStringLiteral("the download did not finish within 60 s"));
        return finished.first().at(0).value<sbw::Expected<void>>();
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
        QCOMPARE(run("echo " + png.toBase64() +
                     " | base64 -d > /tmp/ft/pic.png && "
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
        QCOMPARE(picture->findChild<QLabel*>(QStringLiteral("imagePreview"))->pixmap().size(),
                 QSize(24, 12));
        QVERIFY(picture->grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/filepreview-image.png")));

        pane.view()->setCurrentIndex(find(*pane.model(), QStringLiteral("esc.txt")));
        pane.openSelected();
        QVERIFY(opened.wait(60000));
        auto* text = opened.last().at(0).value<sbw::FilePreview*>();
        QCOMPARE(text->kind(), sbw::FilePreview::Kind::Text);
        QCOMPARE(text->findChild<QPlainTextEdit*>(QStringLiteral("textPreview"))->toPlainText(),
                 QStringLiteral("hi\\x1b[31mred\n"));
    }

    void oddNamesShowApartAndDownloadApart()
    {
        // Two names that differ only in bytes that are not UTF-8, and a name that spells one of
        // them out: three different rows, three different host files.
        QCOMPARE(run("mkdir -p /tmp/ft-odd && cd /tmp/ft-odd && printf ff > \"$(printf 'a\\377')\""
                     " && printf fe > \"$(printf 'a\\376')\" && printf lit > 'a\\xff'"
                     " && printf rlo > \"$(printf 'evil\\342\\200\\256txt.exe')\" && echo ok"),
                 QByteArray("ok\n"));
        auto pane = shownPane(m_sftp, "/tmp/ft-odd");
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft-odd"));
        QCOMPARE(names(*pane->model()),
                 (QStringList{QStringLiteral("a\\\\xff"), QStringLiteral("a\\xfe"),
                              QStringLiteral("a\\xff"), QStringLiteral("evil<U+202E>txt.exe")}));
        select(*pane, {find(*pane->model(), QStringLiteral("a\\xff")),
                       find(*pane->model(), QStringLiteral("a\\xfe")),
                       find(*pane->model(), QStringLiteral("a\\\\xff"))});
        QCOMPARE(pane->selectedPaths().size(), 3);
        const QString folder = m_host.filePath(QStringLiteral("odd"));
        QVERIFY(downloadInto(*pane, folder).ok());
        QCOMPARE(pane->statusText(),
                 QStringLiteral("Downloaded 3 items to %1 (3 files, 7 bytes)").arg(folder));
        QStringList hostNames = QDir(folder).entryList(QDir::Files);
        hostNames.sort();
        QCOMPARE(hostNames, (QStringList{QStringLiteral("a\\\\xff"), QStringLiteral("a\\xfe"),
                                         QStringLiteral("a\\xff")}));
        QCOMPARE(readHost(folder + QStringLiteral("/a\\xff")), QByteArray("ff"));
        QCOMPARE(readHost(folder + QStringLiteral("/a\\xfe")), QByteArray("fe"));
        QCOMPARE(readHost(folder + QStringLiteral("/a\\\\xff")), QByteArray("lit"));
        QVERIFY(pane->grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/filetree-oddnames.png")));
    }

    void recursiveDownloadSaysWhatItLeftOut()
    {
        QCOMPARE(run("mkdir -p /tmp/ft-tree/skip && cd /tmp/ft-tree/skip && printf abc > f"
                     " && ln -s f link && mkfifo pipe && echo ok"),
                 QByteArray("ok\n"));
        auto log = sbw::CommandLog::open(m_host.filePath(QStringLiteral("skip-log.sqlite")));
        QVERIFY(log.ok());
        auto pane = shownPane(m_sftp, "/tmp/ft-tree");
        pane->setCommandLog(log.value(), QStringLiteral("ws-skip"));
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft-tree"));
        select(*pane, {find(*pane->model(), QStringLiteral("skip"))});
        const QString folder = m_host.filePath(QStringLiteral("skipdl"));
        const auto result = downloadInto(*pane, folder);
        QVERIFY(!result.ok());
        const QString said =
            QStringLiteral(
                "Downloaded /tmp/ft-tree/skip to %1/skip (1 file, 3 bytes), but left out "
                "2 entries: /tmp/ft-tree/skip/link (a symbolic link (links are not "
                "followed)); /tmp/ft-tree/skip/pipe (a named pipe (special files are "
                "not copied))")
                .arg(folder);
        QCOMPARE(result.error().message, said);
        QCOMPARE(pane->statusText(), said);
        QCOMPARE(readHost(folder + QStringLiteral("/skip/f")), QByteArray("abc"));
        QCOMPARE(QDir(folder + QStringLiteral("/skip"))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System),
                 QStringList{QStringLiteral("f")});
        QVERIFY(pane->grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/filetree-skipped.png")));

        // The row is not a plain success and keeps the list.
        sbw::LogFilter filter;
        filter.sandbox = QStringLiteral("ws-skip");
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->first().kind, sbw::ActionKind::Download);
        QCOMPARE(rows->first().outcome, sbw::Outcome::Failed);
        QCOMPARE(rows->first().error, QStringLiteral("left out 2 entries"));
        QCOMPARE(log.value()->output(rows->first().id, sbw::OutputStream::Stdout).value(),
                 QByteArray("/tmp/ft-tree/skip/link (a symbolic link (links are not followed))\n"
                            "/tmp/ft-tree/skip/pipe (a named pipe (special files are not "
                            "copied))\n"));
    }

    void downloadAsksBeforeReplacingAHostFile()
    {
        const QString folder = m_host.filePath(QStringLiteral("replace"));
        QVERIFY(QDir().mkpath(folder));
        const QString hostFile = folder + QStringLiteral("/a.txt");
        {
            QFile file(hostFile);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("host");
        }
        auto pane = shownPane(m_sftp, "/tmp/ft");
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft"));
        select(*pane, {find(*pane->model(), QStringLiteral("a.txt"))});
        QSignalSpy finished(pane.get(), &sbw::FileTreePane::transferFinished);
        const auto answer = [&](QMessageBox::StandardButton button) {
            QMessageBox* box = nullptr;
            QTRY_VERIFY((box = pane->findChild<QMessageBox*>(QStringLiteral("replaceQuestion"))) &&
                        box->isVisible());
            QCOMPARE(box->text(),
                     QStringLiteral("%1 already has a.txt. Replace it with the sandbox's copy?")
                         .arg(folder));
            if (button == QMessageBox::No)
                QVERIFY(box->grab().save(
                    QStringLiteral(SBW_SCREENSHOT_DIR "/filetree-replace-question.png")));
            box->button(button)->click();
        };

        // No keeps the host's file.
        pane->downloadSelected(folder);
        answer(QMessageBox::No);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.last().at(0).value<sbw::Expected<void>>().ok());
        QCOMPARE(
            pane->statusText(),
            QStringLiteral("Nothing downloaded: the host's own copy was kept of /tmp/ft/a.txt"));
        QCOMPARE(readHost(hostFile), QByteArray("host"));

        // Cancel copies nothing.
        pane->downloadSelected(folder);
        answer(QMessageBox::Cancel);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(pane->statusText(), QStringLiteral("Download cancelled: nothing was copied"));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(readHost(hostFile), QByteArray("host"));

        // Yes replaces it.
        pane->downloadSelected(folder);
        answer(QMessageBox::Yes);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(finished.wait(60000));
        QCOMPARE(pane->statusText(),
                 QStringLiteral("Downloaded /tmp/ft/a.txt to %1 (1 file, 5 bytes)").arg(hostFile));
        QCOMPARE(readHost(hostFile), QByteArray("hello"));
    }

    void multiSelectDeletes()
    {
        QCOMPARE(run("mkdir -p /tmp/ft-del && cd /tmp/ft-del && touch x y z && echo ok"),
                 QByteArray("ok\n"));
        auto pane = shownPane(m_sftp, "/tmp/ft-del");
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft-del"));
        select(*pane, {find(*pane->model(), QStringLiteral("x")),
                       find(*pane->model(), QStringLiteral("z"))});
        QSignalSpy finished(pane.get(), &sbw::FileTreePane::transferFinished);
        pane->deleteSelected();
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.first().at(0).value<sbw::Expected<void>>().ok());
        QCOMPARE(pane->statusText(), QStringLiteral("Deleted 2 items"));
        QCOMPARE(run("ls /tmp/ft-del"), QByteArray("y\n"));
        QTRY_COMPARE_WITH_TIMEOUT(names(*pane->model()), QStringList{QStringLiteral("y")}, 60000);
    }

    void refreshReloadsWhatIsShown()
    {
        QCOMPARE(run("mkdir -p /tmp/ft-ref/sub /tmp/ft-ref/gone && touch /tmp/ft-ref/sub/old"
                     " && echo ok"),
                 QByteArray("ok\n"));
        auto pane = shownPane(m_sftp, "/tmp/ft-ref");
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft-ref"));
        const QPersistentModelIndex sub = find(*pane->model(), QStringLiteral("sub"));
        pane->view()->expand(sub);
        QVERIFY(waitLoaded(*pane->model(), "/tmp/ft-ref/sub"));
        select(*pane, {find(*pane->model(), QStringLiteral("gone"))});
        // Made after the first listing; the selected folder goes.
        QCOMPARE(run("touch /tmp/ft-ref/sub/new /tmp/ft-ref/top && rmdir /tmp/ft-ref/gone"
                     " && echo ok"),
                 QByteArray("ok\n"));
        QPushButton* refresh = nullptr;
        for (QPushButton* button : pane->findChildren<QPushButton*>())
            if (button->text() == QStringLiteral("Refresh"))
                refresh = button;
        QVERIFY(refresh);
        refresh->click();
        QTRY_COMPARE_WITH_TIMEOUT(names(*pane->model()),
                                  (QStringList{QStringLiteral("sub"), QStringLiteral("top")}),
                                  60000);
        QTRY_COMPARE_WITH_TIMEOUT(names(*pane->model(), sub),
                                  (QStringList{QStringLiteral("new"), QStringLiteral("old")}),
                                  60000);
        QVERIFY(pane->view()->isExpanded(sub));
        QVERIFY(pane->selectedPaths().isEmpty());
    }

    void deepFoldersSayWhatTheGuestDoesNotList()
    {
        // 20 nested folders of 200 bytes: the 20th's path has 4032 bytes. In it, a file with a
        // short name and a folder whose path (4233 bytes) passes what a Linux guest opens.
        QCOMPARE(run("mkdir -p /tmp/ft-deep && cd /tmp/ft-deep && n=$(printf '%0200d' 0)"
                     " && for i in $(seq 20); do mkdir $n && cd $n || exit; done && mkdir $n"
                     " && printf tiny > short && echo ok"),
                 QByteArray("ok\n"));
        const QByteArray level = '/' + QByteArray(200, '0');
        const QByteArray nineteenth = "/tmp/ft-deep" + level.repeated(19);
        const QByteArray twentieth = nineteenth + level;
        QCOMPARE(twentieth.size(), 4032);
        auto pane = shownPane(m_sftp, nineteenth);
        QVERIFY(waitLoaded(*pane->model(), nineteenth));
        const QModelIndex deep = pane->model()->index(0, 0);
        pane->view()->expand(deep);
        QVERIFY(waitLoaded(*pane->model(), twentieth));
        // Listed beyond the usual limits (4032 bytes), but OpenSSH's sftp-server drops the
        // entries whose path would pass 4095 bytes, and the tree says so.
        QCOMPARE(names(*pane->model(), deep), QStringList{QStringLiteral("short")});
        const QString note =
            QStringLiteral("%1 is near the guest's path limit: entries with names longer than 62 "
                           "bytes are not listed (the guest's SFTP server leaves out paths of "
                           "more than 4095 bytes)")
                .arg(QString::fromLatin1(twentieth));
        QCOMPARE(pane->statusText(), note);

        // A download of the 20th takes what the guest lists and says what it may lack.
        select(*pane, {deep});
        const QString folder = m_host.filePath(QStringLiteral("deep"));
        const auto result = downloadInto(*pane, folder);
        QVERIFY(!result.ok());
        QCOMPARE(
            result.error().message,
            QStringLiteral("Downloaded %1 to %2/%3 (1 file, 4 bytes), but left out 1 entry: "
                           "%1 (entries with names longer than 62 bytes in it are not listed "
                           "by the guest's SFTP server: their paths would pass 4095 bytes)")
                .arg(QString::fromLatin1(twentieth), folder, QString::fromLatin1(level.mid(1))));
        QCOMPARE(readHost(folder + QLatin1Char('/') + QString::fromLatin1(level.mid(1)) +
                          QStringLiteral("/short")),
                 QByteArray("tiny"));

        // A path the guest's kernel would refuse is not sent.
        sbw::FileTreeModel tooDeep(m_sftp, twentieth + level);
        QSignalSpy failed(&tooDeep, &sbw::FileTreeModel::loadFailed);
        tooDeep.fetchMore({});
        QVERIFY(failed.wait(60000));
        QCOMPARE(failed.first().at(1).toString(),
                 QStringLiteral("cannot list %1: its path has 4233 bytes, more than the 4095 a "
                                "Linux guest opens")
                     .arg(QString::fromLatin1(twentieth + level)));
    }

    void stoppedGuestsPageSaysSo()
    {
        sbw::WorkspaceFilesPage page(
            [sftp = m_sftp]() -> sbw::Expected<std::shared_ptr<sbw::SftpClient>> { return sftp; },
            "/tmp/ft");
        page.show();
        QTRY_VERIFY_WITH_TIMEOUT(page.tree(), 60000);
        QCOMPARE(page.statusText(), QString());
        page.showGuestDown(
            QStringLiteral("The workspace is stopped; its files show here while it runs."));
        QVERIFY(!page.tree());
        QCOMPARE(page.statusText(),
                 QStringLiteral("The workspace is stopped; its files show here while it runs."));
        auto* connect = page.findChild<QPushButton*>(QStringLiteral("connectButton"));
        QVERIFY(connect && !connect->isVisible());
        page.connectToGuest();
        QTRY_VERIFY_WITH_TIMEOUT(page.tree(), 60000);
        QCOMPARE(page.statusText(), QString());
    }

    void cleanupTestCase()
    {
        m_sftp.reset();
        m_sandbox.reset();
    }
};

QTEST_MAIN(TestFileTree)
#include "tst_filetree.moc"
