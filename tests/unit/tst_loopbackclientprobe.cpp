// The program behind a loopback connection (LoopbackClientProbe): the probe command, run by a
// real shell against this machine's /proc (the guest's kernel prints the same tables), names the
// process that holds the client end of a real connection; what a guest prints is parsed into a
// name and command line that are safe to show, however hostile.

#include "guest/LoopbackClientProbe.h"

#include <QProcess>
#include <QTcpServer>
#include <QtTest>

using namespace sbw;

class TestLoopbackClientProbe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namesTheProcessHoldingTheClientEnd()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        QProcess client;
        client.start(QStringLiteral("python3"),
                     {QStringLiteral("-c"),
                      QStringLiteral("import socket, time\n"
                                     "s = socket.create_connection(('127.0.0.1', %1))\n"
                                     "print(s.getsockname()[1], flush=True)\n"
                                     "time.sleep(60)\n")
                          .arg(server.serverPort())});
        QVERIFY(client.waitForReadyRead(30000));
        const auto clientPort = quint16(client.readLine().trimmed().toUInt());
        QVERIFY(clientPort != 0);

        QProcess probe;
        probe.start(QStringLiteral("sh"), {QStringLiteral("-c"),
                                           QString::fromLatin1(loopbackClientProbeCommand(clientPort, server.serverPort()))});
        QVERIFY(probe.waitForFinished(30000));
        QCOMPARE(probe.exitCode(), 0);
        const auto program = parseLoopbackClient(probe.readAllStandardOutput());
        const qint64 pid = client.processId();
        client.kill();
        client.waitForFinished();
        QVERIFY(program.has_value());
        QCOMPARE(program->pid, pid);
        QCOMPARE(program->name, QStringLiteral("python3"));
        QVERIFY2(program->commandLine.contains(QStringLiteral("python3 -c import socket, time⏎s = socket.create_connection")),
                 qPrintable(program->commandLine));
        QCOMPARE(program->actorName(clientPort).section(QLatin1Char(':'), 0, 1),
                 QStringLiteral("python3 (pid %1, 127.0.0.1:%2)").arg(pid).arg(clientPort));
    }

    void noConnectionNamesNobody()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        QProcess probe;
        probe.start(QStringLiteral("sh"), {QStringLiteral("-c"),
                                           QString::fromLatin1(loopbackClientProbeCommand(1, server.serverPort()))});
        QVERIFY(probe.waitForFinished(30000));
        QCOMPARE(probe.exitCode(), 0);
        QCOMPARE(probe.readAllStandardOutput(), QByteArray());
        QVERIFY(!parseLoopbackClient(QByteArray()).has_value());
    }

    void hostileNamesAreShownPlainly()
    {
        const auto program = parseLoopbackClient("pid 77\ncomm a\x1b[31m (pid 1\ncmdline rm -rf /\x1b]0;x\x07\nsecond line \n");
        QVERIFY(program.has_value());
        QCOMPARE(program->pid, 77);
        QCOMPARE(program->name, QStringLiteral("a??31m??pid?1"));
        QCOMPARE(program->commandLine, QStringLiteral("rm -rf /\\x1b]0;x\\x07⏎second line (+1 line)"));
        // Markers in the guest's text stay text.
        GuestProgram marked = *program;
        marked.commandLine = QStringLiteral("echo %1 %2");
        QCOMPARE(marked.actorName(4000), QStringLiteral("a??31m??pid?1 (pid 77, 127.0.0.1:4000): echo %1 %2"));
        // The name's " (" never occurs in it, so an actor name gives the name back exactly.
        QCOMPARE(GuestProgram::nameOfActor(program->actorName(4000)), program->name);
        QCOMPARE(GuestProgram::nameOfActor(QStringLiteral("127.0.0.1:4000")), QString());
    }

    void longCommandLinesAreCut()
    {
        const auto program = parseLoopbackClient("pid 5\ncomm pip\ncmdline " + QByteArray(1000, 'x'));
        QVERIFY(program.has_value());
        QCOMPARE(program->commandLine.size(), GuestProgram::kCommandLineChars);
        QVERIFY(program->commandLine.endsWith(QChar(u'…')));
    }
};

QTEST_GUILESS_MAIN(TestLoopbackClientProbe)
#include "tst_loopbackclientprobe.moc"
