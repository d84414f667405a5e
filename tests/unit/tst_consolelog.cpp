// ConsoleLog follows a console log file as virtlogd writes it: what is there when it opens,
// what is appended later, the file started afresh by a new start of the domain, and a rotation
// (the file renamed away and a new one begun) without losing the old file's last bytes.

#include "hypervisor/ConsoleLog.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace {

void append(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestConsoleLog : public QObject
{
    Q_OBJECT

    QByteArray m_seen;

private Q_SLOTS:
    void followsTheFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sbw-ws-a.console.log"));
        append(path, "booting\r\n");
        sbw::ConsoleLog log;
        connect(&log, &sbw::ConsoleLog::received, this,
                [this](const QByteArray& bytes) { m_seen += bytes; });
        QVERIFY(log.open(path).ok());
        QCOMPARE(m_seen, QByteArray("booting\r\n"));

        append(path, "sbw-guest: ready\r\n");
        QTRY_COMPARE(m_seen, QByteArray("booting\r\nsbw-guest: ready\r\n"));

        // Rotation: the rest of the old file, then the new one from its start.
        append(path, "old tail\r\n");
        QVERIFY(QFile::rename(path, path + QStringLiteral(".0")));
        append(path, "new head\r\n");
        QTRY_COMPARE(m_seen, QByteArray("booting\r\nsbw-guest: ready\r\nold tail\r\nnew head\r\n"));

        // Truncated by a new start of the domain: read again from its start.
        m_seen.clear();
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QCOMPARE(file.write("again\r\n"), 7);
        }
        QTRY_COMPARE(m_seen, QByteArray("again\r\n"));

        log.close();
        QVERIFY(!log.isOpen());
    }

    void missingFileIsAnError()
    {
        sbw::ConsoleLog log;
        const auto opened = log.open(QStringLiteral("/nonexistent/sbw-ws-b.console.log"));
        QVERIFY(!opened.ok());
        QCOMPARE(opened.error().message,
                 QStringLiteral("cannot read the console log /nonexistent/sbw-ws-b.console.log: "
                                "No such file or directory"));
    }
};

QTEST_GUILESS_MAIN(TestConsoleLog)
#include "tst_consolelog.moc"
