// Concurrent channels on the one SSH session of a real microVM, booted once for all cases:
// execs from several threads, PTY shells and SFTP side by side.

#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "guest/ReverseForward.h"
#include "guest/SftpClient.h"
#include "guest/ShellChannel.h"
#include "hypervisor/HypervisorConnection.h"
#include "sandbox/Sandbox.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <future>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace std::chrono_literals;

namespace {

struct Captured
{
    QByteArray out;
    QByteArray err;
    sbw::ExecStatus status;
    QString error;
};

/// A shell whose output is collected in the test's thread.
struct Shell
{
    std::unique_ptr<sbw::ShellChannel> channel;
    QByteArray screen;
    std::optional<std::optional<int>> closedWith;
};

QByteArray sha256(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

/// The host's end of one forwarded connection: reads everything the guest program sends until
/// its EOF, then sends `reply` and closes. Runs on its own thread; the fd is nonblocking.
QByteArray serveForwarded(int fd, const QByteArray& reply)
{
    QByteArray received;
    char buffer[65536];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 60000);
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0)
            break;
        if (n < 0 && errno != EAGAIN)
            return "<recv failed>";
        if (n > 0)
            received.append(buffer, n);
    }
    for (qsizetype at = 0; at < reply.size();) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 60000);
        const ssize_t n = ::send(fd, reply.constData() + at, size_t(reply.size() - at), MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN)
            return "<send failed>";
        at += std::max<ssize_t>(n, 0);
    }
    ::close(fd);
    return received;
}

} // namespace

