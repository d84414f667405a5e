// AsciicastRecorder writes asciicast v2 files: exact header and event lines, and valid UTF-8
// JSON whatever bytes the guest sends, also when a character is split across chunks.

#include "log/AsciicastRecorder.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using sbw::AsciicastRecorder;

namespace {

/// A clock that returns `times` one after the other.
AsciicastRecorder::Clock steppingClock(QList<double> times)
{
    auto next = std::make_shared<qsizetype>(0);
    return [times, next] { return times.at(std::min(times.size() - 1, (*next)++)); };
}

QList<QByteArray> fileLines(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray contents = file.readAll();
    if (!contents.endsWith('\n'))
        return {};
    contents.chop(1);
    return contents.split('\n');
}

QJsonArray parseEvent(const QByteArray& line)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isArray())
        qWarning() << "not a JSON array:" << line << error.errorString();
    return document.array();
}

} // namespace

class TestAsciicastRecorder : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void writesExactFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("exact/session.cast"));
        auto recorder =
            AsciicastRecorder::create(path, 80, 24, QDateTime::fromSecsSinceEpoch(1'700'000'000),
                                      steppingClock({0.5, 1.25, 2.0, 3.0000004}));
        QVERIFY2(recorder.ok(), recorder ? "" : qPrintable(recorder.error().message));
        recorder.value()->output("hello \x1b[1m\"world\"\x1b[0m\r\n");
        recorder.value()->input("ls\r");
        recorder.value()->resize(100, 30);
        recorder.value()->output("\xe2\x82\xac\t\\");
        recorder.value().reset();

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(),
                 QByteArray("{\"env\":{\"TERM\":\"xterm-256color\"},\"height\":24,"
                            "\"timestamp\":1700000000,\"version\":2,\"width\":80}\n"
                            "[0.5,\"o\",\"hello \\u001b[1m\\\"world\\\"\\u001b[0m\\r\\n\"]\n"
                            "[1.25,\"i\",\"ls\\r\"]\n"
                            "[2,\"r\",\"100x30\"]\n"
                            "[3,\"o\",\"\xe2\x82\xac\\t\\\\\"]\n"));

        const QList<QByteArray> lines = fileLines(path);
        QCOMPARE(lines.size(), 5);
        const QJsonObject header = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(header.value(QStringLiteral("version")).toInt(), 2);
        QCOMPARE(header.value(QStringLiteral("width")).toInt(), 80);
        QCOMPARE(header.value(QStringLiteral("height")).toInt(), 24);
        QCOMPARE(header.value(QStringLiteral("timestamp")).toInteger(), 1'700'000'000);
        QCOMPARE(
            header.value(QStringLiteral("env")).toObject().value(QStringLiteral("TERM")).toString(),
            QStringLiteral("xterm-256color"));
        QCOMPARE(parseEvent(lines[1]),
                 (QJsonArray{0.5, QStringLiteral("o"),
                             QStringLiteral("hello \x1b[1m\"world\"\x1b[0m\r\n")}));
        QCOMPARE(parseEvent(lines[2]),
                 (QJsonArray{1.25, QStringLiteral("i"), QStringLiteral("ls\r")}));
        QCOMPARE(parseEvent(lines[3]),
                 (QJsonArray{2, QStringLiteral("r"), QStringLiteral("100x30")}));
        QCOMPARE(parseEvent(lines[4]),
                 (QJsonArray{3, QStringLiteral("o"), QStringLiteral("€\t\\")}));
    }

    void invalidUtf8BecomesValidJson()
    {
        const QString path = m_dir.filePath(QStringLiteral("invalid.cast"));
        auto recorder = AsciicastRecorder::create(path, 80, 24, QDateTime::currentDateTimeUtc(),
                                                  steppingClock({1.0}));
        QVERIFY(recorder.ok());
        recorder.value()->output("a\xe2\x82"); // "€" cut after two of its three bytes
        recorder.value()->output("\xac"
                                 "b"); // … completed here
        recorder.value()->output("\xff\xfe"
                                 "c");            // bytes that are never UTF-8
        recorder.value()->output("\xe2");         // a lead byte alone …
        recorder.value()->output("x");            // … interrupted: U+FFFD, and x is kept
        recorder.value()->output("\xf0\x9f\x98"); // "😀" cut, then the stream ends
        recorder.value()->finish();

        QString output;
        const QList<QByteArray> lines = fileLines(path);
        QVERIFY(lines.size() > 1);
        for (const QByteArray& line : lines.mid(1)) {
            const QJsonArray parsed = parseEvent(line);
            QCOMPARE(parsed.size(), 3);
            QCOMPARE(parsed.at(1).toString(), QStringLiteral("o"));
            QVERIFY(!parsed.at(2).toString().isEmpty());
            output += parsed.at(2).toString();
        }
        QCOMPARE(output, QStringLiteral("a€b\uFFFD\uFFFDc\uFFFDx\uFFFD"));
        QCOMPARE(parseEvent(lines[1]).at(2).toString(), QStringLiteral("a"));
        QCOMPARE(parseEvent(lines[2]).at(2).toString(), QStringLiteral("€b"));
    }

    void defaultPathIsUnderTheDataFolder()
    {
        qputenv("XDG_DATA_HOME", m_dir.path().toUtf8());
        const QString path = AsciicastRecorder::defaultPath(
            QStringLiteral("sbw-run-1"), QStringLiteral("tab 1/../x"),
            QDateTime::fromSecsSinceEpoch(1'700'000'000, Qt::UTC));
        QCOMPARE(path, m_dir.path() + QStringLiteral("/sandbox-workbench/recordings/sbw-run-1/"
                                                     "20231114-221320-tab_1_.._x.cast"));
        auto recorder = AsciicastRecorder::create(path, 80, 24, QDateTime::currentDateTimeUtc());
        QVERIFY2(recorder.ok(), recorder ? "" : qPrintable(recorder.error().message));
        QVERIFY(QFileInfo::exists(path));
        const QFile::Permissions folder = QFileInfo(QFileInfo(path).absolutePath()).permissions();
        QCOMPARE(folder & (QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner),
                 QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QCOMPARE(folder & (QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                           QFile::ReadOther | QFile::WriteOther | QFile::ExeOther),
                 QFile::Permissions());
    }

    void unwritableFolderIsAnError()
    {
        auto recorder = AsciicastRecorder::create(QStringLiteral("/proc/sbw/x.cast"), 80, 24,
                                                  QDateTime::currentDateTimeUtc());
        QVERIFY(!recorder.ok());
        QVERIFY(recorder.error().message.startsWith(
            QStringLiteral("cannot create the recordings folder")));
    }
};

QTEST_GUILESS_MAIN(TestAsciicastRecorder)
#include "tst_asciicastrecorder.moc"
