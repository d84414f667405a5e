#include "AsciicastRecorder.h"

#include "DataPaths.h"
#include "Logging.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringDecoder>
#include <cmath>

namespace sbw {
namespace {

QString fileNamePart(const QString& text)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]"));
    QString part = QString(text).replace(unsafe, QStringLiteral("_")).left(64);
    if (part.isEmpty() || part.startsWith(QLatin1Char('.')))
        part.prepend(QLatin1Char('_'));
    return part;
}

/// Length of the UTF-8 sequence `byte` starts; 0 when it cannot start a multi-byte sequence.
int sequenceLength(unsigned char byte)
{
    if (byte >= 0xc2 && byte <= 0xdf)
        return 2;
    if (byte >= 0xe0 && byte <= 0xef)
        return 3;
    if (byte >= 0xf0 && byte <= 0xf4)
        return 4;
    return 0;
}

/// Where an incomplete multi-byte sequence at the end of `data` starts, or data.size().
qsizetype incompleteTail(QByteArrayView data)
{
    qsizetype start = data.size();
    while (start > 0 && data.size() - start < 3 && (uchar(data[start - 1]) & 0xc0) == 0x80)
        --start;
    if (start == 0)
        return data.size();
    const qsizetype lead = start - 1;
    return sequenceLength(uchar(data[lead])) > data.size() - lead ? lead : data.size();
}

QString decodeComplete(QByteArrayView bytes)
{
    // Stateless: Qt 6.4's stateful decoder drops the byte that interrupts a sequence left
    // incomplete by the previous call, so incomplete tails are carried by hand instead.
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless |
                                                     QStringDecoder::Flag::ConvertInitialBom);
    return decoder.decode(bytes);
}

} // namespace

QString AsciicastRecorder::StreamDecoder::decode(QByteArrayView bytes)
{
    const QByteArray data = m_pending + bytes.toByteArray();
    const qsizetype cut = incompleteTail(data);
    m_pending = data.sliced(cut);
    return decodeComplete(QByteArrayView(data).first(cut));
}

QString AsciicastRecorder::StreamDecoder::finish()
{
    // What is pending is the valid start of one character: it stands for one U+FFFD.
    return std::exchange(m_pending, {}).isEmpty() ? QString()
                                                  : QString(QChar::ReplacementCharacter);
}

QString AsciicastRecorder::defaultPath(const QString& sandbox, const QString& tab,
                                       const QDateTime& start)
{
    return QStringLiteral("%1/recordings/%2/%3-%4.cast")
        .arg(paths::dataDir(), fileNamePart(sandbox),
             start.toUTC().toString(QStringLiteral("yyyyMMdd-HHmmss")), fileNamePart(tab));
}

Expected<std::unique_ptr<AsciicastRecorder>> AsciicastRecorder::create(const QString& path,
                                                                       int cols, int rows,
                                                                       const QDateTime& start,
                                                                       Clock clock)
{
    if (!paths::ensureDir(QFileInfo(path).absolutePath()))
        return makeError(QStringLiteral("cannot create the recordings folder %1")
                             .arg(QFileInfo(path).absolutePath()));
    if (!clock) {
        auto timer = std::make_shared<QElapsedTimer>();
        timer->start();
        clock = [timer] { return double(timer->nsecsElapsed()) / 1e9; };
    }
    std::unique_ptr<AsciicastRecorder> recorder(new AsciicastRecorder(path, std::move(clock)));
    if (!recorder->m_file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return makeError(QStringLiteral("cannot create the recording %1: %2")
                             .arg(path, recorder->m_file.errorString()));
    const QJsonObject header{
        {QStringLiteral("version"), 2},
        {QStringLiteral("width"), cols},
        {QStringLiteral("height"), rows},
        {QStringLiteral("timestamp"), start.toSecsSinceEpoch()},
        {QStringLiteral("env"),
         QJsonObject{{QStringLiteral("TERM"), QStringLiteral("xterm-256color")}}},
    };
    if (!recorder->writeLine(QJsonDocument(header).toJson(QJsonDocument::Compact)))
        return makeError(QStringLiteral("cannot write the recording %1: %2")
                             .arg(path, recorder->m_file.errorString()));
    return recorder;
}

AsciicastRecorder::AsciicastRecorder(const QString& path, Clock clock)
    : m_file(path), m_clock(std::move(clock))
{}

AsciicastRecorder::~AsciicastRecorder()
{
    finish();
}

void AsciicastRecorder::output(QByteArrayView bytes)
{
    writeEvent("o", m_outputDecoder.decode(bytes));
}

void AsciicastRecorder::input(QByteArrayView bytes)
{
    writeEvent("i", m_inputDecoder.decode(bytes));
}

void AsciicastRecorder::resize(int cols, int rows)
{
    writeEvent("r", QStringLiteral("%1x%2").arg(cols).arg(rows));
}

void AsciicastRecorder::finish()
{
    if (!m_file.isOpen())
        return;
    writeEvent("o", m_outputDecoder.finish());
    writeEvent("i", m_inputDecoder.finish());
    m_file.close();
}

void AsciicastRecorder::writeEvent(const char* type, const QString& data)
{
    if (data.isEmpty() || !m_file.isOpen() || m_failed)
        return;
    const double seconds = std::round(std::max(0.0, m_clock()) * 1e6) / 1e6;
    const QJsonArray event{seconds, QLatin1String(type), data};
    if (!writeLine(QJsonDocument(event).toJson(QJsonDocument::Compact))) {
        m_failed = true;
        qCWarning(lcRun) << "recording stopped: cannot write" << path() << m_file.errorString();
    }
}

bool AsciicastRecorder::writeLine(const QByteArray& line)
{
    return m_file.write(line + '\n') == line.size() + 1 && m_file.flush();
}

} // namespace sbw