class TestGuestChannels : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    std::unique_ptr<sbw::SftpClient> m_sftp;
    QTemporaryDir m_host;

    Captured run(const QByteArray& command, std::chrono::milliseconds timeout = 120s)
    {
        Captured captured;
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = timeout;
        request.onStdout = [&](QByteArrayView bytes) { captured.out.append(bytes); };
        request.onStderr = [&](QByteArrayView bytes) { captured.err.append(bytes); };
        auto status = m_sandbox->session().exec(request);
        if (status)
            captured.status = status.value();
        else
            captured.error = status.error().message;
        return captured;
    }

    std::unique_ptr<Shell> openShell(int cols, int rows)
    {
        auto shell = std::make_unique<Shell>();
        shell->channel = m_sandbox->session().openShell(cols, rows);
        Shell* raw = shell.get();
        connect(raw->channel.get(), &sbw::ShellChannel::output, this,
                [raw](const QByteArray& bytes) { raw->screen.append(bytes); });
        connect(raw->channel.get(), &sbw::ShellChannel::closed, this,
                [raw](std::optional<int> status) { raw->closedWith = status; });
        return shell;
    }

    /// Types `line` and waits until `expected` appears in the output that follows.
    static bool typeAndWaitFor(Shell& shell, const QByteArray& line, const QByteArray& expected)
    {
        const qsizetype from = shell.screen.size();
        shell.channel->write(line);
        return QTest::qWaitFor([&] { return shell.screen.indexOf(expected, from) >= 0; }, 30000);
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
    }

    void twoExecsRunAtOnceWithTheirOwnOutputs()
    {
        // Each command waits for the other to start: run one after the other, the first would
        // wait until its timeout killed it.
        Captured a;
        Captured b;
        std::thread other([&] {
            b = run("touch /tmp/rb; until [ -e /tmp/ra ]; do sleep 0.05; done; seq 1 3000 | sed "
                    "s/^/b/; echo bye >&2",
                    60s);
        });
        a = run("touch /tmp/ra; until [ -e /tmp/rb ]; do sleep 0.05; done; seq 1 3000 | sed s/^/a/",
                60s);
        other.join();
        QByteArray expectedA;
        QByteArray expectedB;
        for (int i = 1; i <= 3000; ++i) {
            expectedA += "a" + QByteArray::number(i) + "\n";
            expectedB += "b" + QByteArray::number(i) + "\n";
        }
        QCOMPARE(a.error, QString());
        QCOMPARE(b.error, QString());
        QCOMPARE(a.out, expectedA);
        QCOMPARE(b.out, expectedB);
        QCOMPARE(a.err, QByteArray());
        QCOMPARE(b.err, QByteArray("bye\n"));
        QCOMPARE(a.status.exitStatus, std::optional<int>(0));
        QCOMPARE(b.status.exitStatus, std::optional<int>(0));
        QVERIFY(!a.status.timedOut);
        QVERIFY(!b.status.timedOut);
    }

    void shellRunsTypedCommands()
    {
        auto shell = openShell(80, 24);
        QVERIFY(QTest::qWaitFor([&] { return shell->channel->isOpen(); }, 30000));
        QVERIFY2(typeAndWaitFor(*shell, "echo $((6*7))\n", "42\r\n"), shell->screen.constData());
        QVERIFY2(typeAndWaitFor(*shell, "echo $TERM\n", "xterm-256color\r\n"),
                 shell->screen.constData());
        QVERIFY(!shell->closedWith);
    }

    void resizeReachesThePty()
    {
        auto shell = openShell(80, 24);
        QVERIFY2(typeAndWaitFor(*shell, "stty size\n", "24 80\r\n"), shell->screen.constData());
        shell->channel->resize(132, 43);
        QVERIFY2(typeAndWaitFor(*shell, "stty size\n", "43 132\r\n"), shell->screen.constData());
    }

    void shellExitStatusIsReported()
    {
        auto shell = openShell(80, 24);
        shell->channel->write("exit 7\n");
        QVERIFY(QTest::qWaitFor([&] { return shell->closedWith.has_value(); }, 30000));
        QCOMPARE(*shell->closedWith, std::optional<int>(7));
        QVERIFY(!shell->channel->isOpen());
    }

    void severalShellsStaySeparate()
    {
        auto first = openShell(80, 24);
        auto second = openShell(80, 24);
        QVERIFY(typeAndWaitFor(*first, "echo one$((1+1))\n", "one2\r\n"));
        QVERIFY(typeAndWaitFor(*second, "echo two$((1+2))\n", "two3\r\n"));
        QVERIFY(!first->screen.contains("two3"));
        QVERIFY(!second->screen.contains("one2"));
    }

    void execRunsWhileAShellIsOpenAndIdle()
    {
        auto shell = openShell(80, 24);
        QVERIFY(typeAndWaitFor(*shell, "echo ready$((2*2))\n", "ready4\r\n"));
        Captured c;
        std::thread worker([&] { c = run("echo exec-ok"); });
        QVERIFY(QTest::qWaitFor([&] { return !c.out.isEmpty() || !c.error.isEmpty(); }, 30000));
        worker.join();
        QCOMPARE(c.out, QByteArray("exec-ok\n"));
        QVERIFY(typeAndWaitFor(*shell, "echo still$((3*3))\n", "still9\r\n"));
    }

    void shellStaysLiveDuringATransfer()
    {
        QByteArray big(24 * 1024 * 1024, Qt::Uninitialized);
        QRandomGenerator(7).fillRange(reinterpret_cast<quint32*>(big.data()), big.size() / 4);
        const QString source = m_host.filePath(QStringLiteral("big.bin"));
        QVERIFY(writeAll(source, big));
        auto shell = openShell(80, 24);
        QVERIFY(typeAndWaitFor(*shell, "echo up$((5*5))\n", "up25\r\n"));

        std::atomic_bool uploadDone = false;
        std::atomic<qint64> uploaded = 0;
        sbw::Expected<void> result;
        std::thread worker([&] {
            result = m_sftp->upload(source, "/tmp/big.bin",
                                    [&](qint64 done, qint64) { uploaded = done; });
            uploadDone = true;
        });
        QVERIFY(QTest::qWaitFor([&] { return uploaded > 0; }, 30000));
        QVERIFY(typeAndWaitFor(*shell, "echo during$((6*6))\n", "during36\r\n"));
        const bool answeredBeforeEnd = !uploadDone;
        worker.join();
        QVERIFY2(result.ok(), result ? "" : qPrintable(result.error().message));
        QVERIFY2(answeredBeforeEnd, "the shell answered only after the transfer ended");
        QCOMPARE(run("rm -f /tmp/big.bin; echo ok").out, QByteArray("ok\n"));
    }

    void threeMebibytesRoundTripExactly()
    {
        QByteArray data(3 * 1024 * 1024, Qt::Uninitialized);
        QRandomGenerator(42).fillRange(reinterpret_cast<quint32*>(data.data()), data.size() / 4);
        const QString source = m_host.filePath(QStringLiteral("random.bin"));
        const QString back = m_host.filePath(QStringLiteral("random.back"));
        QVERIFY(writeAll(source, data));

        qint64 lastDone = -1;
        qint64 lastTotal = -1;
        auto up = m_sftp->upload(source, "/tmp/random.bin", [&](qint64 done, qint64 total) {
            lastDone = done;
            lastTotal = total;
        });
        QVERIFY2(up.ok(), up ? "" : qPrintable(up.error().message));
        QCOMPARE(lastDone, data.size());
        QCOMPARE(lastTotal, data.size());
        QCOMPARE(run("sha256sum < /tmp/random.bin").out.left(64), sha256(data));

        auto down = m_sftp->download("/tmp/random.bin", back, [&](qint64 done, qint64 total) {
            lastDone = done;
            lastTotal = total;
        });
        QVERIFY2(down.ok(), down ? "" : qPrintable(down.error().message));
        QCOMPARE(lastDone, data.size());
        QCOMPARE(sha256(readAll(back)), sha256(data));
    }

    void everyByteValueSurvives()
    {
        QByteArray all;
        for (int i = 0; i < 256; ++i)
            all.append(char(i));
        const QString source = m_host.filePath(QStringLiteral("bytes.bin"));
        const QString back = m_host.filePath(QStringLiteral("bytes.back"));
        QVERIFY(writeAll(source, all));
        auto up = m_sftp->upload(source, "/tmp/bytes.bin");
        QVERIFY2(up.ok(), up ? "" : qPrintable(up.error().message));
        QCOMPARE(run("od -An -tx1 -v /tmp/bytes.bin | tr -d ' \\n'").out, all.toHex());
        auto down = m_sftp->download("/tmp/bytes.bin", back);
        QVERIFY2(down.ok(), down ? "" : qPrintable(down.error().message));
        QCOMPARE(readAll(back), all);
    }

    void folderDownloadsRecursively()
    {
        QCOMPARE(run("mkdir -p /tmp/tree/sub/deeper && printf one > /tmp/tree/a && printf two > "
                     "/tmp/tree/sub/b"
                     " && : > /tmp/tree/sub/deeper/empty && ln -s a /tmp/tree/link && echo ok")
                     .out,
                 QByteArray("ok\n"));
        const QString target = m_host.filePath(QStringLiteral("tree"));
        qint64 lastTotal = -1;
        auto down =
            m_sftp->download("/tmp/tree", target, [&](qint64, qint64 total) { lastTotal = total; });
        QVERIFY2(down.ok(), down ? "" : qPrintable(down.error().message));
        QCOMPARE(readAll(target + QStringLiteral("/a")), QByteArray("one"));
        QCOMPARE(readAll(target + QStringLiteral("/sub/b")), QByteArray("two"));
        QCOMPARE(readAll(target + QStringLiteral("/sub/deeper/empty")), QByteArray());
        QVERIFY(!QFileInfo::exists(target + QStringLiteral("/link")));
        QCOMPARE(lastTotal, qint64(6));
        QCOMPARE(down->files, 3);
        QCOMPARE(down->bytes, qint64(6));
        QCOMPARE(down->skipped.size(), 1);
        QCOMPARE(down->skipped.first().guestPath, QByteArray("/tmp/tree/link"));
        QCOMPARE(sbw::skippedReasonText(down->skipped.first()),
                 QStringLiteral("a symbolic link (links are not followed)"));
    }

    void tenThousandEntriesAreListed()
    {
        QCOMPARE(run("mkdir /tmp/many && cd /tmp/many && seq -f 'f%05g' 1 10000 | xargs touch && "
                     "echo ok")
                     .out,
                 QByteArray("ok\n"));
        int batches = 0;
        auto entries = m_sftp->listDirectory("/tmp/many", [&](const QList<sbw::SftpEntry>& batch) {
            ++batches;
            QVERIFY(batch.size() <= 512);
        });
        QVERIFY2(entries.ok(), entries ? "" : qPrintable(entries.error().message));
        QCOMPARE(entries->size(), 10000);
        QSet<QByteArray> names;
        for (const auto& entry : entries.value())
            names.insert(entry.name);
        QCOMPARE(names.size(), 10000);
        QVERIFY(names.contains("f00001"));
        QVERIFY(names.contains("f10000"));
        QVERIFY(batches >= 20);
    }

    void oddNamesComeBackAsRawBytes()
    {
        QCOMPARE(run("mkdir /tmp/odd && cd /tmp/odd && touch \"$(printf "
                     "'new\\nline\\033[31mesc\\377')\" && echo ok")
                     .out,
                 QByteArray("ok\n"));
        auto entries = m_sftp->listDirectory("/tmp/odd");
        QVERIFY2(entries.ok(), entries ? "" : qPrintable(entries.error().message));
        QCOMPARE(entries->size(), 1);
        QCOMPARE(entries->first().name, QByteArray("new\nline\x1b[31mesc\xff"));
    }

    void entriesCarryTheirAttributes()
    {
        QCOMPARE(run("mkdir /tmp/attr && printf abc > /tmp/attr/file && chmod 640 /tmp/attr/file"
                     " && touch -d @1700000000 /tmp/attr/file && mkdir /tmp/attr/dir && ln -s file "
                     "/tmp/attr/link"
                     " && echo ok")
                     .out,
                 QByteArray("ok\n"));
        auto entries = m_sftp->listDirectory("/tmp/attr");
        QVERIFY2(entries.ok(), entries ? "" : qPrintable(entries.error().message));
        QMap<QByteArray, sbw::SftpEntry> byName;
        for (const auto& entry : entries.value())
            byName.insert(entry.name, entry);
        QCOMPARE(byName.keys(), (QList<QByteArray>{"dir", "file", "link"}));
        const sbw::SftpEntry file = byName.value("file");
        QCOMPARE(file.type, sbw::SftpEntry::Type::File);
        QCOMPARE(file.size, qint64(3));
        QCOMPARE(file.mode & 07777, 0640u);
        QCOMPARE(file.owner, QStringLiteral("root"));
        QCOMPARE(file.group, QStringLiteral("root"));
        QCOMPARE(file.uid, 0u);
        QCOMPARE(file.mtime, QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC));
        QCOMPARE(byName.value("dir").type, sbw::SftpEntry::Type::Directory);
        QCOMPARE(byName.value("link").type, sbw::SftpEntry::Type::Symlink);

        auto viaLink = m_sftp->stat("/tmp/attr/link");
        QVERIFY(viaLink.ok());
        QCOMPARE(viaLink->type, sbw::SftpEntry::Type::File);
        QCOMPARE(viaLink->name, QByteArray("link"));
        QCOMPARE(m_sftp->realpath("/tmp/attr/dir/../link").value(), QByteArray("/tmp/attr/file"));
    }

    void mkdirAndRemove()
    {
        QVERIFY(m_sftp->mkdir("/tmp/made").ok());
        QCOMPARE(run("test -d /tmp/made && echo yes").out, QByteArray("yes\n"));
        QVERIFY(m_sftp->remove("/tmp/made").ok());
        QVERIFY(m_sftp->remove("/tmp/bytes.bin").ok());
        QCOMPARE(run("ls /tmp/made /tmp/bytes.bin 2>&1 | wc -l").out, QByteArray("2\n"));
    }

    void errorsAreSentences()
    {
        auto missing = m_sftp->listDirectory("/tmp/nothing-here");
        QVERIFY(!missing.ok());
        QCOMPARE(
            missing.error().message,
            QStringLiteral(
                "cannot list /tmp/nothing-here: there is no such file or folder in the guest"));
        auto stat = m_sftp->stat("/tmp/nothing-here");
        QCOMPARE(stat.error().message,
                 QStringLiteral("cannot read the attributes of /tmp/nothing-here: there is "
                                "no such file or folder in the guest"));
        // The guest's SFTP server runs as root; a read-only sysctl (mode 0444) refuses even root.
        auto denied =
            m_sftp->upload(m_host.filePath(QStringLiteral("random.bin")), "/proc/sys/fs/file-nr");
        QVERIFY(!denied.ok());
        QCOMPARE(
            denied.error().message,
            QStringLiteral("cannot write /proc/sys/fs/file-nr: permission denied in the guest"));
        auto notEmpty = m_sftp->remove("/tmp/odd");
        QVERIFY(!notEmpty.ok());
        QVERIFY2(notEmpty.error().message.startsWith(QStringLiteral("cannot remove /tmp/odd: ")),
                 qPrintable(notEmpty.error().message));
        QCOMPARE(
            m_sftp->download("/tmp/nothing-here", m_host.filePath(QStringLiteral("x")))
                .error()
                .message,
            QStringLiteral(
                "cannot download /tmp/nothing-here: there is no such file or folder in the guest"));
    }

    void reverseForwardCarriesBytesBothWays()
    {
        std::promise<std::pair<int, quint16>> accepted;
        auto forward = m_sandbox->session().listenForward(0, [&](int fd, quint16 sourcePort) {
            accepted.set_value({fd, sourcePort});
        });
        QVERIFY2(forward.ok(), forward ? "" : qPrintable(forward.error().message));
        const quint16 port = forward.value()->port();
        QVERIFY(port != 0);

        QByteArray reply(5 * 1024 * 1024 + 3, Qt::Uninitialized);
        QRandomGenerator(7).fillRange(reinterpret_cast<quint32*>(reply.data()), reply.size() / 4);
        QVERIFY(run("head -c 3145731 /dev/urandom >/tmp/up").status.exitStatus == 0);
        auto hostEnd = std::async(std::launch::async, [&] {
            const auto [fd, sourcePort] = accepted.get_future().get();
            return std::pair(serveForwarded(fd, reply), sourcePort);
        });
        const QByteArray program = QStringLiteral(
            "import socket, hashlib\n"
            "s = socket.create_connection(('127.0.0.1', %1))\n"
            "print(s.getsockname()[1])\n"
            "s.sendall(open('/tmp/up', 'rb').read()); s.shutdown(socket.SHUT_WR)\n"
            "h = hashlib.sha256(); n = 0\n"
            "while (b := s.recv(65536)): h.update(b); n += len(b)\n"
            "print(n, h.hexdigest())\n").arg(port).toUtf8();
        sbw::ExecRequest request;
        request.command = "python3 -";
        request.stdinData = program;
        request.timeout = 300s;
        QByteArray out;
        request.onStdout = [&](QByteArrayView bytes) { out.append(bytes); };
        const auto status = m_sandbox->session().exec(request);
        QVERIFY2(status.ok(), status ? "" : qPrintable(status.error().message));
        QCOMPARE(status.value().exitStatus, 0);
        const auto [received, sourcePort] = hostEnd.get();
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0].toUShort(), sourcePort);
        QCOMPARE(lines[1], QByteArray::number(reply.size()) + ' ' + sha256(reply));
        QCOMPARE(received.size(), 3145731);
        QCOMPARE(run("sha256sum < /tmp/up").out.left(64), sha256(received));
    }

    void reverseForwardPortTakenIsAnError()
    {
        auto first = m_sandbox->session().listenForward(0, [](int fd, quint16) { ::close(fd); });
        QVERIFY2(first.ok(), first ? "" : qPrintable(first.error().message));
        auto second = m_sandbox->session().listenForward(first.value()->port(), [](int fd, quint16) { ::close(fd); });
        QVERIFY(!second.ok());
        QVERIFY2(second.error().message.startsWith(
                     QStringLiteral("the guest refused to listen on 127.0.0.1:%1").arg(first.value()->port())),
                 qPrintable(second.error().message));
    }

    void sessionEndClosesShells()
    {
        auto shell = openShell(80, 24);
        QVERIFY(typeAndWaitFor(*shell, "echo last$((4*4))\n", "last16\r\n"));
        QSignalSpy errors(shell->channel.get(), &sbw::ShellChannel::errorOccurred);
        m_sftp.reset();
        m_sandbox.reset();
        QVERIFY(QTest::qWaitFor([&] { return shell->closedWith.has_value(); }, 30000));
        QCOMPARE(*shell->closedWith, std::nullopt);
        QCOMPARE(errors.size(), 1);
    }

    void cleanupTestCase()
    {
        m_sftp.reset();
        m_sandbox.reset();
    }
};

QTEST_GUILESS_MAIN(TestGuestChannels)
#include "tst_guestchannels.moc"
