#include "log/AsciicastRecorder.h"

#include "base/DataPaths.h"
#include "base/Logging.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
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

} // namespace

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
